package op

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

func mustCall(t *testing.T, fn string, args ...expr.Expr) expr.Expr {
	t.Helper()
	e, err := expr.NewCall(fn, args...)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestSharedExprs: Q1's price * (1 - discount), read twice, and 1 - discount
// inside it are computed once each; a subexpression under IF is not
// shared; every result equals the expression evaluated on its own.
func TestSharedExprs(t *testing.T) {
	price := &expr.ColRef{Index: 0, Name: "price", T: types.BigIntT}
	disc := &expr.ColRef{Index: 1, Name: "disc", T: types.BigIntT}
	tax := &expr.ColRef{Index: 2, Name: "tax", T: types.BigIntT}
	one := expr.Lit(types.IntDatum(1))
	dp := mustCall(t, "multiply", price, mustCall(t, "subtract", one, disc))
	exprs := []expr.Expr{
		price,
		dp,
		mustCall(t, "multiply", mustCall(t, "multiply", price, mustCall(t, "subtract", one, disc)), mustCall(t, "add", one, tax)),
		mustCall(t, "if", mustCall(t, "gt", tax, one), mustCall(t, "add", one, tax), one),
	}
	s := NewSharedExprs(exprs, 3)
	if s.Shared() != 2 {
		t.Fatalf("%d shared subexpressions, want 2 (1 - disc, price * it): %v", s.Shared(), s.common)
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, arrow.NewSchema([]arrow.Field{
		{Name: "price", Type: arrow.PrimitiveTypes.Int64}, {Name: "disc", Type: arrow.PrimitiveTypes.Int64},
		{Name: "tax", Type: arrow.PrimitiveTypes.Int64}}, nil))
	defer b.Release()
	for i := int64(0); i < 100; i++ {
		b.Field(0).(*array.Int64Builder).Append(i * 7)
		b.Field(1).(*array.Int64Builder).Append(i % 3)
		b.Field(2).(*array.Int64Builder).Append(i % 5)
	}
	rec := b.NewRecord()
	defer rec.Release()
	env := &Env{Mem: memory.DefaultAllocator}
	got, err := s.Eval(env, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer ReleaseAll(got)
	want, err := EvalCols(env, exprs, rec)
	if err != nil {
		t.Fatal(err)
	}
	defer ReleaseAll(want)
	for i := range exprs {
		if !array.Equal(got[i], want[i]) {
			t.Errorf("%s: shared %v, alone %v", exprs[i], got[i], want[i])
		}
	}
	if NewSharedExprs([]expr.Expr{price, dp}, 3).Shared() != 0 {
		t.Error("an expression occurring once was shared")
	}
	// Past maxSharedNodes nothing is looked into (keys would be quadratic).
	deep := dp
	for range maxSharedNodes {
		deep = mustCall(t, "add", deep, tax)
	}
	if n := NewSharedExprs([]expr.Expr{deep, dp}, 3).Shared(); n != 0 {
		t.Errorf("a %d-node chain: %d shared", maxSharedNodes, n)
	}
}
