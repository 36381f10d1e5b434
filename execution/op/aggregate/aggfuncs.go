package aggregate

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Aggregate functions. Each keeps the states of all groups in typed slices
// indexed by group id and is updated one batch at a time.

// AggResultType is the SQL type of fn(arg); the rules live in sql/expr so
// the binder and the operators agree.
func AggResultType(fn string, arg types.T, distinct bool) (types.T, error) {
	return expr.AggResultType(fn, arg)
}

// AggStateTypes lists the partial-state columns fn(arg) sends from an
// update-serialize phase to a merge phase (see expr.AggStateTypes).
func AggStateTypes(fn string, arg types.T, distinct bool) ([]types.T, error) {
	return expr.AggStateTypes(fn, arg, distinct)
}

// selUpdater is an aggFunc that reads selected rows of its arguments in
// place (see op.Selector); others get the selected rows copied out.
type selUpdater interface {
	// updateSel folds rows sel[i] of args into groups gids[i].
	updateSel(gids []int32, args []arrow.Array, sel []int32)
}

type aggFunc interface {
	resize(groups int)
	// update folds raw argument rows into groups gids[i].
	update(gids []int32, args []arrow.Array)
	// merge folds partial-state rows (AggStateTypes columns) into groups.
	merge(gids []int32, states []arrow.Array)
	serialize(mem memory.Allocator, from, to int) []arrow.Array
	finalize(mem memory.Allocator, from, to int) arrow.Array
	memBytes() int64
}

func newAggFunc(c AggCall) (aggFunc, error) {
	res, err := AggResultType(c.Fn, c.ArgType, c.Distinct)
	if err != nil {
		return nil, err
	}
	switch expr.AggCanonical(c.Fn) {
	case "count":
		return &countAgg{star: len(c.Args) == 0}, nil
	case "sum":
		return &sumAgg{res: res, class: classOf(res)}, nil
	case "avg":
		st, err := AggStateTypes("avg", c.ArgType, false)
		if err != nil {
			return nil, err
		}
		return &avgAgg{sum: sumAgg{res: st[0], class: classOf(st[0])}, res: res}, nil
	case "min":
		return &pickAgg{t: res, class: classOf(res), mode: pickMin}, nil
	case "max":
		return &pickAgg{t: res, class: classOf(res), mode: pickMax}, nil
	case "any_value":
		if res.IsNested() {
			return &anyNestedAgg{t: res}, nil
		}
		return &pickAgg{t: res, class: classOf(res), mode: pickAny}, nil
	case "group_concat":
		sep := ","
		if c.Separator != nil {
			sep = *c.Separator
		}
		return &concatAgg{sep: sep, argT: c.ArgType}, nil
	}
	if f := newStatAggFunc(expr.AggCanonical(c.Fn), c.ArgType, res); f != nil {
		return f, nil
	}
	return nil, sqlerr.WrongArguments.New(c.Fn)
}

// countAgg: COUNT(*) counts rows; COUNT(x, ...) rows where every x is non-NULL.
type countAgg struct {
	star bool
	n    []int64
}

func (a *countAgg) resize(g int)                            { a.n = resizeSlice(a.n, g) }
func (a *countAgg) update(gids []int32, args []arrow.Array) { a.updateSel(gids, args, nil) }

// updateSel counts rows sel[i] (sel nil: row i) into groups gids[i].
func (a *countAgg) updateSel(gids []int32, args []arrow.Array, sel []int32) {
	if a.star || !anyNulls(args) {
		for _, g := range gids {
			a.n[g]++
		}
		return
	}
	for i, g := range gids {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		if allValid(args, r) {
			a.n[g]++
		}
	}
}
func (a *countAgg) merge(gids []int32, states []arrow.Array) {
	vs := int64Values(states[0], nil)
	for i, g := range gids {
		if states[0].IsValid(i) {
			a.n[g] += vs[i]
		}
	}
}
func (a *countAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	return []arrow.Array{a.finalize(mem, from, to)}
}
func (a *countAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	return buildInts(mem, types.BigIntT, a.n[from:to], nil)
}
func (a *countAgg) memBytes() int64 { return int64(cap(a.n) * 8) }

// anyNulls: some argument row is NULL. An argument of type NULL (a bare
// NULL literal) is all NULL, though arrow's Null array has no validity
// bitmap for IsNull to read.
func anyNulls(args []arrow.Array) bool {
	for _, a := range args {
		if a.NullN() > 0 || a.DataType().ID() == arrow.NULL {
			return true
		}
	}
	return false
}

