package eval

import (
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// TestRowPredicate: a condition compiled against a schema reads the
// columns it names (wherever they are now), and only TRUE matches.
func TestRowPredicate(t *testing.T) {
	b := &expr.ColRef{Index: 7, Name: "b", T: types.BigIntT, Null: true}
	cmp, err := expr.NewCall("gt", b, expr.Lit(types.IntDatum(1)))
	if err != nil {
		t.Fatal(err)
	}
	js, err := expr.Marshal(cmp)
	if err != nil {
		t.Fatal(err)
	}
	schema := []types.Column{{Name: "a", Type: types.IntT}, {Name: "B", Type: types.BigIntT, Nullable: true}}
	p, err := CompileRowPredicate(js, schema)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Columns(); len(got) != 1 || got[0] != 1 {
		t.Fatalf("columns %v, want [1]", got)
	}
	bld := array.NewInt64Builder(memory.DefaultAllocator)
	bld.AppendValues([]int64{0, 2, 0, 5}, []bool{true, true, false, true})
	col := bld.NewArray()
	defer col.Release()
	m, err := p.Matches([]arrow.Array{col}, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Release()
	want := []bool{false, true, false, true} // NULL is not TRUE
	for i, w := range want {
		if m.Value(i) != w || m.IsNull(i) {
			t.Fatalf("row %d: %v (null %v), want %v", i, m.Value(i), m.IsNull(i), w)
		}
	}
	if _, err := CompileRowPredicate(js, schema[:1]); err == nil || sqlerr.As(err).Code != sqlerr.BadField.Code {
		t.Fatalf("condition over a missing column: %v", err)
	}
	wrong := []types.Column{{Name: "b", Type: types.VarcharT(4)}}
	if _, err := CompileRowPredicate(js, wrong); err == nil {
		t.Fatal("condition over a column of another type compiled")
	}
}
