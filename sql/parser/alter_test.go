package parser

import (
	"reflect"
	"testing"

	"github.com/dorisgo/dorisgo/sql/types"
)

func TestAlterTableClauses(t *testing.T) {
	def := func(name string, typ types.T) ColumnDef { return ColumnDef{Name: name, Type: typ, Nullable: true} }
	seven := "7"
	for _, tc := range []struct {
		sql  string
		want []AlterOp
	}{
		{"ALTER TABLE d.t ADD COLUMN c INT DEFAULT \"7\" COMMENT 'x' AFTER k", []AlterOp{{Kind: AlterAddColumn, Columns: []AlterColumn{{
			ColumnDef: ColumnDef{Name: "c", Type: types.IntT, Nullable: true, Default: &seven, Comment: "x"}, After: "k"}}}}},
		{"ALTER TABLE t ADD COLUMN (a INT, b VARCHAR(3) NOT NULL)", []AlterOp{{Kind: AlterAddColumn, Columns: []AlterColumn{
			{ColumnDef: def("a", types.IntT)}, {ColumnDef: ColumnDef{Name: "b", Type: types.VarcharT(3)}}}}}},
		{"ALTER TABLE t ADD COLUMN k2 INT KEY FIRST", []AlterOp{{Kind: AlterAddColumn, Columns: []AlterColumn{{ColumnDef: def("k2", types.IntT), IsKey: true, First: true}}}}},
		{"ALTER TABLE t ADD COLUMN v INT SUM", []AlterOp{{Kind: AlterAddColumn, Columns: []AlterColumn{{ColumnDef: ColumnDef{Name: "v", Type: types.IntT, Nullable: true, Agg: "SUM"}}}}}},
		{"ALTER TABLE t DROP COLUMN c", []AlterOp{{Kind: AlterDropColumn, Name: "c"}}},
		{"ALTER TABLE t DROP COLUMN c, DROP COLUMN d", []AlterOp{{Kind: AlterDropColumn, Name: "c"}, {Kind: AlterDropColumn, Name: "d"}}},
		{"ALTER TABLE t MODIFY COLUMN c COMMENT 'n'", []AlterOp{{Kind: AlterModifyColumn, CommentOnly: true, Name: "c", Comment: "n"}}},
		{"ALTER TABLE t RENAME COLUMN a b", []AlterOp{{Kind: AlterRenameColumn, Name: "a", NewName: "b"}}},
		{"ALTER TABLE t RENAME t2", []AlterOp{{Kind: AlterRename, Name: "t2"}}},
		{"ALTER TABLE t RENAME TO t2", []AlterOp{{Kind: AlterRename, Name: "t2"}}},
		{"ALTER TABLE t MODIFY COMMENT 'c'", []AlterOp{{Kind: AlterModifyComment, Comment: "c"}}},
		{`ALTER TABLE t ADD PARTITION IF NOT EXISTS p VALUES LESS THAN ("5") DISTRIBUTED BY HASH(k) BUCKETS 3`, []AlterOp{{Kind: AlterAddPartition, Name: "p", IfExists: true,
			Partition: &PartitionDef{Name: "p", LessThan: []string{"5"}}, Dist: &DistDef{Columns: []string{"k"}, Buckets: 3}}}},
		{`ALTER TABLE t ADD PARTITION p VALUES [("1"), ("5"))`, []AlterOp{{Kind: AlterAddPartition, Name: "p", Partition: &PartitionDef{Name: "p", Lower: []string{"1"}, Upper: []string{"5"}}}}},
		{`ALTER TABLE t ADD PARTITION p VALUES IN ("a", "b")`, []AlterOp{{Kind: AlterAddPartition, Name: "p", Partition: &PartitionDef{Name: "p", In: []string{"a", "b"}}}}},
		{"ALTER TABLE t DROP PARTITION IF EXISTS p FORCE", []AlterOp{{Kind: AlterDropPartition, Name: "p", IfExists: true}}},
		{`ALTER TABLE t MODIFY PARTITION p SET ("replication_num" = "1")`, []AlterOp{{Kind: AlterModifyPartition, Name: "p", Properties: map[string]string{"replication_num": "1"}}}},
		{"ALTER TABLE t ORDER BY (a, b)", []AlterOp{{Kind: AlterOrderBy, Order: []string{"a", "b"}}}},
	} {
		st, err := ParseOne(tc.sql)
		if err != nil {
			t.Fatalf("%s: %v", tc.sql, err)
		}
		at, ok := st.(*AlterTable)
		if !ok {
			t.Fatalf("%s: %T, want *AlterTable", tc.sql, st)
		}
		if !reflect.DeepEqual(at.Ops, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.sql, at.Ops, tc.want)
		}
	}
	if _, err := ParseOne("ALTER TABLE t ADD COLUMN"); err == nil {
		t.Error("ADD COLUMN without a column parsed")
	}
}
