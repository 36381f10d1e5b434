package logical

import (
	"strconv"
	"strings"
	"testing"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

var (
	colK = &expr.ColRef{Index: 1, Table: "t", Name: "k", T: types.BigIntT, Null: true}
	colV = &expr.ColRef{Index: 2, Table: "t", Name: "v", T: types.BigIntT, Null: true}
)

func eqConst(t *testing.T, c *expr.ColRef, v int64) expr.Expr {
	t.Helper()
	e, err := expr.NewCall("eq", c, expr.Lit(types.IntDatum(v)))
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func ors(es ...expr.Expr) expr.Expr { return join(es, "or") }

// x = c1 OR x = c2 OR … becomes x IN (c1, c2, …) once there are enough
// equalities with one expression; the other branches stay.
func TestOrToIn(t *testing.T) {
	var many []expr.Expr
	for i := range orToInMin {
		many = append(many, eqConst(t, colK, int64(i)))
	}
	short := ors(many[:orToInMin-1]...)
	if got := orToIn(short); got != short {
		t.Errorf("%d equalities rewritten: %s", orToInMin-1, got)
	}
	got := orToIn(ors(append([]expr.Expr{eqConst(t, colV, 7)}, many...)...)).String()
	if !strings.HasPrefix(got, "`t`.`v` = 7 OR `t`.`k` IN (0, 1, 2,") || strings.Count(got, " OR ") != 1 {
		t.Errorf("rewritten: %s", got)
	}
	// Constant on the left, too.
	var flipped []expr.Expr
	for i := range orToInMin {
		e, _ := expr.NewCall("eq", expr.Lit(types.IntDatum(int64(i))), colK)
		flipped = append(flipped, e)
	}
	if got := orToIn(ors(flipped...)).String(); !strings.HasPrefix(got, "`t`.`k` IN (0, 1,") {
		t.Errorf("flipped: %s", got)
	}
}

// split is linear: 100,000 terms, one pass.
func TestSplitLongChain(t *testing.T) {
	e := eqConst(t, colK, 0)
	for i := 1; i < 100000; i++ {
		e = &expr.Call{Fn: "or", Args: []expr.Expr{e, eqConst(t, colK, int64(i))}, T: types.BoolT}
	}
	parts := split(e, "or")
	if len(parts) != 100000 || parts[0].String() != "`t`.`k` = 0" || parts[99999].String() != "`t`.`k` = 99999" {
		t.Errorf("%d parts", len(parts))
	}
}

func scanOf(name string, ids ...ColumnID) *Scan {
	s := &Scan{Alias: name}
	for i, id := range ids {
		s.Cols = append(s.Cols, Column{ID: id, Table: name, Name: []string{"k", "v"}[i], T: types.BigIntT})
		s.Ords = append(s.Ords, i)
	}
	return s
}

func equi(l, r Column) []EquiCond { return []EquiCond{{L: l.Ref(), R: r.Ref()}} }

// A join passes on only what is read above it, in order; what its own
// conditions read stays below.
func TestPruneJoinOutputs(t *testing.T) {
	a, b, c := scanOf("a", 1, 2), scanOf("b", 3, 4), scanOf("c", 5, 6)
	ab := &Join{Type: fragment.JoinInner, Left: a, Right: b, Equi: equi(a.Cols[0], b.Cols[0])}
	abc := &Join{Type: fragment.JoinInner, Left: ab, Right: c, Equi: equi(b.Cols[0], c.Cols[0])}
	root := &Project{Input: abc, Exprs: []expr.Expr{c.Cols[1].Ref(), a.Cols[1].Ref()}, Cols: []Column{{ID: 7, Name: "cv"}, {ID: 8, Name: "av"}}}
	out := PruneJoinOutputs(root).(*Project)
	top, ok := out.Input.(*Project)
	if !ok {
		t.Fatalf("no projection over the top join: %T", out.Input)
	}
	if got := colIDs(top.Cols); got != "2 6" {
		t.Errorf("top join keeps %s, want a.v c.v", got)
	}
	inner, ok := top.Input.(*Join).Left.(*Project)
	if !ok {
		t.Fatalf("no projection over the inner join")
	}
	if got := colIDs(inner.Cols); got != "2 3" {
		t.Errorf("inner join keeps %s, want a.v b.k", got)
	}
	// Nothing read above (count(*)): one column stays, for the row count.
	agg := &Aggregate{Input: abc, Aggs: []AggCall{{Fn: "count", Col: Column{ID: 9, Name: "count(*)"}}}}
	p := PruneJoinOutputs(agg).(*Aggregate).Input.(*Project)
	if len(p.Cols) != 1 {
		t.Errorf("count(*) over a join keeps %s", colIDs(p.Cols))
	}
	// A correlated subquery's reads of the outer side stay.
	sc := scanOf("s", 10, 11)
	sub := &Filter{Input: sc, Conds: []expr.Expr{mustEq(t, sc.Cols[0], a.Cols[1])}}
	ap := &Apply{Kind: fragment.ApplyExists, Outer: ab, Sub: sub, Col: Column{ID: 12}}
	proj := PruneJoinOutputs(&Project{Input: ap, Exprs: []expr.Expr{Column{ID: 12}.Ref()}, Cols: []Column{{ID: 13}}}).(*Project)
	kept := proj.Input.(*Apply).Outer.(*Project)
	if got := colIDs(kept.Cols); got != "2" {
		t.Errorf("outer side of the Apply keeps %s, want a.v", got)
	}
}

func mustEq(t *testing.T, l, r Column) expr.Expr {
	t.Helper()
	e, err := expr.NewCall("eq", l.Ref(), r.Ref())
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func colIDs(cs []Column) string {
	var out []string
	for _, c := range cs {
		out = append(out, strconv.Itoa(int(c.ID)))
	}
	return strings.Join(out, " ")
}

// usedBesidesWalk is what usage.usedBy answers, by walking the plan without
// n's conjuncts (the way filterOnly did before usage).
func usedBesidesWalk(root, n Node) map[ColumnID]bool {
	used := map[ColumnID]bool{}
	for _, c := range root.Columns() {
		used[c.ID] = true
	}
	collectUsedBut(root, used, n)
	for projectUses(root, used) {
	}
	return used
}

// The usage index answers as the walk does, for every filtered scan, with
// pass-through projections (same id above and below), derived ones and
// columns read only by a scan's own filter.
func TestUsageMatchesWalk(t *testing.T) {
	mk := func(name string, first ColumnID) *Scan {
		s := &Scan{Alias: name}
		for i := range 3 {
			s.Cols = append(s.Cols, Column{ID: first + ColumnID(i), Table: name, Name: []string{"k", "v", "w"}[i], T: types.BigIntT})
			s.Ords = append(s.Ords, i)
		}
		return s
	}
	gt := func(c Column, v int64) expr.Expr {
		e, _ := expr.NewCall("gt", c.Ref(), expr.Lit(types.IntDatum(v)))
		return e
	}
	a, b := mk("a", 1), mk("b", 4)
	fa := &Filter{Input: a, Conds: []expr.Expr{gt(a.Cols[1], 1)}}                               // a.v read by its filter only
	bs := &Scan{Alias: "b", Cols: b.Cols, Ords: b.Ords, Filters: []expr.Expr{gt(b.Cols[2], 2)}} // b.w by the scan's own filter
	pass := &Project{Input: fa, Exprs: []expr.Expr{a.Cols[0].Ref(), a.Cols[1].Ref()}, Cols: a.Cols[:2]}
	plus, _ := expr.NewCall("add", a.Cols[2].Ref(), expr.Lit(types.IntDatum(1)))
	derived := &Project{Input: fa, Exprs: []expr.Expr{a.Cols[0].Ref(), plus}, Cols: []Column{a.Cols[0], {ID: 20, Name: "w1", T: types.BigIntT}}}
	unusedDerived := &Project{Input: fa, Exprs: []expr.Expr{a.Cols[0].Ref(), plus}, Cols: []Column{a.Cols[0], {ID: 21, Name: "w1", T: types.BigIntT}}}
	join := func(l Node) Node {
		return &Join{Type: fragment.JoinInner, Left: l, Right: bs, Equi: equi(a.Cols[0], b.Cols[0])}
	}
	top := func(in Node, cols ...Column) Node {
		exprs := make([]expr.Expr, len(cols))
		for i, c := range cols {
			exprs[i] = c.Ref()
		}
		out := make([]Column, len(cols))
		for i, c := range cols {
			out[i] = Column{ID: ColumnID(100 + i), Name: c.Name, T: c.T}
		}
		return &Project{Input: in, Exprs: exprs, Cols: out}
	}
	plans := []Node{
		top(join(fa), b.Cols[1]),
		top(join(fa), a.Cols[1], b.Cols[2]),
		top(join(pass), a.Cols[0]),
		top(join(pass), a.Cols[1]),
		top(join(derived), Column{ID: 20, Name: "w1", T: types.BigIntT}),
		top(join(unusedDerived), b.Cols[1]),
		join(fa),
		&Aggregate{Input: join(fa), Groups: []expr.Expr{a.Cols[2].Ref()}, GroupCols: []Column{{ID: 30, T: types.BigIntT}}},
	}
	for i, p := range plans {
		u := newUsage(p)
		var walk func(n Node)
		walk = func(n Node) {
			if scan := filteredScan(n); scan != nil {
				want, got := usedBesidesWalk(p, n), u.usedBy(n, scan)
				for _, c := range scan.Cols {
					if want[c.ID] != got[c.ID] {
						t.Errorf("plan %d, scan %s: column %s read besides its filter: %v, the walk says %v", i, scan.Alias, c.Name, got[c.ID], want[c.ID])
					}
				}
				return
			}
			for _, in := range n.Inputs() {
				walk(in)
			}
		}
		walk(p)
	}
}

// COUNT(*) over nested derived tables (a view of a view): each projection
// that keeps one output for the row count keeps the column the one above
// it reads, not its own last column.
func TestPruneNestedProjectionsUnderCount(t *testing.T) {
	s := scanOf("t", 1, 2)
	inner := &Project{Input: s, Exprs: []expr.Expr{s.Cols[0].Ref(), s.Cols[1].Ref()}, Cols: []Column{{ID: 3, Name: "k"}, {ID: 4, Name: "v"}}}
	outer := &Project{Input: inner, Exprs: []expr.Expr{inner.Cols[0].Ref()}, Cols: []Column{{ID: 5, Name: "k"}}}
	agg := &Aggregate{Input: outer, Aggs: []AggCall{{Fn: "count", Col: Column{ID: 6, Name: "count(*)"}}}}
	out, err := Optimize(nil, agg)
	if err != nil {
		t.Fatal(err)
	}
	o := out.(*Aggregate).Input.(*Project)
	i := o.Input.(*Project)
	if got := colIDs(o.Cols) + " / " + colIDs(i.Cols); got != "5 / 3" {
		t.Errorf("projections keep %s, want 5 / 3", got)
	}
}