func allValid(args []arrow.Array, i int) bool {
	for _, a := range args {
		if a.IsNull(i) || a.DataType().ID() == arrow.NULL {
			return false
		}
	}
	return true
}

func resizeSlice[T any](s []T, n int) []T {
	if n <= len(s) {
		return s
	}
	if n <= cap(s) {
		return s[:n]
	}
	out := make([]T, n, max(n, 2*cap(s)))
	copy(out, s)
	return out
}

// sumAgg sums into int64, float64 or a 128-bit decimal by result class.
type sumAgg struct {
	res   types.T
	class valClass
	has   []bool
	i     []int64
	f     []float64
	d     []decimal128.Num
	d64   []int64 // partial sums of narrow decimal batches, not yet in d
	ibuf  []int64
	fbuf  []float64
	// d64Max bounds |d64[g]| for every g; wide is set once a batch did not
	// fit the int64 partials (see addNarrow).
	d64Max int64
	wide   bool
}

func (a *sumAgg) resize(g int) {
	a.has = resizeSlice(a.has, g)
	switch a.class {
	case classInt:
		a.i = resizeSlice(a.i, g)
	case classFloat:
		a.f = resizeSlice(a.f, g)
	case classDec:
		a.d = resizeSlice(a.d, g)
		if a.d64 != nil {
			a.d64 = resizeSlice(a.d64, g)
		}
	}
}

func (a *sumAgg) update(gids []int32, args []arrow.Array) { a.add(gids, args[0], nil) }

// updateSel folds rows sel[i] of args into groups gids[i].
func (a *sumAgg) updateSel(gids []int32, args []arrow.Array, sel []int32) {
	a.add(gids, args[0], sel)
}

// add folds row i of col (sel nil) or row sel[i] into group gids[i].
func (a *sumAgg) add(gids []int32, col arrow.Array, sel []int32) {
	if col.DataType().ID() == arrow.NULL {
		return
	}
	nulls := col.NullN() > 0
	switch a.class {
	case classInt:
		vs := int64Values(col, a.ibuf)
		a.ibuf = vs
		for i, g := range gids {
			r := i
			if sel != nil {
				r = int(sel[i])
			}
			if nulls && col.IsNull(r) {
				continue
			}
			a.i[g] += vs[r]
			a.has[g] = true
		}
	case classFloat:
		vs := float64Values(col, a.fbuf)
		a.fbuf = vs
		for i, g := range gids {
			r := i
			if sel != nil {
				r = int(sel[i])
			}
			if nulls && col.IsNull(r) {
				continue
			}
			a.f[g] += vs[r]
			a.has[g] = true
		}
	case classDec:
		vs := decValues(col, nil)
		if !nulls && a.addNarrow(gids, vs, sel) {
			return
		}
		for i, g := range gids {
			r := i
			if sel != nil {
				r = int(sel[i])
			}
			if nulls && col.IsNull(r) {
				continue
			}
			a.d[g] = a.d[g].Add(vs[r])
			a.has[g] = true
		}
	}
}

// narrowBits bounds the values a batch may add into the int64 partial sums
// (|v| < 2^41, a DECIMAL(15,2) of twenty billion); with batches of at most
// 2^20 rows a batch moves a partial by less than 2^61.
const narrowBits = 41

// addNarrow adds a batch of decimals that all lie within ±2^narrowBits into
// the int64 partial sums a.d64, and reports whether it could: TPC-H's prices
// and quantities are such values, and an int64 add per row is less work than
// a 128-bit one. It adds and checks in one pass and takes the batch back out
// (wrapping arithmetic undoes exactly) if a value was wider; after that it
// does not try again. The partials move into a.d before they could overflow
// (a.d64Max bounds their magnitude) and before anything reads a.d.
func (a *sumAgg) addNarrow(gids []int32, vs []decimal128.Num, sel []int32) bool {
	if a.wide || len(gids) > 1<<20 {
		return false
	}
	if a.d64Max > 1<<61 {
		a.flushNarrow()
	}
	if len(a.d64) < len(a.d) {
		a.d64 = resizeSlice(a.d64, len(a.d))
	}
	d64 := a.d64
	var bad uint64
	// bad is nonzero unless each hi is its lo's sign extension and
	// |lo| < 2^narrowBits. Two loops, as a branch per row costs a sixth.
	if sel == nil {
		vs = vs[:len(gids)]
		for i, g := range gids {
			lo := int64(vs[i].LowBits())
			bad |= uint64(vs[i].HighBits()^(lo>>63)) | (uint64(lo)+1<<narrowBits)>>(narrowBits+1)
			d64[g] += lo
		}
	} else {
		for i, g := range gids {
			v := vs[sel[i]]
			lo := int64(v.LowBits())
			bad |= uint64(v.HighBits()^(lo>>63)) | (uint64(lo)+1<<narrowBits)>>(narrowBits+1)
			d64[g] += lo
		}
	}
	if bad != 0 {
		for i, g := range gids {
			r := i
			if sel != nil {
				r = int(sel[i])
			}
			d64[g] -= int64(vs[r].LowBits())
		}
		a.wide = true
		return false
	}
	has := a.has
	for _, g := range gids {
		has[g] = true
	}
	a.d64Max += int64(len(gids)) << narrowBits
	return true
}

