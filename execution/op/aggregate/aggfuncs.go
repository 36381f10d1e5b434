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

func (a *countAgg) resize(g int) { a.n = resizeSlice(a.n, g) }
func (a *countAgg) update(gids []int32, args []arrow.Array) {
	if a.star || !anyNulls(args) {
		for _, g := range gids {
			a.n[g]++
		}
		return
	}
	for i, g := range gids {
		if allValid(args, i) {
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
	ibuf  []int64
	fbuf  []float64
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
	}
}

func (a *sumAgg) update(gids []int32, args []arrow.Array) {
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
			a.i[g] += vs[i]
			a.has[g] = true
		}
	case classFloat:
		vs := float64Values(col, a.fbuf)
		a.fbuf = vs
		for i, g := range gids {
			if nulls && col.IsNull(i) {
				continue
			}
			a.f[g] += vs[i]
			a.has[g] = true
		}
	case classDec:
		vs := decValues(col, nil)
		for i, g := range gids {
			if nulls && col.IsNull(i) {
				continue
			}
			a.d[g] = a.d[g].Add(vs[i])
			a.has[g] = true
		}
	}
}

func (a *sumAgg) merge(gids []int32, states []arrow.Array) { a.update(gids, states) }
func (a *sumAgg) serialize(mem memory.Allocator, from, to int) []arrow.Array {
	return []arrow.Array{a.finalize(mem, from, to)}
}
func (a *sumAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
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
	return int64(cap(a.has) + cap(a.i)*8 + cap(a.f)*8 + cap(a.d)*16)
}

// avgAgg keeps (sum, count); its partial state is those two columns.
type avgAgg struct {
	sum sumAgg
	n   []int64
	res types.T
}

func (a *avgAgg) resize(g int) { a.sum.resize(g); a.n = resizeSlice(a.n, g) }
func (a *avgAgg) update(gids []int32, args []arrow.Array) {
	a.sum.update(gids, args)
	col := args[0]
	if col.DataType().ID() == arrow.NULL {
		return
	}
	for i, g := range gids {
		if col.IsValid(i) {
			a.n[g]++
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
	return []arrow.Array{a.sum.finalize(mem, from, to), buildInts(mem, types.BigIntT, a.n[from:to], nil)}
}
func (a *avgAgg) finalize(mem memory.Allocator, from, to int) arrow.Array {
	n := to - from
	valid := make([]bool, n)
	for i := range valid {
		valid[i] = a.n[from+i] > 0
	}
	if a.res.Kind == types.Decimal {
		out := make([]decimal128.Num, n)
		up := int32(a.res.Scale - a.sum.res.Scale)
		for i := range out {
			if valid[i] {
				out[i] = decDivRound(a.sum.d[from+i], up, a.n[from+i])
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
		switch a.sum.class {
		case classInt:
			out[i] = float64(a.sum.i[g]) / float64(a.n[g])
		case classFloat:
			out[i] = a.sum.f[g] / float64(a.n[g])
		case classDec:
			out[i] = a.sum.d[g].ToFloat64(int32(a.sum.res.Scale)) / float64(a.n[g])
		}
	}
	return buildFloats(mem, a.res, out, valid)
}
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
