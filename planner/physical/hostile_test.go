package physical_test

// Hostile but valid statements: a 1,000-table join chain, a 100,000-element
// IN list, a 10,000-way UNION ALL, a 10,000-term OR and a 10,000-branch CASE
// plan in time linear in their size and stop when their statement's context
// is done. The speed itself is BenchmarkPlanHostile's:
//
//	go test ./planner/physical -run '^$' -bench PlanHostile -benchtime 3x

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/planner/bind"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/physical"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// hostileSQL builds one of the hostile statements over table t (k INT, v INT).
func hostileSQL(kind string, n int) string {
	var b strings.Builder
	switch kind {
	case "chain": // t1 JOIN t2 ON t1.k = t2.k JOIN t3 ON t2.k = t3.k …
		b.WriteString("SELECT count(*) FROM t t1")
		for i := 2; i <= n; i++ {
			fmt.Fprintf(&b, " JOIN t t%d ON t%d.k = t%d.k", i, i-1, i)
		}
	case "chainwhere": // … WHERE t1.v > 0 AND t2.v > 0 …: a conjunct per table
		b.WriteString(hostileSQL("chain", n))
		for i := 1; i <= n; i++ {
			if i == 1 {
				b.WriteString(" WHERE")
			} else {
				b.WriteString(" AND")
			}
			fmt.Fprintf(&b, " t%d.v > 0", i)
		}
	case "nestedin": // t1.k IN (SELECT k FROM t WHERE t1.k IN (SELECT …)): correlated, n deep
		b.WriteString("SELECT count(*) FROM t t1 WHERE " + strings.Repeat("t1.k IN (SELECT k FROM t WHERE ", n) + "1 = 1" + strings.Repeat(")", n))
	case "in":
		b.WriteString("SELECT count(*) FROM t WHERE k IN (")
		for i := 1; i <= n; i++ {
			if i > 1 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Itoa(i))
		}
		b.WriteByte(')')
	case "or":
		b.WriteString("SELECT count(*) FROM t WHERE k = 1")
		for i := 2; i <= n; i++ {
			fmt.Fprintf(&b, " OR k = %d", i)
		}
	case "union":
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(" UNION ALL ")
			}
			fmt.Fprintf(&b, "SELECT %d AS x", i)
		}
	case "case":
		b.WriteString("SELECT sum(CASE")
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, " WHEN k = %d THEN %d", i, i)
		}
		b.WriteString(" ELSE 0 END) FROM t")
	}
	return b.String()
}

func hostileEnv(t testing.TB) *env {
	e := newEnv(t)
	for i := range 3 {
		be, err := e.cat.AddBackend("127.0.0.1", 9060+i)
		if err != nil {
			t.Fatal(err)
		}
		e.cat.SetBackendState(be.ID, true, "", time.Now())
	}
	if err := e.ddl("CREATE TABLE t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ('replication_num'='1')"); err != nil {
		t.Fatal(err)
	}
	return e
}

// planCtx parses, binds and plans sql under ctx, as the server does.
func (e *env) planCtx(ctx context.Context, sql string) (*physical.Distributed, error) {
	st, err := parser.ParseOne(sql)
	if err != nil {
		return nil, err
	}
	sel := st.(*parser.Vitess).AST.(sqlparser.SelectStatement)
	q, err := bind.New(&bind.Context{Cat: e.cat, DB: e.db, Now: time.Now(), Ctx: ctx}).BindSelect(sel)
	if err != nil {
		return nil, err
	}
	out := make([]types.Column, len(q.Outputs))
	for i, o := range q.Outputs {
		out[i] = types.Column{Name: o.Name, Type: o.Col.T, Nullable: o.Col.Null}
	}
	return physical.PlanDistributed(&physical.Context{Cat: e.cat, Vars: e.vars, Cores: 2, Ctx: ctx}, q.Plan, out)
}

