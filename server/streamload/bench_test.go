package streamload

import (
	"bytes"
	"context"
	"net/http"
	"strconv"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/types"
)

// benchLoadTable has the columns of storage's BenchmarkLoad: a key, a
// double, a short string and a date with some NULLs.
var benchLoadTable = &catalog.Table{Name: "t", Columns: []catalog.Column{
	{Column: types.Column{Name: "k", Type: types.BigIntT}},
	{Column: types.Column{Name: "v", Type: types.DoubleT, Nullable: true}},
	{Column: types.Column{Name: "s", Type: types.VarcharT(32), Nullable: true}},
	{Column: types.Column{Name: "d", Type: types.DateT, Nullable: true}},
}}

const benchLoadRows = 1 << 20

func benchLoadBody() []byte {
	var b bytes.Buffer
	for i := 0; i < benchLoadRows; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteByte(',')
		b.WriteString(strconv.FormatFloat(float64(i)*1.5, 'f', -1, 64))
		b.WriteString(",name-")
		b.WriteString(strconv.Itoa(i % 1000))
		b.WriteByte(',')
		if i%10 == 0 {
			b.WriteString(`\N`)
		} else {
			b.WriteString("2024-0")
			b.WriteByte(byte('1' + i%9))
			b.WriteString("-1")
			b.WriteByte(byte('0' + i%9))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// benchStreamLoad parses and types a 1M-row CSV body (the FE's part of a
// stream load: no backends) with the given headers; want rows pass.
func benchStreamLoad(b *testing.B, h http.Header, want int64) {
	body := benchLoadBody()
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p, err := newLoadParser(h, benchLoadTable)
		if err != nil {
			b.Fatal(err)
		}
		var n int64
		err = pipeline(context.Background(), func(emit func(loadWork) error) error {
			return p.parse(context.Background(), bytes.NewReader(body), emit)
		}, func(rec arrow.Record) error {
			n += rec.NumRows()
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		if n != want {
			b.Fatalf("%d rows typed, want %d", n, want)
		}
	}
	b.ReportMetric(float64(benchLoadRows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkStreamLoadCSV is the plain case: every row good, no columns
// mapping, no where.
func BenchmarkStreamLoadCSV(b *testing.B) {
	benchStreamLoad(b, http.Header{"Column_separator": {","}}, benchLoadRows)
}

// BenchmarkStreamLoadCSVWhere keeps every other row by a where condition.
func BenchmarkStreamLoadCSVWhere(b *testing.B) {
	benchStreamLoad(b, http.Header{"Column_separator": {","}, "Where": {"k % 2 = 0"}}, benchLoadRows/2)
}

// BenchmarkStreamLoadCSVColumns computes a column from a temporary.
func BenchmarkStreamLoadCSVColumns(b *testing.B) {
	benchStreamLoad(b, http.Header{"Column_separator": {","}, "Columns": {"k, tmp, s, d, v = tmp * 2"}}, benchLoadRows)
}
