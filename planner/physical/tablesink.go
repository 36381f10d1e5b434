package physical

import (
	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/planner/props"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// InsertTarget is the table an INSERT … SELECT (INSERT OVERWRITE, CREATE
// TABLE … AS SELECT) writes. The source's columns are the table's, in
// schema order, of the query's types.
type InsertTarget struct {
	DB    string
	Table *catalog.Table
	// Overwrite replaces the written partitions' data at commit.
	Overwrite bool
	// Partial: a partial column update (bind.Insert.Partial).
	Partial *storage.PartialUpdate
}

// tableSinkOp is the root fragment's OLAP TABLE SINK.
type tableSinkOp struct {
	target InsertTarget
	spec   *fragment.TableSink
}

// PlanInsert plans an INSERT's source as a distributed query whose root
// fragment ends in an OLAP TABLE SINK on the backends: the source's rows
// are shuffled by the target's distribution (each sink instance owning
// whole buckets, TABLET_SINK_SHUFFLE_PARTITIONED), unless they already lie
// in one instance, which then writes every tablet itself.
//
//	Fragment 0 [OLAP TABLE SINK t] ← EXCHANGE ← [TABLET_SINK_SHUFFLE_PARTITIONED t's dist columns] Fragment 1 …
func PlanInsert(ctx *Context, root logical.Node, target InsertTarget) (*Distributed, error) {
	t := target.Table
	src := root.Columns()
	if len(src) != len(t.Columns) {
		return nil, sqlerr.Assertf("physical: insert source has %d columns for %d table columns", len(src), len(t.Columns))
	}
	sink := &tableSinkOp{target: target, spec: SinkSpec(target.DB, t, t.Partitions)}
	sink.spec.Overwrite = target.Overwrite
	sink.spec.Partial = target.Partial
	return planDistributed(ctx, root, nil, sink)
}

// SinkSpec describes table t as a table sink writing partitions parts.
func SinkSpec(db string, t *catalog.Table, parts []*catalog.Partition) *fragment.TableSink {
	s := &fragment.TableSink{DB: db, Table: t.Name, TableID: int64(t.ID), Buckets: t.Dist.Buckets,
		PartKind: uint8(t.PartKind), PartColumn: t.PartColumn}
	for _, c := range t.Columns {
		s.Columns = append(s.Columns, c.Column)
	}
	if t.Dist.Kind == catalog.DistHash {
		s.DistColumns = append([]int(nil), t.Dist.Columns...)
	}
	for _, p := range parts {
		sp := fragment.SinkPartition{ID: int64(p.ID), Name: p.Name, Lower: p.Lower, Upper: p.Upper, Values: p.Values}
		for _, tb := range p.Tablets {
			st := fragment.SinkTablet{Tablet: tb.ID}
			for _, r := range tb.Replicas {
				st.Replicas = append(st.Replicas, fragment.BackendID(r.BackendID))
			}
			sp.Tablets = append(sp.Tablets, st)
		}
		s.Partitions = append(s.Partitions, sp)
	}
	return s
}

// requireSink puts the exchange feeding the table sink above n: hashed on
// the target's distribution columns (converted to their types, so the
// hash is the storage bucket's), or round-robin for a RANDOM table. Rows
// already in one instance stay there.
func (d *distPlanner) requireSink(n *pnode, s *tableSinkOp) *pnode {
	if n.del.Kind == props.DelSingle {
		return n
	}
	t := s.target.Table
	req := sideReq{req: props.Required{Kind: props.ReqExecRandom}, exchange: true}
	if t.Dist.Kind == catalog.DistHash {
		var ids []logical.ColumnID
		var keys []expr.Expr
		for _, dc := range t.Dist.Columns {
			c := n.cols[dc]
			ids = append(ids, c.ID)
			var k expr.Expr = c.Ref()
			if to := t.Columns[dc].Type; c.T != to {
				k = &expr.Cast{Arg: k, To: to}
			}
			keys = append(keys, k)
		}
		req = sideReq{req: props.Required{Kind: props.ReqBucket, Keys: ids,
			Layout: &props.BucketLayout{Table: int64(t.ID), Buckets: t.Dist.Buckets}}, keys: keys, exchange: true}
	}
	x := d.require(n, req)
	x.exch.tabletSink = true
	return x
}

// tableSinkLines is EXPLAIN's OLAP TABLE SINK of fragment f.
func (d *distPlanner) tableSinkLines(f *pfrag) []string {
	s := f.table
	out := []string{"OLAP TABLE SINK", "TABLE: " + s.spec.Table}
	switch {
	case f.root.op != opExchange || !f.root.exch.tabletSink:
		out = append(out, "UNPARTITIONED")
	case s.target.Table.Dist.Kind != catalog.DistHash:
		out = append(out, "RANDOM")
	default:
		out = append(out, "TABLET_SINK_SHUFFLE_PARTITIONED")
	}
	if s.spec.Overwrite {
		out = append(out, "OVERWRITE: true")
	}
	return out
}
