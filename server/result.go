package server

import (
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/types"
)

// strCol and intCol declare result columns of SHOW-style results.
func strCol(name string) wire.Column {
	return wire.Column{Name: name, OrgName: name, Type: types.VarcharT(256), Nullable: true}
}

func intCol(name string) wire.Column {
	return wire.Column{Name: name, OrgName: name, Type: types.BigIntT, Nullable: true}
}

// str returns a VARCHAR datum, int an integer one.
func str(s string) types.Datum { return types.StringDatum(s) }
func num(i int64) types.Datum  { return types.IntDatum(i) }

// writeTable sends a small, fully known result (SHOW and friends).
func writeTable(w wire.ResultWriter, cols []wire.Column, rows [][]types.Datum) error {
	if err := w.WriteColumns(cols); err != nil {
		return err
	}
	tc := make([]types.Column, len(cols))
	for i, c := range cols {
		tc[i] = types.Column{Name: c.Name, Type: c.Type, Nullable: true}
	}
	b := array.NewRecordBuilder(memory.DefaultAllocator, types.ArrowSchema(tc))
	defer b.Release()
	for _, r := range rows {
		for i, d := range r {
			if !d.Null {
				d.T = cols[i].Type
			}
			types.AppendDatum(b.Field(i), d)
		}
	}
	rec := b.NewRecord()
	defer rec.Release()
	if rec.NumRows() > 0 {
		if err := w.WriteRows(rec); err != nil {
			return err
		}
	}
	return w.WriteEnd()
}