// flushNarrow folds the int64 partial sums into the 128-bit ones.
func (a *sumAgg) flushNarrow() {
	if a.d64Max == 0 {
		return
	}
	for g, v := range a.d64 {
		if v != 0 {
			a.d[g] = a.d[g].Add(decimal128.FromI64(v))
			a.d64[g] = 0
		}
	}
	a.d64Max = 0
}

func (a *sumAgg) merge(gids []int32, states []arrow.Array) { a.update(gids, states) }
func (a *sumAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	return []arrow.Array{a.finalize(mem, from, to)}
}
func (a *sumAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	a.flushNarrow()
	valid := a.has[from:to]
	switch a.class {
	case classInt:
		return buildInts(mem, a.res, a.i[from:to], valid)
	case classFloat:
		return buildFloats(mem, a.res, a.f[from:to], valid)
	}
	return buildDecs(mem, a.res, a.d[from:to], valid)
}
func (a *sumAgg) memBytes() int64 {
	return int64(cap(a.has) + cap(a.i)*8 + cap(a.f)*8 + cap(a.d)*16 + cap(a.d64)*8)
}

// avgAgg keeps (sum, count); its partial state is those two columns. When
// the same aggregate also has SUM of the same argument (TPC-H Q1 has
// sum(l_quantity) and avg(l_quantity)), shared points at that sum and the
// average adds nothing itself.
type avgAgg struct {
	sum    sumAgg
	shared *sumAgg
	n      []int64
	res    types.T
}

// sums is the running sum the average divides.
func (a *avgAgg) sums() *sumAgg {
	if a.shared != nil {
		return a.shared
	}
	return &a.sum
}

func (a *avgAgg) resize(g int) {
	if a.shared == nil {
		a.sum.resize(g)
	}
	a.n = resizeSlice(a.n, g)
}
func (a *avgAgg) update(gids []int32, args []arrow.Array) { a.updateSel(gids, args, nil) }

// updateSel folds rows sel[i] (sel nil: row i) into groups gids[i].
func (a *avgAgg) updateSel(gids []int32, args []arrow.Array, sel []int32) {
	col := args[0]
	if a.shared == nil {
		a.sum.add(gids, col, sel)
	}
	if col.DataType().ID() == arrow.NULL {
		return
	}
	n := a.n
	if col.NullN() == 0 {
		for _, g := range gids {
			n[g]++
		}
		return
	}
	for i, g := range gids {
		r := i
		if sel != nil {
			r = int(sel[i])
		}
		if col.IsValid(r) {
			n[g]++
		}
	}
}
func (a *avgAgg) merge(gids []int32, states []arrow.Array) {
	a.sum.update(gids, states[:1])
	vs := int64Values(states[1], nil)
	for i, g := range gids {
		a.n[g] += vs[i]
	}
}
func (a *avgAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	return []arrow.Array{a.sums().finalize(mem, from, to), buildInts(mem, types.BigIntT, a.n[from:to], nil)}
}
func (a *avgAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	sum := a.sums()
	sum.flushNarrow()
	n := to - from
	valid := make([]bool, n)
	for i := range valid {
		valid[i] = a.n[from+i] > 0
	}
	if a.res.Kind == types.Decimal {
		out := make([]decimal128.Num, n)
		up := int32(a.res.Scale - sum.res.Scale)
		for i := range out {
			if valid[i] {
				out[i] = decDivRound(sum.d[from+i], up, a.n[from+i])
			}
		}
		return buildDecs(mem, a.res, out, valid)
	}
	out := make([]float64, n)
	for i := range out {
		if !valid[i] {
			continue
		}
		g := from + i
		switch sum.class {
		case classInt:
			out[i] = float64(sum.i[g]) / float64(a.n[g])
		case classFloat:
			out[i] = sum.f[g] / float64(a.n[g])
		case classDec:
			out[i] = sum.d[g].ToFloat64(int32(sum.res.Scale)) / float64(a.n[g])
		}
	}
	return buildFloats(mem, a.res, out, valid)
}

