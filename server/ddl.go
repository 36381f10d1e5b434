package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// defaultBuckets is what a plain MySQL CREATE TABLE gets (INTERFACE.md).
const defaultBuckets = 10

var aggTypes = map[string]storage.AggType{
	"": storage.AggNone, "SUM": storage.AggSum, "MAX": storage.AggMax, "MIN": storage.AggMin,
	"REPLACE": storage.AggReplace, "REPLACE_IF_NOT_NULL": storage.AggReplaceIfNotNull,
	"BITMAP_UNION": storage.AggBitmapUnion, "HLL_UNION": storage.AggHLLUnion,
}

func (s *Session) dbName(db string) (string, error) {
	if db != "" {
		return db, nil
	}
	if d := s.DB(); d != "" {
		return d, nil
	}
	return "", sqlerr.NoDB.New()
}

// createTable runs CREATE TABLE: the catalog places the tablets, then every
// replica is created on its backend; if that fails the table is dropped again.
func (s *Session) createTable(ctx context.Context, ct *parser.CreateTable, w wire.ResultWriter) error {
	db, err := s.dbName(ct.DB)
	if err != nil {
		return err
	}
	spec, err := s.tableSpec(ct)
	if err != nil {
		return err
	}
	if ct.IfNotExists {
		if _, err := s.srv.cat.Table(db, ct.Name); err == nil {
			return w.WriteOK(wire.OK{})
		}
		if _, err := s.srv.cat.View(db, ct.Name); err == nil {
			return w.WriteOK(wire.OK{}) // the name is taken, by a view (Doris)
		}
	}
	t, err := s.srv.cat.CreateTable(db, spec, ct.IfNotExists)
	if err != nil {
		return err
	}
	if err := s.srv.coord.CreateTablets(ctx, t); err != nil {
		if _, derr := s.srv.cat.DropTable(db, t.Name, true); derr != nil {
			s.srv.log.Error("rollback create table", "table", t.Name, "err", derr)
		}
		s.srv.coord.DropTablets(context.Background(), t)
		return err
	}
	return w.WriteOK(wire.OK{})
}

func (s *Session) tableSpec(ct *parser.CreateTable) (*catalog.TableSpec, error) {
	if len(ct.Columns) == 0 {
		return nil, sqlerr.Doris.New("A table must have at least 1 column")
	}
	spec := &catalog.TableSpec{Name: ct.Name, Properties: ct.Properties, Comment: ct.Comment}
	for _, c := range ct.Columns {
		agg, ok := aggTypes[strings.ToUpper(c.Agg)]
		if !ok {
			return nil, sqlerr.Doris.New("unknown aggregate type " + c.Agg)
		}
		col := catalog.Column{Column: types.Column{Name: c.Name, Type: c.Type, Nullable: c.Nullable}, Agg: agg, Comment: c.Comment}
		if c.Default != nil && !c.DefaultNull {
			if _, err := parseTyped(*c.Default, c.Type, c.Name); err != nil {
				return nil, sqlerr.InvalidDefault.New(c.Name)
			}
			d := *c.Default
			col.Default = &d
		}
		spec.Columns = append(spec.Columns, col)
	}
	switch ct.Keys {
	case parser.KeysUnique:
		spec.Keys = storage.UniqueKeys
	case parser.KeysAggregate:
		spec.Keys = storage.AggKeys
	default:
		spec.Keys = storage.DupKeys
	}
	spec.KeyColumns = ct.KeyColumns
	if len(spec.KeyColumns) == 0 {
		spec.KeyColumns = []string{ct.Columns[0].Name}
	}
	if ct.Dist == nil {
		spec.Dist = catalog.DistSpec{Kind: catalog.DistHash, Columns: []string{ct.Columns[0].Name}, Buckets: defaultBuckets}
	} else if ct.Dist.Random {
		spec.Dist = catalog.DistSpec{Kind: catalog.DistRandom, Buckets: ct.Dist.Buckets}
	} else {
		spec.Dist = catalog.DistSpec{Kind: catalog.DistHash, Columns: ct.Dist.Columns, Buckets: ct.Dist.Buckets}
	}
	rep, err := s.replicationNum(ct)
	if err != nil {
		return nil, err
	}
	spec.ReplicationNum = rep
	spec.ColocateWith = ct.Properties["colocate_with"]
	switch ct.PartKind {
	case parser.PartRange:
		spec.PartKind = catalog.PartRange
	case parser.PartList:
		spec.PartKind = catalog.PartList
	}
	if spec.PartKind != catalog.PartNone {
		spec.PartColumn = ct.PartColumn
		var pt *types.T
		for _, c := range ct.Columns {
			if strings.EqualFold(c.Name, ct.PartColumn) {
				t := c.Type
				pt = &t
			}
		}
		if pt == nil {
			return nil, sqlerr.KeyColumnMissing.New(ct.PartColumn)
		}
		for _, p := range ct.Partitions {
			ps, err := partitionSpec(p, *pt, ct.PartColumn)
			if err != nil {
				return nil, err
			}
			spec.Partitions = append(spec.Partitions, ps)
		}
	}
	return spec, nil
}

