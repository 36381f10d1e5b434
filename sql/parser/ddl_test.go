package parser

import (
	"reflect"
	"testing"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

func sp(s string) *string { return &s }

func TestCreateTable(t *testing.T) {
	for _, tc := range []struct {
		sql  string
		want *CreateTable
	}{
		{`CREATE TABLE t (k1 INT NOT NULL, k2 VARCHAR(32), v DECIMAL(12,2), dt DATE)
		  DUPLICATE KEY(k1)
		  PARTITION BY RANGE(dt) (PARTITION p1 VALUES LESS THAN ("2024-01-01"), PARTITION p2 VALUES LESS THAN MAXVALUE)
		  DISTRIBUTED BY HASH(k1) BUCKETS 8
		  PROPERTIES ("replication_num" = "1", "colocate_with" = "group1")`,
			&CreateTable{Name: "t",
				Columns: []ColumnDef{
					{Name: "k1", Type: types.IntT}, {Name: "k2", Type: types.VarcharT(32), Nullable: true},
					{Name: "v", Type: types.DecimalT(12, 2), Nullable: true}, {Name: "dt", Type: types.DateT, Nullable: true}},
				Keys: KeysDuplicate, KeyColumns: []string{"k1"},
				PartKind: PartRange, PartColumn: "dt", PartColumns: []string{"dt"},
				Partitions: []PartitionDef{{Name: "p1", LessThan: []string{"2024-01-01"}}, {Name: "p2", MaxValue: true}},
				Dist:       &DistDef{Columns: []string{"k1"}, Buckets: 8},
				Properties: map[string]string{"replication_num": "1", "colocate_with": "group1"}}},
		// DORIS-PLANNING.md §3 example tables.
		{`CREATE TABLE li (ok BIGINT, q INT) DISTRIBUTED BY HASH(ok) BUCKETS 8 PROPERTIES ("colocate_with" = "g", "replication_num" = "1")`,
			&CreateTable{Name: "li", Columns: []ColumnDef{{Name: "ok", Type: types.BigIntT, Nullable: true}, {Name: "q", Type: types.IntT, Nullable: true}},
				Dist: &DistDef{Columns: []string{"ok"}, Buckets: 8}, Properties: map[string]string{"colocate_with": "g", "replication_num": "1"}}},
		{`CREATE TABLE IF NOT EXISTS db1.cu (ck INT, nm VARCHAR(32)) DUPLICATE KEY(ck) DISTRIBUTED BY HASH(ck) BUCKETS 2`,
			&CreateTable{IfNotExists: true, DB: "db1", Name: "cu",
				Columns: []ColumnDef{{Name: "ck", Type: types.IntT, Nullable: true}, {Name: "nm", Type: types.VarcharT(32), Nullable: true}},
				Keys:    KeysDuplicate, KeyColumns: []string{"ck"},
				Dist: &DistDef{Columns: []string{"ck"}, Buckets: 2}, Properties: map[string]string{}}},
		// AGGREGATE with agg columns, defaults, comments, RANDOM, AUTO.
		{`CREATE TABLE agg (
		    k1 TINYINT NOT NULL COMMENT 'key one', k2 LARGEINT,
		    v1 BIGINT SUM DEFAULT "0", v2 DOUBLE MAX NULL, v3 DATETIME(3) REPLACE DEFAULT CURRENT_TIMESTAMP,
		    v4 STRING REPLACE_IF_NOT_NULL DEFAULT NULL, v5 FLOAT MIN DEFAULT -1.5
		  ) ENGINE=OLAP AGGREGATE KEY(k1, k2) COMMENT 'agg table'
		  DISTRIBUTED BY HASH(k1, k2) BUCKETS AUTO`,
			&CreateTable{Name: "agg",
				Columns: []ColumnDef{
					{Name: "k1", Type: types.TinyIntT, Comment: "key one"},
					{Name: "k2", Type: types.LargeIntT, Nullable: true},
					{Name: "v1", Type: types.BigIntT, Nullable: true, Agg: "SUM", Default: sp("0")},
					{Name: "v2", Type: types.DoubleT, Nullable: true, Agg: "MAX"},
					{Name: "v3", Type: types.T{Kind: types.DateTime, Scale: 3}, Nullable: true, Agg: "REPLACE", Default: sp("CURRENT_TIMESTAMP")},
					{Name: "v4", Type: types.StringT, Nullable: true, Agg: "REPLACE_IF_NOT_NULL", DefaultNull: true},
					{Name: "v5", Type: types.FloatT, Nullable: true, Agg: "MIN", Default: sp("-1.5")}},
				Keys: KeysAggregate, KeyColumns: []string{"k1", "k2"}, Comment: "agg table", Engine: "OLAP",
				Dist: &DistDef{Columns: []string{"k1", "k2"}}, Properties: map[string]string{}}},
		{`create table r (a int, b char(4)) duplicate key(a) distributed by random buckets 3`,
			&CreateTable{Name: "r", Columns: []ColumnDef{{Name: "a", Type: types.IntT, Nullable: true}, {Name: "b", Type: types.CharT(4), Nullable: true}},
				Keys: KeysDuplicate, KeyColumns: []string{"a"}, Dist: &DistDef{Random: true, Buckets: 3}, Properties: map[string]string{}}},
		{`CREATE TABLE u (id BIGINT, v INT) UNIQUE KEY(id) DISTRIBUTED BY HASH(id)`,
			&CreateTable{Name: "u", Columns: []ColumnDef{{Name: "id", Type: types.BigIntT, Nullable: true}, {Name: "v", Type: types.IntT, Nullable: true}},
				Keys: KeysUnique, KeyColumns: []string{"id"}, Dist: &DistDef{Columns: []string{"id"}, Buckets: 10}, Properties: map[string]string{}}},
		// LIST and fixed-range partitions, multi-column, per-partition properties.
		{`CREATE TABLE l (city VARCHAR(20), n INT) PARTITION BY LIST(city) (
		    PARTITION p_cn VALUES IN ("Beijing", "Shanghai"), PARTITION p_us VALUES IN ('NYC'))
		  DISTRIBUTED BY HASH(n) BUCKETS 1`,
			&CreateTable{Name: "l", Columns: []ColumnDef{{Name: "city", Type: types.VarcharT(20), Nullable: true}, {Name: "n", Type: types.IntT, Nullable: true}},
				PartKind: PartList, PartColumn: "city", PartColumns: []string{"city"},
				Partitions: []PartitionDef{{Name: "p_cn", In: []string{"Beijing", "Shanghai"}}, {Name: "p_us", In: []string{"NYC"}}},
				Dist:       &DistDef{Columns: []string{"n"}, Buckets: 1}, Properties: map[string]string{}}},
		{`CREATE TABLE f (d DATEV2, h INT) PARTITION BY RANGE(d, h) (
		    PARTITION p1 VALUES [("2024-01-01", 0), ("2024-02-01", 10)) ("replication_num" = "1"),
		    PARTITION p2 VALUES LESS THAN ("2025-01-01", MAXVALUE), PARTITION p3 VALUES LESS THAN (MAXVALUE))
		  DISTRIBUTED BY HASH(h) BUCKETS 4`,
			&CreateTable{Name: "f", Columns: []ColumnDef{{Name: "d", Type: types.DateT, Nullable: true}, {Name: "h", Type: types.IntT, Nullable: true}},
				PartKind: PartRange, PartColumn: "d", PartColumns: []string{"d", "h"},
				Partitions: []PartitionDef{
					{Name: "p1", Lower: []string{"2024-01-01", "0"}, Upper: []string{"2024-02-01", "10"}},
					{Name: "p2", MaxValue: true}, {Name: "p3", MaxValue: true}},
				Dist: &DistDef{Columns: []string{"h"}, Buckets: 4}, Properties: map[string]string{}}},
		{`CREATE TABLE e (d DATE) PARTITION BY RANGE(d) () DISTRIBUTED BY HASH(d) BUCKETS 1`,
			&CreateTable{Name: "e", Columns: []ColumnDef{{Name: "d", Type: types.DateT, Nullable: true}},
				PartKind: PartRange, PartColumn: "d", PartColumns: []string{"d"},
				Dist: &DistDef{Columns: []string{"d"}, Buckets: 1}, Properties: map[string]string{}}},
		// Plain MySQL (sysbench / mysqldump style).
		{"CREATE TABLE `sbtest1` (\n  `id` int NOT NULL AUTO_INCREMENT,\n  `k` int unsigned NOT NULL DEFAULT '0',\n" +
			"  `c` char(120) NOT NULL DEFAULT '',\n  `pad` char(60) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL DEFAULT '',\n" +
			"  `ts` timestamp NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP,\n" +
			"  PRIMARY KEY (`id`),\n  KEY `k_1` (`k`),\n  UNIQUE KEY `uk` (`c`(10), `pad` DESC) USING BTREE,\n" +
			"  CONSTRAINT `fk` FOREIGN KEY (`k`) REFERENCES `other` (`id`) ON DELETE CASCADE\n" +
			") ENGINE=InnoDB AUTO_INCREMENT=5 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci",
			&CreateTable{Name: "sbtest1",
				Columns: []ColumnDef{
					{Name: "id", Type: types.IntT, AutoIncrement: true},
					{Name: "k", Type: types.BigIntT, Default: sp("0")},
					{Name: "c", Type: types.CharT(120), Default: sp("")},
					{Name: "pad", Type: types.CharT(60), Default: sp("")},
					{Name: "ts", Type: types.DateTimeT, Nullable: true, Default: sp("CURRENT_TIMESTAMP")}},
				Engine: "InnoDB", PrimaryKey: []string{"id"}, Properties: map[string]string{}}},
		{`CREATE TABLE m (a BIGINT UNSIGNED PRIMARY KEY, b TINYINT(1), c INT(11) UNSIGNED ZEROFILL, d REAL, e MEDIUMINT,
		    f LONGTEXT, g NUMERIC, h DECIMAL(5), i BOOL, j TEXT, k DOUBLE PRECISION, l DATETIMEV2(6), m DECIMALV3(38, 10),
		    n SMALLINT UNSIGNED, o TINYINT UNSIGNED, p FLOAT(30), q BOOLEAN, r VARCHAR)`,
			&CreateTable{Name: "m",
				Columns: []ColumnDef{
					{Name: "a", Type: types.LargeIntT}, {Name: "b", Type: types.TinyIntT, Nullable: true},
					{Name: "c", Type: types.BigIntT, Nullable: true}, {Name: "d", Type: types.DoubleT, Nullable: true},
					{Name: "e", Type: types.IntT, Nullable: true}, {Name: "f", Type: types.StringT, Nullable: true},
					{Name: "g", Type: types.DecimalT(10, 0), Nullable: true}, {Name: "h", Type: types.DecimalT(5, 0), Nullable: true},
					{Name: "i", Type: types.BoolT, Nullable: true}, {Name: "j", Type: types.StringT, Nullable: true},
					{Name: "k", Type: types.DoubleT, Nullable: true}, {Name: "l", Type: types.T{Kind: types.DateTime, Scale: 6}, Nullable: true},
					{Name: "m", Type: types.DecimalT(38, 10), Nullable: true}, {Name: "n", Type: types.IntT, Nullable: true},
					{Name: "o", Type: types.SmallIntT, Nullable: true}, {Name: "p", Type: types.DoubleT, Nullable: true},
					{Name: "q", Type: types.BoolT, Nullable: true}, {Name: "r", Type: types.VarcharT(types.MaxVarcharLength), Nullable: true}},
				PrimaryKey: []string{"a"}, Properties: map[string]string{}}},
	} {
		got, ok := mustOne(t, tc.sql).(*CreateTable)
		if !ok {
			t.Fatalf("%q: not *CreateTable", tc.sql)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.sql, got, tc.want)
			for i := range min(len(got.Columns), len(tc.want.Columns)) {
				if !reflect.DeepEqual(got.Columns[i], tc.want.Columns[i]) {
					t.Errorf("column %d: got %+v want %+v", i, got.Columns[i], tc.want.Columns[i])
				}
			}
		}
	}
}

