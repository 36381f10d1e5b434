package server

import (
	"fmt"
	"unicode/utf8"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Views: the catalog keeps the query text (catalog/view.go), the binder
// expands it where the view is named (planner/bind/view.go). Here: CREATE,
// ALTER and DROP VIEW, SHOW CREATE VIEW and the view rows of the listings.

// createView runs CREATE [OR REPLACE] VIEW and ALTER VIEW. The query is
// bound now, as the session would bind it, so a view that cannot run is
// refused, and the definer needs SELECT on what it reads (checkReads).
func (s *Session) createView(st *parser.CreateView, w wire.ResultWriter) error {
	db, err := s.dbName(st.DB)
	if err != nil {
		return err
	}
	if _, err := s.srv.cat.Database(db); err != nil {
		return err
	}
	if st.IfNotExists {
		if _, err := s.srv.cat.View(db, st.Name); err == nil {
			return w.WriteOK(wire.OK{})
		}
	}
	if st.Query.HasUserVariable() {
		return sqlerr.ViewSelectVariable.New()
	}
	bc := s.bindContext(nil)
	bc.Hints = st.Query.Hints
	q, err := newBinderCtx(bc).BindView(db, st.Name, st.Query)
	if err != nil {
		return err
	}
	if err := s.checkReads(q.Plan); err != nil {
		return err
	}
	if st.Columns != nil && len(st.Columns) != len(q.Outputs) {
		return sqlerr.ViewWrongList.New()
	}
	spec := &catalog.ViewSpec{Name: st.Name, Query: st.Query.Text, QueryDB: s.DB(),
		Definer: s.acct.user + "@" + s.acct.host, Comment: st.Comment}
	for i, o := range q.Outputs {
		col := catalog.Column{Column: types.Column{Name: viewColumnName(o.Name, i), Type: o.Col.T, Nullable: o.Col.Null}}
		if st.Columns != nil {
			col.Name, col.Comment = st.Columns[i].Name, st.Columns[i].Comment
		}
		spec.Columns = append(spec.Columns, col)
	}
	mode := catalog.ViewCreate
	switch {
	case st.OrReplace:
		mode = catalog.ViewOrReplace
	case st.IfNotExists:
		mode = catalog.ViewIfNotExists
	}
	if st.Alter {
		_, err = s.srv.cat.AlterView(db, spec)
	} else {
		_, err = s.srv.cat.CreateView(db, spec, mode)
	}
	if err != nil {
		return err
	}
	return w.WriteOK(wire.OK{})
}

// viewColumnName is MySQL's name for a view column taken from the query:
// the output name, or Name_exp_<i> when that is longer than a column
// name may be (an unaliased long expression).
func viewColumnName(name string, i int) string {
	if name == "" || utf8.RuneCountInString(name) > 64 {
		return fmt.Sprintf("Name_exp_%d", i+1)
	}
	return name
}

// dropViews runs DROP VIEW [IF EXISTS] v, ...: all of them or, on an
// error, none (MySQL 8).
func (s *Session) dropViews(n *parser.DDL, w wire.ResultWriter) error {
	var names []catalog.ViewName
	for _, tn := range n.Views {
		db, err := s.dbName(tn.DB)
		if err != nil {
			return err
		}
		names = append(names, catalog.ViewName{DB: db, Name: tn.Name})
	}
	if _, err := s.srv.cat.DropViews(names, n.IfExists); err != nil {
		return err
	}
	return w.WriteOK(wire.OK{})
}
