package physical_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/bind"
	"github.com/dorisgo/dorisgo/planner/check"
	"github.com/dorisgo/dorisgo/planner/explain"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/physical"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

var update = flag.Bool("update", false, "rewrite planner/testdata golden files")

// TestGolden runs planner/testdata/*.txt. Each case is
//
//	<command> [args]
//	<input lines>
//	----
//	<expected output>
//	====
//
// Commands: backends N; exec-ddl (CREATE TABLE / CREATE [OR REPLACE] VIEW /
// ALTER colocate); inject-stats (lines "table rows": commits a load of that many
// rows spread over the table's tablets, without data); column-stats (lines
// "table column ndv [nulls [min max]]": ANALYZE statistics, stats_golden_test.go); set (k=v lines);
// unstable (group name: marks the group unstable); explain [verbose|distributed].
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("../testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	all := true
	for _, f := range files {
		all = t.Run(filepath.Base(f), func(t *testing.T) { runGolden(t, f) }) && all
	}
	// Every operator, sink and join distribution the plan can hold has a
	// golden EXPLAIN (skipped when -run selects some files only).
	if all && !strings.Contains(flag.Lookup("test.run").Value.String(), "/") {
		if m := explained.missing(); len(m) > 0 {
			t.Errorf("no golden EXPLAIN case shows: %s", strings.Join(m, ", "))
		}
	}
}

type env struct {
	cat  *catalog.Catalog
	db   string
	vars physical.Vars
}

