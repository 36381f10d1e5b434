package eval

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Kernels of the ARRAY, MAP and STRUCT functions (sql/expr/nestedfn.go),
// Doris 2.x semantics: positions are 1-based, an index out of range is
// NULL, NULL elements are values of their own for distinct/sort/search.
//
// This file must sort after eval.go (see objfn.go).

func init() {
	for k, v := range nestedKernels {
		kernels[k] = v
	}
	// Constructors take NULL arguments as NULL elements.
	for _, f := range []string{"array", "map", "struct", "named_struct", "array_with_constant", "array_pushback", "array_pushfront"} {
		lenient[f] = true
	}
}

var nestedKernels = map[string]kernel{
	"array":               arrayKernel,
	"map":                 mapKernel,
	"struct":              structKernel,
	"named_struct":        structKernel,
	"element_at":          elementAtKernel,
	"struct_element":      structElementKernel,
	"size":                sizeKernel,
	"map_size":            sizeKernel,
	"map_keys":            mapPartKernel(0),
	"map_values":          mapPartKernel(1),
	"map_contains_key":    mapContainsKernel(0),
	"map_contains_value":  mapContainsKernel(1),
	"array_contains":      searchKernel(false),
	"array_position":      searchKernel(true),
	"array_remove":        reshapeKernel(arrayRemove),
	"array_distinct":      reshapeKernel(arrayDistinct),
	"array_sort":          reshapeKernel(arraySort(false)),
	"array_reverse_sort":  reshapeKernel(arraySort(true)),
	"array_compact":       reshapeKernel(arrayCompact),
	"array_popback":       reshapeKernel(func(r *reshapeRow) { r.keepRange(r.s, max(r.s, r.e-1)) }),
	"array_popfront":      reshapeKernel(func(r *reshapeRow) { r.keepRange(min(r.s+1, r.e), r.e) }),
	"array_slice":         reshapeKernel(arraySlice),
	"array_pushback":      pushKernel(false),
	"array_pushfront":     pushKernel(true),
	"array_concat":        setKernel(setConcat),
	"array_union":         setKernel(setUnion),
	"array_intersect":     setKernel(setIntersect),
	"array_except":        setKernel(setExcept),
	"arrays_overlap":      overlapKernel,
	"array_with_constant": withConstantKernel,
	"array_join":          arrayJoinKernel,
	"array_min":           minMaxKernel(false),
	"array_max":           minMaxKernel(true),
	"array_sum":           sumAvgKernel(false),
	"array_avg":           sumAvgKernel(true),
}

func argTypes(c *expr.Call) []types.T {
	ts := make([]types.T, len(c.Args))
	for i, a := range c.Args {
		ts[i] = a.Type()
	}
	return ts
}

// arrayKernel is array(v1, ..., vn): row i holds every argument's row i.
func arrayKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	out := newListOut(c.T, m)
	srcs := make([]int, len(args))
	for k, a := range args {
		srcs[k] = -1
		if a.arr.DataType().ID() != arrow.NULL {
			srcs[k] = out.src(a.arr)
		}
	}
	for i := 0; i < m; i++ {
		for k, a := range args {
			if srcs[k] < 0 {
				out.nullElem()
			} else {
				out.pick(srcs[k], a.idx(i))
			}
		}
		out.end(true)
	}
	return ev.listResult(out, args)
}

func (ev *evaluator) listResult(out *listOut, args []vec) (vec, error) {
	arr, err := out.finish(ev.mem)
	if err != nil {
		return vec{}, err
	}
	return vec{arr: arr, scalar: allScalar(args), owned: true}, nil
}

// full materializes an argument to m rows (scalars repeated), in type t.
func (ev *evaluator) full(a vec, t types.T, m int) arrow.Array {
	if !a.scalar || m == 1 {
		if a.arr.DataType().ID() == arrow.NULL && t.Kind != types.Null {
			return array.MakeArrayOfNull(ev.mem, t.Arrow(), a.arr.Len())
		}
		a.arr.Retain()
		return a.arr
	}
	idx := make([]int32, m)
	if a.isNull(0) {
		return array.MakeArrayOfNull(ev.mem, t.Arrow(), m)
	}
	out, err := Take(ev.mem, a.arr, idx)
	if err != nil {
		return array.MakeArrayOfNull(ev.mem, t.Arrow(), m)
	}
	return out
}

func mapKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	kt, vt := c.T.MapKV()
	n := len(args) / 2
	// Entries row-major: row i's pairs are entries i*n .. i*n+n-1.
	kidx, vidx := make([]int32, 0, m*n), make([]int32, 0, m*n)
	var keys, vals []arrow.Array
	for k := 0; k < n; k++ {
		keys = append(keys, ev.full(args[2*k], kt, m))
		vals = append(vals, ev.full(args[2*k+1], vt, m))
	}
	defer func() {
		for _, a := range append(keys, vals...) {
			a.Release()
		}
	}()
	for i := 0; i < m; i++ {
		for k := 0; k < n; k++ {
			kidx = append(kidx, int32(k*m+i))
			vidx = append(vidx, int32(k*m+i))
		}
	}
	kc, err := concatTake(ev.mem, kt, keys, kidx)
	if err != nil {
		return vec{}, err
	}
	defer kc.Release()
	if kc.NullN() > 0 {
		// Arrow maps have no NULL keys; Doris would keep the entry.
		return vec{}, sqlerr.NotSupportedYet.New("a NULL map key")
	}
	vc, err := concatTake(ev.mem, vt, vals, vidx)
	if err != nil {
		return vec{}, err
	}
	defer vc.Release()
	mt := c.T.Arrow().(*arrow.MapType)
	sd := array.NewData(mt.Elem(), m*n, []*memory.Buffer{nil}, []arrow.ArrayData{kc.Data(), vc.Data()}, 0, 0)
	defer sd.Release()
	entries := array.MakeFromData(sd)
	defer entries.Release()
	offs := make([]int32, m+1)
	valid := make([]bool, m)
	for i := range valid {
		offs[i+1], valid[i] = int32((i+1)*n), true
	}
	return vec{arr: buildListArray(c.T, offs, valid, 0, entries), scalar: allScalar(args), owned: true}, nil
}

func concatTake(mem memory.Allocator, t types.T, parts []arrow.Array, idx []int32) (arrow.Array, error) {
	if len(parts) == 0 {
		return array.MakeArrayOfNull(mem, t.Arrow(), 0), nil
	}
	parts = conformAll(parts, t.Arrow())
	defer releaseAll(parts)
	all, err := array.Concatenate(parts, mem)
	if err != nil {
		return nil, err
	}
	defer all.Release()
	return Take(mem, all, idx)
}

// structKernel is struct(v1, ...) and named_struct('a', v1, ...).
func structKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	vals := args
	if c.Fn == "named_struct" {
		vals = nil
		for k := 1; k < len(args); k += 2 {
			vals = append(vals, args[k])
		}
	}
	fs := c.T.Fields()
	kids := make([]arrow.ArrayData, len(vals))
	for k, a := range vals {
		f := ev.full(a, fs[k].T, m)
		defer f.Release()
		kids[k] = f.Data()
	}
	d := array.NewData(c.T.Arrow(), m, []*memory.Buffer{nil}, kids, 0, 0)
	defer d.Release()
	return vec{arr: array.MakeFromData(d), scalar: allScalar(args), owned: true}, nil
}

// elementAtKernel is element_at(array, i) (1-based, negative from the
// end, out of range NULL) and element_at(map, key).
func elementAtKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	t := c.Args[0].Type()
	l := asList(args[0], t)
	idx := make([]int32, m)
	if t.Kind == types.Map {
		kt, _ := t.MapKV()
		ent, _ := l.vals.(*array.Struct)
		for i := 0; i < m; i++ {
			idx[i] = -1
			if l.null(i) || args[1].isNull(i) || ent == nil {
				continue
			}
			want := elemKey(args[1].arr, args[1].idx(i), kt)
			s, e := l.span(i)
			for j := s; j < e; j++ {
				if elemKey(ent.Field(0), j, kt) == want {
					idx[i] = int32(j)
					break
				}
			}
		}
		var items arrow.Array = array.MakeArrayOfNull(ev.mem, c.T.Arrow(), 0)
		if ent != nil {
			items = ent.Field(1)
			items.Retain()
		}
		defer items.Release()
		out, err := Take(ev.mem, items, idx)
		return vec{arr: out, scalar: allScalar(args), owned: true}, err
	}
	pos := intsOf(args[1].arr)
	for i := 0; i < m; i++ {
		idx[i] = -1
		if l.null(i) || args[1].isNull(i) {
			continue
		}
		s, e := l.span(i)
		p := pos[args[1].idx(i)]
		switch {
		case p >= 1 && p <= int64(e-s):
			idx[i] = int32(s + int(p) - 1)
		case p < 0 && -p <= int64(e-s):
			idx[i] = int32(e + int(p))
		}
	}
	if l.vals == nil {
		return ev.nullVec(c.T), nil
	}
	out, err := Take(ev.mem, l.vals, idx)
	return vec{arr: out, scalar: allScalar(args), owned: true}, err
}

func structElementKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	st, ok := args[0].arr.(*array.Struct)
	k, found := expr.StructFieldIndex(c.Args[0].Type(), c.Args[1])
	if !ok || !found {
		return ev.nullVec(c.T), nil
	}
	f := st.Field(k)
	if st.NullN() == 0 {
		f.Retain()
		return vec{arr: f, scalar: args[0].scalar, owned: true}, nil
	}
	idx := make([]int32, st.Len())
	for i := range idx {
		idx[i] = int32(i)
		if st.IsNull(i) {
			idx[i] = -1
		}
	}
	out, err := Take(ev.mem, f, idx)
	return vec{arr: out, scalar: args[0].scalar, owned: true}, err
}

func sizeKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	l := asList(args[0], c.Args[0].Type())
	vals, ok := make([]int64, m), make([]bool, m)
	for i := 0; i < m; i++ {
		if !l.null(i) {
			s, e := l.span(i)
			vals[i], ok[i] = int64(e-s), true
		}
	}
	return ev.intResult(types.BigIntT, m, vals, ok, args), nil
}

// mapPartKernel is map_keys (part 0) / map_values (1): the entries'
// field as the child of an ARRAY with the map's offsets.
func mapPartKernel(part int) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		mp, ok := args[0].arr.(*array.Map)
		if !ok {
			return ev.nullVec(c.T), nil
		}
		child := mp.Keys()
		if part == 1 {
			child = mp.Items()
		}
		d := mp.Data()
		nd := array.NewData(c.T.Arrow(), d.Len(), d.Buffers(), []arrow.ArrayData{child.Data()}, d.NullN(), d.Offset())
		defer nd.Release()
		return vec{arr: array.MakeFromData(nd), scalar: args[0].scalar, owned: true}, nil
	}
}

func mapContainsKernel(part int) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		t := c.Args[0].Type()
		kt, vt := t.MapKV()
		ft := kt
		if part == 1 {
			ft = vt
		}
		l := asList(args[0], t)
		ent, _ := l.vals.(*array.Struct)
		vals, ok := make([]bool, m), make([]bool, m)
		for i := 0; i < m; i++ {
			if l.null(i) || ent == nil {
				continue
			}
			ok[i] = true
			want := elemKey(args[1].arr, args[1].idx(i), ft)
			s, e := l.span(i)
			for j := s; j < e; j++ {
				if elemKey(ent.Field(part), j, ft) == want {
					vals[i] = true
					break
				}
			}
		}
		return ev.boolResult(m, vals, ok, args), nil
	}
}

func (ev *evaluator) boolResult(m int, vals, ok []bool, args []vec) vec {
	b := array.NewBooleanBuilder(ev.mem)
	defer b.Release()
	b.AppendValues(vals, ok)
	return vec{arr: b.NewArray(), scalar: allScalar(args), owned: true}
}

// searchKernel is array_contains (position false) / array_position.
func searchKernel(position bool) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		t := c.Args[0].Type()
		l := asList(args[0], t)
		et := t.Elem()
		found, pos, ok := make([]bool, m), make([]int64, m), make([]bool, m)
		for i := 0; i < m; i++ {
			if l.null(i) {
				continue
			}
			ok[i] = true
			want := elemKey(args[1].arr, args[1].idx(i), et)
			s, e := l.span(i)
			for j := s; j < e; j++ {
				if elemKey(l.vals, j, et) == want {
					found[i], pos[i] = true, int64(j-s+1)
					break
				}
			}
		}
		if position {
			return ev.intResult(types.BigIntT, m, pos, ok, args), nil
		}
		return ev.boolResult(m, found, ok, args), nil
	}
}