// countKind counts the plan's nodes of one kind.
func countKind(p *fragment.Plan, k fragment.NodeKind) int {
	n := 0
	var walk func(x *fragment.Node)
	walk = func(x *fragment.Node) {
		if x.Kind == k {
			n++
		}
		for _, c := range x.Children {
			walk(c)
		}
	}
	for _, f := range p.Fragments {
		walk(f.Root)
	}
	return n
}

func encodedSize(t *testing.T, p *physical.Distributed) int {
	t.Helper()
	b, err := json.Marshal(p.Plan)
	if err != nil {
		t.Fatal(err)
	}
	var back fragment.Plan
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatalf("the backends could not decode the plan: %v", err)
	}
	return len(b)
}

// A join chain's plan grows linearly: every join passes on only the
// columns the joins above it read (there were k columns at the k-th join,
// 22 MB encoded for 1,000 tables), and 1,000 tables, the limit, plan and
// encode; one more is 1116 naming the limit.
func TestJoinChainPlansLinearly(t *testing.T) {
	e := hostileEnv(t)
	sizes := map[int]int{}
	for _, n := range []int{250, 500, 1000} {
		p, err := e.planCtx(context.Background(), hostileSQL("chain", n))
		if err != nil {
			t.Fatalf("%d tables: %v", n, err)
		}
		if got := countKind(p.Plan, fragment.KindHashJoin); got != n-1 {
			t.Fatalf("%d tables: %d hash joins", n, got)
		}
		sizes[n] = encodedSize(t, p)
	}
	// A conjunct per table reaches its scan (pushing it down once asked
	// every join's sides for their columns per conjunct: 6 minutes).
	p, err := e.planCtx(context.Background(), hostileSQL("chainwhere", 1000))
	if err != nil {
		t.Fatal(err)
	}
	filtered := 0
	var walk func(x *fragment.Node)
	walk = func(x *fragment.Node) {
		if x.Kind == fragment.KindScan && len(x.Scan.Conjuncts) == 1 {
			filtered++
		}
		for _, c := range x.Children {
			walk(c)
		}
	}
	for _, f := range p.Plan.Fragments {
		walk(f.Root)
	}
	if filtered != 1000 {
		t.Errorf("%d scans filter their rows, want 1000", filtered)
	}
	if sizes[1000] > 5*sizes[250] {
		t.Errorf("plan sizes %v: 4x the tables gave more than 5x the bytes", sizes)
	}
	_, err = e.planCtx(context.Background(), hostileSQL("chain", 1001))
	if !errors.Is(err, sqlerr.TooManyTables.Match()) || !strings.Contains(err.Error(), "1000 tables") {
		t.Errorf("1,001 tables: %v, want 1116 naming the limit", err)
	}
	// A comma join counts the same.
	from := make([]string, 1001)
	for i := range from {
		from[i] = fmt.Sprintf("t t%d", i)
	}
	if _, err := e.planCtx(context.Background(), "SELECT count(*) FROM "+strings.Join(from, ", ")); !errors.Is(err, sqlerr.TooManyTables.Match()) {
		t.Errorf("1,001 comma-joined tables: %v, want 1116", err)
	}
}

// A UNION ALL chain is one set operation with an input per branch, not
// one per level (rows of the first branch passed through every level).
func TestUnionChainIsOneSetOp(t *testing.T) {
	e := hostileEnv(t)
	p, err := e.planCtx(context.Background(), hostileSQL("union", 1000))
	if err != nil {
		t.Fatal(err)
	}
	if got := countKind(p.Plan, fragment.KindSetOp); got != 1 {
		t.Errorf("%d set operations, want 1", got)
	}
}

// stopAfter is a context that is done once its Err has been asked n times:
// it shows the binder and the planner ask while they work, not only when
// they start.
type stopAfter struct {
	context.Context
	n atomic.Int64
}