// shareSums points each AVG at a SUM of the same argument among calls
// (raw input only: the phases that merge read different state columns),
// so that the argument is summed once.
func shareSums(fns []aggFunc, calls []AggCall) {
	sums := map[string]*sumAgg{}
	key := func(c AggCall) (string, bool) {
		if c.Distinct || len(c.Args) != 1 {
			return "", false
		}
		k, err := expr.AppendBinary(nil, c.Args[0])
		return string(k), err == nil
	}
	for i, f := range fns {
		if s, ok := f.(*sumAgg); ok {
			if k, ok := key(calls[i]); ok {
				sums[k] = s
			}
		}
	}
	for i, f := range fns {
		if a, ok := f.(*avgAgg); ok {
			if k, ok := key(calls[i]); ok && sums[k] != nil && sums[k].res == a.sum.res {
				a.shared = sums[k]
			}
		}
	}
}

// memBytes: a shared sum is counted by its SUM (a.sum then holds nothing).
func (a *avgAgg) memBytes() int64 { return a.sum.memBytes() + int64(cap(a.n)*8) }

type pickMode uint8

const (
	pickMin pickMode = iota
	pickMax
	pickAny
)

// pickAgg keeps one input value per group: MIN, MAX or ANY_VALUE (first).
type pickAgg struct {
	t     types.T
	class valClass
	mode  pickMode
	has   []bool
	i     []int64
	f     []float64
	d     []decimal128.Num
	s     []string
	ibuf  []int64
	fbuf  []float64
}

func (a *pickAgg) resize(g int) {
	a.has = resizeSlice(a.has, g)
	switch a.class {
	case classInt:
		a.i = resizeSlice(a.i, g)
	case classFloat:
		a.f = resizeSlice(a.f, g)
	case classDec:
		a.d = resizeSlice(a.d, g)
	case classStr:
		a.s = resizeSlice(a.s, g)
	}
}

func (a *pickAgg) update(gids []int32, args []arrow.Array) {
	col := args[0]
	if col.DataType().ID() == arrow.NULL {
		return
	}
	nulls := col.NullN() > 0
	switch a.class {
	case classInt:
		vs := int64Values(col, a.ibuf)
		a.ibuf = vs
		for i, g := range gids {
			if nulls && col.IsNull(i) {
				continue
			}
			v := vs[i]
			if !a.has[g] || a.mode == pickMin && v < a.i[g] || a.mode == pickMax && v > a.i[g] {
				a.i[g], a.has[g] = v, true
			}
		}
	case classFloat:
		vs := float64Values(col, a.fbuf)
		a.fbuf = vs
		for i, g := range gids {
			if nulls && col.IsNull(i) {
				continue
			}
			v := vs[i]
			if !a.has[g] || a.mode == pickMin && v < a.f[g] || a.mode == pickMax && v > a.f[g] {
				a.f[g], a.has[g] = v, true
			}
		}
	case classDec:
		vs := decValues(col, nil)
		for i, g := range gids {
			if nulls && col.IsNull(i) {
				continue
			}
			v := vs[i]
			if !a.has[g] || a.mode == pickMin && v.Less(a.d[g]) || a.mode == pickMax && v.Greater(a.d[g]) {
				a.d[g], a.has[g] = v, true
			}
		}
	case classStr:
		sc := col.(*array.String)
		for i, g := range gids {
			if nulls && col.IsNull(i) {
				continue
			}
			v := sc.Value(i)
			if !a.has[g] || a.mode == pickMin && v < a.s[g] || a.mode == pickMax && v > a.s[g] {
				// Copy: v points into a batch that will be released.
				a.s[g], a.has[g] = strings.Clone(v), true
			}
		}
	}
}

func (a *pickAgg) merge(gids []int32, states []arrow.Array) { a.update(gids, states) }
func (a *pickAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	return []arrow.Array{a.finalize(mem, from, to)}
}
func (a *pickAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	valid := a.has[from:to]
	switch a.class {
	case classInt:
		return buildInts(mem, a.t, a.i[from:to], valid)
	case classFloat:
		return buildFloats(mem, a.t, a.f[from:to], valid)
	case classDec:
		return buildDecs(mem, a.t, a.d[from:to], valid)
	}
	return buildStrings(mem, a.s[from:to], valid)
}
func (a *pickAgg) memBytes() int64 {
	n := int64(cap(a.has) + cap(a.i)*8 + cap(a.f)*8 + cap(a.d)*16 + cap(a.s)*16)
	for _, s := range a.s {
		n += int64(len(s))
	}
	return n
}