// reshapeRow is one row of a kernel that keeps some of an array's own
// elements, in some order.
type reshapeRow struct {
	ev   *evaluator
	out  *listOut
	src  int
	vals arrow.Array
	et   types.T
	s, e int
	args []vec
	i    int
}

func (r *reshapeRow) keep(j int) { r.out.pick(r.src, j) }
func (r *reshapeRow) keepRange(s, e int) {
	for j := s; j < e; j++ {
		r.keep(j)
	}
}
func (r *reshapeRow) key(j int) string { return elemKey(r.vals, j, r.et) }

func reshapeKernel(f func(r *reshapeRow)) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		t := c.Args[0].Type()
		l := asList(args[0], t)
		out := newListOut(c.T, m)
		r := &reshapeRow{ev: ev, out: out, et: t.Elem(), args: args}
		if l.vals != nil {
			r.src, r.vals = out.src(l.vals), l.vals
		}
		for i := 0; i < m; i++ {
			if l.null(i) {
				out.end(false)
				continue
			}
			r.s, r.e = l.span(i)
			r.i = i
			f(r)
			out.end(true)
		}
		return ev.listResult(out, args)
	}
}

func arrayRemove(r *reshapeRow) {
	a := r.args[1]
	if a.isNull(r.i) {
		r.keepRange(r.s, r.e)
		return
	}
	want := elemKey(a.arr, a.idx(r.i), r.et)
	for j := r.s; j < r.e; j++ {
		if nullAt(r.vals, j) || r.key(j) != want {
			r.keep(j)
		}
	}
}

func arrayDistinct(r *reshapeRow) {
	seen := map[string]bool{}
	for j := r.s; j < r.e; j++ {
		if k := r.key(j); !seen[k] {
			seen[k] = true
			r.keep(j)
		}
	}
}

func arrayCompact(r *reshapeRow) {
	prev := ""
	for j := r.s; j < r.e; j++ {
		if k := r.key(j); j == r.s || k != prev {
			r.keep(j)
			prev = k
		}
	}
}

// arraySort sorts ascending with NULLs first (desc: descending, NULLs last).
func arraySort(desc bool) func(r *reshapeRow) {
	return func(r *reshapeRow) {
		js := make([]int, 0, r.e-r.s)
		ds := make([]types.Datum, r.e-r.s)
		for j := r.s; j < r.e; j++ {
			js = append(js, j)
			ds[j-r.s] = types.DatumAt(r.vals, j, r.et)
		}
		slices.SortStableFunc(js, func(a, b int) int {
			c := types.Compare(ds[a-r.s], ds[b-r.s])
			if desc {
				return -c
			}
			return c
		})
		for _, j := range js {
			r.keep(j)
		}
	}
}

// arraySlice is array_slice(a, offset[, length]): offset 1-based,
// negative from the end; a length below 0 stops that many from the end.
func arraySlice(r *reshapeRow) {
	n := r.e - r.s
	offA := r.args[1]
	if offA.isNull(r.i) {
		return
	}
	off := int(intsOf(offA.arr)[offA.idx(r.i)])
	start := 0
	switch {
	case off > 0:
		start = off - 1
	case off < 0:
		start = n + off
	default:
		return
	}
	if start < 0 || start >= n {
		return
	}
	end := n
	if len(r.args) > 2 && !r.args[2].isNull(r.i) {
		ln := int(intsOf(r.args[2].arr)[r.args[2].idx(r.i)])
		if ln >= 0 {
			end = min(n, start+ln)
		} else {
			end = max(start, n+ln)
		}
	}
	r.keepRange(r.s+start, r.s+end)
}

// pushKernel is array_pushback / array_pushfront(a, v).
func pushKernel(front bool) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		t := c.Args[0].Type()
		l := asList(args[0], t)
		out := newListOut(c.T, m)
		vs := -1
		if args[1].arr.DataType().ID() != arrow.NULL {
			vs = out.src(args[1].arr)
		}
		ls := -1
		if l.vals != nil {
			ls = out.src(l.vals)
		}
		for i := 0; i < m; i++ {
			if l.null(i) {
				out.end(false)
				continue
			}
			addV := func() {
				if vs < 0 || args[1].isNull(i) {
					out.nullElem()
				} else {
					out.pick(vs, args[1].idx(i))
				}
			}
			if front {
				addV()
			}
			s, e := l.span(i)
			for j := s; j < e; j++ {
				out.pick(ls, j)
			}
			if !front {
				addV()
			}
			out.end(true)
		}
		return ev.listResult(out, args)
	}
}

