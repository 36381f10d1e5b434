package aggregate

import (
	"bytes"
	"context"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// FrameUnit is ROWS or RANGE.
type FrameUnit uint8

const (
	FrameRows FrameUnit = iota
	FrameRange
)

// BoundKind is one end of a window frame.
type BoundKind uint8

const (
	UnboundedPreceding BoundKind = iota
	Preceding
	CurrentRow
	Following
	UnboundedFollowing
)

// FrameBound is a frame end; Offset applies to Preceding/Following.
type FrameBound struct {
	Kind   BoundKind
	Offset int64
}

// WindowFrame is ROWS|RANGE BETWEEN Start AND End. RANGE supports only
// UNBOUNDED and CURRENT ROW bounds (peers of the current row included).
type WindowFrame struct {
	Unit       FrameUnit
	Start, End FrameBound
}

// WindowCall is one analytic function.
type WindowCall struct {
	// Fn: row_number, rank, dense_rank, lag, lead, first_value, last_value,
	// count, sum, avg, min, max.
	Fn string
	// Args over the input columns. LAG/LEAD: x [, offset (an integer
	// constant, default 1) [, default]]. COUNT(*): none.
	Args    []expr.Expr
	ArgType types.T
	// Frame nil means the SQL default: RANGE UNBOUNDED PRECEDING..CURRENT
	// ROW with ORDER BY, the whole partition without.
	Frame *WindowFrame
}

// WindowSpec describes an ANALYTIC node. Its input must be sorted by
// PartitionBy then OrderBy (the planner puts a Sort below).
type WindowSpec struct {
	PartitionBy []expr.Expr
	OrderBy     []op.SortKey
	Calls       []WindowCall
	// Output is the input columns followed by one column per call.
	Output []types.Column
	// Mem is charged with the buffered partition; nil is unlimited.
	Mem *op.MemTracker
}

// Window computes analytic functions one partition at a time: it buffers
// the rows of a partition (which may span batches), computes every
// function over it with prefix sums, peer groups and frame indexes, and
// emits the partition with the result columns appended.
type Window struct {
	env   *op.Env
	child op.Operator
	spec  WindowSpec
	sc    *arrow.Schema
	mem   op.MemCharge

	pieces  []arrow.Record // rows of the current partition
	curKey  []byte         // its partition key
	pending []arrow.Record
	eof     bool
	pkeys   op.EncKeys
	offsets []int64 // LAG/LEAD offsets per call
}

var _ op.Operator = (*Window)(nil)

// NewWindow returns an analytic operator over child.
func NewWindow(env *op.Env, child op.Operator, spec WindowSpec) (*Window, error) {
	w := &Window{env: env, child: child, spec: spec, sc: types.ArrowSchema(spec.Output), mem: op.MemCharge{Tracker: spec.Mem.Child("Window")}}
	if len(spec.Output) != child.Schema().NumFields()+len(spec.Calls) {
		return nil, sqlerr.Assertf("window: %d output columns for %d inputs and %d calls", len(spec.Output), child.Schema().NumFields(), len(spec.Calls))
	}
	w.offsets = make([]int64, len(spec.Calls))
	for i, c := range spec.Calls {
		fn := strings.ToLower(c.Fn)
		switch fn {
		case "row_number", "rank", "dense_rank", "first_value", "last_value", "count", "sum", "avg", "min", "max",
			"percent_rank", "cume_dist":
		case "ntile":
			k, ok := c.Args[0].(*expr.Const)
			if len(c.Args) != 1 || !ok || k.Val.Null || !k.Val.T.IsInteger() || k.Val.I <= 0 {
				return nil, sqlerr.WrongArguments.New("NTILE")
			}
			w.offsets[i] = k.Val.I
		case "lag", "lead":
			w.offsets[i] = 1
			if len(c.Args) > 1 {
				k, ok := c.Args[1].(*expr.Const)
				if !ok || k.Val.Null || !k.Val.T.IsInteger() || k.Val.I < 0 {
					return nil, sqlerr.WrongArguments.New(strings.ToUpper(fn))
				}
				w.offsets[i] = k.Val.I
			}
		default:
			return nil, sqlerr.NotSupportedYet.New("window function " + c.Fn)
		}
		if f := c.Frame; f != nil && f.Unit == FrameRange {
			for _, b := range []BoundKind{f.Start.Kind, f.End.Kind} {
				if b == Preceding || b == Following {
					return nil, sqlerr.NotSupportedYet.New("RANGE frames with value offsets")
				}
			}
		}
	}
	return w, nil
}

func (w *Window) Schema() *arrow.Schema { return w.sc }

func (w *Window) Next(ctx context.Context) (arrow.Record, error) {
	for {
		if len(w.pending) > 0 {
			r := w.pending[0]
			w.pending = w.pending[1:]
			return r, nil
		}
		if w.eof {
			return nil, io.EOF
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec, err := w.child.Next(ctx)
		if err == io.EOF {
			w.eof = true
			if err := w.flush(); err != nil {
				return nil, err
			}
			continue
		}
		if err != nil {
			return nil, err
		}
		err = w.addBatch(rec)
		rec.Release()
		if err != nil {
			return nil, err
		}
	}
}

// addBatch splits rec at partition boundaries.
func (w *Window) addBatch(rec arrow.Record) error {
	n := int(rec.NumRows())
	if len(w.spec.PartitionBy) == 0 { // one partition: the whole input
		p := rec.NewSlice(0, int64(n))
		w.pieces = append(w.pieces, p)
		return w.mem.Add(op.RecordMemBytes(p))
	}
	keys, err := op.EvalCols(w.env, w.spec.PartitionBy, rec)
	if err != nil {
		return err
	}
	w.pkeys.Encode(keys, nil)
	op.ReleaseAll(keys)
	start := 0
	for i := 0; i < n; i++ {
		k := w.pkeys.Key(i)
		if len(w.pieces) == 0 && i == start {
			w.curKey = append(w.curKey[:0], k...)
			continue
		}
		if bytes.Equal(k, w.curKey) {
			continue
		}
		if i > start {
			w.pieces = append(w.pieces, rec.NewSlice(int64(start), int64(i)))
		}
		if err := w.flush(); err != nil {
			return err
		}
		start = i
		w.curKey = append(w.curKey[:0], k...)
	}
	if start < n {
		p := rec.NewSlice(int64(start), int64(n))
		w.pieces = append(w.pieces, p)
		return w.mem.Add(op.RecordMemBytes(p))
	}
	return nil
}

// flush computes and queues the buffered partition.
func (w *Window) flush() error {
	if len(w.pieces) == 0 {
		return nil
	}
	part, err := op.ConcatRecords(w.env.Mem, w.child.Schema(), w.pieces)
	op.ReleaseRecs(w.pieces)
	w.pieces = nil
	w.mem.ReleaseAll()
	if err != nil {
		return err
	}
	defer part.Release()
	res, err := w.compute(part)
	if err != nil {
		return err
	}
	n := int(part.NumRows())
	all := append(append([]arrow.Array{}, part.Columns()...), res...)
	for from := 0; from < n; from += op.MaxBatchRows {
		to := min(n, from+op.MaxBatchRows)
		cols := make([]arrow.Array, len(all))
		for i, c := range all {
			cols[i] = array.NewSlice(c, int64(from), int64(to))
		}
		w.pending = append(w.pending, op.NewRecord(w.sc, cols, to-from))
	}
	op.ReleaseAll(res)
	return nil
}

// compute evaluates every call over one partition.
func (w *Window) compute(part arrow.Record) ([]arrow.Array, error) {
	n := int(part.NumRows())
	// Peer groups: rows with equal ORDER BY keys.
	peerStart := make([]int32, n)
	peerEnd := make([]int32, n)
	keys, err := op.SortKeyCols(w.env, w.spec.OrderBy, part)
	if err != nil {
		return nil, err
	}
	var enc op.SortEnc
	if len(keys) > 0 {
		enc.Encode(keys, w.spec.OrderBy)
	} else {
		enc.Offs = make([]int32, n+1) // no ORDER BY: the whole partition is one peer group
	}
	op.ReleaseAll(keys)
	for i := 0; i < n; i++ {
		if i > 0 && bytes.Equal(enc.Key(i), enc.Key(i-1)) {
			peerStart[i] = peerStart[i-1]
		} else {
			peerStart[i] = int32(i)
		}
	}
	for i := n - 1; i >= 0; i-- {
		if i < n-1 && peerStart[i+1] == peerStart[i] {
			peerEnd[i] = peerEnd[i+1]
		} else {
			peerEnd[i] = int32(i)
		}
	}
	out := make([]arrow.Array, 0, len(w.spec.Calls))
	for ci, c := range w.spec.Calls {
		args, err := op.EvalCols(w.env, c.Args, part)
		if err != nil {
			op.ReleaseAll(out)
			return nil, err
		}
		a, err := w.call(ci, c, args, n, peerStart, peerEnd)
		op.ReleaseAll(args)
		if err != nil {
			op.ReleaseAll(out)
			return nil, err
		}
		out = append(out, a)
	}
	return out, nil
}

func (w *Window) call(ci int, c WindowCall, args []arrow.Array, n int, peerStart, peerEnd []int32) (arrow.Array, error) {
	mem := w.env.Mem
	fn := strings.ToLower(c.Fn)
	switch fn {
	case "row_number", "rank", "dense_rank":
		vals := make([]int64, n)
		dense := int64(0)
		for i := range vals {
			if peerStart[i] == int32(i) {
				dense++
			}
			switch fn {
			case "row_number":
				vals[i] = int64(i + 1)
			case "rank":
				vals[i] = int64(peerStart[i]) + 1
			default:
				vals[i] = dense
			}
		}
		return buildInts(mem, types.BigIntT, vals, nil), nil
	case "ntile":
		// n rows into k buckets: the first n%k buckets get one row more.
		k := w.offsets[ci]
		vals := make([]int64, n)
		q, r := int64(n)/k, int64(n)%k
		for i := range vals {
			j := int64(i)
			if j < r*(q+1) {
				vals[i] = j/(q+1) + 1
			} else {
				vals[i] = (j-r*(q+1))/q + r + 1
			}
		}
		return buildInts(mem, types.BigIntT, vals, nil), nil
	case "percent_rank", "cume_dist":
		b := array.NewFloat64Builder(mem)
		defer b.Release()
		b.Reserve(n)
		for i := 0; i < n; i++ {
			switch {
			case fn == "cume_dist":
				b.UnsafeAppend(float64(peerEnd[i]+1) / float64(n))
			case n == 1:
				b.UnsafeAppend(0)
			default:
				b.UnsafeAppend(float64(peerStart[i]) / float64(n-1))
			}
		}
		return b.NewArray(), nil
	case "lag", "lead":
		off := w.offsets[ci]
		if fn == "lag" {
			off = -off
		}
		src := make([]int32, n)
		rows := make([]int32, n)
		var def arrow.Array
		if len(c.Args) > 2 {
			def = args[2]
		}
		for i := range src {
			j := int64(i) + off
			switch {
			case j >= 0 && j < int64(n):
				rows[i] = int32(j)
			case def != nil:
				src[i], rows[i] = 1, int32(i)
			default:
				src[i] = -1
			}
		}
		srcs := []arrow.Array{args[0]}
		if def != nil {
			srcs = append(srcs, def)
		}
		return op.Interleave(mem, args[0].DataType(), srcs, src, rows), nil
	}
	lo, hi := w.frame(c, n, peerStart, peerEnd)
	switch fn {
	case "first_value", "last_value":
		idx := make([]int32, n)
		ignoreNulls := false
		if len(c.Args) > 1 {
			if k, ok := c.Args[1].(*expr.Const); ok && !k.Val.Null {
				ignoreNulls = k.Val.I != 0
			}
		}
		// With ignore_null, the first (last) non-NULL row of the frame:
		// next[i] is the first non-NULL row at or after i, prev[i] the last
		// at or before it.
		var next, prev []int32
		if ignoreNulls && args[0].NullN() > 0 {
			next, prev = make([]int32, n+1), make([]int32, n)
			next[n] = int32(n)
			for i := n - 1; i >= 0; i-- {
				next[i] = next[i+1]
				if args[0].IsValid(i) {
					next[i] = int32(i)
				}
			}
			for i := 0; i < n; i++ {
				switch {
				case args[0].IsValid(i):
					prev[i] = int32(i)
				case i > 0:
					prev[i] = prev[i-1]
				default:
					prev[i] = -1
				}
			}
		}
		for i := range idx {
			switch {
			case lo[i] > hi[i]:
				idx[i] = -1
			case fn == "first_value" && next != nil:
				if idx[i] = next[lo[i]]; idx[i] > hi[i] {
					idx[i] = -1
				}
			case fn == "first_value":
				idx[i] = lo[i]
			case prev != nil:
				if idx[i] = prev[hi[i]]; idx[i] < lo[i] {
					idx[i] = -1
				}
			default:
				idx[i] = hi[i]
			}
		}
		cols, err := op.TakeCols(mem, args[:1], idx)
		if err != nil {
			return nil, err
		}
		return cols[0], nil
	case "count":
		cnt := make([]int64, n+1)
		for i := 0; i < n; i++ {
			cnt[i+1] = cnt[i]
			if len(args) == 0 || allValid(args, i) {
				cnt[i+1]++
			}
		}
		vals := make([]int64, n)
		for i := range vals {
			if lo[i] <= hi[i] {
				vals[i] = cnt[hi[i]+1] - cnt[lo[i]]
			}
		}
		return buildInts(mem, types.BigIntT, vals, nil), nil
	case "sum", "avg":
		return frameSum(w, fn, c.ArgType, args[0], lo, hi)
	case "min", "max":
		return frameMinMax(w, fn == "min", args[0], lo, hi)
	}
	return nil, sqlerr.NotSupportedYet.New("window function " + c.Fn)
}

// frame returns each row's inclusive frame [lo, hi] (empty if lo > hi).
func (w *Window) frame(c WindowCall, n int, peerStart, peerEnd []int32) (lo, hi []int32) {
	f := c.Frame
	if f == nil {
		if len(w.spec.OrderBy) > 0 {
			f = &WindowFrame{Unit: FrameRange, Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: CurrentRow}}
		} else {
			f = &WindowFrame{Unit: FrameRows, Start: FrameBound{Kind: UnboundedPreceding}, End: FrameBound{Kind: UnboundedFollowing}}
		}
	}
	bound := func(b FrameBound, i int, start bool) int64 {
		switch b.Kind {
		case UnboundedPreceding:
			return 0
		case UnboundedFollowing:
			return int64(n - 1)
		case Preceding:
			return int64(i) - b.Offset
		case Following:
			return int64(i) + b.Offset
		}
		if f.Unit == FrameRange {
			if start {
				return int64(peerStart[i])
			}
			return int64(peerEnd[i])
		}
		return int64(i)
	}
	lo, hi = make([]int32, n), make([]int32, n)
	for i := 0; i < n; i++ {
		l, h := max(bound(f.Start, i, true), 0), min(bound(f.End, i, false), int64(n-1))
		if l > h {
			l, h = 1, 0
		}
		lo[i], hi[i] = int32(l), int32(h)
	}
	return lo, hi
}

func frameSum(w *Window, fn string, argT types.T, x arrow.Array, lo, hi []int32) (arrow.Array, error) {
	mem := w.env.Mem
	n := len(lo)
	res, err := AggResultType(fn, argT, false)
	if err != nil {
		return nil, err
	}
	sumT, _ := AggResultType("sum", argT, false)
	cnt := make([]int64, n+1)
	for i := 0; i < n; i++ {
		cnt[i+1] = cnt[i]
		if x.IsValid(i) {
			cnt[i+1]++
		}
	}
	valid := make([]bool, n)
	counts := make([]int64, n)
	for i := range valid {
		if lo[i] <= hi[i] {
			counts[i] = cnt[hi[i]+1] - cnt[lo[i]]
		}
		valid[i] = counts[i] > 0
	}
	switch classOf(sumT) {
	case classInt:
		vs := int64Values(x, nil)
		pre := make([]int64, n+1)
		for i := 0; i < n; i++ {
			pre[i+1] = pre[i]
			if x.IsValid(i) {
				pre[i+1] += vs[i]
			}
		}
		out := make([]int64, n)
		fo := make([]float64, n)
		for i := range out {
			if valid[i] {
				out[i] = pre[hi[i]+1] - pre[lo[i]]
				fo[i] = float64(out[i]) / float64(counts[i])
			}
		}
		if fn == "avg" {
			return buildFloats(mem, res, fo, valid), nil
		}
		return buildInts(mem, res, out, valid), nil
	case classFloat:
		vs := float64Values(x, nil)
		pre := make([]float64, n+1)
		for i := 0; i < n; i++ {
			pre[i+1] = pre[i]
			if x.IsValid(i) {
				pre[i+1] += vs[i]
			}
		}
		out := make([]float64, n)
		for i := range out {
			if valid[i] {
				out[i] = pre[hi[i]+1] - pre[lo[i]]
				if fn == "avg" {
					out[i] /= float64(counts[i])
				}
			}
		}
		return buildFloats(mem, res, out, valid), nil
	}
	vs := decValues(x, nil)
	pre := make([]decimal128.Num, n+1)
	for i := 0; i < n; i++ {
		pre[i+1] = pre[i]
		if x.IsValid(i) {
			pre[i+1] = pre[i+1].Add(vs[i])
		}
	}
	out := make([]decimal128.Num, n)
	for i := range out {
		if !valid[i] {
			continue
		}
		out[i] = pre[hi[i]+1].Sub(pre[lo[i]])
		if fn == "avg" {
			out[i] = decDivRound(out[i], int32(res.Scale-sumT.Scale), counts[i])
		}
	}
	return buildDecs(mem, res, out, valid), nil
}

// frameMinMax picks per row the index of the frame's extreme non-NULL
// value (running for frames anchored at the partition start or end, a
// scan otherwise), then gathers those rows.
func frameMinMax(w *Window, isMin bool, x arrow.Array, lo, hi []int32) (arrow.Array, error) {
	n := len(lo)
	cmp := valueComparator(x)
	better := func(a, b int32) bool { // a strictly better than b
		if b < 0 {
			return true
		}
		c := cmp(int(a), int(b))
		return isMin && c < 0 || !isMin && c > 0
	}
	best := func(l, h int32) int32 {
		r := int32(-1)
		for j := l; j <= h; j++ {
			if x.IsValid(int(j)) && better(j, r) {
				r = j
			}
		}
		return r
	}
	idx := make([]int32, n)
	anchoredStart, anchoredEnd := true, true
	for i := range lo {
		anchoredStart = anchoredStart && (lo[i] == 0 || lo[i] > hi[i])
		anchoredEnd = anchoredEnd && (hi[i] == int32(n-1) || lo[i] > hi[i])
	}
	switch {
	case anchoredStart:
		run := make([]int32, n) // run[j]: best of [0, j]
		r := int32(-1)
		for j := 0; j < n; j++ {
			if x.IsValid(j) && better(int32(j), r) {
				r = int32(j)
			}
			run[j] = r
		}
		for i := range idx {
			idx[i] = -1
			if lo[i] <= hi[i] {
				idx[i] = run[hi[i]]
			}
		}
	case anchoredEnd:
		run := make([]int32, n) // run[j]: best of [j, n)
		r := int32(-1)
		for j := n - 1; j >= 0; j-- {
			if x.IsValid(j) && (r < 0 || better(int32(j), r) || cmp(j, int(r)) == 0) {
				r = int32(j)
			}
			run[j] = r
		}
		for i := range idx {
			idx[i] = -1
			if lo[i] <= hi[i] {
				idx[i] = run[lo[i]]
			}
		}
	default:
		for i := range idx {
			idx[i] = best(lo[i], hi[i])
		}
	}
	cols, err := op.TakeCols(w.env.Mem, []arrow.Array{x}, idx)
	if err != nil {
		return nil, err
	}
	return cols[0], nil
}

// valueComparator orders two non-NULL rows of one column.
func valueComparator(x arrow.Array) func(i, j int) int {
	switch classOf(typeOfArrow(x.DataType())) {
	case classInt:
		vs := int64Values(x, nil)
		return func(i, j int) int { return cmpOrdered(vs[i], vs[j]) }
	case classFloat:
		vs := float64Values(x, nil)
		return func(i, j int) int { return cmpOrdered(vs[i], vs[j]) }
	case classDec:
		vs := decValues(x, nil)
		return func(i, j int) int { return vs[i].Cmp(vs[j]) }
	}
	s := x.(*array.String)
	return func(i, j int) int { return strings.Compare(s.Value(i), s.Value(j)) }
}

func cmpOrdered[T int64 | float64](a, b T) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// typeOfArrow maps an Arrow type back to a representative SQL type (for
// choosing a value class only).
func typeOfArrow(dt arrow.DataType) types.T {
	switch dt.ID() {
	case arrow.FLOAT32, arrow.FLOAT64:
		return types.DoubleT
	case arrow.DECIMAL128:
		return types.LargeIntT
	case arrow.STRING:
		return types.StringT
	}
	return types.BigIntT
}

func (w *Window) Close() {
	op.ReleaseRecs(w.pieces)
	w.pieces = nil
	op.ReleaseRecs(w.pending)
	w.pending = nil
	w.mem.ReleaseAll()
	w.child.Close()
}
