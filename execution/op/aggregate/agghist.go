package aggregate

import (
	"encoding/binary"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/types"
)

// histAgg is HISTOGRAM(x [, max_buckets]) (alias HIST): Doris's
// equi-height histogram as JSON text,
//
//	{"num_buckets":2,"buckets":[{"lower":"0","upper":"0","ndv":1,"count":4,"pre_sum":0},…]}
//
// built as Doris's value_to_bucket does: values in order, at most
// ceil(n / max_buckets) per bucket, a value never split across buckets.
// NULLs are skipped. The partial state is max_buckets then the values'
// texts, as collect_list keeps them.
type histAgg struct {
	collectAgg
	n    int64
	hasN bool
}

func (a *histAgg) update(gids []int32, args []arrow.Array) {
	if !a.hasN && len(args) > 1 {
		if n, ok := constFloat(args[1]); ok && n >= 1 {
			a.n, a.hasN = int64(n), true
		}
	}
	a.collectAgg.update(gids, args[:1])
}

func (a *histAgg) merge(gids []int32, states []arrow.Array) {
	sc := states[0].(*array.String)
	for i, g := range gids {
		if sc.IsNull(i) {
			continue
		}
		b := []byte(sc.Value(i))
		n, k := binary.Varint(b)
		if k <= 0 {
			continue
		}
		a.n = n
		eachPrefixed(b[k:], func(v string) { a.add(g, v) })
	}
}

func (a *histAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	out := make([]string, to-from)
	for i := range out {
		out[i] = string(appendPrefixed(binary.AppendVarint(nil, a.n), a.vals[from+i]))
	}
	return []arrow.Array{buildStrings(mem, out, nil)}
}

type histBucket struct {
	lower, upper            types.Datum
	count, preSum, distinct int64
}

func (a *histAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	out := make([]string, to-from)
	for i := range out {
		vals := make([]types.Datum, 0, len(a.vals[from+i]))
		for _, v := range a.vals[from+i] {
			if d := elemDatum(v, a.argT); !d.Null {
				vals = append(vals, d)
			}
		}
		slices.SortStableFunc(vals, types.Compare)
		per := (int64(len(vals)) + a.n - 1) / max(a.n, 1)
		var bs []histBucket
		for _, v := range vals {
			switch last := len(bs) - 1; {
			case last < 0:
				bs = append(bs, histBucket{lower: v, upper: v, count: 1, distinct: 1})
			case types.Compare(bs[last].upper, v) == 0:
				bs[last].count++
			case bs[last].count < per:
				bs[last].count++
				bs[last].distinct++
				bs[last].upper = v
			default:
				bs = append(bs, histBucket{lower: v, upper: v, count: 1, distinct: 1, preSum: bs[last].preSum + bs[last].count})
			}
		}
		var sb strings.Builder
		sb.WriteString(`{"num_buckets":` + strconv.Itoa(len(bs)) + `,"buckets":[`)
		for k, b := range bs {
			if k > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(`{"lower":` + jsonText(b.lower.String()) + `,"upper":` + jsonText(b.upper.String()) + `,"ndv":` + strconv.FormatInt(b.distinct, 10) +
				`,"count":` + strconv.FormatInt(b.count, 10) + `,"pre_sum":` + strconv.FormatInt(b.preSum, 10) + `}`)
		}
		sb.WriteString("]}")
		out[i] = sb.String()
	}
	return buildStrings(mem, out, nil)
}

// jsonText is s as a JSON string, without HTML escaping (as rapidjson).
func jsonText(s string) string {
	var b strings.Builder
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}