func runGolden(t *testing.T, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t)
	lines := strings.Split(string(data), "\n")
	var out strings.Builder
	changed := false
	for i := 0; i < len(lines); {
		l := lines[i]
		if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
			out.WriteString(l + "\n")
			i++
			continue
		}
		cmd := l
		i++
		var input []string
		for i < len(lines) && lines[i] != "----" {
			input = append(input, lines[i])
			i++
		}
		i++ // ----
		var want []string
		for i < len(lines) && lines[i] != "====" {
			want = append(want, lines[i])
			i++
		}
		i++ // ====
		got := e.run(t, cmd, input)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			if !*update {
				t.Errorf("%s:\n%s\n%s\n--- got:\n%s\n--- want:\n%s", path, cmd, strings.Join(input, "\n"), strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			changed = true
		}
		out.WriteString(cmd + "\n")
		for _, s := range input {
			out.WriteString(s + "\n")
		}
		out.WriteString("----\n")
		for _, s := range got {
			out.WriteString(s + "\n")
		}
		out.WriteString("====\n")
	}
	if *update && changed {
		if err := os.WriteFile(path, []byte(strings.TrimRight(out.String(), "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// newEnv opens a catalog in a temporary directory with database shop.
func newEnv(t testing.TB) *env {
	meta, err := storage.OpenMeta(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { meta.Close() })
	cat, err := catalog.Open(meta)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{cat: cat, db: "shop", vars: physical.DefaultVars()}
	if _, err := cat.CreateDatabase("shop", false); err != nil {
		t.Fatal(err)
	}
	return e
}

func (e *env) run(t *testing.T, cmd string, input []string) []string {
	fields := strings.Fields(cmd)
	var err error
	var out []string
	switch fields[0] {
	case "backends":
		n, _ := strconv.Atoi(fields[1])
		for i := range n {
			be, aerr := e.cat.AddBackend("127.0.0.1", 9060+i)
			if aerr != nil {
				t.Fatal(aerr)
			}
			e.cat.SetBackendState(be.ID, true, "", time.Now())
		}
	case "exec-ddl":
		err = e.ddl(strings.Join(input, "\n"))
	case "inject-stats":
		for _, l := range input {
			f := strings.Fields(l)
			n, _ := strconv.ParseInt(f[1], 10, 64)
			if err = e.inject(f[0], n); err != nil {
				break
			}
		}
	case "column-stats":
		err = e.columnStats(input)
	case "set":
		for _, l := range input {
			k, v, _ := strings.Cut(l, "=")
			e.vars.Set(strings.TrimSpace(k), strings.TrimSpace(v))
		}
	case "unstable":
		err = e.cat.SetGroupStable(e.db, strings.TrimSpace(input[0]), false)
	case "explain":
		mode := explain.Plain
		if len(fields) > 1 && fields[1] == "verbose" {
			mode = explain.Verbose
		}
		if len(fields) > 1 && fields[1] == "distributed" {
			mode = explain.Distributed
		}
		out, err = e.explain(strings.Join(input, "\n"), mode)
	default:
		t.Fatalf("unknown command %q", cmd)
	}
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	return out
}

func (e *env) explain(sql string, mode explain.Mode) ([]string, error) {
	p, _, err := e.plan(sql, e.vars)
	if err != nil {
		return nil, err
	}
	explained.note(p.Plan)
	return p.Explain(mode), nil
}

// explained records which operators, sinks and join distributions the
// golden EXPLAIN cases show, so TestGolden can insist that each one of
// the plan's enums has at least one.
var explained = coverage{nodes: map[fragment.NodeKind]bool{}, sinks: map[fragment.SinkKind]bool{}, dists: map[fragment.Distribution]bool{}}

type coverage struct {
	nodes map[fragment.NodeKind]bool
	sinks map[fragment.SinkKind]bool
	dists map[fragment.Distribution]bool
}

func (c coverage) note(p *fragment.Plan) {
	for _, f := range p.Fragments {
		c.sinks[f.Sink.Kind] = true
		fragment.Walk(f.Root, func(n *fragment.Node) {
			c.nodes[n.Kind] = true
			if n.Join != nil {
				c.dists[n.Join.Dist] = true
			}
		})
	}
}

// missing lists the enum values no golden case explains.
func (c coverage) missing() []string {
	var out []string
	for k := fragment.NodeKind(0); k < fragment.NodeKindCount; k++ {
		if !c.nodes[k] {
			out = append(out, "node kind "+strconv.Itoa(int(k)))
		}
	}
	for k := fragment.SinkKind(0); k < fragment.SinkKindCount; k++ {
		if !c.sinks[k] {
			out = append(out, "sink kind "+strconv.Itoa(int(k)))
		}
	}
	for d := fragment.Distribution(0); d < fragment.DistributionCount; d++ {
		if !c.dists[d] {
			out = append(out, "join distribution "+strconv.Itoa(int(d)))
		}
	}
	return out
}

// plan binds sql and plans it distributed under vars (SET_VAR hints
// applied); it also returns the bound logical plan.
func (e *env) plan(sql string, vars physical.Vars) (*physical.Distributed, logical.Node, error) {
	st, err := parser.ParseOne(sql)
	if err != nil {
		return nil, nil, err
	}
	v, ok := st.(*parser.Vitess)
	if !ok {
		return nil, nil, fmt.Errorf("not a query")
	}
	if v.Kind == parser.KindInsert {
		ins, err := bind.New(&bind.Context{Cat: e.cat, DB: e.db, Now: time.Now(), Hints: v.Hints}).BindInsert(v)
		if err != nil {
			return nil, nil, err
		}
		for _, sv := range v.Hints.SetVars {
			vars.Set(sv.Name, sv.Value)
		}
		p, err := physical.PlanInsert(&physical.Context{Cat: e.cat, Vars: vars, Spark: v.Hints.Spark, Cores: 2}, ins.Source,
			physical.InsertTarget{DB: ins.DB, Table: ins.Table, Overwrite: v.Overwrite})
		return p, ins.Source, e.checked(p, err)
	}
	sel, ok := v.AST.(sqlparser.SelectStatement)
	if !ok {
		return nil, nil, fmt.Errorf("not a query")
	}
	q, err := bind.New(&bind.Context{Cat: e.cat, DB: e.db, Now: time.Now(), Hints: v.Hints}).BindSelect(sel)
	if err != nil {
		return nil, nil, err
	}
	for _, sv := range v.Hints.SetVars {
		vars.Set(sv.Name, sv.Value)
	}
	out := make([]types.Column, len(q.Outputs))
	for i, o := range q.Outputs {
		out[i] = types.Column{Name: o.Name, Type: o.Col.T, Nullable: o.Col.Null}
	}
	// Cores 2: parallel_pipeline_task_num=0 means one task on every machine.
	p, err := physical.PlanDistributed(&physical.Context{Cat: e.cat, Vars: vars, Spark: v.Hints.Spark, Cores: 2}, q.Plan, out)
	return p, q.Plan, e.checked(p, err)
}

// checked runs the independent distribution checker on every plan the
// tests make: a plan it rejects fails the test that planned it.
func (e *env) checked(p *physical.Distributed, err error) error {
	if err != nil {
		return err
	}
	if err := check.Plan(p.Plan, check.FromCatalog(e.cat)); err != nil {
		return fmt.Errorf("plan check: %w", err)
	}
	return nil
}

func (e *env) inject(table string, rows int64) error {
	tb, err := e.cat.Table(e.db, table)
	if err != nil {
		return err
	}
	txn, err := e.cat.BeginTxn(e.db, "", []catalog.TableID{tb.ID})
	if err != nil {
		return err
	}
	var parts []catalog.PartitionID
	var tablets []storage.TabletID
	for _, p := range tb.Partitions {
		parts = append(parts, p.ID)
		for _, x := range p.Tablets {
			tablets = append(tablets, x.ID)
		}
	}
	per := map[storage.TabletID]int64{}
	for i, id := range tablets {
		per[id] = rows / int64(len(tablets))
		if int64(i) < rows%int64(len(tablets)) {
			per[id]++
		}
	}
	if _, err := e.cat.CommitTxn(txn.ID, parts, per, nil); err != nil {
		return err
	}
	return e.cat.FinishTxn(txn.ID)
}

// createView binds the view's query as the server does (1462 for a view
// reaching itself) and stores it.
func (e *env) createView(x *parser.CreateView) error {
	q, err := bind.New(&bind.Context{Cat: e.cat, DB: e.db, Now: time.Now(), Hints: x.Query.Hints}).
		BindView(e.db, x.Name, x.Query)
	if err != nil {
		return err
	}
	spec := &catalog.ViewSpec{Name: x.Name, Query: x.Query.Text, QueryDB: e.db}
	for i, o := range q.Outputs {
		name := o.Name
		if x.Columns != nil {
			name = x.Columns[i].Name
		}
		spec.Columns = append(spec.Columns, catalog.Column{Column: types.Column{Name: name, Type: o.Col.T, Nullable: o.Col.Null}})
	}
	mode := catalog.ViewCreate
	if x.OrReplace {
		mode = catalog.ViewOrReplace
	}
	_, err = e.cat.CreateView(e.db, spec, mode)
	return err
}

// ddl runs CREATE TABLE (Doris form), CREATE VIEW or ALTER TABLE t SET ("colocate_with"=g).
func (e *env) ddl(sql string) error {
	st, err := parser.ParseOne(sql)
	if err != nil {
		return err
	}
	switch x := st.(type) {
	case *parser.AlterTableSet:
		return e.cat.SetColocateGroup(e.db, x.Table, x.Properties["colocate_with"])
	case *parser.CreateView:
		return e.createView(x)
	case *parser.CreateTable:
		spec := &catalog.TableSpec{Name: x.Name, Properties: x.Properties, KeyColumns: x.KeyColumns, ReplicationNum: 1,
			ColocateWith: x.Properties["colocate_with"], Keys: storage.DupKeys}
		switch x.Keys {
		case parser.KeysUnique:
			spec.Keys = storage.UniqueKeys
		case parser.KeysAggregate:
			spec.Keys = storage.AggKeys
		}
		for _, c := range x.Columns {
			spec.Columns = append(spec.Columns, catalog.Column{Column: types.Column{Name: c.Name, Type: c.Type, Nullable: c.Nullable}})
		}
		if len(spec.KeyColumns) == 0 {
			spec.KeyColumns = []string{x.Columns[0].Name}
		}
		if r, ok := x.Properties["replication_num"]; ok {
			spec.ReplicationNum, _ = strconv.Atoi(r)
		}
		spec.Dist = catalog.DistSpec{Kind: catalog.DistHash, Columns: x.Dist.Columns, Buckets: x.Dist.Buckets}
		if x.Dist.Random {
			spec.Dist = catalog.DistSpec{Kind: catalog.DistRandom, Buckets: x.Dist.Buckets}
		}
		if x.PartKind == parser.PartRange {
			spec.PartKind, spec.PartColumn = catalog.PartRange, x.PartColumn
			for _, p := range x.Partitions {
				ps := catalog.PartitionSpec{Name: p.Name}
				if !p.MaxValue && len(p.LessThan) > 0 {
					n, _ := strconv.ParseInt(p.LessThan[0], 10, 64)
					d := types.IntDatum(n)
					ps.Upper = &d
				}
				spec.Partitions = append(spec.Partitions, ps)
			}
		}
		_, err = e.cat.CreateTable(e.db, spec, false)
		return err
	}
	return fmt.Errorf("unsupported ddl %T", st)
}
