package coord_test

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/be"
	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// cluster is a catalog, a coordinator and n real backends on loopback.
type cluster struct {
	t    *testing.T
	cat  *catalog.Catalog
	co   *coord.Coordinator
	bes  []*be.Backend
	ids  []catalog.BackendID
	dirs []string // each backend's data dir (a test restarts one on it)
}

func newCluster(t *testing.T, n int) *cluster {
	t.Helper()
	meta, err := storage.OpenMeta(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.Open(meta)
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{t: t, cat: cat}
	for i := 0; i < n; i++ {
		dir := t.TempDir()
		b, err := be.Start(dir, "127.0.0.1:0", nil)
		if err != nil {
			t.Fatal(err)
		}
		c.bes = append(c.bes, b)
		c.dirs = append(c.dirs, dir)
		var port int
		fmt.Sscanf(b.Addr()[strings.LastIndex(b.Addr(), ":")+1:], "%d", &port)
		rec, err := cat.AddBackend("127.0.0.1", port)
		if err != nil {
			t.Fatal(err)
		}
		c.ids = append(c.ids, rec.ID)
	}
	c.co = coord.New(cat, nil)
	c.co.ClusterToken = "coord-test-token" // claims the backends on the first heartbeat
	// Small batches, so that the exchange tests' data spans many of them
	// (backpressure, mid-stream deaths) without big tables.
	c.co.BatchRows = 4096
	if err := c.co.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := cat.CreateDatabase("db", false); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.co.Close()
		for _, b := range c.bes {
			if b != nil {
				b.Stop()
			}
		}
		meta.Close()
	})
	return c
}

func col(name string, t types.T) catalog.Column {
	return catalog.Column{Column: types.Column{Name: name, Type: t, Nullable: true}}
}

// table creates db.name (k BIGINT, x <xt>) hashed on dist into buckets.
func (c *cluster) table(name string, xt types.T, dist string, buckets, replicas int, group string) *catalog.Table {
	c.t.Helper()
	tb, err := c.cat.CreateTable("db", &catalog.TableSpec{Name: name, Columns: []catalog.Column{col("k", types.BigIntT), col("x", xt)},
		Keys: storage.DupKeys, KeyColumns: []string{"k"}, Dist: catalog.DistSpec{Kind: catalog.DistHash, Columns: []string{dist}, Buckets: buckets},
		ReplicationNum: replicas, ColocateWith: group}, false)
	if err != nil {
		c.t.Fatal(err)
	}
	if err := c.co.CreateTablets(context.Background(), tb); err != nil {
		c.t.Fatal(err)
	}
	return tb
}

// load writes rows (k, x) where x is a string or an int64.
func (c *cluster) load(tb *catalog.Table, ks []int64, xs []any) {
	c.t.Helper()
	if _, err := c.co.Load(context.Background(), "db", tb, "", c.source(tb, ks, xs)); err != nil {
		c.t.Fatal(err)
	}
}

// source yields rows (k, x) of tb, x a string or an int64, as a load reads them.
func (c *cluster) source(tb *catalog.Table, ks []int64, xs []any) coord.Source {
	sc := types.ArrowSchema([]types.Column{tb.Columns[0].Column, tb.Columns[1].Column})
	return func(yield func(arrow.Record) error) error {
		for lo := 0; lo < len(ks); lo += 4096 {
			hi := min(lo+4096, len(ks))
			b := array.NewRecordBuilder(memory.DefaultAllocator, sc)
			for i := lo; i < hi; i++ {
				b.Field(0).(*array.Int64Builder).Append(ks[i])
				switch v := xs[i].(type) {
				case string:
					b.Field(1).(*array.StringBuilder).Append(v)
				case int64:
					b.Field(1).(*array.Int64Builder).Append(v)
				}
			}
			rec := b.NewRecord()
			b.Release()
			err := yield(rec)
			rec.Release()
			if err != nil {
				return err
			}
		}
		return nil
	}
}

// scan is a scan node over every tablet of tb's visible version.
func (c *cluster) scan(id fragment.NodeID, name string) *fragment.Node {
	c.t.Helper()
	tb, err := c.cat.Table("db", name)
	if err != nil {
		c.t.Fatal(err)
	}
	s := &fragment.ScanSpec{DB: "db", Table: tb.Name, TableID: int64(tb.ID), Columns: []int{0, 1}}
	for _, p := range tb.Partitions {
		for _, t := range p.Tablets {
			ref := fragment.TabletRef{Tablet: t.ID, Version: p.VisibleVersion, Bucket: t.Bucket}
			for _, r := range t.Replicas {
				ref.Replicas = append(ref.Replicas, fragment.BackendID(r.BackendID))
			}
			s.Tablets = append(s.Tablets, ref)
		}
	}
	return &fragment.Node{ID: id, Kind: fragment.KindScan, Scan: s,
		Output: []types.Column{tb.Columns[0].Column, tb.Columns[1].Column}}
}

