package storage

import (
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/sql/types"
)

type row = []types.Datum

func buildRecord(t testing.TB, cols []types.Column, rows []row) arrow.Record {
	t.Helper()
	bs := make([]array.Builder, len(cols))
	for i, c := range cols {
		bs[i] = array.NewBuilder(memory.DefaultAllocator, c.Type.Arrow())
		defer bs[i].Release()
	}
	for _, r := range rows {
		for i, d := range r {
			types.AppendDatum(bs[i], d)
		}
	}
	arrs := make([]arrow.Array, len(cols))
	for i, b := range bs {
		arrs[i] = b.NewArray()
	}
	return newRecord(types.ArrowSchema(cols), arrs, len(rows))
}

func openStore(t testing.TB) *Store {
	t.Helper()
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// load writes rows as one transaction and publishes it at v.
func load(t testing.TB, s *Store, tab TabletID, txn TxnID, v Version, rows []row) {
	t.Helper()
	sc, err := s.Schema(tab)
	if err != nil {
		t.Fatal(err)
	}
	rec := buildRecord(t, sc.Columns, rows)
	defer rec.Release()
	if err := s.Write(txn, tab, rec); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Prepare(txn); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(txn, map[TabletID]Version{tab: v}); err != nil {
		t.Fatal(err)
	}
}

// scanRows reads a whole scan as datums, checking the record schemas.
func scanRows(t testing.TB, s *Store, req ScanRequest) []row {
	t.Helper()
	it, err := s.Scan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	sc, _ := s.Schema(req.Tablet)
	var out []row
	for {
		rec, err := it.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if int(rec.NumCols()) != len(req.Columns) {
			t.Fatalf("got %d columns, want %d", rec.NumCols(), len(req.Columns))
		}
		for i, c := range req.Columns {
			f := rec.Schema().Field(i)
			want := sc.Columns[c]
			if f.Name != want.Name || !arrow.TypeEqual(f.Type, want.Type.Arrow()) || f.Nullable != want.Nullable {
				t.Fatalf("field %d = %v, want %v", i, f, want)
			}
		}
		if req.BatchRows > 0 && rec.NumRows() > int64(req.BatchRows) {
			t.Fatalf("record of %d rows > BatchRows %d", rec.NumRows(), req.BatchRows)
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			x := make(row, len(req.Columns))
			for i, c := range req.Columns {
				x[i] = types.DatumAt(rec.Column(i), r, sc.Columns[c].Type)
			}
			out = append(out, x)
		}
		rec.Release()
	}
}

func allCols(n int) []int {
	c := make([]int, n)
	for i := range c {
		c[i] = i
	}
	return c
}

func equalRows(t testing.TB, got, want []row) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d rows, want %d", len(got), len(want))
	}
	for i := range got {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("row %d:\n got %v\nwant %v", i, got[i], want[i])
		}
	}
}

// allTypes is one nullable column of every SQL type.
var allTypes = []types.Column{
	{Name: "k", Type: types.BigIntT},
	{Name: "b", Type: types.BoolT, Nullable: true},
	{Name: "i8", Type: types.TinyIntT, Nullable: true},
	{Name: "i16", Type: types.SmallIntT, Nullable: true},
	{Name: "i32", Type: types.IntT, Nullable: true},
	{Name: "i64", Type: types.BigIntT, Nullable: true},
	{Name: "li", Type: types.LargeIntT, Nullable: true},
	{Name: "f", Type: types.FloatT, Nullable: true},
	{Name: "d", Type: types.DoubleT, Nullable: true},
	{Name: "dec", Type: types.DecimalT(38, 10), Nullable: true},
	{Name: "dec2", Type: types.DecimalT(9, 2), Nullable: true},
	{Name: "c", Type: types.CharT(5), Nullable: true},
	{Name: "vc", Type: types.VarcharT(64), Nullable: true},
	{Name: "s", Type: types.StringT, Nullable: true},
	{Name: "dt", Type: types.DateT, Nullable: true},
	{Name: "ts", Type: types.T{Kind: types.DateTime, Scale: 6}, Nullable: true},
}

