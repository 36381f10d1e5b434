package server

import (
	"context"
	"fmt"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/planner/bind"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/physical"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// ctasVarchar is the VARCHAR a CTAS column of a character type gets:
// Doris 2.x's use_max_length_of_varchar_in_ctas (default true) makes CHAR
// and VARCHAR columns VARCHAR(65533), the longest VARCHAR; STRING stays
// STRING unless it must be a key, which STRING cannot be.
var ctasVarchar = types.VarcharT(65533)

// createTableAs runs CREATE TABLE … AS SELECT: the table's columns are the
// query's (names from the column list, if any; types per Doris: character
// types VARCHAR(65533), every column nullable), its key and distribution
// as written or Doris's defaults (DUPLICATE KEY and HASH on the first
// column, 10 buckets); the rows are written as an INSERT … SELECT through
// the table sink. A failed load drops the table again, so no table is left.
func (s *Session) createTableAs(ctx context.Context, st *parser.CreateTableAs, w wire.ResultWriter) error {
	ct := st.Create
	if err := s.needTable(s.access(), ct.DB, ct.Name, catalog.WantCreate, "CREATE"); err != nil {
		return err
	}
	db, err := s.dbName(ct.DB)
	if err != nil {
		return err
	}
	if ct.IfNotExists {
		if _, err := s.srv.cat.Table(db, ct.Name); err == nil {
			return w.WriteOK(wire.OK{})
		}
	}
	if st.Query.Kind != parser.KindSelect {
		return sqlerr.ParseError.New("CREATE TABLE … AS needs a SELECT")
	}
	if err := noPlaceholder(st.Query); err != nil {
		return err
	}
	bc := s.bindContext(nil)
	bc.Hints = st.Query.Hints
	q, err := newBinderCtx(bc).BindQuery(st.Query)
	if err != nil {
		return err
	}
	if err := s.checkReads(q.Plan); err != nil {
		return err
	}
	if st.Names != nil && len(st.Names) != len(q.Outputs) {
		return sqlerr.Doris.New(fmt.Sprintf("Number of columns don't equal number of SELECT statement's select list: %d columns, %d in the query",
			len(st.Names), len(q.Outputs)))
	}
	spec := *ct
	spec.Columns = nil
	keyed := map[string]bool{}
	for _, k := range ct.KeyColumns {
		keyed[k] = true
	}
	if ct.Dist != nil {
		for _, k := range ct.Dist.Columns {
			keyed[k] = true
		}
	}
	for i, o := range q.Outputs {
		name := o.Name
		if st.Names != nil {
			name = st.Names[i]
		}
		t := o.Col.T
		switch {
		case t.Kind == types.Null:
			t = types.TinyIntT
		case t.IsString() && (t != types.StringT || i == 0 && len(ct.KeyColumns) == 0 || keyed[name]):
			t = ctasVarchar
		}
		spec.Columns = append(spec.Columns, parser.ColumnDef{Name: name, Type: t, Nullable: true})
	}
	if spec.Dist == nil {
		spec.Dist = &parser.DistDef{Columns: []string{spec.Columns[0].Name}, Buckets: defaultBuckets}
	}
	if _, err := s.srv.cat.Table(db, ct.Name); err == nil {
		return sqlerr.TableExists.New(ct.Name)
	}
	tspec, err := s.tableSpec(&spec)
	if err != nil {
		return err
	}
	// The table is created under a name of its own and renamed once its
	// rows are visible, one catalog write: a failure drops it, and a crash
	// before the rename leaves a table no statement names, which the next
	// start drops (coord.Recover).
	tspec.Name = coord.CTASPrefix + coord.NewQueryID()[:12] + "_" + ct.Name
	t, err := s.srv.cat.CreateTable(db, tspec, false)
	if err != nil {
		return err
	}
	loaded := false
	defer func() {
		if !loaded {
			if _, derr := s.srv.cat.DropTable(db, t.Name, true); derr != nil {
				s.srv.log.Error("rollback create table as select", "table", t.Name, "err", derr)
			}
			s.srv.coord.DropTablets(context.Background(), t)
		}
	}()
	if err := s.srv.coord.CreateTablets(ctx, t); err != nil {
		return err
	}
	// The query's outputs, in order, are the table's columns.
	var src logical.Node = q.Plan
	if cols := q.Plan.Columns(); len(cols) != len(q.Outputs) || !sameIDs(cols, q.Outputs) {
		p := &logical.Project{Input: q.Plan}
		next := maxID(q.Plan) + 1
		for _, o := range q.Outputs {
			p.Exprs = append(p.Exprs, o.Col.Ref())
			c := o.Col
			c.ID = next
			next++
			p.Cols = append(p.Cols, c)
		}
		src = p
	}
	if hidden := t.Columns[len(t.VisibleColumns()):]; len(hidden) > 0 {
		// The hidden columns (a UNIQUE KEY table's delete sign) are 0.
		p := &logical.Project{Input: src}
		for _, c := range src.Columns() {
			p.Exprs, p.Cols = append(p.Exprs, c.Ref()), append(p.Cols, c)
		}
		next := maxID(src) + 1
		for _, c := range hidden {
			p.Exprs = append(p.Exprs, expr.Lit(types.Datum{T: c.Type}))
			p.Cols = append(p.Cols, logical.Column{ID: next, Table: t.Name, Name: c.Name, T: c.Type})
			next++
		}
		src = p
	}
	d, err := physical.PlanInsert(s.plannerContext(st.Query.Hints), src, physical.InsertTarget{DB: db, Table: t})
	if err != nil {
		return err
	}
	sp, _ := s.sinkPlan(ctx, d)
	sp.EstRows = estimateOr(sp.EstRows, src)
	res, err := s.srv.coord.LoadPlan(ctx, db, t, "", sp)
	if err != nil {
		return err
	}
	if _, err := s.srv.cat.RenameTable(db, t.Name, ct.Name); err != nil {
		return err
	}
	loaded = true
	return w.WriteOK(wire.OK{AffectedRows: uint64(res.Rows), Info: txnInfo(res.Label, "VISIBLE", res.Txn)})
}

func sameIDs(cols []logical.Column, outs []bind.Output) bool {
	for i, c := range cols {
		if c.ID != outs[i].Col.ID {
			return false
		}
	}
	return true
}

// maxID is the largest column id q's plan uses.
func maxID(n logical.Node) logical.ColumnID {
	m := logical.ColumnID(0)
	for _, c := range n.Columns() {
		m = max(m, c.ID)
	}
	for _, in := range n.Inputs() {
		m = max(m, maxID(in))
	}
	if sc, ok := n.(*logical.Scan); ok {
		for _, c := range sc.Cols {
			m = max(m, c.ID)
		}
	}
	return m
}
