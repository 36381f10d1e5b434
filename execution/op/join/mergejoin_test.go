package join

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/execution/op/sorting"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// mergeJoinTypes: every type the merge join runs (all but NAAJ and cross).
var mergeJoinTypes = []fragment.JoinType{fragment.JoinInner, fragment.JoinLeftOuter, fragment.JoinRightOuter, fragment.JoinFullOuter, fragment.JoinLeftSemi,
	fragment.JoinLeftAnti, fragment.JoinRightSemi, fragment.JoinRightAnti}

// joinShape is a join over arbitrary columns: keys are column indexes of
// each side; the residual (if any) is over left ++ right.
type joinShape struct {
	lc, rc     []types.Column
	lk, rk     []int
	nullSafe   []bool
	residual   func(t testing.TB) expr.Expr
	presort    bool // feed the merge join pre-sorted input (no Sort), at batch size
	batch      int
	memLimit   int64
	algoMerge  bool
	wantMemErr bool
}

func (s joinShape) output(typ fragment.JoinType) []types.Column {
	switch typ {
	case fragment.JoinLeftSemi, fragment.JoinLeftAnti:
		return s.lc
	case fragment.JoinRightSemi, fragment.JoinRightAnti:
		return s.rc
	}
	return append(append([]types.Column{}, s.lc...), s.rc...)
}

func keyRefs(cs []types.Column, idx []int) []expr.Expr {
	out := make([]expr.Expr, len(idx))
	for i, k := range idx {
		out[i] = optest.ColRef(k, cs[k].Type)
	}
	return out
}

// cmpVal orders test values as MergeJoinSortKeys does: NULL first.
func cmpVal(a, b any) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return -1
	case b == nil:
		return 1
	}
	switch x := a.(type) {
	case int64:
		return cmp.Compare(x, b.(int64))
	case string:
		return cmp.Compare(x, b.(string))
	}
	panic(fmt.Sprintf("cmpVal %T", a))
}

func sortRowsBy(rows []optest.Row, keys []int) []optest.Row {
	out := slices.Clone(rows)
	slices.SortStableFunc(out, func(a, b optest.Row) int {
		for _, k := range keys {
			if c := cmpVal(a[k], b[k]); c != 0 {
				return c
			}
		}
		return 0
	})
	return out
}

// runJoinShape runs a merge join (or the hash join, the reference) of
// left and right and returns its rows sorted.
func runJoinShape(t *testing.T, s joinShape, typ fragment.JoinType, left, right []optest.Row) []string {
	t.Helper()
	mem, check := optest.Checked(t)
	defer check()
	env := optest.Env(mem)
	tracker := op.NewMemTracker(s.memLimit)
	var other []expr.Expr
	if s.residual != nil {
		other = []expr.Expr{s.residual(t)}
	}
	batch := s.batch
	if batch == 0 {
		batch = 1000
	}
	var o op.Operator
	var err error
	if s.algoMerge {
		spec := MergeJoinSpec{Type: typ, LeftKeys: keyRefs(s.lc, s.lk), RightKeys: keyRefs(s.rc, s.rk),
			NullSafe: s.nullSafe, Other: other, Output: s.output(typ), Mem: tracker}
		if s.presort {
			l := optest.NewSource(mem, s.lc, sortRowsBy(left, s.lk), batch)
			r := optest.NewSource(mem, s.rc, sortRowsBy(right, s.rk), batch)
			o, err = NewMergeJoin(env, l, r, spec)
		} else {
			o, err = sortMergeJoin(env, optest.NewSource(mem, s.lc, left, batch), optest.NewSource(mem, s.rc, right, batch), spec)
		}
	} else {
		o, err = NewHashJoin(env, optest.NewSource(mem, s.lc, left, batch), optest.NewSource(mem, s.rc, right, batch),
			HashJoinSpec{Type: typ, LeftKeys: keyRefs(s.lc, s.lk), RightKeys: keyRefs(s.rc, s.rk),
				NullSafe: s.nullSafe, Other: other, Output: s.output(typ), Mem: tracker})
	}
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		o.Close()
		if u := tracker.Used(); u != 0 {
			t.Fatalf("tracker holds %d bytes after Close", u)
		}
	}()
	if s.wantMemErr {
		err := op.Drain(context.Background(), o, func(arrow.Record) error { return nil })
		if !errors.Is(err, sqlerr.MemLimitExceeded.Match()) {
			t.Fatalf("got %v, want memory limit error", err)
		}
		return nil
	}
	return optest.Sorted(optest.Drain(t, o))
}