// replicationNum reads replication_num / replication_allocation. A plain
// MySQL CREATE TABLE (no DISTRIBUTED clause) gets as many replicas as there
// are alive backends, up to Doris's default of 3, so MySQL tools and test
// suites work on any cluster size.
func (s *Session) replicationNum(ct *parser.CreateTable) (int, error) {
	if v, ok := ct.Properties["replication_num"]; ok {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n <= 0 {
			return 0, sqlerr.Doris.New("Invalid replication_num: " + v)
		}
		return n, nil
	}
	if v, ok := ct.Properties["replication_allocation"]; ok {
		i := strings.LastIndexByte(v, ':')
		n, err := strconv.Atoi(strings.TrimSpace(v[i+1:]))
		if err != nil || n <= 0 {
			return 0, sqlerr.Doris.New("Invalid replication_allocation: " + v)
		}
		return n, nil
	}
	if ct.Dist != nil {
		return 3, nil
	}
	alive := 0
	for _, b := range s.srv.cat.Backends() {
		if b.Alive && !b.Decommissioned {
			alive++
		}
	}
	return max(1, min(3, alive)), nil
}

func partitionSpec(p parser.PartitionDef, t types.T, col string) (catalog.PartitionSpec, error) {
	ps := catalog.PartitionSpec{Name: p.Name}
	one := func(vals []string) (*types.Datum, error) {
		if len(vals) == 0 {
			return nil, nil
		}
		if len(vals) > 1 {
			return nil, sqlerr.NotSupportedYet.New("multi-column partitioning")
		}
		d, err := parseTyped(vals[0], t, col)
		if err != nil {
			return nil, err
		}
		return &d, nil
	}
	var err error
	switch {
	case len(p.In) > 0:
		for _, v := range p.In {
			d, err := parseTyped(v, t, col)
			if err != nil {
				return ps, err
			}
			ps.Values = append(ps.Values, d)
		}
	case len(p.Lower) > 0 || len(p.Upper) > 0:
		if ps.Lower, err = one(p.Lower); err != nil {
			return ps, err
		}
		if ps.Upper, err = one(p.Upper); err != nil {
			return ps, err
		}
	case !p.MaxValue:
		if ps.Upper, err = one(p.LessThan); err != nil {
			return ps, err
		}
	}
	return ps, nil
}

// parseTyped converts literal text to a value of type t with the strict
// rules of the load path.
func parseTyped(s string, t types.T, col string) (types.Datum, error) {
	d, err := eval.CastDatum(types.StringDatum(s), t, true, col)
	if err != nil {
		return types.Datum{}, err
	}
	d.T = t
	return d, nil
}

func (s *Session) alterTableSet(ctx context.Context, st *parser.AlterTableSet, w wire.ResultWriter) error {
	db, err := s.dbName(st.DB)
	if err != nil {
		return err
	}
	for k, v := range st.Properties {
		switch k {
		case "colocate_with":
			if err := s.srv.cat.SetColocateGroup(db, st.Table, v); err != nil {
				return err
			}
		case "replication_num", "default.replication_num", "replication_allocation", "default.replication_allocation":
			if err := s.setReplication(db, st.Table, k, v); err != nil {
				return err
			}
		default:
			return sqlerr.Doris.New(fmt.Sprintf("Unknown table property: %s", k))
		}
	}
	return w.WriteOK(wire.OK{})
}

