package join

import (
	"context"
	"errors"
	"math/rand"
	"testing"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

var allJoinTypes = []fragment.JoinType{fragment.JoinInner, fragment.JoinLeftOuter, fragment.JoinRightOuter, fragment.JoinFullOuter, fragment.JoinLeftSemi,
	fragment.JoinLeftAnti, fragment.JoinRightSemi, fragment.JoinRightAnti, fragment.JoinNullAwareLeftAnti}

// naiveJoin is the reference: left rows (k, v), right rows (k, w).
func naiveJoin(typ fragment.JoinType, left, right []optest.Row, nullSafe bool, residual bool) []string {
	match := func(l, r optest.Row) bool {
		if l[0] == nil || r[0] == nil {
			if !nullSafe || l[0] != nil || r[0] != nil {
				return false
			}
		} else if l[0] != r[0] {
			return false
		}
		if residual {
			return l[1] != nil && r[1] != nil && l[1].(int64) < r[1].(int64)
		}
		return true
	}
	nulls := optest.Row{nil, nil}
	var out []string
	rMatched := make([]bool, len(right))
	for _, l := range left {
		any := false
		for ri, r := range right {
			if match(l, r) {
				any = true
				rMatched[ri] = true
				if emitsPairs(typ) {
					out = append(out, optest.FmtRow(append(append(optest.Row{}, l...), r...)))
				}
			}
		}
		switch typ {
		case fragment.JoinLeftOuter, fragment.JoinFullOuter:
			if !any {
				out = append(out, optest.FmtRow(append(append(optest.Row{}, l...), nulls...)))
			}
		case fragment.JoinLeftSemi:
			if any {
				out = append(out, optest.FmtRow(l))
			}
		case fragment.JoinLeftAnti:
			if !any {
				out = append(out, optest.FmtRow(l))
			}
		case fragment.JoinNullAwareLeftAnti:
			buildNull := false
			for _, r := range right {
				buildNull = buildNull || r[0] == nil
			}
			if len(right) == 0 || !any && !buildNull && l[0] != nil {
				out = append(out, optest.FmtRow(l))
			}
		}
	}
	for ri, r := range right {
		switch {
		case (typ == fragment.JoinRightOuter || typ == fragment.JoinFullOuter) && !rMatched[ri]:
			out = append(out, optest.FmtRow(append(append(optest.Row{}, nulls...), r...)))
		case typ == fragment.JoinRightSemi && rMatched[ri], typ == fragment.JoinRightAnti && !rMatched[ri]:
			out = append(out, optest.FmtRow(r))
		}
	}
	return optest.Sorted(out)
}

func joinOutput(typ fragment.JoinType) []types.Column {
	l := optest.Cols("lk", types.BigIntT, "v", types.BigIntT)
	r := optest.Cols("rk", types.BigIntT, "w", types.BigIntT)
	switch typ {
	case fragment.JoinLeftSemi, fragment.JoinLeftAnti, fragment.JoinNullAwareLeftAnti:
		return l
	case fragment.JoinRightSemi, fragment.JoinRightAnti:
		return r
	}
	return append(l, r...)
}

func runHashJoin(t *testing.T, typ fragment.JoinType, left, right []optest.Row, nullSafe, residual bool, batch int) []string {
	mem, check := optest.Checked(t)
	defer check()
	env := optest.Env(mem)
	lc := optest.Cols("lk", types.BigIntT, "v", types.BigIntT)
	rc := optest.Cols("rk", types.BigIntT, "w", types.BigIntT)
	spec := HashJoinSpec{
		Type:      typ,
		LeftKeys:  []expr.Expr{optest.ColRef(0, types.BigIntT)},
		RightKeys: []expr.Expr{optest.ColRef(0, types.BigIntT)},
		NullSafe:  []bool{nullSafe},
		Output:    joinOutput(typ),
		Mem:       op.NewMemTracker(0),
	}
	if residual {
		p, err := expr.NewCall("lt", optest.ColRef(1, types.BigIntT), optest.ColRef(3, types.BigIntT))
		if err != nil {
			t.Fatal(err)
		}
		spec.Other = []expr.Expr{p}
	}
	j, err := NewHashJoin(env, optest.NewSource(mem, lc, left, batch), optest.NewSource(mem, rc, right, batch), spec)
	if err != nil {
		t.Fatal(err)
	}
	got := optest.Drain(t, j)
	j.Close()
	if u := spec.Mem.Used(); u != 0 {
		t.Fatalf("tracker holds %d bytes after Close", u)
	}
	return optest.Sorted(got)
}

func TestHashJoinTable(t *testing.T) {
	left := []optest.Row{{int64(1), int64(10)}, {int64(2), int64(20)}, {nil, int64(30)}, {int64(2), int64(21)}, {int64(4), nil}}
	right := []optest.Row{{int64(2), int64(25)}, {int64(2), int64(5)}, {nil, int64(7)}, {int64(3), int64(1)}, {int64(1), nil}}
	noNullRight := []optest.Row{{int64(2), int64(25)}, {int64(3), int64(1)}}
	cases := []struct {
		name        string
		left, right []optest.Row
	}{
		{"basic", left, right},
		{"empty-left", nil, right},
		{"empty-right", left, nil},
		{"empty-both", nil, nil},
		{"no-null-build", left, noNullRight},
	}
	for _, c := range cases {
		for _, typ := range allJoinTypes {
			for _, ns := range []bool{false, true} {
				for _, res := range []bool{false, true} {
					if typ == fragment.JoinNullAwareLeftAnti && (ns || res) {
						continue
					}
					got := runHashJoin(t, typ, c.left, c.right, ns, res, 2)
					want := naiveJoin(typ, c.left, c.right, ns, res)
					t.Run(c.name+"/"+typ.String(), func(t *testing.T) { optest.EqualRows(t, got, want) })
				}
			}
		}
	}
}

func TestHashJoinRandom(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	for iter := 0; iter < 3; iter++ {
		// Skewed keys: few distinct keys make long chains and outputs that
		// cross the 4096-row batch limit.
		keys := []int{150, 500, 5000}[iter]
		left := optest.RandRows(r, 2500, keys, 0.05)
		right := optest.RandRows(r, 600, keys, 0.05)
		for _, typ := range allJoinTypes {
			for _, ns := range []bool{false, true} {
				res := iter%2 == 1
				if typ == fragment.JoinNullAwareLeftAnti && (ns || res) {
					continue
				}
				got := runHashJoin(t, typ, left, right, ns, res, 1000)
				want := naiveJoin(typ, left, right, ns, res)
				optest.EqualRows(t, got, want)
			}
		}
	}
}

func TestHashJoinMemLimit(t *testing.T) {
	mem, check := optest.Checked(t)
	defer check()
	env := optest.Env(mem)
	r := rand.New(rand.NewSource(1))
	lc := optest.Cols("lk", types.BigIntT, "v", types.BigIntT)
	spec := HashJoinSpec{
		Type:      fragment.JoinInner,
		LeftKeys:  []expr.Expr{optest.ColRef(0, types.BigIntT)},
		RightKeys: []expr.Expr{optest.ColRef(0, types.BigIntT)},
		Output:    joinOutput(fragment.JoinInner),
		Mem:       op.NewMemTracker(10_000),
	}
	j, err := NewHashJoin(env, optest.NewSource(mem, lc, optest.RandRows(r, 10, 5, 0), 10), optest.NewSource(mem, lc, optest.RandRows(r, 5000, 5, 0), 1000), spec)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	_, err = j.Next(context.Background())
	if !errors.Is(err, sqlerr.MemLimitExceeded.Match()) {
		t.Fatalf("got %v, want memory limit error", err)
	}
}

func TestHashJoinCancel(t *testing.T) {
	mem, check := optest.Checked(t)
	defer check()
	env := optest.Env(mem)
	lc := optest.Cols("lk", types.BigIntT, "v", types.BigIntT)
	r := rand.New(rand.NewSource(1))
	spec := HashJoinSpec{Type: fragment.JoinInner, LeftKeys: []expr.Expr{optest.ColRef(0, types.BigIntT)},
		RightKeys: []expr.Expr{optest.ColRef(0, types.BigIntT)}, Output: joinOutput(fragment.JoinInner)}
	j, _ := NewHashJoin(env, optest.NewSource(mem, lc, optest.RandRows(r, 10, 5, 0), 10), optest.NewSource(mem, lc, optest.RandRows(r, 10, 5, 0), 10), spec)
	defer j.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := j.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}
