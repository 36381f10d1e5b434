package server

import (
	"context"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/coord"

	"github.com/dorisgo/dorisgo/server/show"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// prepared is a server-side prepared statement: parsed once, bound and
// planned at every execution with the arguments as constants (so partition
// and bucket pruning see the values).
type prepared struct {
	text   string
	stmt   parser.Statement
	params []wire.Column
	cols   []wire.Column
	// planErr is why binding with NULL arguments failed (no metadata);
	// SQL PREPARE reports a name that does not resolve (sqlprepare.go).
	planErr error
}

func (p *prepared) NumParams() int         { return len(p.params) }
func (p *prepared) Params() []wire.Column  { return p.params }
func (p *prepared) Columns() []wire.Column { return p.cols }

// Prepare implements wire.Session.
func (s *Session) Prepare(ctx context.Context, sql string) (wire.Prepared, error) {
	var p *prepared
	if err := s.guard(coord.NewQueryID(), sql, func() (err error) {
		p, err = s.prepare(sql)
		return err
	}); err != nil {
		return nil, err
	}
	return p, nil
}

func (s *Session) prepare(sql string) (*prepared, error) {
	stmt, err := parser.ParseOne(sql)
	if err != nil {
		return nil, err
	}
	// As MySQL, a statement the account may not run fails to prepare
	// (Execute checks again: privileges may change in between).
	if err := s.authorize(stmt); err != nil {
		return nil, err
	}
	p := &prepared{text: sql, stmt: stmt}
	switch stmt.(type) {
	case *parser.Prepare, *parser.Execute, *parser.Deallocate:
		return nil, sqlerr.UnsupportedPS.New() // as MySQL: not preparable
	}
	n := parser.Placeholders(stmt)
	if v, ok := stmt.(*parser.Vitess); ok && v.Kind == parser.KindSelect {
		// Result metadata from binding with NULL arguments; a statement
		// whose shape depends on its arguments reports none.
		args := make([]types.Datum, n)
		for i := range args {
			args[i] = types.NullDatum(types.NullT)
		}
		if pq, err := s.planQuery(v, args); err == nil {
			p.cols = outputColumns(pq.q.Outputs)
		} else {
			p.planErr = err
		}
	}
	for i := 0; i < n; i++ {
		p.params = append(p.params, wire.Column{Name: "?", Type: types.StringT, Nullable: true})
	}
	return p, nil
}

// Execute implements wire.Session.
func (s *Session) Execute(ctx context.Context, wp wire.Prepared, args []types.Datum, w wire.ResultWriter) error {
	p := wp.(*prepared)
	if args == nil {
		args = []types.Datum{}
	}
	id := coord.NewQueryID()
	return s.guard(id, p.text, func() error { return s.run(ctx, id, p.text, p.stmt, args, w) })
}

// FieldList implements wire.Session (COM_FIELD_LIST).
func (s *Session) FieldList(ctx context.Context, table, wildcard string) ([]wire.Column, error) {
	if !isSystemDB(s.DB()) {
		if err := s.needTable(s.access(), "", table, catalog.WantShow, "SHOW"); err != nil {
			return nil, err
		}
	}
	db, t, err := s.table("", table)
	if err != nil {
		v, verr := s.srv.cat.View(db, table)
		if verr != nil {
			return nil, err
		}
		// A view: its columns as last defined (the stored types).
		t = &catalog.Table{Name: v.Name, Columns: v.Columns}
	}
	match := show.Like(wildcard)
	var out []wire.Column
	for _, c := range t.VisibleColumns() {
		if match(c.Name) {
			out = append(out, wire.Column{Schema: db, Table: t.Name, OrgTable: t.Name, Name: c.Name, OrgName: c.Name,
				Type: c.Type, Nullable: c.Nullable, PrimaryKey: c.IsKey})
		}
	}
	return out, nil
}
