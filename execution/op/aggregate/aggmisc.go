package aggregate

import (
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/sql/types"
)

// GROUP_BIT_AND/OR/XOR, MAX_BY/MIN_BY, TOPN, COLLECT_LIST/COLLECT_SET.

type bitOp uint8

const (
	bitAnd bitOp = iota
	bitOr
	bitXor
)

// bitAgg folds integers bitwise; its partial state is its result column.
type bitAgg struct {
	t    types.T
	op   bitOp
	has  []bool
	v    []int64
	ibuf []int64
}

func (a *bitAgg) resize(g int) { a.has = resizeSlice(a.has, g); a.v = resizeSlice(a.v, g) }

func (a *bitAgg) update(gids []int32, args []arrow.Array) {
	col := args[0]
	if col.DataType().ID() == arrow.NULL {
		return
	}
	vs := int64Values(col, a.ibuf)
	a.ibuf = vs
	nulls := col.NullN() > 0
	for i, g := range gids {
		if nulls && col.IsNull(i) {
			continue
		}
		if !a.has[g] {
			a.v[g], a.has[g] = vs[i], true
			continue
		}
		switch a.op {
		case bitAnd:
			a.v[g] &= vs[i]
		case bitOr:
			a.v[g] |= vs[i]
		default:
			a.v[g] ^= vs[i]
		}
	}
}

func (a *bitAgg) merge(gids []int32, states []arrow.Array) { a.update(gids, states) }
func (a *bitAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	return []arrow.Array{a.finalize(mem, from, to)}
}
func (a *bitAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	return buildInts(mem, a.t, a.v[from:to], a.has[from:to])
}
func (a *bitAgg) memBytes() int64 { return int64(cap(a.has) + cap(a.v)*8) }

// byAgg is MAX_BY(x, y) / MIN_BY(x, y): x of the row with the largest
// (smallest) non-NULL y, the first such row on ties (within an instance;
// across instances a tie goes to the first state merged). It keeps datums;
// its partial state is x and y encoded (appendDatum), NULL for no row.
type byAgg struct {
	t     types.T
	max   bool
	has   []bool
	x, y  []types.Datum
	bytes int64 // string bytes the datums hold
}

func (a *byAgg) resize(g int) {
	a.has = resizeSlice(a.has, g)
	a.x, a.y = resizeSlice(a.x, g), resizeSlice(a.y, g)
}

// ownDatum copies a string datum's bytes out of the batch it points into.
func ownDatum(d types.Datum) types.Datum {
	d.S = strings.Clone(d.S)
	return d
}

func (a *byAgg) update(gids []int32, args []arrow.Array) {
	xc, yc := args[0], args[1]
	if yc.DataType().ID() == arrow.NULL {
		return
	}
	yt := types.DoubleT // Compare orders by value; the kind only picks the family
	switch {
	case arrowIsString(yc):
		yt = types.StringT
	case yc.DataType().ID() == arrow.DATE32:
		yt = types.DateT
	case yc.DataType().ID() == arrow.TIMESTAMP:
		yt = types.DateTimeT
	case yc.DataType().ID() == arrow.DECIMAL128:
		dt := yc.DataType().(*arrow.Decimal128Type)
		yt = types.DecimalT(int(dt.Precision), int(dt.Scale))
	case yc.DataType().ID() != arrow.FLOAT64 && yc.DataType().ID() != arrow.FLOAT32:
		yt = types.BigIntT
	}
	for i, g := range gids {
		if yc.IsNull(i) {
			continue
		}
		y := types.DatumAt(yc, i, yt)
		if a.better(g, y) {
			a.set(g, types.DatumAt(xc, i, a.t), y)
		}
	}
}

func (a *byAgg) better(g int32, y types.Datum) bool {
	if !a.has[g] {
		return true
	}
	c := types.Compare(y, a.y[g])
	return a.max && c > 0 || !a.max && c < 0
}

func (a *byAgg) set(g int32, x, y types.Datum) {
	a.has[g] = true
	a.bytes -= int64(len(a.x[g].S) + len(a.y[g].S))
	a.y[g] = ownDatum(y)
	a.x[g] = ownDatum(x)
	a.bytes += int64(len(a.x[g].S) + len(a.y[g].S))
}

// appendDatum encodes a datum for a partial state: kind, precision,
// scale, NULL flag, I, F, the decimal's two halves, then S.
func appendDatum(b []byte, d types.Datum) []byte {
	null := byte(0)
	if d.Null {
		null = 1
	}
	b = append(b, byte(d.T.Kind), byte(d.T.Precision), byte(d.T.Scale), null)
	b = binary.LittleEndian.AppendUint64(b, uint64(d.I))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(d.F))
	b = binary.LittleEndian.AppendUint64(b, d.Dec.LowBits())
	b = binary.LittleEndian.AppendUint64(b, uint64(d.Dec.HighBits()))
	b = binary.AppendUvarint(b, uint64(len(d.S)))
	return append(b, d.S...)
}

