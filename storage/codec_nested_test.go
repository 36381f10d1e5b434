package storage

import (
	"slices"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/sql/types"
)

// TestNestedColumnCodec: ARRAY, MAP and STRUCT chunks (sliced, with NULL
// rows and NULL elements) encode and decode to the same values, and a
// nested take (delete predicates, merges) keeps them.
func TestNestedColumnCodec(t *testing.T) {
	for _, c := range []struct {
		typ  string
		vals []string // "" is a NULL row
	}{
		{"ARRAY<INT>", []string{"[1, 2]", "", "[]", "[null, 3]", "[4]"}},
		{"ARRAY<ARRAY<STRING>>", []string{`[["a"], []]`, `[null]`, "", `[["b", null]]`}},
		{"MAP<STRING,INT>", []string{`{"k":1}`, "{}", "", `{"x":null, "y":2}`}},
		{"STRUCT<a:INT,b:ARRAY<STRING>>", []string{`{"a":1, "b":["x"]}`, "", `{"a":null, "b":null}`}},
	} {
		typ, err := types.ParseType(c.typ)
		if err != nil {
			t.Fatal(err)
		}
		b := array.NewBuilder(memory.DefaultAllocator, typ.Arrow())
		for _, v := range c.vals {
			if v == "" {
				b.AppendNull()
			} else if !types.AppendNested(b, v, typ) {
				t.Fatalf("%s: %s does not parse", c.typ, v)
			}
		}
		arr := b.NewArray()
		// Two chunks: rows [1, n) then row 0 again, as a writer may pass.
		n := arr.Len()
		buf := encodeColumn(nil, typ.Arrow(), []chunk{{arr: arr, off: 1, n: n - 1}, {arr: arr, off: 0, n: 1}}, n)
		got, err := decodeColumn(alignedCopy(buf), typ.Arrow())
		if err != nil {
			t.Fatalf("%s: decode: %v", c.typ, err)
		}
		want := append(append([]string{}, c.vals[1:]...), c.vals[0])
		check := func(what string, a interface {
			Len() int
			IsNull(int) bool
		}, format func(i int) string) {
			if a.Len() != len(want) {
				t.Fatalf("%s %s: %d rows, want %d", c.typ, what, a.Len(), len(want))
			}
			for i, w := range want {
				g := ""
				if !a.IsNull(i) {
					g = format(i)
				}
				if g != w {
					t.Errorf("%s %s row %d: %q, want %q", c.typ, what, i, g, w)
				}
			}
		}
		check("decoded", got, func(i int) string { return types.FormatNested(got, i, typ) })
		tk := take(got, []int32{int32(len(want) - 1), 0})
		want = []string{want[len(want)-1], want[0]}
		check("taken", tk, func(i int) string { return types.FormatNested(tk, i, typ) })
	}
	if _, err := decodeColumn([]byte{encIPC, 1, 2, 3}, types.ArrayOf(types.IntT).Arrow()); err == nil {
		t.Error("a corrupt nested chunk decoded")
	}
}

// TestNestedTabletCompaction: nested columns of a DUPLICATE tablet are
// written in several rowsets, compacted, and read back unchanged.
func TestNestedTabletCompaction(t *testing.T) {
	s := openStore(t)
	at, _ := types.ParseType("ARRAY<INT>")
	mt, _ := types.ParseType("MAP<STRING,ARRAY<STRING>>")
	st, _ := types.ParseType("STRUCT<a:INT,b:STRING>")
	cols := []types.Column{{Name: "k", Type: types.BigIntT}, {Name: "a", Type: at, Nullable: true},
		{Name: "m", Type: mt, Nullable: true}, {Name: "s", Type: st, Nullable: true}}
	if err := s.CreateTablet(3, &TabletSchema{Columns: cols, Keys: DupKeys, NumKeys: 1}); err != nil {
		t.Fatal(err)
	}
	var want []row
	for v := 2; v <= 5; v++ {
		var rows []row
		for i := 0; i < 3; i++ {
			k := int64(v*10 + i)
			r := row{types.IntDatum(k),
				{T: at, S: "[" + strconv.FormatInt(k, 10) + ", null]"},
				{T: mt, S: `{"k` + strconv.FormatInt(k, 10) + `":["x", null]}`},
				{T: st, S: `{"a":` + strconv.FormatInt(k, 10) + `, "b":"y"}`}}
			if i == 1 {
				r[1], r[2], r[3] = types.NullDatum(at), types.NullDatum(mt), types.NullDatum(st)
			}
			rows = append(rows, r)
		}
		load(t, s, 3, TxnID(v), Version(v), rows)
		want = append(want, rows...)
	}
	req := ScanRequest{Tablet: 3, Version: 5, Columns: allCols(4)}
	sortRows := func(rs []row) []row {
		slices.SortFunc(rs, func(x, y row) int { return int(x[0].I - y[0].I) })
		return rs
	}
	equalRows(t, sortRows(scanRows(t, s, req)), want)
	if err := s.Compact(3, 5); err != nil {
		t.Fatal(err)
	}
	equalRows(t, sortRows(scanRows(t, s, req)), want)
}