var maxDec38 = func() decimal128.Num {
	n, err := decimal128.FromString(strings.Repeat("9", 38), 38, 0)
	if err != nil {
		panic(err)
	}
	return n
}()

// randomDatum returns a value of t, NULL about 1 in 8 times, often an edge value.
func randomDatum(rng *rand.Rand, t types.T) types.Datum {
	if rng.IntN(8) == 0 {
		return types.NullDatum(t)
	}
	d := types.Datum{T: t}
	edge := rng.IntN(4) == 0
	switch t.Kind {
	case types.Boolean:
		d.I = int64(rng.IntN(2))
	case types.TinyInt:
		d.I = int64(int8(rng.Uint32()))
	case types.SmallInt:
		d.I = int64(int16(rng.Uint32()))
	case types.Int:
		d.I = int64(int32(rng.Uint32()))
	case types.BigInt:
		d.I = int64(rng.Uint64())
	case types.LargeInt:
		d.Dec = decimal128.New(int64(rng.Uint64()), rng.Uint64())
		if edge {
			d.Dec = []decimal128.Num{decimal128.MaxDecimal128, decimal128.MaxDecimal128.Negate(), {}}[rng.IntN(3)]
		}
	case types.Float:
		d.F = float64(float32(rng.NormFloat64() * 1e6))
	case types.Double:
		d.F = rng.NormFloat64() * 1e300
	case types.Decimal:
		d.Dec = decimal128.FromI64(rng.Int64N(1_000_000_000) - 500_000_000)
		if t.Precision == 38 && edge {
			d.Dec = []decimal128.Num{maxDec38, maxDec38.Negate()}[rng.IntN(2)]
		}
	case types.Char, types.Varchar, types.String:
		n := rng.IntN(6)
		if t.Kind == types.String && edge {
			n = 300 // longer than a zone-map bound
		}
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		d.S = string(b)
	case types.Date:
		d.I = int64(types.DaysFromCivil(1, 1, 1)) + rng.Int64N(3_650_000)
	case types.DateTime:
		d.I = rng.Int64N(400*365*86400e6) - 200*365*86400e6
	}
	return d
}

func drain(t testing.TB, it RecordIterator) []row {
	t.Helper()
	defer it.Close()
	si := it.(*scanIter)
	var out []row
	for {
		rec, err := it.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		for r := 0; r < int(rec.NumRows()); r++ {
			x := make(row, rec.NumCols())
			for i, c := range si.cols {
				x[i] = types.DatumAt(rec.Column(i), r, si.schema.Columns[c].Type)
			}
			out = append(out, x)
		}
		rec.Release()
	}
}

func timeNowPlusHour() time.Time { return time.Now().Add(time.Hour) }

// intRecord builds n rows of non-NULL BIGINT columns, column c row i = fs[c](i).
func intRecord(n int, fs ...func(int) int64) arrow.Record {
	cols := make([]types.Column, len(fs))
	arrs := make([]arrow.Array, len(fs))
	for c, f := range fs {
		cols[c] = types.Column{Name: string(rune('a' + c)), Type: types.BigIntT, Nullable: c > 0}
		vals := make([]int64, n)
		for i := range vals {
			vals[i] = f(i)
		}
		b := array.NewInt64Builder(memory.DefaultAllocator)
		b.AppendValues(vals, nil)
		arrs[c] = b.NewArray()
		b.Release()
	}
	return newRecord(types.ArrowSchema(cols), arrs, n)
}

func loadInts(t testing.TB, s *Store, tab TabletID, txn TxnID, v Version, n int, fs ...func(int) int64) {
	t.Helper()
	rec := intRecord(n, fs...)
	defer rec.Release()
	if err := s.Write(txn, tab, rec); err != nil {
		t.Fatal(err)
	}
	if err := s.Publish(txn, map[TabletID]Version{tab: v}); err != nil {
		t.Fatal(err)
	}
}