// setRow is one row of a kernel combining several arrays.
type setRow struct {
	out   *listOut
	lists []listArg
	srcs  []int
	et    types.T
	i     int
}

func (r *setRow) each(k int, f func(j int, key string)) {
	s, e := r.lists[k].span(r.i)
	for j := s; j < e; j++ {
		f(j, elemKey(r.lists[k].vals, j, r.et))
	}
}

func setKernel(f func(r *setRow)) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		out := newListOut(c.T, m)
		r := &setRow{out: out, et: c.T.Elem()}
		for k, a := range args {
			l := asList(a, c.Args[k].Type())
			r.lists = append(r.lists, l)
			s := -1
			if l.vals != nil {
				s = out.src(l.vals)
			}
			r.srcs = append(r.srcs, s)
		}
		for i := 0; i < m; i++ {
			r.i = i
			isNull := false
			for _, l := range r.lists {
				isNull = isNull || l.null(i)
			}
			if isNull {
				out.end(false)
				continue
			}
			f(r)
			out.end(true)
		}
		return ev.listResult(out, args)
	}
}

func setConcat(r *setRow) {
	for k := range r.lists {
		r.each(k, func(j int, _ string) { r.out.pick(r.srcs[k], j) })
	}
}

func setUnion(r *setRow) {
	seen := map[string]bool{}
	for k := range r.lists {
		r.each(k, func(j int, key string) {
			if !seen[key] {
				seen[key] = true
				r.out.pick(r.srcs[k], j)
			}
		})
	}
}

func (r *setRow) keysOf(k int) map[string]bool {
	in := map[string]bool{}
	r.each(k, func(_ int, key string) { in[key] = true })
	return in
}

func setIntersect(r *setRow) {
	in, seen := r.keysOf(1), map[string]bool{}
	r.each(0, func(j int, key string) {
		if in[key] && !seen[key] {
			seen[key] = true
			r.out.pick(r.srcs[0], j)
		}
	})
}

func setExcept(r *setRow) {
	in, seen := r.keysOf(1), map[string]bool{}
	r.each(0, func(j int, key string) {
		if !in[key] && !seen[key] {
			seen[key] = true
			r.out.pick(r.srcs[0], j)
		}
	})
}

// overlapKernel is arrays_overlap(a, b): a non-NULL element in both.
func overlapKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	et := c.Args[0].Type().Elem()
	a, b := asList(args[0], c.Args[0].Type()), asList(args[1], c.Args[1].Type())
	vals, ok := make([]bool, m), make([]bool, m)
	for i := 0; i < m; i++ {
		if a.null(i) || b.null(i) {
			continue
		}
		ok[i] = true
		in := map[string]bool{}
		s, e := b.span(i)
		for j := s; j < e; j++ {
			if !nullAt(b.vals, j) {
				in[elemKey(b.vals, j, et)] = true
			}
		}
		s, e = a.span(i)
		for j := s; j < e && !vals[i]; j++ {
			vals[i] = !nullAt(a.vals, j) && in[elemKey(a.vals, j, et)]
		}
	}
	return ev.boolResult(m, vals, ok, args), nil
}

func withConstantKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	out := newListOut(c.T, m)
	vs := -1
	if args[1].arr.DataType().ID() != arrow.NULL {
		vs = out.src(args[1].arr)
	}
	for i := 0; i < m; i++ {
		if args[0].isNull(i) {
			out.end(false)
			continue
		}
		n := intsOf(args[0].arr)[args[0].idx(i)]
		if n > 1_000_000 {
			return vec{}, sqlerr.Doris.New(fmt.Sprintf("Array size exceeds the limit 1000000: %d", n))
		}
		for k := int64(0); k < n; k++ {
			if vs < 0 || args[1].isNull(i) {
				out.nullElem()
			} else {
				out.pick(vs, args[1].idx(i))
			}
		}
		out.end(true)
	}
	return ev.listResult(out, args)
}