// readDatum decodes appendDatum's output; ok false if b is too short.
func readDatum(b []byte) (d types.Datum, rest []byte, ok bool) {
	if len(b) < 36 {
		return d, nil, false
	}
	d.T = types.T{Kind: types.Kind(b[0]), Precision: int(b[1]), Scale: int(b[2])}
	d.Null = b[3] == 1
	d.I = int64(binary.LittleEndian.Uint64(b[4:]))
	d.F = math.Float64frombits(binary.LittleEndian.Uint64(b[12:]))
	d.Dec = decimal128.New(int64(binary.LittleEndian.Uint64(b[28:])), binary.LittleEndian.Uint64(b[20:]))
	n, k := binary.Uvarint(b[36:])
	if k <= 0 || uint64(len(b)-36-k) < n {
		return d, nil, false
	}
	d.S = string(b[36+k : 36+k+int(n)])
	return d, b[36+k+int(n):], true
}

func (a *byAgg) merge(gids []int32, states []arrow.Array) {
	sc, ok := states[0].(*array.String)
	if !ok {
		return
	}
	for i, g := range gids {
		if sc.IsNull(i) {
			continue
		}
		x, rest, ok := readDatum([]byte(sc.Value(i)))
		if !ok {
			continue
		}
		y, _, ok := readDatum(rest)
		if ok && a.better(g, y) {
			a.set(g, x, y)
		}
	}
}

func (a *byAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	out := make([]string, to-from)
	for i := range out {
		if g := from + i; a.has[g] {
			out[i] = string(appendDatum(appendDatum(nil, a.x[g]), a.y[g]))
		}
	}
	return []arrow.Array{buildStrings(mem, out, a.has[from:to])}
}

func arrowIsString(c arrow.Array) bool { _, ok := c.(*array.String); return ok }

