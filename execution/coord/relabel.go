package coord

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

func arrowRelabel(rec arrow.Record, sc *arrow.Schema) arrow.Record {
	out := array.NewRecord(sc, rec.Columns(), rec.NumRows())
	rec.Release()
	return out
}