func exchange(id fragment.NodeID, from fragment.FragmentID, out []types.Column, merge bool) *fragment.Node {
	return &fragment.Node{ID: id, Kind: fragment.KindExchange, Output: out, Exchange: &fragment.ExchangeSpec{From: from, Merge: merge}}
}

func ref(i int, t types.T) fragment.Ex {
	return fragment.Ex{Expr: &expr.ColRef{Index: i, T: t, Null: true}}
}

func hashJoin(id fragment.NodeID, l, r *fragment.Node, d fragment.Distribution) *fragment.Node {
	out := append(append([]types.Column(nil), l.Output...), r.Output...)
	return &fragment.Node{ID: id, Kind: fragment.KindHashJoin, Children: []*fragment.Node{l, r}, Output: out,
		Join: &fragment.JoinSpec{LeftKeys: []fragment.Ex{ref(0, types.BigIntT)}, RightKeys: []fragment.Ex{ref(0, types.BigIntT)}, Dist: d}}
}

func frag(id fragment.FragmentID, root *fragment.Node, part fragment.PartitionKind, sink fragment.Sink) *fragment.Fragment {
	return &fragment.Fragment{ID: id, Root: root, Partition: part, Sink: sink}
}

// gatherRoot is fragment 0: an exchange gathering fragment from.
func gatherRoot(id fragment.NodeID, from fragment.FragmentID, out []types.Column, merge bool) *fragment.Fragment {
	return frag(0, exchange(id, from, out, merge), fragment.Unpartitioned, fragment.Sink{Kind: fragment.ResultSink})
}

// run runs plan and returns its rows as strings plus the profile.
func (c *cluster) run(plan *fragment.Plan) ([]string, *coord.Profile) {
	c.t.Helper()
	q, err := c.start(context.Background(), plan)
	if err != nil {
		c.t.Fatal(err)
	}
	defer q.Close()
	var rows []string
	for {
		rec, err := q.Next(context.Background())
		if err == io.EOF {
			break
		}
		if err != nil {
			c.t.Fatal(err)
		}
		rows = append(rows, recRows(rec)...)
		rec.Release()
	}
	return rows, q.Profile()
}

func (c *cluster) start(ctx context.Context, plan *fragment.Plan) (*coord.Query, error) {
	env := &op.Env{Mem: memory.DefaultAllocator, Eval: &expr.Context{Now: time.Unix(0, 0)}}
	o, err := c.co.Run(ctx, "", plan, env, 0)
	if err != nil {
		return nil, err
	}
	return o.(*coord.Query), nil
}

func recRows(rec arrow.Record) []string {
	var out []string
	for i := 0; i < int(rec.NumRows()); i++ {
		var parts []string
		for j := 0; j < int(rec.NumCols()); j++ {
			parts = append(parts, rec.Column(j).ValueStr(i))
		}
		out = append(out, strings.Join(parts, "|"))
	}
	return out
}

func sorted(rows []string) []string {
	out := append([]string(nil), rows...)
	sort.Strings(out)
	return out
}

func sameRows(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: row %d = %q, want %q", what, i, got[i], want[i])
		}
	}
}

// status sums a query's state over every live backend.
func (c *cluster) status(id string) rpc.QueryStatusResp {
	c.t.Helper()
	var sum rpc.QueryStatusResp
	for i, b := range c.bes {
		if b == nil {
			continue
		}
		cl, err := c.co.Client(c.ids[i])
		if err != nil {
			c.t.Fatal(err)
		}
		var r rpc.QueryStatusResp
		if err := cl.Do(context.Background(), rpc.ActQueryStatus, rpc.QueryStatusReq{QueryID: id}, &r); err != nil {
			c.t.Fatal(err)
		}
		sum.Instances += r.Instances
		sum.Inboxes += r.Inboxes
		sum.Buffered += r.Buffered
		sum.PeakBytes = max(sum.PeakBytes, r.PeakBytes)
	}
	return sum
}

// eventually polls cond until it holds or 5 s pass.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