// concatAgg is GROUP_CONCAT(x SEPARATOR sep), NULLs skipped.
type concatAgg struct {
	sep   string
	argT  types.T
	has   []bool
	parts [][]byte
	bytes int64
}

func (a *concatAgg) resize(g int) {
	a.has = resizeSlice(a.has, g)
	a.parts = resizeSlice(a.parts, g)
}

func (a *concatAgg) update(gids []int32, args []arrow.Array) {
	col := args[0]
	if col.DataType().ID() == arrow.NULL {
		return
	}
	sc, isStr := col.(*array.String)
	for i, g := range gids {
		if col.IsNull(i) {
			continue
		}
		var v string
		if isStr {
			v = sc.Value(i)
		} else {
			v = types.DatumAt(col, i, a.argT).String()
		}
		if a.has[g] {
			a.parts[g] = append(a.parts[g], a.sep...)
			a.bytes += int64(len(a.sep))
		}
		a.parts[g] = append(a.parts[g], v...)
		a.bytes += int64(len(v))
		a.has[g] = true
	}
}

func (a *concatAgg) merge(gids []int32, states []arrow.Array) { a.update(gids, states) }
func (a *concatAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	return []arrow.Array{a.finalize(mem, from, to)}
}
func (a *concatAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	b := array.NewStringBuilder(mem)
	defer b.Release()
	for g := from; g < to; g++ {
		if a.has[g] {
			b.BinaryBuilder.Append(a.parts[g])
		} else {
			b.AppendNull()
		}
	}
	return b.NewArray()
}
func (a *concatAgg) memBytes() int64 { return int64(cap(a.has)+cap(a.parts)*24) + a.bytes }

// distinctAgg feeds its inner function only the first occurrence of each
// (group, argument values) pair. One fixed-width argument is remembered
// by value (no key bytes, no allocation per pair); others by their key
// encoding.
type distinctAgg struct {
	inner aggFunc
	mem   memory.Allocator
	seen  map[string]struct{}
	fixed map[distinctPair]struct{}
	enc   op.EncKeys
	key   []byte
	vals  []uint64
	keep  []int32
	kg    []int32
	bytes int64
}

// distinctPair is a group id and an argument's 8-byte key value.
type distinctPair struct {
	g int32
	v uint64
}

func (a *distinctAgg) resize(g int) { a.inner.resize(g) }
func (a *distinctAgg) update(gids []int32, args []arrow.Array) {
	keep := a.keep[:0]
	if op.ValueKeyed(args) {
		if a.fixed == nil {
			a.fixed = map[distinctPair]struct{}{}
		}
		a.vals = op.FixedKeyValues(args[0], op.GrowU64(a.vals, args[0].Len()))
		nulls := args[0].NullN() > 0
		for i, g := range gids {
			if nulls && args[0].IsNull(i) {
				continue
			}
			p := distinctPair{g, a.vals[i]}
			if _, ok := a.fixed[p]; ok {
				continue
			}
			a.fixed[p] = struct{}{}
			a.bytes += 32
			keep = append(keep, int32(i))
		}
	} else {
		a.enc.Encode(args, nil)
		for i, g := range gids {
			if allValid(args, i) {
				a.key = append(a.key[:0], byte(g), byte(g>>8), byte(g>>16), byte(g>>24))
				a.key = append(a.key, a.enc.Key(i)...)
				if _, ok := a.seen[string(a.key)]; ok {
					continue
				}
				a.seen[string(a.key)] = struct{}{}
				a.bytes += int64(len(a.key)) + 48
				keep = append(keep, int32(i))
			}
		}
	}
	a.keep = keep
	if len(keep) == 0 {
		return
	}
	a.kg = op.GrowInt32(a.kg, len(keep))
	for i, r := range keep {
		a.kg[i] = gids[r]
	}
	// COUNT needs only the groups of the kept rows (all non-NULL).
	if c, ok := a.inner.(*countAgg); ok {
		for _, g := range a.kg {
			c.n[g]++
		}
		return
	}
	sub, err := op.TakeCols(a.mem, args, keep)
	if err != nil {
		panic(err) // take of same-typed columns cannot fail
	}
	defer op.ReleaseAll(sub)
	a.inner.update(a.kg, sub)
}
func (a *distinctAgg) merge(gids []int32, states []arrow.Array) { a.inner.merge(gids, states) }
func (a *distinctAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	return a.inner.serialize(mem, from, to)
}
func (a *distinctAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	return a.inner.finalize(mem, from, to)
}
func (a *distinctAgg) memBytes() int64 { return a.inner.memBytes() + a.bytes }
