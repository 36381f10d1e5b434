package bind

import (
	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// A view is bound where it is named as the derived table its query would
// be if written there (Doris's BindRelation does the same with a
// LogicalSubQueryAlias): the query is parsed from the catalog's text and
// bound in the database it was defined in, with none of the naming
// statement's CTEs in scope, and its output is renamed to the view's
// columns. The planner therefore sees the base tables, their buckets and
// their colocate groups through any number of views.
//
//	SELECT * FROM v JOIN u ON v.k = u.k        v: SELECT k, sum(x) s FROM t GROUP BY k
//	  ⇒ Project[v.k, v.s] ← Aggregate ← Scan t (View = db.v)   joined with   Scan u
//
// Scans reached through a view carry its name (the outermost view's), so
// the server checks SELECT on the view and not on its tables.

// viewRef names a view.
type viewRef struct{ db, name string }

// BindView binds query as the query of view db.name for CREATE or ALTER
// VIEW: a reference to db.name itself, directly or through other views, is
// 1462 (CREATE OR REPLACE VIEW v AS SELECT * FROM v, or a cycle of views).
// The scans it returns are not marked with the view: the definer needs
// SELECT on what the query reads.
func (b *Binder) BindView(db, name string, query *parser.Vitess) (*Query, error) {
	sel, err := stmtAs[sqlparser.SelectStatement](query, "a query")
	if err != nil {
		return nil, err
	}
	b.defining = &viewRef{db, name}
	defer func() { b.defining = nil }()
	return b.bindQuery(sel, nil)
}

// tableOrView binds db.name as a view when the table lookup failed with
// 1146 (errTable) and a view of that name exists.
func (b *Binder) tableOrView(db, name, alias string, errTable error) (*fromResult, error) {
	if sqlerr.As(errTable).Code != sqlerr.NoSuchTable.Code {
		return nil, errTable
	}
	if db == "" {
		db = b.ctx.DB
	}
	v, err := b.ctx.Cat.View(db, name)
	if err != nil {
		return nil, errTable
	}
	return b.bindView(db, v, alias)
}

// maxViews bounds the view expansions of one statement, as maxJoinTables
// bounds its tables: a chain of views each naming the one below twice
// doubles the plan at every level.
const maxViews = maxJoinTables

func (b *Binder) bindView(db string, v *catalog.View, alias string) (*fromResult, error) {
	ref := viewRef{db, v.Name}
	if b.defining != nil && *b.defining == ref {
		return nil, sqlerr.ViewRecursive.New(db, v.Name)
	}
	for _, r := range b.views {
		if r == ref {
			return nil, sqlerr.ViewRecursive.New(db, v.Name)
		}
	}
	if b.nViews++; b.nViews > maxViews {
		return nil, sqlerr.TooManyTables.New(maxJoinTables)
	}
	st, err := parser.ParseOne(v.Query)
	if err != nil {
		return nil, sqlerr.ViewInvalid.New(db, v.Name)
	}
	vs, ok := st.(*parser.Vitess)
	if !ok {
		return nil, sqlerr.ViewInvalid.New(db, v.Name)
	}
	sel, ok := vs.AST.(sqlparser.SelectStatement)
	if !ok {
		return nil, sqlerr.ViewInvalid.New(db, v.Name)
	}
	ctx, ctes := b.ctx, b.ctes
	inner := *ctx
	inner.DB, inner.Hints, inner.Params = v.QueryDB, vs.Hints, nil
	b.ctx, b.ctes = &inner, nil
	b.views = append(b.views, ref)
	q, err := b.bindQuery(sel, nil)
	b.ctx, b.ctes = ctx, ctes
	b.views = b.views[:len(b.views)-1]
	if err != nil {
		return nil, err
	}
	if len(q.Outputs) != len(v.Columns) {
		// The tables under it changed shape since the view was defined.
		return nil, sqlerr.ViewInvalid.New(db, v.Name)
	}
	if alias == "" {
		alias = v.Name
	}
	names := make([]string, len(v.Columns))
	for i, c := range v.Columns {
		names[i] = c.Name
	}
	r, err := b.derived(q, alias, names)
	if err != nil {
		return nil, err
	}
	for _, c := range r.visible {
		b.setOrigin(c, db, v.Name)
	}
	return r, nil
}

// viewOfScan is the view a scan bound now is reached through ("" if none).
func (b *Binder) viewOfScan() (db, name string) {
	if len(b.views) == 0 {
		return "", ""
	}
	return b.views[0].db, b.views[0].name
}

// notInsertable turns an INSERT's 1146 (errTable) into Doris's 1471 when
// the target is a view: views here are never updatable, as in Doris.
func (b *Binder) notInsertable(db, name string, errTable error) error {
	if sqlerr.As(errTable).Code != sqlerr.NoSuchTable.Code {
		return errTable
	}
	if db == "" {
		db = b.ctx.DB
	}
	if _, err := b.ctx.Cat.View(db, name); err != nil {
		return errTable
	}
	return sqlerr.NonInsertable.New(name, "VIEW")
}
