package server

import (
	"slices"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/server/show"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
)

// showAlterColumn is SHOW ALTER TABLE COLUMN [FROM db] [WHERE …] [ORDER
// BY …] [LIMIT n]: the database's schema change jobs (schemachange.go).
func (s *Session) showAlterColumn(st *parser.ShowAlterColumn, w wire.ResultWriter) error {
	db, err := s.dbName(st.DB)
	if err != nil {
		return err
	}
	d, err := s.srv.cat.Database(db)
	if err != nil {
		return err
	}
	if err := alterJobsWhere(st); err != nil {
		return err
	}
	a := s.access()
	rows := s.srv.alterJobRows(d, func(table string) bool { return a.Table(db, table, catalog.WantShow) })
	if len(st.OrderBy) > 0 && st.OrderBy[0].Desc {
		// Rows come by JobId; ties of a descending order (two jobs
		// created in the same second) then list the newer first.
		slices.Reverse(rows)
	}
	rows, err = show.FilterRows(alterColumnNames, rows, &st.ShowLoad)
	if err != nil {
		return err
	}
	return writeShow(w, show.Strings(alterColumnNames, rows))
}