func (s *Session) alterSystem(ctx context.Context, st *parser.AlterSystem, w wire.ResultWriter) error {
	switch st.Op {
	case parser.AddFollower, parser.AddObserver, parser.DropFollower, parser.DropObserver:
		return s.alterFrontends(st, w)
	}
	for _, hp := range st.HostPorts {
		i := strings.LastIndexByte(hp, ':')
		if i < 0 {
			return sqlerr.Doris.New("Invalid host port: " + hp)
		}
		port, err := strconv.Atoi(hp[i+1:])
		if err != nil {
			return sqlerr.Doris.New("Invalid host port: " + hp)
		}
		host := hp[:i]
		switch st.Op {
		case parser.AddBackend:
			if _, err := s.srv.cat.AddBackend(host, port); err != nil {
				return err
			}
		case parser.DropBackend, parser.DropBackendForce:
			for _, b := range s.srv.cat.Backends() {
				if b.Host != host || b.Port != port {
					continue
				}
				// Doris refuses a DROP that loses data; DROPP forces it.
				if last := s.srv.cat.LastReplicas(b.ID); len(last) > 0 && st.Op == parser.DropBackend {
					return sqlerr.Doris.New(fmt.Sprintf("backend %s holds the last healthy replica of %d tablets (tablet %d, ...): "+
						"DECOMMISSION it to move them first, or use ALTER SYSTEM DROPP BACKEND to drop it anyway", hp, len(last), last[0]))
				}
				s.srv.coord.ForgetBackend(b.ID)
			}
			if err := s.srv.cat.DropBackend(host, port); err != nil {
				return err
			}
		case parser.DecommissionBackend, parser.CancelDecommission:
			// The tablet scheduler moves every replica off a decommissioned
			// backend, then drops it (coord/tabletsched.go).
			var id catalog.BackendID
			for _, b := range s.srv.cat.Backends() {
				if b.Host == host && b.Port == port {
					id = b.ID
				}
			}
			if id == 0 {
				return sqlerr.Doris.New(fmt.Sprintf("backend does not exists[%s]", hp))
			}
			if st.Op == parser.DecommissionBackend {
				if err := s.canDecommission(id, hp); err != nil {
					return err
				}
			}
			if err := s.srv.cat.SetBackendDecommissioned(id, st.Op == parser.DecommissionBackend); err != nil {
				return err
			}
		}
	}
	s.srv.coord.Heartbeat(ctx)
	return w.WriteOK(wire.OK{})
}

func (s *Session) dbDDL(ctx context.Context, n *parser.DatabaseDDL, w wire.ResultWriter) error {
	switch n.Op {
	case parser.CreateDatabase:
		if _, err := s.srv.cat.CreateDatabase(n.Name, n.IfNotExists); err != nil {
			return err
		}
		return w.WriteOK(wire.OK{AffectedRows: 1})
	case parser.DropDatabase:
		tables, err := s.srv.cat.DropDatabase(n.Name, n.IfExists)
		if err != nil {
			return err
		}
		for _, t := range tables {
			s.srv.coord.DropTablets(ctx, t)
		}
		if strings.EqualFold(s.DB(), n.Name) {
			s.mu.Lock()
			s.db = ""
			s.mu.Unlock()
		}
		return w.WriteOK(wire.OK{AffectedRows: uint64(len(tables))})
	}
	return sqlerr.NotSupportedYet.New("ALTER DATABASE")
}

func (s *Session) ddl(ctx context.Context, n *parser.DDL, w wire.ResultWriter) error {
	switch n.Op {
	case parser.DDLDrop:
		if len(n.Views) > 0 {
			return s.dropViews(n, w)
		}
		for _, tn := range n.Tables {
			db, err := s.dbName(tn.DB)
			if err != nil {
				return err
			}
			t, err := s.srv.cat.DropTable(db, tn.Name, n.IfExists)
			if err != nil {
				return err
			}
			if t != nil {
				s.srv.coord.DropTablets(ctx, t)
			}
		}
		return w.WriteOK(wire.OK{})
	case parser.DDLTruncate:
		db, err := s.dbName(n.Table.DB)
		if err != nil {
			return err
		}
		old, nt, err := s.srv.cat.TruncateTable(db, n.Table.Name, func(t *catalog.Table) error {
			return s.srv.coord.CreateTablets(ctx, t)
		})
		if err != nil {
			if nt != nil {
				s.srv.coord.DropTablets(ctx, nt) // created, never switched to
			}
			return err
		}
		s.srv.coord.DropTablets(ctx, old)
		return w.WriteOK(wire.OK{})
	}
	return sqlerr.NotSupportedYet.New(n.Verb + " TABLE")
}

// canDecommission refuses to decommission backend id when the other
// backends cannot hold every replica of a table it holds one of (its
// replicas would have nowhere to go).
func (s *Session) canDecommission(id catalog.BackendID, hp string) error {
	others := 0
	for _, b := range s.srv.cat.Backends() {
		if b.ID != id && b.Alive && !b.Decommissioned {
			others++
		}
	}
	for _, d := range s.srv.cat.Databases() {
		ts, _ := s.srv.cat.Tables(d.Name)
		for _, t := range ts {
			holds := false
			for _, p := range t.Partitions {
				for _, tb := range p.Tablets {
					for _, r := range tb.Replicas {
						holds = holds || r.BackendID == id
					}
				}
			}
			if holds && t.ReplicationNum > others {
				return sqlerr.Doris.New(fmt.Sprintf("cannot decommission backend %s: table %s.%s needs %d replicas and only %d other alive backends can hold them",
					hp, d.Name, t.Name, t.ReplicationNum, others))
			}
		}
	}
	return nil
}