func (a *byAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	b := array.NewBuilder(mem, a.t.Arrow())
	defer b.Release()
	for g := from; g < to; g++ {
		if a.has[g] {
			types.AppendDatum(b, a.x[g])
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray()
}
func (a *byAgg) memBytes() int64 { return int64(cap(a.has)+2*cap(a.x)*96) + a.bytes }

// textOf renders row i of col as collect_list and topn show a value.
func textOf(col arrow.Array, i int, t types.T) string {
	if sc, ok := col.(*array.String); ok {
		return sc.Value(i)
	}
	return types.DatumAt(col, i, t).String()
}

// topnAgg is TOPN(x, n [, space]): the n most frequent values with their
// counts, as Doris's JSON-looking text {"v":count,...}, most frequent first
// (ties by value). It counts exactly (Doris's space-saving sketch is
// approximate); the partial state is n and the counts.
type topnAgg struct {
	argT   types.T
	n      int64
	hasN   bool
	counts []map[string]int64
	bytes  int64
}

func (a *topnAgg) resize(g int) { a.counts = resizeSlice(a.counts, g) }

func (a *topnAgg) add(g int32, v string, c int64) {
	m := a.counts[g]
	if m == nil {
		m = map[string]int64{}
		a.counts[g] = m
	}
	if _, ok := m[v]; !ok {
		v = strings.Clone(v)
		a.bytes += int64(len(v)) + 48
	}
	m[v] += c
}

func (a *topnAgg) update(gids []int32, args []arrow.Array) {
	col := args[0]
	if !a.hasN {
		if n, ok := constFloat(args[1]); ok {
			a.n, a.hasN = int64(n), true
		}
	}
	if col.DataType().ID() == arrow.NULL || !a.hasN {
		return
	}
	for i, g := range gids {
		if col.IsValid(i) {
			a.add(g, textOf(col, i, a.argT), 1)
		}
	}
}

func (a *topnAgg) merge(gids []int32, states []arrow.Array) {
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
		a.n, a.hasN = n, true
		for b = b[k:]; len(b) > 0; {
			l, k := binary.Uvarint(b)
			if k <= 0 || uint64(len(b)-k) < l {
				break
			}
			v := string(b[k : k+int(l)])
			b = b[k+int(l):]
			c, k2 := binary.Varint(b)
			if k2 <= 0 {
				break
			}
			b = b[k2:]
			a.add(g, v, c)
		}
	}
}

func (a *topnAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	out := make([]string, to-from)
	valid := make([]bool, to-from)
	for i := range out {
		if !a.hasN {
			continue
		}
		b := binary.AppendVarint(nil, a.n)
		for v, c := range a.counts[from+i] {
			b = binary.AppendUvarint(b, uint64(len(v)))
			b = append(b, v...)
			b = binary.AppendVarint(b, c)
		}
		out[i], valid[i] = string(b), true
	}
	return []arrow.Array{buildStrings(mem, out, valid)}
}

func (a *topnAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	out := make([]string, to-from)
	valid := make([]bool, to-from)
	type vc struct {
		v string
		c int64
	}
	for i := range out {
		m := a.counts[from+i]
		if len(m) == 0 {
			continue
		}
		es := make([]vc, 0, len(m))
		for v, c := range m {
			es = append(es, vc{v, c})
		}
		slices.SortFunc(es, func(x, y vc) int {
			if c := cmp.Compare(y.c, x.c); c != 0 {
				return c
			}
			return strings.Compare(x.v, y.v)
		})
		if int64(len(es)) > a.n {
			es = es[:max(a.n, 0)]
		}
		var sb strings.Builder
		sb.WriteByte('{')
		for j, e := range es {
			if j > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(strconv.Quote(e.v))
			sb.WriteByte(':')
			sb.WriteString(strconv.FormatInt(e.c, 10))
		}
		sb.WriteByte('}')
		out[i], valid[i] = sb.String(), true
	}
	return buildStrings(mem, out, valid)
}

func (a *topnAgg) memBytes() int64 { return int64(cap(a.counts)*8) + a.bytes }

// collectAgg is COLLECT_LIST(x) / COLLECT_SET(x) (ARRAY_AGG = COLLECT_LIST):
// an ARRAY of x's type; NULLs are skipped; a group without values gives
// []. Order across instances is unspecified, as in Doris. Values are kept
// as their text (a set compares them so), read back at finalize; the
// partial state is the count-prefixed list of value texts.
type collectAgg struct {
	argT  types.T
	set   bool
	vals  [][]string
	seen  []map[string]struct{}
	bytes int64
}

func (a *collectAgg) resize(g int) {
	a.vals = resizeSlice(a.vals, g)
	if a.set {
		a.seen = resizeSlice(a.seen, g)
	}
}

func (a *collectAgg) add(g int32, v string) {
	if a.set {
		if a.seen[g] == nil {
			a.seen[g] = map[string]struct{}{}
		}
		if _, ok := a.seen[g][v]; ok {
			return
		}
		v = strings.Clone(v)
		a.seen[g][v] = struct{}{}
		a.bytes += 48
	} else {
		v = strings.Clone(v)
	}
	a.vals[g] = append(a.vals[g], v)
	a.bytes += int64(len(v)) + 16
}

func (a *collectAgg) update(gids []int32, args []arrow.Array) {
	col := args[0]
	if col.DataType().ID() == arrow.NULL {
		return
	}
	for i, g := range gids {
		if col.IsValid(i) {
			a.add(g, textOf(col, i, a.argT))
		}
	}
}

func (a *collectAgg) merge(gids []int32, states []arrow.Array) {
	sc := states[0].(*array.String)
	for i, g := range gids {
		if sc.IsNull(i) {
			continue
		}
		eachPrefixed([]byte(sc.Value(i)), func(v string) { a.add(g, v) })
	}
}

func (a *collectAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	out := make([]string, to-from)
	for i := range out {
		out[i] = string(appendPrefixed(nil, a.vals[from+i]))
	}
	return []arrow.Array{buildStrings(mem, out, nil)}
}

func (a *collectAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	b := array.NewListBuilderWithField(mem, arrow.Field{Name: "item", Type: a.argT.Arrow(), Nullable: true})
	defer b.Release()
	vb := b.ValueBuilder()
	for g := from; g < to; g++ {
		b.Append(true)
		for _, v := range a.vals[g] {
			types.AppendDatum(vb, elemDatum(v, a.argT))
		}
	}
	return b.NewArray()
}

// elemDatum reads back a value collect_* kept as its text (textOf).
func elemDatum(v string, t types.T) types.Datum {
	if t.IsNested() || t.IsString() || t.Kind == types.JSON {
		return types.Datum{T: t, S: v}
	}
	d, ok := types.ParseScalar(v, t)
	if !ok {
		return types.NullDatum(t)
	}
	return d
}

func (a *collectAgg) memBytes() int64 { return int64(cap(a.vals)*24) + a.bytes }

// enumAgg is COUNT_BY_ENUM(x, ...): per argument, the count of each
// value, of non-NULL and NULL rows, as Doris's JSON-looking text
// [{"cbe":{"F":2,"M":3},"notnull":5,"null":0,"all":5}, ...] (values in
// byte order). Its partial state is the argument count, then per argument
// its NULL count and (value, count) pairs.
type enumAgg struct {
	groups []enumState
	bytes  int64
}

type enumState struct {
	counts []map[string]int64 // per argument
	nulls  []int64
}

func (a *enumAgg) resize(g int) { a.groups = resizeSlice(a.groups, g) }

func (a *enumAgg) state(g int32, args int) *enumState {
	s := &a.groups[g]
	for len(s.counts) < args {
		s.counts = append(s.counts, map[string]int64{})
		s.nulls = append(s.nulls, 0)
	}
	return s
}

func (a *enumAgg) add(s *enumState, k int, v string, c int64) {
	if _, ok := s.counts[k][v]; !ok {
		v = strings.Clone(v)
		a.bytes += int64(len(v)) + 48
	}
	s.counts[k][v] += c
}

func (a *enumAgg) update(gids []int32, args []arrow.Array) {
	ts := make([]types.T, len(args))
	for k, c := range args {
		ts[k] = sqlTypeOf(c)
	}
	for i, g := range gids {
		s := a.state(g, len(args))
		for k, c := range args {
			if c.IsNull(i) || c.DataType().ID() == arrow.NULL {
				s.nulls[k]++
				continue
			}
			a.add(s, k, textOf(c, i, ts[k]), 1)
		}
	}
}

func (a *enumAgg) merge(gids []int32, states []arrow.Array) {
	sc := states[0].(*array.String)
	for i, g := range gids {
		if sc.IsNull(i) {
			continue
		}
		b := []byte(sc.Value(i))
		n, k := binary.Uvarint(b)
		if k <= 0 {
			continue
		}
		b = b[k:]
		s := a.state(g, int(n))
		for arg := 0; arg < int(n) && len(b) > 0; arg++ {
			nulls, k := binary.Varint(b)
			if k <= 0 {
				break
			}
			s.nulls[arg] += nulls
			b = b[k:]
			pairs, k := binary.Uvarint(b)
			if k <= 0 {
				break
			}
			b = b[k:]
			for p := uint64(0); p < pairs; p++ {
				l, k := binary.Uvarint(b)
				if k <= 0 || uint64(len(b)-k) < l {
					return
				}
				v := string(b[k : k+int(l)])
				b = b[k+int(l):]
				c, k2 := binary.Varint(b)
				if k2 <= 0 {
					return
				}
				b = b[k2:]
				a.add(s, arg, v, c)
			}
		}
	}
}

func (a *enumAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	out := make([]string, to-from)
	for i := range out {
		s := &a.groups[from+i]
		b := binary.AppendUvarint(nil, uint64(len(s.counts)))
		for k, m := range s.counts {
			b = binary.AppendVarint(b, s.nulls[k])
			b = binary.AppendUvarint(b, uint64(len(m)))
			for v, c := range m {
				b = binary.AppendUvarint(b, uint64(len(v)))
				b = append(b, v...)
				b = binary.AppendVarint(b, c)
			}
		}
		out[i] = string(b)
	}
	return []arrow.Array{buildStrings(mem, out, nil)}
}

func (a *enumAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	out := make([]string, to-from)
	for i := range out {
		s := &a.groups[from+i]
		if len(s.counts) == 0 {
			// No row seen (empty input without GROUP BY): one argument's
			// empty counts, the common call.
			out[i] = `[{"cbe":{},"notnull":0,"null":0,"all":0}]`
			continue
		}
		var sb strings.Builder
		sb.WriteByte('[')
		for k, m := range s.counts {
			if k > 0 {
				sb.WriteByte(',')
			}
			keys := make([]string, 0, len(m))
			var notNull int64
			for v, c := range m {
				keys = append(keys, v)
				notNull += c
			}
			slices.Sort(keys)
			sb.WriteString(`{"cbe":{`)
			for j, v := range keys {
				if j > 0 {
					sb.WriteByte(',')
				}
				sb.WriteString(strconv.Quote(v) + ":" + strconv.FormatInt(m[v], 10))
			}
			fmt.Fprintf(&sb, `},"notnull":%d,"null":%d,"all":%d}`, notNull, s.nulls[k], notNull+s.nulls[k])
		}
		sb.WriteByte(']')
		out[i] = sb.String()
	}
	return buildStrings(mem, out, nil)
}

func (a *enumAgg) memBytes() int64 { return int64(cap(a.groups)*48) + a.bytes }

// appendPrefixed appends vs as length-prefixed strings: the partial state
// of collect_list/collect_set and histogram.
func appendPrefixed(b []byte, vs []string) []byte {
	for _, v := range vs {
		b = binary.AppendUvarint(b, uint64(len(v)))
		b = append(b, v...)
	}
	return b
}

// eachPrefixed calls fn with each string appendPrefixed wrote (stopping at
// a truncated one).
func eachPrefixed(b []byte, fn func(string)) {
	for len(b) > 0 {
		l, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < l {
			return
		}
		fn(string(b[k : k+int(l)]))
		b = b[k+int(l):]
	}
}