// arrayJoinKernel is array_join(a, sep[, null_replace]): NULL elements
// are skipped unless a replacement is given.
func arrayJoinKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	t := c.Args[0].Type()
	l := asList(args[0], t)
	b := array.NewStringBuilder(ev.mem)
	defer b.Release()
	str := func(k, i int) (string, bool) {
		a := args[k]
		if a.isNull(i) {
			return "", false
		}
		return a.arr.(*array.String).Value(a.idx(i)), true
	}
	for i := 0; i < m; i++ {
		sep, okSep := str(1, i)
		if l.null(i) || !okSep {
			b.AppendNull()
			continue
		}
		rep, hasRep := "", false
		if len(args) > 2 {
			rep, hasRep = str(2, i)
		}
		var sb strings.Builder
		first := true
		s, e := l.span(i)
		for j := s; j < e; j++ {
			v := rep
			if nullAt(l.vals, j) {
				if !hasRep {
					continue
				}
			} else {
				v = types.DatumAt(l.vals, j, t.Elem()).String()
			}
			if !first {
				sb.WriteString(sep)
			}
			first = false
			sb.WriteString(v)
		}
		b.Append(sb.String())
	}
	return vec{arr: b.NewArray(), scalar: allScalar(args), owned: true}, nil
}

// minMaxKernel picks the smallest (largest) non-NULL element: one Take.
func minMaxKernel(isMax bool) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		t := c.Args[0].Type()
		l := asList(args[0], t)
		idx := make([]int32, m)
		for i := 0; i < m; i++ {
			idx[i] = -1
			if l.null(i) {
				continue
			}
			var best types.Datum
			s, e := l.span(i)
			for j := s; j < e; j++ {
				if nullAt(l.vals, j) {
					continue
				}
				d := types.DatumAt(l.vals, j, t.Elem())
				if cmp := types.Compare(d, best); idx[i] < 0 || (isMax && cmp > 0) || (!isMax && cmp < 0) {
					best, idx[i] = d, int32(j)
				}
			}
		}
		if l.vals == nil {
			return ev.nullVec(c.T), nil
		}
		out, err := Take(ev.mem, l.vals, idx)
		return vec{arr: out, scalar: allScalar(args), owned: true}, err
	}
}

// sumAvgKernel is array_sum / array_avg over the non-NULL elements (NULL
// when there are none).
func sumAvgKernel(avg bool) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		t := c.Args[0].Type()
		et := t.Elem()
		l := asList(args[0], t)
		b := array.NewBuilder(ev.mem, c.T.Arrow())
		defer b.Release()
		for i := 0; i < m; i++ {
			if l.null(i) {
				b.AppendNull()
				continue
			}
			s, e := l.span(i)
			n := 0
			fsum := 0.0
			isum := new(big.Int)
			for j := s; j < e; j++ {
				if nullAt(l.vals, j) {
					continue
				}
				n++
				d := types.DatumAt(l.vals, j, et)
				fsum += d.Float()
				switch {
				case et.Kind == types.Decimal || et.Kind == types.LargeInt:
					isum.Add(isum, d.Dec.BigInt())
				case et.IsInteger() || et.Kind == types.Boolean:
					isum.Add(isum, big.NewInt(d.I))
				}
			}
			if n == 0 {
				b.AppendNull()
				continue
			}
			res := types.Datum{T: c.T}
			switch {
			case avg && (et.IsInteger() || et.Kind == types.Boolean || et.Kind == types.Decimal):
				// Exactly, as avg() sums integers: large values cancel out.
				den := new(big.Int).Mul(big.NewInt(int64(n)), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(et.Scale)), nil))
				res.F, _ = new(big.Rat).SetFrac(isum, den).Float64()
			case avg:
				res.F = fsum / float64(n)
			case c.T.Kind == types.Decimal || c.T.Kind == types.LargeInt:
				res.Dec = decimal128.FromBigInt(isum)
			case c.T.Kind == types.BigInt:
				res.I = isum.Int64()
			default:
				res.F = fsum
			}
			types.AppendDatum(b, res)
		}
		return vec{arr: b.NewArray(), scalar: allScalar(args), owned: true}, nil
	}
}