func (c *stopAfter) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// Correlated subqueries nested as deep as the parser allows plan in time
// linear in their depth (pruning join outputs walked each Apply's subquery
// again at every level above it: 2^depth).
func TestNestedSubqueriesPlan(t *testing.T) {
	e := hostileEnv(t)
	if _, err := e.planCtx(context.Background(), hostileSQL("nestedin", 199)); err != nil {
		t.Fatal(err)
	}
}

// Binding and planning stop with the statement's context: KILL,
// query_timeout and a client that hangs up cancel it.
func TestPlanningObeysContext(t *testing.T) {
	e := hostileEnv(t)
	for _, c := range []struct {
		kind string
		n    int
	}{{"chain", 1000}, {"in", 100000}, {"or", 10001}, {"union", 10000}, {"case", 10000}} {
		ctx := &stopAfter{Context: context.Background()}
		ctx.n.Store(10)
		if _, err := e.planCtx(ctx, hostileSQL(c.kind, c.n)); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: %v, want context.Canceled", c.kind, err)
		}
	}
	// Past binding, the physical planner asks at every node.
	st, _ := parser.ParseOne(hostileSQL("chain", 100))
	q, err := bind.New(&bind.Context{Cat: e.cat, DB: e.db, Now: time.Now()}).BindSelect(st.(*parser.Vitess).AST.(sqlparser.SelectStatement))
	if err != nil {
		t.Fatal(err)
	}
	ctx := &stopAfter{Context: context.Background()}
	ctx.n.Store(50)
	_, err = physical.PlanDistributed(&physical.Context{Cat: e.cat, Vars: e.vars, Cores: 2, Ctx: ctx}, q.Plan,
		[]types.Column{{Name: "count(*)", Type: types.BigIntT}})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("physical planning: %v, want context.Canceled", err)
	}
	// The logical rewrites ask too: pushing a conjunct per table down a
	// 1,000-table chain stops where it is, and so does the physical
	// planner past them.
	st, _ = parser.ParseOne(hostileSQL("chainwhere", 1000))
	q, err = bind.New(&bind.Context{Cat: e.cat, DB: e.db, Now: time.Now()}).BindSelect(st.(*parser.Vitess).AST.(sqlparser.SelectStatement))
	if err != nil {
		t.Fatal(err)
	}
	ctx = &stopAfter{Context: context.Background()}
	ctx.n.Store(500)
	if _, err := logical.Optimize(ctx, q.Plan); !errors.Is(err, context.Canceled) {
		t.Errorf("logical rewrites: %v, want context.Canceled", err)
	}
	if ctx.n.Load() > 0 {
		t.Errorf("the rewrites asked the context fewer than 500 times")
	}
	ctx = &stopAfter{Context: context.Background()}
	ctx.n.Store(5000) // past the rewrites (about 4,000 asks), in the physical planner
	if _, err := physical.PlanDistributed(&physical.Context{Cat: e.cat, Vars: e.vars, Cores: 2, Ctx: ctx}, q.Plan,
		[]types.Column{{Name: "count(*)", Type: types.BigIntT}}); !errors.Is(err, context.Canceled) {
		t.Errorf("physical planning past the rewrites: %v, want context.Canceled", err)
	}
}

// BenchmarkPlanHostile is parse, bind, plan and encode of each hostile
// statement (the encoding is what every backend instance decodes).
func BenchmarkPlanHostile(b *testing.B) {
	e := hostileEnv(b)
	for _, c := range []struct {
		kind string
		n    int
	}{{"chain", 400}, {"chain", 1000}, {"chainwhere", 1000}, {"in", 100000}, {"union", 10000}, {"or", 10001}, {"case", 10000}, {"nestedin", 199}} {
		sql := hostileSQL(c.kind, c.n)
		b.Run(fmt.Sprintf("%s-%d", c.kind, c.n), func(b *testing.B) {
			for b.Loop() {
				p, err := e.planCtx(context.Background(), sql)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(p.Plan); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
