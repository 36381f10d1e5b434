package storage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/dorisgo/dorisgo/sql/types"
)

var benchCols = []types.Column{
	{Name: "k", Type: types.BigIntT},
	{Name: "v", Type: types.DoubleT, Nullable: true},
	{Name: "s", Type: types.VarcharT(32), Nullable: true},
	{Name: "d", Type: types.DateT, Nullable: true},
}

// benchRecords builds n rows of benchCols in records of batch rows, the way
// a load sink hands them over.
func benchRecords(n, batch int) []arrow.Record {
	var out []arrow.Record
	sch := types.ArrowSchema(benchCols)
	for lo := 0; lo < n; lo += batch {
		hi := min(n, lo+batch)
		b := array.NewRecordBuilder(memory.DefaultAllocator, sch)
		for i := lo; i < hi; i++ {
			b.Field(0).(*array.Int64Builder).Append(int64(i))
			b.Field(1).(*array.Float64Builder).Append(float64(i) * 1.5)
			b.Field(2).(*array.StringBuilder).Append(fmt.Sprintf("name-%d", i%1000))
			if i%10 == 0 {
				b.Field(3).AppendNull()
			} else {
				b.Field(3).(*array.Date32Builder).Append(arrow.Date32(19000 + i%365))
			}
		}
		out = append(out, b.NewRecord())
		b.Release()
	}
	return out
}

const benchRows = 1 << 20

func loadBench(b *testing.B, s *Store, tab TabletID, recs []arrow.Record) {
	if err := s.CreateTablet(tab, &TabletSchema{Columns: benchCols, NumKeys: 1}); err != nil {
		b.Fatal(err)
	}
	txn := TxnID(tab)
	for _, r := range recs {
		if err := s.Write(txn, tab, r); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.Prepare(txn); err != nil {
		b.Fatal(err)
	}
	if err := s.Publish(txn, map[TabletID]Version{tab: 2}); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLoad is Write (4096-row records) + Prepare + Publish of 1M rows.
func BenchmarkLoad(b *testing.B) {
	s := openStore(b)
	recs := benchRecords(benchRows, 4096)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		loadBench(b, s, TabletID(i+1), recs)
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkScanDup scans all columns of a 1M-row DUPLICATE tablet.
func BenchmarkScanDup(b *testing.B) {
	s := openStore(b)
	loadBench(b, s, 1, benchRecords(benchRows, 4096))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		it, err := s.Scan(context.Background(), ScanRequest{Tablet: 1, Version: 2, Columns: []int{0, 1, 2, 3}})
		if err != nil {
			b.Fatal(err)
		}
		n := int64(0)
		for {
			rec, err := it.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n += rec.NumRows()
			rec.Release()
		}
		it.Close()
		if n != benchRows {
			b.Fatalf("scanned %d rows", n)
		}
	}
	b.ReportMetric(float64(benchRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}
