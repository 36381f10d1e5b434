package op

import (
	"context"
	"errors"
	"math/rand"
	"testing"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

var allJoinTypes = []fragment.JoinType{fragment.JoinInner, fragment.JoinLeftOuter, fragment.JoinRightOuter, fragment.JoinFullOuter, fragment.JoinLeftSemi,
	fragment.JoinLeftAnti, fragment.JoinRightSemi, fragment.JoinRightAnti, fragment.JoinNullAwareLeftAnti}

// naiveJoin is the reference: left rows (k, v), right rows (k, w).
func naiveJoin(typ fragment.JoinType, left, right []row, nullSafe bool, residual bool) []string {
	match := func(l, r row) bool {
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
	nulls := row{nil, nil}
	var out []string
	rMatched := make([]bool, len(right))
	for _, l := range left {
		any := false
		for ri, r := range right {
			if match(l, r) {
				any = true
				rMatched[ri] = true
				if emitsPairs(typ) {
					out = append(out, fmtRow(append(append(row{}, l...), r...)))
				}
			}
		}
		switch typ {
		case fragment.JoinLeftOuter, fragment.JoinFullOuter:
			if !any {
				out = append(out, fmtRow(append(append(row{}, l...), nulls...)))
			}
		case fragment.JoinLeftSemi:
			if any {
				out = append(out, fmtRow(l))
			}
		case fragment.JoinLeftAnti:
			if !any {
				out = append(out, fmtRow(l))
			}
		case fragment.JoinNullAwareLeftAnti:
			buildNull := false
			for _, r := range right {
				buildNull = buildNull || r[0] == nil
			}
			if len(right) == 0 || !any && !buildNull && l[0] != nil {
				out = append(out, fmtRow(l))
			}
		}
	}
	for ri, r := range right {
		switch {
		case (typ == fragment.JoinRightOuter || typ == fragment.JoinFullOuter) && !rMatched[ri]:
			out = append(out, fmtRow(append(append(row{}, nulls...), r...)))
		case typ == fragment.JoinRightSemi && rMatched[ri], typ == fragment.JoinRightAnti && !rMatched[ri]:
			out = append(out, fmtRow(r))
		}
	}
	return sorted(out)
}

func joinOutput(typ fragment.JoinType) []types.Column {
	l := cols("lk", types.BigIntT, "v", types.BigIntT)
	r := cols("rk", types.BigIntT, "w", types.BigIntT)
	switch typ {
	case fragment.JoinLeftSemi, fragment.JoinLeftAnti, fragment.JoinNullAwareLeftAnti:
		return l
	case fragment.JoinRightSemi, fragment.JoinRightAnti:
		return r
	}
	return append(l, r...)
}

func runHashJoin(t *testing.T, typ fragment.JoinType, left, right []row, nullSafe, residual bool, batch int) []string {
	mem, check := checked(t)
	defer check()
	env := testEnv(mem)
	lc := cols("lk", types.BigIntT, "v", types.BigIntT)
	rc := cols("rk", types.BigIntT, "w", types.BigIntT)
	spec := HashJoinSpec{
		Type:      typ,
		LeftKeys:  []expr.Expr{colRef(0, types.BigIntT)},
		RightKeys: []expr.Expr{colRef(0, types.BigIntT)},
		NullSafe:  []bool{nullSafe},
		Output:    joinOutput(typ),
		Mem:       NewMemTracker(0),
	}
	if residual {
		p, err := expr.NewCall("lt", colRef(1, types.BigIntT), colRef(3, types.BigIntT))
		if err != nil {
			t.Fatal(err)
		}
		spec.Other = []expr.Expr{p}
	}
	j, err := NewHashJoin(env, newSource(mem, lc, left, batch), newSource(mem, rc, right, batch), spec)
	if err != nil {
		t.Fatal(err)
	}
	got := drain(t, j)
	j.Close()
	if u := spec.Mem.Used(); u != 0 {
		t.Fatalf("tracker holds %d bytes after Close", u)
	}
	return sorted(got)
}

func randRows(r *rand.Rand, n, keys int, pNull float64) []row {
	out := make([]row, n)
	for i := range out {
		out[i] = row{randVal(r, keys, pNull), randVal(r, 100, pNull)}
	}
	return out
}

func TestHashJoinTable(t *testing.T) {
	left := []row{{int64(1), int64(10)}, {int64(2), int64(20)}, {nil, int64(30)}, {int64(2), int64(21)}, {int64(4), nil}}
	right := []row{{int64(2), int64(25)}, {int64(2), int64(5)}, {nil, int64(7)}, {int64(3), int64(1)}, {int64(1), nil}}
	noNullRight := []row{{int64(2), int64(25)}, {int64(3), int64(1)}}
	cases := []struct {
		name        string
		left, right []row
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
					t.Run(c.name+"/"+typ.String(), func(t *testing.T) { equalRows(t, got, want) })
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
		left := randRows(r, 2500, keys, 0.05)
		right := randRows(r, 600, keys, 0.05)
		for _, typ := range allJoinTypes {
			for _, ns := range []bool{false, true} {
				res := iter%2 == 1
				if typ == fragment.JoinNullAwareLeftAnti && (ns || res) {
					continue
				}
				got := runHashJoin(t, typ, left, right, ns, res, 1000)
				want := naiveJoin(typ, left, right, ns, res)
				equalRows(t, got, want)
			}
		}
	}
}

func TestHashJoinMemLimit(t *testing.T) {
	mem, check := checked(t)
	defer check()
	env := testEnv(mem)
	r := rand.New(rand.NewSource(1))
	lc := cols("lk", types.BigIntT, "v", types.BigIntT)
	spec := HashJoinSpec{
		Type:      fragment.JoinInner,
		LeftKeys:  []expr.Expr{colRef(0, types.BigIntT)},
		RightKeys: []expr.Expr{colRef(0, types.BigIntT)},
		Output:    joinOutput(fragment.JoinInner),
		Mem:       NewMemTracker(10_000),
	}
	j, err := NewHashJoin(env, newSource(mem, lc, randRows(r, 10, 5, 0), 10), newSource(mem, lc, randRows(r, 5000, 5, 0), 1000), spec)
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
	mem, check := checked(t)
	defer check()
	env := testEnv(mem)
	lc := cols("lk", types.BigIntT, "v", types.BigIntT)
	r := rand.New(rand.NewSource(1))
	spec := HashJoinSpec{Type: fragment.JoinInner, LeftKeys: []expr.Expr{colRef(0, types.BigIntT)},
		RightKeys: []expr.Expr{colRef(0, types.BigIntT)}, Output: joinOutput(fragment.JoinInner)}
	j, _ := NewHashJoin(env, newSource(mem, lc, randRows(r, 10, 5, 0), 10), newSource(mem, lc, randRows(r, 10, 5, 0), 10), spec)
	defer j.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := j.Next(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}
