package parser

import (
	"reflect"
	"testing"
)

func TestCreateTableAsSelect(t *testing.T) {
	for _, c := range []struct {
		sql   string
		db    string
		names []string
		keys  []string
		dist  *DistDef
		props map[string]string
		query string
	}{
		{sql: "CREATE TABLE t2 AS SELECT * FROM t1", props: map[string]string{}, query: "SELECT * FROM t1"},
		{sql: `CREATE TABLE db.t2 (a, b) ENGINE=olap DUPLICATE KEY(a) DISTRIBUTED BY HASH(b) BUCKETS 3 PROPERTIES ("replication_num"="1") AS SELECT x, y FROM t1`,
			db: "db", names: []string{"a", "b"}, keys: []string{"a"}, dist: &DistDef{Columns: []string{"b"}, Buckets: 3},
			props: map[string]string{"replication_num": "1"}, query: "SELECT x, y FROM t1"},
		{sql: "create table if not exists t3 as with w as (select 1 a) select a from w", props: map[string]string{},
			query: "with w as (select 1 a) select a from w"},
	} {
		st, err := ParseOne(c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		x, ok := st.(*CreateTableAs)
		if !ok {
			t.Fatalf("%s: %T", c.sql, st)
		}
		ct := x.Create
		if ct.DB != c.db || !reflect.DeepEqual(x.Names, c.names) || len(ct.Columns) != 0 || !reflect.DeepEqual(ct.Properties, c.props) ||
			x.Query.Text != c.query || !reflect.DeepEqual(ct.Dist, c.dist) || len(c.keys) > 0 && !reflect.DeepEqual(ct.KeyColumns, c.keys) {
			t.Errorf("%s: got %+v names %v dist %+v query %q", c.sql, *ct, x.Names, ct.Dist, x.Query.Text)
		}
	}
	for _, bad := range []string{"CREATE TABLE t (a INT,) AS SELECT 1", "CREATE TABLE t (a, 1) AS SELECT 1, 2", "CREATE TABLE t AS SELECT FROM"} {
		if _, err := ParseOne(bad); err == nil {
			t.Errorf("%s: parsed", bad)
		}
	}
}

func TestInsertOverwrite(t *testing.T) {
	for _, c := range []struct{ sql, label string }{
		{"INSERT OVERWRITE TABLE t SELECT * FROM s", ""},
		{"insert overwrite t partition (p1, p2) select * from s", ""},
		{"INSERT OVERWRITE TABLE t WITH LABEL l1 VALUES (1)", "l1"},
	} {
		st, err := ParseOne(c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		v, ok := st.(*Vitess)
		if !ok || !v.Overwrite || v.Text != c.sql || v.Label != c.label {
			t.Errorf("%s: %+v", c.sql, st)
		}
	}
	st, err := ParseOne("INSERT INTO t VALUES (1)")
	if err != nil || st.(*Vitess).Overwrite {
		t.Errorf("plain INSERT: %+v %v", st, err)
	}
}
