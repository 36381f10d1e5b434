package eval

import (
	"fmt"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// itemwise is c with its items behind casts to their own type, which keeps
// evalInSet away: the same call evaluated item by item (inKernel).
func itemwise(c *expr.Call) *expr.Call {
	out := &expr.Call{Fn: c.Fn, T: c.T, Null: c.Null, Args: []expr.Expr{c.Args[0]}}
	for _, a := range c.Args[1:] {
		out.Args = append(out.Args, &expr.Cast{Arg: a, To: a.Type()})
	}
	return out
}

func rowsText(t *testing.T, ctx *expr.Context, e expr.Expr, mem memory.Allocator) string {
	t.Helper()
	rec := colRec(mem)
	defer rec.Release()
	arr, err := Eval(ctx, e, rec, mem)
	if err != nil {
		t.Fatalf("%.80s: %v", e, err)
	}
	defer arr.Release()
	var got []string
	for k := 0; k < arr.Len(); k++ {
		got = append(got, types.DatumAt(arr, k, e.Type()).String())
	}
	return strings.Join(got, " ")
}

// x [NOT] IN (many constants) as a set lookup answers what comparing with
// each item does, NULLs included (a NULL probe, a NULL item), for every
// column type, with and without the query's set cache.
func TestInSetMatchesItemwise(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	many := func(n int, item func(k int) expr.Expr) []expr.Expr {
		out := make([]expr.Expr, n)
		for k := range out {
			out[k] = item(k)
		}
		return out
	}
	ints := many(30, func(k int) expr.Expr { return i(int64(k * 5)) })
	strs := many(30, func(k int) expr.Expr { return s(fmt.Sprintf("%c", 'a'+k%26)) })
	decs := many(30, func(k int) expr.Expr { return dec(fmt.Sprintf("%d.%02d", k-10, k%7)) })
	cases := []struct {
		probe expr.Expr
		items []expr.Expr
	}{
		{colA, ints},
		{colB, ints},
		{colB, append(ints[:20:20], null())},
		{colA, append(ints[:20:20], null())},
		{colS, strs},
		{colS, append(strs, s(""))},
		{colD, append(decs, dec("1.50"))},
		{colB, many(20, func(k int) expr.Expr { return f(float64(k) / 2) })},
	}
	for _, c := range cases {
		for _, fn := range []string{"in", "not_in"} {
			e, err := Fold(call(t, fn, append([]expr.Expr{c.probe}, c.items...)...), tctx)
			if err != nil {
				t.Fatal(err)
			}
			x := e.(*expr.Call)
			if !setIn(x) {
				t.Fatalf("%.80s: not evaluated as a set", x)
			}
			want := rowsText(t, tctx, itemwise(x), mem)
			if got := rowsText(t, tctx, x, mem); got != want {
				t.Errorf("%.80s = %q, item by item %q", x, got, want)
			}
			cached := &expr.Context{Now: tctx.Now, Sets: &expr.InSets{}}
			for range 2 {
				if got := rowsText(t, cached, x, mem); got != want {
					t.Errorf("%.80s with the set cache = %q, want %q", x, got, want)
				}
			}
		}
	}
}

// A chain of 10,000 ORs evaluates as one n-ary OR: the same answer as the
// short chain, without a level of recursion per term.
func TestDeepOrChain(t *testing.T) {
	mem := memory.NewCheckedAllocator(memory.DefaultAllocator)
	defer mem.AssertSize(t, 0)
	e := call(t, "eq", colA, i(-1))
	for k := 0; k < 10000; k++ {
		e = call(t, "or", e, call(t, "eq", colA, i(int64(1000+k))))
	}
	short := call(t, "or", e, call(t, "eq", colA, i(2)))
	if got := rowsText(t, tctx, short, mem); got != "0 1 NULL NULL" {
		t.Errorf("deep OR = %q", got)
	}
	and := call(t, "and", call(t, "gt", colB, i(-1)), call(t, "and", call(t, "lt", colB, i(10)), call(t, "is_not_null", colA)))
	if got := rowsText(t, tctx, and, mem); got != "0 1 0 0" {
		t.Errorf("AND chain = %q", got)
	}
}