// kvShape is the (k, v) ⋈ (k, w) join of hashjoin_test.go.
func kvShape(nullSafe, residual bool) joinShape {
	s := joinShape{lc: optest.Cols("lk", types.BigIntT, "v", types.BigIntT), rc: optest.Cols("rk", types.BigIntT, "w", types.BigIntT),
		lk: []int{0}, rk: []int{0}, nullSafe: []bool{nullSafe}, algoMerge: true}
	if residual {
		s.residual = ltResidual(1, 3)
	}
	return s
}

func ltResidual(a, b int) func(t testing.TB) expr.Expr {
	return func(t testing.TB) expr.Expr {
		p, err := expr.NewCall("lt", optest.ColRef(a, types.BigIntT), optest.ColRef(b, types.BigIntT))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// TestMergeJoinTable checks every type against the naive reference, with
// NULL keys, empty sides, duplicates, and batch sizes down to one row
// (pre-sorted input, so every group and run crosses batch boundaries).
func TestMergeJoinTable(t *testing.T) {
	left := []optest.Row{{int64(1), int64(10)}, {int64(2), int64(20)}, {nil, int64(30)}, {int64(2), int64(21)}, {int64(4), nil},
		{nil, int64(1)}, {int64(2), int64(3)}}
	right := []optest.Row{{int64(2), int64(25)}, {int64(2), int64(5)}, {nil, int64(7)}, {int64(3), int64(1)}, {int64(1), nil},
		{int64(5), int64(9)}, {nil, int64(50)}, {int64(2), int64(22)}}
	noNullRight := []optest.Row{{int64(2), int64(25)}, {int64(3), int64(1)}}
	allNull := []optest.Row{{nil, int64(1)}, {nil, int64(2)}}
	cases := []struct {
		name        string
		left, right []optest.Row
	}{
		{"basic", left, right},
		{"empty-left", nil, right},
		{"empty-right", left, nil},
		{"empty-both", nil, nil},
		{"no-null-build", left, noNullRight},
		{"all-null-left", allNull, right},
		{"all-null-right", left, allNull},
		{"disjoint", []optest.Row{{int64(1), int64(1)}, {int64(1), int64(2)}}, []optest.Row{{int64(9), int64(1)}}},
	}
	for _, c := range cases {
		for _, typ := range mergeJoinTypes {
			for _, ns := range []bool{false, true} {
				for _, res := range []bool{false, true} {
					want := naiveJoin(typ, c.left, c.right, ns, res)
					for _, batch := range []int{1, 2, 1000} {
						s := kvShape(ns, res)
						s.presort, s.batch = true, batch
						name := fmt.Sprintf("%s/%s/ns=%v/res=%v/batch=%d", c.name, typ, ns, res, batch)
						t.Run(name, func(t *testing.T) { optest.EqualRows(t, runJoinShape(t, s, typ, c.left, c.right), want) })
					}
					s := kvShape(ns, res) // through the Sort operators
					t.Run(fmt.Sprintf("%s/%s/ns=%v/res=%v/sorted", c.name, typ, ns, res), func(t *testing.T) {
						optest.EqualRows(t, runJoinShape(t, s, typ, c.left, c.right), want)
					})
				}
			}
		}
	}
}

// TestMergeJoinRandomVsHash is the strongest check: for random inputs
// (fixed seed) the merge join returns the hash join's rows, as multisets,
// for every type, key kind and residual, at several batch sizes.
func TestMergeJoinRandomVsHash(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	for iter := 0; iter < 3; iter++ {
		keys := []int{6, 40, 1000}[iter]
		left := optest.RandRows(r, 300, keys, 0.08)
		right := optest.RandRows(r, 200, keys, 0.08)
		for _, typ := range mergeJoinTypes {
			for _, ns := range []bool{false, true} {
				for _, res := range []bool{false, true} {
					hs := kvShape(ns, res)
					hs.algoMerge = false
					want := runJoinShape(t, hs, typ, left, right)
					ms := kvShape(ns, res)
					ms.presort, ms.batch = true, []int{3, 17, 64}[iter]
					optest.EqualRows(t, runJoinShape(t, ms, typ, left, right), want)
					ms = kvShape(ns, res)
					optest.EqualRows(t, runJoinShape(t, ms, typ, left, right), want)
				}
			}
		}
	}
}

// TestMergeJoinSkew: one key with thousands of rows on one side, matched
// by a few (or many) rows on the other, in small batches: long runs and
// groups span many batches and the pairs span many output batches.
func TestMergeJoinSkew(t *testing.T) {
	var big, small []optest.Row
	for i := 0; i < 2000; i++ {
		big = append(big, optest.Row{int64(7), int64(i % 97)})
	}
	big = append(big, optest.Row{int64(1), int64(5)}, optest.Row{int64(9), int64(5)}, optest.Row{nil, int64(5)})
	for i := 0; i < 4; i++ {
		small = append(small, optest.Row{int64(7), int64(i * 30)})
	}
	small = append(small, optest.Row{int64(8), int64(1)}, optest.Row{nil, int64(1)})
	for _, typ := range mergeJoinTypes {
		for _, res := range []bool{false, true} {
			for _, flip := range []bool{false, true} {
				l, rr := big, small
				if flip {
					l, rr = small, big
				}
				hs := kvShape(false, res)
				hs.algoMerge = false
				want := runJoinShape(t, hs, typ, l, rr)
				ms := kvShape(false, res)
				ms.presort, ms.batch = true, 13
				optest.EqualRows(t, runJoinShape(t, ms, typ, l, rr), want)
			}
		}
	}
}

// TestMergeJoinMultiColumn: two keys, a BIGINT and a VARCHAR, each with
// '=' or '<=>', plus a residual, against the hash join.
func TestMergeJoinMultiColumn(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	strs := []any{"a", "b", "", "ab", "a\x00", nil}
	mk := func(n int) []optest.Row {
		out := make([]optest.Row, n)
		for i := range out {
			out[i] = optest.Row{optest.RandVal(r, 6, 0.1), strs[r.Intn(len(strs))], int64(r.Intn(50))}
		}
		return out
	}
	left, right := mk(200), mk(150)
	lc := optest.Cols("a", types.BigIntT, "s", types.StringT, "v", types.BigIntT)
	rc := optest.Cols("b", types.BigIntT, "t", types.StringT, "w", types.BigIntT)
	for _, typ := range mergeJoinTypes {
		for i, ns := range [][]bool{{false, false}, {true, false}, {false, true}, {true, true}} {
			s := joinShape{lc: lc, rc: rc, lk: []int{0, 1}, rk: []int{0, 1}, nullSafe: ns}
			if (i+int(typ))%2 == 1 {
				s.residual = ltResidual(2, 5)
			}
			want := runJoinShape(t, s, typ, left, right)
			s.algoMerge, s.presort, s.batch = true, true, 4
			optest.EqualRows(t, runJoinShape(t, s, typ, left, right), want)
			s.presort = false
			optest.EqualRows(t, runJoinShape(t, s, typ, left, right), want)
		}
	}
	// Keys in another column order than the sides' layout.
	s := joinShape{lc: lc, rc: rc, lk: []int{1, 0}, rk: []int{1, 0}, nullSafe: []bool{true, false}}
	want := runJoinShape(t, s, fragment.JoinFullOuter, left, right)
	s.algoMerge = true
	optest.EqualRows(t, runJoinShape(t, s, fragment.JoinFullOuter, left, right), want)
}

// TestMergeJoinMemLimit: the buffered group is charged; a group larger
// than exec_mem_limit fails with MemLimitExceeded, and Close
// returns every byte.
func TestMergeJoinMemLimit(t *testing.T) {
	var left, right []optest.Row
	for i := 0; i < 5000; i++ {
		right = append(right, optest.Row{int64(3), int64(i)})
	}
	left = append(left, optest.Row{int64(3), int64(1)})
	s := kvShape(false, false)
	s.presort, s.batch, s.memLimit, s.wantMemErr = true, 100, 10_000, true
	runJoinShape(t, s, fragment.JoinInner, left, right)
	// The same input in a generous limit works and releases everything.
	s.memLimit, s.wantMemErr = 1<<30, false
	if got := runJoinShape(t, s, fragment.JoinInner, left, right); len(got) != 5000 {
		t.Fatalf("got %d rows", len(got))
	}
}

// TestMergeJoinCloseEarly: closing after the first batch releases every
// buffer (the checked allocator asserts it).
func TestMergeJoinCloseEarly(t *testing.T) {
	mem, check := optest.Checked(t)
	defer check()
	env := optest.Env(mem)
	r := rand.New(rand.NewSource(3))
	s := kvShape(true, true)
	for _, typ := range mergeJoinTypes {
		tr := op.NewMemTracker(0)
		spec := MergeJoinSpec{Type: typ, LeftKeys: keyRefs(s.lc, s.lk), RightKeys: keyRefs(s.rc, s.rk),
			NullSafe: s.nullSafe, Other: []expr.Expr{s.residual(t)}, Output: s.output(typ), Mem: tr}
		j, err := sortMergeJoin(env, optest.NewSource(mem, s.lc, optest.RandRows(r, 3000, 3, 0.1), 500),
			optest.NewSource(mem, s.rc, optest.RandRows(r, 300, 3, 0.1), 7), spec)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := j.Next(context.Background())
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		rec.Release()
		j.Close()
		j.Close()
		if u := tr.Used(); u != 0 {
			t.Fatalf("%s: tracker holds %d bytes after Close", typ, u)
		}
	}
}

func TestMergeJoinCancelAndSpec(t *testing.T) {
	mem, check := optest.Checked(t)
	defer check()
	env := optest.Env(mem)
	s := kvShape(false, false)
	spec := MergeJoinSpec{Type: fragment.JoinInner, LeftKeys: keyRefs(s.lc, s.lk), RightKeys: keyRefs(s.rc, s.rk), Output: s.output(fragment.JoinInner)}
	r := rand.New(rand.NewSource(1))
	j, err := sortMergeJoin(env, optest.NewSource(mem, s.lc, optest.RandRows(r, 10, 5, 0), 10), optest.NewSource(mem, s.rc, optest.RandRows(r, 10, 5, 0), 10), spec)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := j.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
	j.Close()
	for _, typ := range []fragment.JoinType{fragment.JoinNullAwareLeftAnti, fragment.JoinCross} {
		spec.Type = typ
		l, rr := optest.NewSource(mem, s.lc, nil, 1), optest.NewSource(mem, s.rc, nil, 1)
		if _, err := sortMergeJoin(env, l, rr, spec); err == nil {
			t.Fatalf("%s accepted", typ)
		}
	}
}

// sortMergeJoin is the builder's NewSortMergeJoin, which this package's
// tests cannot import: a Sort by MergeJoinSortKeys under each input.
func sortMergeJoin(env *op.Env, left, right op.Operator, spec MergeJoinSpec) (*MergeJoin, error) {
	ls := sorting.NewSort(env, left, sorting.SortSpec{Keys: MergeJoinSortKeys(spec.LeftKeys), Mem: spec.Mem})
	rs := sorting.NewSort(env, right, sorting.SortSpec{Keys: MergeJoinSortKeys(spec.RightKeys), Mem: spec.Mem})
	m, err := NewMergeJoin(env, ls, rs, spec)
	if err != nil {
		ls.Close()
		rs.Close()
		return nil, err
	}
	return m, nil
}
