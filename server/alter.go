package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// alterTable runs ALTER TABLE (catalog/alter.go): column clauses and
// MODIFY COMMENT are one light schema change (one catalog write, then the
// new schema to the backends); RENAME, partition and property clauses run
// alone, as Doris requires. Heavy changes (a column's type, key columns,
// column order) start a background job (schemachange.go).
func (s *Session) alterTable(ctx context.Context, st *parser.AlterTable, w wire.ResultWriter) error {
	db, err := s.dbName(st.DB)
	if err != nil {
		return err
	}
	cur, err := s.srv.cat.Table(db, st.Table)
	if err != nil {
		if _, verr := s.srv.cat.View(db, st.Table); verr == nil {
			return sqlerr.WrongObject.New(db, st.Table, "TABLE", ". Use 'ALTER VIEW "+db+"."+st.Table+"'.")
		}
		return err
	}
	if s.srv.cat.RunningAlterJob(cur.ID) != nil {
		return catalog.ErrTableNotNormal(cur.Name)
	}
	schemaOps, heavy := 0, false
	for _, op := range st.Ops {
		switch op.Kind {
		case parser.AlterUnsupported:
			return sqlerr.NotSupportedYet.New("ALTER TABLE " + op.Text)
		case parser.AlterAddColumn, parser.AlterDropColumn, parser.AlterModifyColumn, parser.AlterRenameColumn, parser.AlterModifyComment, parser.AlterOrderBy:
			if op.Rollup != "" {
				return sqlerr.NotSupportedYet.New("ALTER TABLE column clauses on a rollup (" + op.Rollup + ")")
			}
			schemaOps++
			heavy = heavy || isHeavyOp(cur, op)
		}
	}
	if schemaOps != len(st.Ops) {
		if len(st.Ops) > 1 {
			return sqlerr.NotSupportedYet.New("ALTER TABLE with a RENAME, partition or property clause among other clauses")
		}
		return s.alterTableOther(ctx, db, st.Table, st.Ops[0], w)
	}
	if heavy {
		return s.heavySchemaChange(ctx, db, st, w)
	}
	var edits []func(t *catalog.Table) error
	for _, op := range st.Ops {
		e, err := s.schemaEdit(db, op)
		if err != nil {
			return err
		}
		edits = append(edits, e)
	}
	old, nt, err := s.srv.cat.AlterTable(db, st.Table, func(t *catalog.Table) error {
		for _, e := range edits {
			if err := e(t); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if nt.SchemaVersion != old.SchemaVersion {
		// Committed: a backend that misses it now gets it at its next
		// heartbeat, and refuses scans at the new version until then.
		_ = s.srv.coord.AlterTablets(ctx, nt)
	}
	return w.WriteOK(wire.OK{})
}

// alterColumn converts a parsed ADD/MODIFY COLUMN definition, with the
// value rows already loaded read as (its default, or nil for NULL).
func alterColumn(c parser.AlterColumn) (catalog.Column, *types.Datum, error) {
	agg, ok := aggTypes[strings.ToUpper(c.Agg)]
	if !ok {
		return catalog.Column{}, nil, sqlerr.Doris.New("unknown aggregate type " + c.Agg)
	}
	if c.AutoIncrement {
		return catalog.Column{}, nil, sqlerr.NotSupportedYet.New("ALTER TABLE of an AUTO_INCREMENT column")
	}
	col := catalog.Column{Column: types.Column{Name: c.Name, Type: c.Type, Nullable: c.Nullable}, Agg: agg, Comment: c.Comment, IsKey: c.IsKey}
	var fill *types.Datum
	if c.Default != nil && !c.DefaultNull {
		if strings.HasPrefix(strings.ToUpper(*c.Default), "CURRENT_") || strings.EqualFold(*c.Default, "NOW") {
			return catalog.Column{}, nil, sqlerr.NotSupportedYet.New("ADD COLUMN with DEFAULT " + *c.Default)
		}
		d, err := parseTyped(*c.Default, c.Type, c.Name)
		if err != nil {
			return catalog.Column{}, nil, sqlerr.InvalidDefault.New(c.Name)
		}
		text := *c.Default
		col.Default = &text
		fill = &d
	}
	return col, fill, nil
}

// schemaEdit turns one column clause into an edit of the table's copy.
func (s *Session) schemaEdit(db string, op parser.AlterOp) (func(t *catalog.Table) error, error) {
	switch op.Kind {
	case parser.AlterAddColumn:
		type add struct {
			col  catalog.Column
			fill *types.Datum
			pos  catalog.ColumnPos
		}
		var adds []add
		for _, c := range op.Columns {
			col, fill, err := alterColumn(c)
			if err != nil {
				return nil, err
			}
			adds = append(adds, add{col, fill, catalog.ColumnPos{First: c.First, After: c.After}})
		}
		return func(t *catalog.Table) error {
			for _, a := range adds {
				if err := t.AddColumn(a.col, a.pos, a.fill); err != nil {
					return err
				}
			}
			return nil
		}, nil
	case parser.AlterDropColumn:
		return func(t *catalog.Table) error { return t.DropColumn(op.Name) }, nil
	case parser.AlterModifyColumn:
		if op.CommentOnly {
			return func(t *catalog.Table) error {
				i := t.ColumnIndex(op.Name)
				if i < 0 {
					return sqlerr.Doris.New("Column[" + op.Name + "] does not exists")
				}
				t.Columns[i].Comment = op.Comment
				return nil
			}, nil
		}
		c := op.Columns[0]
		col, _, err := alterColumn(c)
		if err != nil {
			return nil, err
		}
		pos := catalog.ColumnPos{First: c.First, After: c.After}
		return func(t *catalog.Table) error {
			if col.IsKey && t.Keys != storage.DupKeys {
				col.IsKey = false // a key column stays one
			}
			if i := t.ColumnIndex(col.Name); i >= 0 && t.Columns[i].IsKey {
				col.IsKey = false
			}
			if col.IsKey {
				return sqlerr.NotSupportedYet.New("MODIFY COLUMN " + col.Name + " into a key column (a heavy schema change)")
			}
			return t.ModifyColumn(col, pos)
		}, nil
	case parser.AlterRenameColumn:
		return func(t *catalog.Table) error { return t.RenameColumn(op.Name, op.NewName) }, nil
	case parser.AlterModifyComment:
		return func(t *catalog.Table) error {
			t.Comment = op.Comment
			return nil
		}, nil
	}
	return nil, sqlerr.Assertf("server: ALTER TABLE clause %d is not a schema change", op.Kind)
}

// alterTableOther runs a clause that is not a column change.
func (s *Session) alterTableOther(ctx context.Context, db, table string, op parser.AlterOp, w wire.ResultWriter) error {
	switch op.Kind {
	case parser.AlterRename:
		if _, err := s.srv.cat.RenameTable(db, table, op.Name); err != nil {
			return err
		}
	case parser.AlterAddPartition:
		if err := s.addPartition(ctx, db, table, op); err != nil {
			return err
		}
	case parser.AlterDropPartition:
		t, err := s.srv.cat.Table(db, table)
		if err != nil {
			return err
		}
		p, err := s.srv.cat.DropPartition(db, table, op.Name, op.IfExists)
		if err != nil {
			return err
		}
		if p != nil {
			s.srv.coord.DropPartitionTablets(ctx, t, p)
		}
	case parser.AlterModifyPartition:
		if err := s.modifyPartition(db, table, op); err != nil {
			return err
		}
	case parser.AlterSetProperties:
		return s.alterTableSet(ctx, &parser.AlterTableSet{DB: db, Table: table, Properties: op.Properties}, w)
	default:
		return sqlerr.Assertf("server: ALTER TABLE clause %d", op.Kind)
	}
	return w.WriteOK(wire.OK{})
}

// addPartition runs ADD PARTITION: bounds parsed as CREATE TABLE parses
// them, the new tablets created on the backends before the partition
// joins the table (a failure drops them again).
func (s *Session) addPartition(ctx context.Context, db, table string, op parser.AlterOp) error {
	t, err := s.srv.cat.Table(db, table)
	if err != nil {
		return err
	}
	if t.PartKind == catalog.PartNone {
		return sqlerr.Doris.New("Only support adding partition to range and list partitioned table")
	}
	if op.IfExists && t.PartitionByName(op.Name) != nil {
		return nil
	}
	for k, v := range op.Properties {
		if k == "replication_num" {
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err != nil || n != t.ReplicationNum {
				return sqlerr.NotSupportedYet.New(fmt.Sprintf("a partition with replication_num %s in a table of %d", v, t.ReplicationNum))
			}
			continue
		}
		return sqlerr.NotSupportedYet.New("ADD PARTITION property " + k)
	}
	buckets := 0
	if op.Dist != nil {
		if op.Dist.Random != (t.Dist.Kind == catalog.DistRandom) {
			return sqlerr.Doris.New("Cannot assign different distribution type. default is: " + distKindName(t.Dist.Kind))
		}
		if !op.Dist.Random {
			cols := t.DistColumns()
			same := len(cols) == len(op.Dist.Columns)
			for i := 0; same && i < len(cols); i++ {
				same = strings.EqualFold(cols[i].Name, op.Dist.Columns[i])
			}
			if !same {
				return sqlerr.Doris.New("Cannot assign hash distribution with different distribution cols. default is: " + distNames(cols))
			}
		}
		buckets = op.Dist.Buckets
	}
	pc := t.Columns[t.PartColumn]
	spec, err := partitionSpec(*op.Partition, pc.Type, pc.Name)
	if err != nil {
		return err
	}
	switch t.PartKind {
	case catalog.PartList:
		if len(spec.Values) == 0 {
			return sqlerr.Doris.New("List partition expected 'VALUES [IN or ((\"xxx\", \"xxx\"), ...)]'")
		}
	case catalog.PartRange:
		if len(spec.Values) > 0 {
			return sqlerr.Doris.New("Range partition expected 'VALUES [LESS THAN or [(\"xxx\" ,...), (\"xxx\", ...))]'")
		}
	}
	p, err := s.srv.cat.AddPartition(db, table, spec, buckets, func(t *catalog.Table, p *catalog.Partition) error {
		nt := *t
		nt.Partitions = []*catalog.Partition{p}
		return s.srv.coord.CreatePartitionTablets(ctx, &nt, p)
	})
	if err != nil && p != nil {
		s.srv.coord.DropPartitionTablets(context.Background(), t, p)
	}
	return err
}

func distKindName(k catalog.DistKind) string {
	if k == catalog.DistRandom {
		return "RANDOM"
	}
	return "HASH"
}

func distNames(cols []catalog.Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return "[" + strings.Join(names, ", ") + "]"
}

// modifyPartition: MODIFY PARTITION p SET (...) changes nothing dorisgo
// keeps per partition; setting replication_num to what it is already is
// accepted, anything else would move replicas and is refused.
func (s *Session) modifyPartition(db, table string, op parser.AlterOp) error {
	t, err := s.srv.cat.Table(db, table)
	if err != nil {
		return err
	}
	if op.Name != "(...)" && t.PartitionByName(op.Name) == nil {
		return sqlerr.Doris.New(fmt.Sprintf("Partition[%s] does not exist in table[%s]", op.Name, t.Name))
	}
	for k, v := range op.Properties {
		if k == "replication_num" || k == "replication_allocation" {
			n, err := replicationOf(k, v)
			if err != nil {
				return err
			}
			if n == t.ReplicationNum {
				continue
			}
			return sqlerr.NotSupportedYet.New(fmt.Sprintf("MODIFY PARTITION replication_num from %d to %d (replicas would have to move)", t.ReplicationNum, n))
		}
		return sqlerr.NotSupportedYet.New("MODIFY PARTITION property " + k)
	}
	return nil
}

// replicationOf reads replication_num or replication_allocation.
func replicationOf(k, v string) (int, error) {
	if k == "replication_allocation" {
		i := strings.LastIndexByte(v, ':')
		v = v[i+1:]
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil || n <= 0 {
		return 0, sqlerr.Doris.New("Invalid " + k + ": " + v)
	}
	return n, nil
}

// setReplication runs SET ("[default.]replication_num" | "[default.]replication_allocation" = v).
func (s *Session) setReplication(db, table, k, v string) error {
	isDefault := strings.HasPrefix(k, "default.")
	n, err := replicationOf(strings.TrimPrefix(k, "default."), v)
	if err != nil {
		return err
	}
	return s.srv.cat.SetReplicationNum(db, table, isDefault, n)
}