func TestCreateTableFallbackAndErrors(t *testing.T) {
	if d, ok := mustOne(t, "CREATE TABLE t2 LIKE t1").(*DDL); !ok || d.Op != DDLCreate || d.Table.Name != "t2" {
		t.Errorf("CREATE TABLE LIKE: want vitess's CREATE as *DDL")
	}
	if _, ok := mustOne(t, "CREATE TABLE t2 AS SELECT * FROM t1").(*CreateTableAs); !ok {
		t.Errorf("CREATE TABLE AS SELECT: want *CreateTableAs")
	}
	for _, sql := range []string{
		"CREATE TABLE t (a ARRAY<INT)", // ARRAY/MAP/STRUCT are types now (issue 15): their syntax still is checked
		"CREATE TABLE t (m MAP<INT>)",
		"CREATE TABLE t (s STRUCT<a INT>)",
		"CREATE TABLE t (a INT) DISTRIBUTED BY HASH(a) BUCKETS 0",
		"CREATE TABLE t (a DECIMAL(40, 2))",
		"CREATE TABLE t (a DECIMAL(4, 5))",
		"CREATE TABLE t (a VARCHAR(70000))",
		"CREATE TABLE t (a CHAR(300))",
		"CREATE TABLE t (a DATETIME(7))",
		"CREATE TABLE t (a INT BOGUS)",
		"CREATE TABLE t (a INT) PARTITION BY HASH(a) PARTITIONS 4",
		"CREATE TABLE t (a INT) PARTITION BY RANGE(a) (PARTITION p VALUES IN (1))",
		"CREATE TABLE t (a INT) DISTRIBUTED BY HASH(a) BUCKETS 1 PROPERTIES (\"x\")",
		"CREATE TABLE t (",
		"CREATE TABLE t (a INT) PROPERTIES ('a' = 'b",
	} {
		_, err := ParseOne(sql)
		if e := sqlerr.As(err); err == nil || e.Code != 1064 {
			t.Errorf("%q: want 1064, got %v", sql, err)
		}
	}
}
