package eval

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/types"
)

// Building blocks of the ARRAY/MAP kernels (nestedfn.go). A kernel walks
// each row's element range [s, e) of the child array and decides which
// elements the output row holds; the output is assembled once per batch
// by one Take of the child values, so element values are never copied
// one by one.

// listArg is an evaluated ARRAY (or MAP) argument.
type listArg struct {
	v    vec
	offs []int32     // nil when the argument is an all-NULL array
	vals arrow.Array // child values (for a MAP: the entries struct)
	t    types.T
}

func asList(v vec, t types.T) listArg {
	l := listArg{v: v, t: t}
	switch a := v.arr.(type) {
	case *array.List:
		l.offs, l.vals = a.Offsets(), a.ListValues()
	case *array.Map:
		l.offs, l.vals = a.Offsets(), a.ListValues()
	}
	return l
}

func (l listArg) null(i int) bool { return l.offs == nil || l.v.isNull(i) }

// span is row i's element range in vals.
func (l listArg) span(i int) (int, int) {
	k := l.v.idx(i)
	return int(l.offs[k]), int(l.offs[k+1])
}

// elemKey is a hashable identity of element j (NULL has its own key):
// elements of one argument share one type, so equal values print alike.
func elemKey(a arrow.Array, j int, t types.T) string {
	if nullAt(a, j) {
		return "\x00null"
	}
	return "v" + types.DatumAt(a, j, t).String()
}

// nullAt is IsNull that also holds for NULL-typed arrays (no bitmap).
func nullAt(a arrow.Array, j int) bool {
	return a.DataType().ID() == arrow.NULL || a.IsNull(j)
}

// conform retypes a to dt when only a DECIMAL's precision differs (the
// same buffers: implicit casts keep a narrower DECIMAL of the same scale),
// so arrays of one element type concatenate.
func conform(a arrow.Array, dt arrow.DataType) arrow.Array {
	if arrow.TypeEqual(a.DataType(), dt) || a.DataType().ID() != arrow.DECIMAL128 || dt.ID() != arrow.DECIMAL128 {
		a.Retain()
		return a
	}
	d := a.Data()
	nd := array.NewData(dt, d.Len(), d.Buffers(), nil, d.NullN(), d.Offset())
	defer nd.Release()
	return array.MakeFromData(nd)
}

// conformAll applies conform to each of parts (the caller releases).
func conformAll(parts []arrow.Array, dt arrow.DataType) []arrow.Array {
	out := make([]arrow.Array, len(parts))
	for i, p := range parts {
		out[i] = conform(p, dt)
	}
	return out
}

func releaseAll(as []arrow.Array) {
	for _, a := range as {
		a.Release()
	}
}

// listOut assembles a batch of ARRAY rows from picks of elements of one or
// more source arrays (all of the element type).
type listOut struct {
	t     types.T // the ARRAY type
	srcs  []arrow.Array
	picks []int64 // src<<32 | index, or -1 for a NULL element
	offs  []int32
	valid []bool
	nulls int
}

func newListOut(t types.T, rows int) *listOut {
	return &listOut{t: t, offs: make([]int32, 1, rows+1), valid: make([]bool, 0, rows)}
}

// src registers a source array of elements and returns its id.
func (o *listOut) src(a arrow.Array) int {
	for i, s := range o.srcs {
		if s == a {
			return i
		}
	}
	o.srcs = append(o.srcs, a)
	return len(o.srcs) - 1
}

func (o *listOut) pick(src, j int) { o.picks = append(o.picks, int64(src)<<32|int64(j)) }
func (o *listOut) nullElem()       { o.picks = append(o.picks, -1) }

// end closes the current row (NULL when !valid; its picks are dropped).
func (o *listOut) end(valid bool) {
	if !valid {
		o.picks = o.picks[:o.offs[len(o.offs)-1]]
		o.nulls++
	}
	o.offs = append(o.offs, int32(len(o.picks)))
	o.valid = append(o.valid, valid)
}

func (o *listOut) finish(mem memory.Allocator) (arrow.Array, error) {
	et := o.t.Elem()
	var child arrow.Array
	base := make([]int64, len(o.srcs))
	switch len(o.srcs) {
	case 0:
		child = array.MakeArrayOfNull(mem, et.Arrow(), 0)
	case 1:
		child = conform(o.srcs[0], et.Arrow())
	default:
		parts := conformAll(o.srcs, et.Arrow())
		defer releaseAll(parts)
		var err error
		if child, err = array.Concatenate(parts, mem); err != nil {
			return nil, err
		}
		n := int64(0)
		for i, s := range o.srcs {
			base[i] = n
			n += int64(s.Len())
		}
	}
	defer child.Release()
	idx := make([]int32, len(o.picks))
	for i, p := range o.picks {
		if p < 0 {
			idx[i] = -1
			continue
		}
		idx[i] = int32(base[p>>32] + p&0xffffffff)
	}
	var taken arrow.Array
	if len(o.srcs) == 0 {
		taken = array.MakeArrayOfNull(mem, et.Arrow(), len(idx))
	} else {
		var err error
		if taken, err = Take(mem, child, idx); err != nil {
			return nil, err
		}
	}
	defer taken.Release()
	return buildListArray(o.t, o.offs, o.valid, o.nulls, taken), nil
}

// buildListArray wraps child values in ARRAY (or MAP) layout.
func buildListArray(t types.T, offs []int32, valid []bool, nulls int, child arrow.Array) arrow.Array {
	n := len(valid)
	var vb *memory.Buffer
	if nulls > 0 {
		bm := make([]byte, bitutil.BytesForBits(int64(n)))
		for i, v := range valid {
			if v {
				bitutil.SetBit(bm, i)
			}
		}
		vb = memory.NewBufferBytes(bm)
	}
	ob := memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offs))
	d := array.NewData(t.Arrow(), n, []*memory.Buffer{vb, ob}, []arrow.ArrayData{child.Data()}, nulls, 0)
	defer d.Release()
	return array.MakeFromData(d)
}

// chooseNested is choose for ARRAY, MAP and STRUCT: one Take over the
// concatenated sources (sources of another type are NULLs).
func (ev *evaluator) chooseNested(t types.T, m int, srcs []vec, pick []int32, scalar bool) (vec, error) {
	var parts []arrow.Array
	base := make([]int, len(srcs))
	n := 0
	for k, s := range srcs {
		base[k] = -1
		// A source of another type is an untyped NULL (CASE's missing ELSE).
		if id := s.arr.DataType().ID(); id == t.Arrow().ID() {
			base[k] = n
			parts = append(parts, s.arr)
			n += s.arr.Len()
		}
	}
	idx := make([]int32, m)
	for i, p := range pick {
		idx[i] = -1
		if p >= 0 && base[p] >= 0 && !srcs[p].isNull(i) {
			idx[i] = int32(base[p] + srcs[p].idx(i))
		}
	}
	if len(parts) == 0 {
		return vec{arr: array.MakeArrayOfNull(ev.mem, t.Arrow(), m), scalar: scalar, owned: true}, nil
	}
	all, err := array.Concatenate(parts, ev.mem)
	if err != nil {
		return vec{}, err
	}
	defer all.Release()
	out, err := Take(ev.mem, all, idx)
	if err != nil {
		return vec{}, err
	}
	return vec{arr: out, scalar: scalar, owned: true}, nil
}
