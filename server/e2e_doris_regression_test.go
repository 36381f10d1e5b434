package server_test

// Join-distribution cases ported from Apache Doris's regression suite
// (Apache License 2.0). Each ported suite keeps Doris's DDL, data and
// queries; expected rows are Doris's own .out files, copied into
// testdata/doris_regression with their source path and commit. Where a
// suite asserts on EXPLAIN (contains "BUCKET_SHUFFLE" / "COLOCATE" /
// "Tables are not in the same group"), the test asserts that dorisgo plans
// the same join distribution, in dorisgo's wording (DORIS-PLANNING.md §1).
//
// Adapted, and why:
//   - Doris's V prefixes (VHASH JOIN) and "INNER JOIN(BUCKET_SHUFFLE)"
//     spacing are matched in dorisgo's legacy-style text ("HASH JOIN",
//     "INNER JOIN (BUCKET_SHUFFLE)"); "Tables are not in the same group" is
//     dorisgo's R7 "table not in the same group".
//   - Rows of qt_ cases whose query has no ORDER BY are compared as sets
//     (sorted): Doris's .out records one instance order, which a distributed
//     plan need not reproduce. order_qt_ cases are sorted as Doris sorts them.
//   - Datetimes print as Doris's .out does (Java LocalDateTime: 2023-04-25T00:00).
//   - Not ported: test_colocate_join's rollup cases and global3 (ALTER TABLE
//     ... ADD PARTITION: dorisgo has no rollups nor ADD PARTITION);
//     test_colocate_join_of_column_order's [shuffle]-hinted case (Nereids
//     still colocates under [shuffle]; dorisgo follows the legacy planner,
//     where an honoured [shuffle] is PARTITIONED, DORIS-PLANNING.md §2.4);
//     Doris-only table properties (in_memory, storage_format,
//     disable_auto_compaction) are dropped from the DDL.

import (
	"bufio"
	"database/sql"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// dorisOut is one Doris .out file: the expected rows of each named case, in
// file order (a name may repeat).
type dorisOut struct {
	names []string
	rows  [][]string // rows[i] are case i's lines, tab-separated columns
}

func readDorisOut(t *testing.T, name string) *dorisOut {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "doris_regression", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := &dorisOut{}
	// A case whose first line is empty and is followed by another empty
	// line has one row, the empty string (a case with no rows has one).
	in, maybeEmpty := false, false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		l := sc.Text()
		switch {
		case strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, "-- !") && strings.HasSuffix(l, " --"):
			out.names = append(out.names, strings.TrimSuffix(strings.TrimPrefix(l, "-- !"), " --"))
			out.rows = append(out.rows, nil)
			in, maybeEmpty = true, false
		case l == "" && in:
			in = false
			maybeEmpty = len(out.rows[len(out.rows)-1]) == 0
		case l == "" && maybeEmpty:
			out.rows[len(out.rows)-1] = append(out.rows[len(out.rows)-1], "")
			maybeEmpty = false
		case in:
			out.rows[len(out.rows)-1] = append(out.rows[len(out.rows)-1], l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// expected returns the k-th (0-based) case called name.
func (o *dorisOut) expected(t *testing.T, name string, k int) []string {
	t.Helper()
	for i, n := range o.names {
		if n == name {
			if k == 0 {
				return o.rows[i]
			}
			k--
		}
	}
	t.Fatalf("no case %q in the .out file", name)
	return nil
}

var dorisDateTime = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2})(:\d{2})?(\.\d+)?$`)

// dorisLines runs q and renders its rows as Doris's .out does: columns
// tab-separated, NULL as \N, datetimes as Java LocalDateTime prints them.
func dorisLines(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	rows := queryStrings(t, db, q)
	out := make([]string, len(rows))
	for i, r := range rows {
		cells := make([]string, len(r))
		for j, c := range r {
			switch m := dorisDateTime.FindStringSubmatch(c); {
			case c == "NULL":
				c = `\N`
			case m != nil:
				c = m[1] + "T" + m[2]
				if m[3] != ":00" || m[4] != "" {
					c += m[3] + m[4]
				}
			}
			cells[j] = c
		}
		out[i] = strings.Join(cells, "\t")
	}
	return out
}

// dorisCase is one qt_/order_qt_ query of a ported suite.
type dorisCase struct {
	name  string
	k     int // which repeat of name in the .out
	query string
}

func runDorisCases(t *testing.T, db *sql.DB, out *dorisOut, cases []dorisCase) {
	t.Helper()
	for _, c := range cases {
		got := dorisLines(t, db, c.query)
		want := append([]string(nil), out.expected(t, c.name, c.k)...)
		if !strings.Contains(strings.ToUpper(c.query), "ORDER BY") {
			sort.Strings(got)
			sort.Strings(want)
		}
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: %s\n--- got:\n%s\n--- want (Doris .out):\n%s", c.name, c.query, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// explainText is EXPLAIN's output as one string (lines joined by \n).
func explainText(t *testing.T, db *sql.DB, q string) string {
	t.Helper()
	var lines []string
	for _, r := range queryStrings(t, db, "EXPLAIN "+q) {
		lines = append(lines, r[0])
	}
	return strings.Join(lines, "\n")
}

func wantExplain(t *testing.T, db *sql.DB, q string, contains []string, notContains []string) {
	t.Helper()
	plan := explainText(t, db, q)
	for _, s := range contains {
		if !strings.Contains(plan, s) {
			t.Errorf("EXPLAIN %s:\nwant it to contain %q; plan:\n%s", q, s, plan)
		}
	}
	for _, s := range notContains {
		if strings.Contains(plan, s) {
			t.Errorf("EXPLAIN %s:\nwant it not to contain %q; plan:\n%s", q, s, plan)
		}
	}
}

func execAll(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		mustExec(t, db, s)
	}
}

// correctness_p0/table_valued_function/test_numbers.groovy: numbers() alone,
// aggregated, joined with itself (hash and nested loop joins), filtered,
// in subqueries and under windows without PARTITION BY.
func TestE2EDorisRegressionNumbersJoin(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	runDorisCases(t, db, readDorisOut(t, "test_numbers.out"), []dorisCase{
		{name: "basic1", query: `select * from numbers("number" = "1")`},
		{name: "basic2", query: `select * from numbers("number" = "10")`},
		{name: "basic3", query: `select * from numbers("number" = "100")`},
		{name: "agg_sum", query: `select sum(number) from numbers("number" = "100")`},
		{name: "agg_count", query: `select count(*) from numbers("number" = "100")`},
		{name: "agg_min", query: `select min(number) from numbers("number" = "100")`},
		{name: "agg_max", query: `select max(number) from numbers("number" = "100")`},
		{name: "inner_join1", query: `select a.number as num1, b.number as num2 from numbers("number" = "10") a inner join numbers("number" = "10") b on a.number=b.number`},
		{name: "inner_join2", query: `select a.number as num1, b.number as num2 from numbers("number" = "6") a inner join numbers("number" = "6") b on a.number>b.number`},
		{name: "inner_join3", query: `select a.number as num1, b.number as num2 from numbers("number" = "10") a inner join numbers("number" = "10") b on a.number=b.number and b.number%2 = 0`},
		{name: "left_join", query: `select a.number as num1, b.number as num2 from numbers("number" = "10") a left join numbers("number" = "5") b on a.number=b.number order by num1`},
		{name: "right_join", query: `select a.number as num1, b.number as num2 from numbers("number" = "5") a right join numbers("number" = "10") b on a.number=b.number order by num2`},
		{name: "where_equal", query: `select * from numbers("number" = "10") where number%2 = 1`},
		{name: "groupby", query: `select number from numbers("number" = "10") where number>=4 group by number order by number`},
		{name: "join_where", query: `select a.number as num1, b.number as num2 from numbers("number" = "10") a inner join numbers("number" = "10") b on a.number=b.number where a.number>4`},
		{name: "subquery1", query: `select * from numbers("number" = "10") where number = (select number from numbers("number" = "10") where number=1)`},
		{name: "subquery2", query: `select * from numbers("number" = "10") where number in (select number from numbers("number" = "10") where number>5)`},
		{name: "window_1", query: `SELECT row_number() OVER (ORDER BY number) AS id,number from numbers("number" = "10")`},
		{name: "window_4", query: `SELECT number, sum(number) OVER (ORDER BY number rows between 1 preceding and 1 following) AS result from numbers("number" = "10")`},
	})
}

// correctness_p0/test_colocate_join.groovy: five tables of one group join
// COLOCATE; a colocate LEFT JOIN inside a subquery; tables of a global
// group in two databases join COLOCATE and return Doris's rows; leaving the
// group or moving to a database group makes them "not in the same group".
func TestE2EDorisRegressionColocateJoin(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	execAll(t, db, "create database if not exists test_colocate_join_db1", "create database if not exists test_colocate_join_db2")
	db1 := openDB(t, s.MySQLAddr(), "test_colocate_join_db1", true)
	for _, n := range []string{"test_colo1", "test_colo2", "test_colo3", "test_colo4", "test_colo5"} {
		mustExec(t, db1, "CREATE TABLE `"+n+"` (\n`id` varchar(64) NULL,\n`name` varchar(64) NULL,\n`age` int NULL\n) ENGINE=OLAP\n"+
			"DUPLICATE KEY(`id`,`name`)\nCOMMENT 'OLAP'\nDISTRIBUTED BY HASH(`id`,`name`) BUCKETS 4\n"+
			`PROPERTIES ("replication_allocation" = "tag.location.default: 1", "colocate_with" = "group")`)
		mustExec(t, db1, "insert into "+n+" values('1','a',12)")
	}
	execAll(t, db1,
		`create table test_global_tbl1 (id int, name varchar(100), dt date) distributed by hash(id, name) buckets 4 properties("colocate_with" = "__global__group1", "replication_num" = "1")`,
		`create table test_global_tbl2 (id int, name varchar(20), dt date, age bigint) distributed by hash(id, name) buckets 4 properties("colocate_with" = "__global__group1", "replication_num" = "1")`,
		`create table test_colocate_join_db2.test_global_tbl3 (id int, name varchar(50), dt date, age bigint)
			partition by range(dt) (partition p1 values less than("2022-02-01"), partition p2 values less than("2022-03-01"), partition p3 values less than("2022-04-01"))
			distributed by hash(id, name) buckets 4 properties("colocate_with" = "__global__group1", "replication_num" = "1")`,
	)

	wantExplain(t, db1, "select * from test_colo1 a inner join test_colo2 b on a.id = b.id and a.name = b.name inner join test_colo3 c on a.id=c.id and a.name= c.name inner join test_colo4 d on a.id=d.id and a.name= d.name inner join test_colo5 e on a.id=e.id and a.name= e.name",
		[]string{"8:HASH JOIN\n  |  join op: INNER JOIN (COLOCATE)", "6:HASH JOIN\n  |  join op: INNER JOIN (COLOCATE)",
			"4:HASH JOIN\n  |  join op: INNER JOIN (COLOCATE)", "2:HASH JOIN\n  |  join op: INNER JOIN (COLOCATE)"}, nil)
	wantExplain(t, db1, "select a.id,a.name,t1.id,t1.name,cid,cname from test_colo1 a join (select b.id,b.name,c.id as cid,c.name as cname from test_colo2 b left join test_colo3 c on b.id = c.id and b.name = c.name) t1 on a.id=t1.id and a.name= t1.name",
		[]string{"4:HASH JOIN\n  |  join op: INNER JOIN (COLOCATE)", "3:HASH JOIN\n  |    |  join op: LEFT OUTER JOIN (COLOCATE)"}, nil)

	execAll(t, db1,
		`insert into test_colocate_join_db1.test_global_tbl1 values (1,"jack", "2022-01-01"), (2,"jack1", "2022-01-02"), (3,"jack2", "2022-01-03"), (4,"jack3", "2022-02-01"), (5,"jack4", "2022-02-01"), (6, null, "2022-03-01")`,
		`insert into test_colocate_join_db1.test_global_tbl2 values (1,"jack", "2022-01-01", 10), (2,"jack1", "2022-01-02", 11), (3,"jack2", "2022-01-03", 12), (4,"jack3", "2022-02-01", 13), (5,"jack4", "2022-02-01", 14), (6,null, "2022-03-01", 15)`,
		`insert into test_colocate_join_db2.test_global_tbl3 values (1,"jack", "2022-01-01", 10), (2,"jack1", "2022-01-02", 11), (3,"jack2", "2022-01-03", 12), (4,"jack3", "2022-02-01", 13), (5,"jack4", "2022-02-01", 14), (6,null, "2022-03-01", 15)`,
	)
	runDorisCases(t, db1, readDorisOut(t, "test_colocate_join.out"), []dorisCase{
		{name: "global1", query: "select * from test_colocate_join_db1.test_global_tbl1 a join test_colocate_join_db1.test_global_tbl2 b on a.id = b.id and a.name = b.name"},
		{name: "global2", query: "select * from test_colocate_join_db1.test_global_tbl1 a join test_colocate_join_db2.test_global_tbl3 b on a.id = b.id and a.name = b.name"},
	})
	q12 := "select * from test_colocate_join_db1.test_global_tbl1 a join test_colocate_join_db1.test_global_tbl2 b on a.id = b.id and a.name = b.name"
	q13 := "select * from test_colocate_join_db1.test_global_tbl1 a join test_colocate_join_db2.test_global_tbl3 b on a.id = b.id and a.name = b.name"
	wantExplain(t, db1, q12, []string{"COLOCATE"}, nil)
	wantExplain(t, db1, q13, []string{"COLOCATE"}, nil)
	mustExec(t, db1, `alter table test_colocate_join_db2.test_global_tbl3 set ("colocate_with" = "")`)
	wantExplain(t, db1, q13, []string{"table not in the same group"}, nil)
	mustExec(t, db1, `alter table test_colocate_join_db1.test_global_tbl2 set ("colocate_with" = "db_level_group")`)
	wantExplain(t, db1, q12, []string{"table not in the same group"}, nil)
}

// correctness_p0/test_bucket_shuffle_join.groovy: three tables bucketed on
// (id, name) with 4, 5 and 6 buckets: both joins bucket-shuffle into the
// 4-bucket anchor.
func TestE2EDorisRegressionBucketShuffleJoin(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "create database d")
	db = openDB(t, s.MySQLAddr(), "d", true)
	for i, b := range []string{"4", "5", "6"} {
		n := []string{"test_colo1", "test_colo2", "test_colo3"}[i]
		mustExec(t, db, "CREATE TABLE `"+n+"` (`id` varchar(64) NULL, `name` varchar(64) NULL, `age` int NULL) ENGINE=OLAP DUPLICATE KEY(`id`,`name`) COMMENT 'OLAP' "+
			"DISTRIBUTED BY HASH(`id`,`name`) BUCKETS "+b+` PROPERTIES ("replication_allocation" = "tag.location.default: 1")`)
		mustExec(t, db, "insert into "+n+" values('1','a',12)")
	}
	q := "select a.id,a.name,b.id,b.name,c.id,c.name from test_colo1 a inner join test_colo2 b on a.id = b.id and a.name = b.name inner join test_colo3 c on a.id=c.id and a.name= c.name"
	wantExplain(t, db, q, []string{"4:HASH JOIN\n  |  join op: INNER JOIN (BUCKET_SHUFFLE)", "2:HASH JOIN\n  |  join op: INNER JOIN (BUCKET_SHUFFLE)"}, nil)
	if got := dorisLines(t, db, q); strings.Join(got, "|") != "1\ta\t1\ta\t1\ta" {
		t.Errorf("%s: %q", q, got)
	}
}

// correctness_p0/test_colocate_join_of_column_order.groovy: t1 is bucketed
// on (k1, k2), t2 on (k2, k1) in one group: only conjuncts pairing t1.k1
// with t2.k2 and t1.k2 with t2.k1 colocate.
func TestE2EDorisRegressionColocateJoinColumnOrder(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "create database d")
	db = openDB(t, s.MySQLAddr(), "d", true)
	execAll(t, db,
		"CREATE TABLE IF NOT EXISTS `test_colocate_join_of_column_order_t1` (`k1` varchar(64) NULL, `k2` varchar(64) NULL, `v` int NULL) ENGINE=OLAP DUPLICATE KEY(`k1`,`k2`) COMMENT 'OLAP' "+
			`DISTRIBUTED BY HASH(k1,k2) BUCKETS 1 PROPERTIES ("replication_num" = "1", "colocate_with" = "group_column_order")`,
		"CREATE TABLE IF NOT EXISTS `test_colocate_join_of_column_order_t2` (`k1` varchar(64) NULL, `k2` varchar(64) NULL, `v` int NULL) ENGINE=OLAP DUPLICATE KEY(`k1`,`k2`) COMMENT 'OLAP' "+
			`DISTRIBUTED BY HASH(k2,k1) BUCKETS 1 PROPERTIES ("replication_num" = "1", "colocate_with" = "group_column_order")`,
		"insert into test_colocate_join_of_column_order_t1 values('k1','k2',11)",
		"insert into test_colocate_join_of_column_order_t2 values('k1','k2',11)",
	)
	from := "select * from test_colocate_join_of_column_order_t1 a join test_colocate_join_of_column_order_t2 b on "
	for _, on := range []string{"a.k1=b.k1 and a.k2=b.k2", "a.k1=b.k2", "a.k1=b.k1", "a.k1=b.k2 and a.v=b.v"} {
		wantExplain(t, db, from+on, nil, []string{"COLOCATE"})
	}
	for _, on := range []string{"a.k1=b.k2 and a.k2=b.k1", "a.k1=b.k2 and a.k2=b.k1 and a.v=b.v"} {
		wantExplain(t, db, from+on, []string{"COLOCATE"}, nil)
		if got := dorisLines(t, db, from+on); len(got) != 0 {
			t.Errorf("%s: %q, want no row (k1 = 'k1' never equals k2 = 'k2')", from+on, got)
		}
	}
}

// query_p0/join/test_join_bucket_shffule_hash_partitioned.groovy: a LEFT
// JOIN on all three distribution columns of t2 (bucketed differently from
// t1) under one and four instances per fragment.
func TestE2EDorisRegressionJoinBucketShuffleHashPartitioned(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "create database d")
	db = openDB(t, s.MySQLAddr(), "d", true)
	execAll(t, db,
		`create table t1 (k1 int not null, kdate datetime not null, k2 int not null, v1 int not null) DISTRIBUTED BY HASH (k1, kdate) buckets 4 PROPERTIES ("replication_num" = "1")`,
		`insert into t1 values (1,"2023-04-25 00:00:00", 1, 1), (2,"2023-04-26 00:00:00", 2, 2), (3,"2023-04-27 00:00:00", 3, 3)`,
		`create table t2 (k1 int not null, k2 int not null, kdate datetime not null, v1 int not null) DISTRIBUTED BY HASH (k1, k2, kdate) buckets 4 PROPERTIES ("replication_num" = "1")`,
		`insert into t2 values (1,1,"2023-04-25 00:00:00", 1), (2,2,"2023-04-26 00:00:00", 2)`,
	)
	body := ` t1.k1, t1.k2, t1.kdate, t2.k1, t2.k2, t2.kdate from t1 left join t2 on t1.k1 = t2.k1 and t1.k2 = t2.k2 and t1.kdate = t2.kdate order by t1.k1, t1.k2, t1.kdate, t2.k1, t2.k2, t2.kdate`
	runDorisCases(t, db, readDorisOut(t, "test_join_bucket_shffule_hash_partitioned.out"), []dorisCase{
		{name: "sql_join1", k: 0, query: `select /*+SET_VAR(parallel_pipeline_task_num=1)*/` + body},
		{name: "sql_join1", k: 1, query: `select /*+SET_VAR(parallel_pipeline_task_num=4)*/` + body},
	})
}

// correctness_p0/test_colocate_join_with_different_tablets.groovy: a
// colocate group whose second member is LIST-partitioned (53 partitions, 3
// loaded): the comma join on the bucket columns returns Doris's rows.
func TestE2EDorisRegressionColocateJoinDifferentTablets(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "create database d")
	db = openDB(t, s.MySQLAddr(), "d", true)
	var parts []string
	for _, v := range []string{"0", "1", "29", "35", "57", "352", "402", "523", "2347", "10376", "42408", "44410", "48414", "50416",
		"52418", "56422", "60426", "64430", "66432", "70436", "72438", "74440", "78444", "84450", "86452", "88454", "90456", "92458",
		"94460", "96462", "98464", "100466", "102468", "104470", "106472", "108474", "110476", "112478", "114480", "122488", "124490",
		"126492", "130496", "134500", "150516", "154520", "158524", "158525", "1848141", "1848161", "1848177", "1848197", "1848218"} {
		parts = append(parts, `PARTITION p`+v+` VALUES IN ("`+v+`")`)
	}
	execAll(t, db,
		"CREATE TABLE `USR_V_KHZHSJ_ES_POC1` (`khid` bigint NULL, `khh` bigint NULL) ENGINE=OLAP DUPLICATE KEY(`khid`, `khh`) DISTRIBUTED BY HASH(`khid`) BUCKETS 16 "+
			`PROPERTIES ("colocate_with" = "test_colocate_join_with_different_tabletsgroup1", "replication_allocation" = "tag.location.default: 1")`,
		"CREATE TABLE `USR_TLBL_VAL_R1` (`lbl_id` bigint NOT NULL COMMENT \"标签ID\", `khh` bigint NULL COMMENT \"客户号\") ENGINE=OLAP DUPLICATE KEY(`lbl_id`, `khh`) COMMENT '标签结果日表' "+
			"PARTITION BY LIST (`lbl_id`) ("+strings.Join(parts, ", ")+") DISTRIBUTED BY HASH(`khh`) BUCKETS 16 "+
			`PROPERTIES ("colocate_with" = "test_colocate_join_with_different_tabletsgroup1", "replication_allocation" = "tag.location.default: 1")`,
		"insert into USR_V_KHZHSJ_ES_POC1 values(10000007, 10000007)",
		"insert into USR_V_KHZHSJ_ES_POC1 values(10000007, 10000007)",
		"insert into USR_V_KHZHSJ_ES_POC1 values(10000007, 10000007)",
		"insert into USR_TLBL_VAL_R1 values(48414, 10000007)",
		"insert into USR_TLBL_VAL_R1 values(94460, 10000007)",
		"insert into USR_TLBL_VAL_R1 values(60426, 10000007)",
	)
	runDorisCases(t, db, readDorisOut(t, "test_colocate_join_with_different_tablets.out"), []dorisCase{
		{name: "sql", query: "select * from USR_V_KHZHSJ_ES_POC1 A,USR_TLBL_VAL_R1 B WHERE A.khid = B.khh order by lbl_id"},
	})
}

// Set operations run on every instance (DORIS-PLANNING.md §3): UNION ALL
// in a RANDOM fragment, INTERSECT / EXCEPT / UNION hashed on all columns or
// colocated; rows must equal the set algebra computed here. The numbers
// table function joins an OLAP table (R6: not colocate) with the right rows.
func TestE2ESetOpAndNumbersJoinDistributed(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "create database so")
	db = openDB(t, s.MySQLAddr(), "so", true)
	execAll(t, db,
		`CREATE TABLE a (k BIGINT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 5 PROPERTIES ("replication_num" = "1", "colocate_with" = "g")`,
		`CREATE TABLE b (k BIGINT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 5 PROPERTIES ("replication_num" = "1", "colocate_with" = "g")`,
		`CREATE TABLE c (k BIGINT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(v) BUCKETS 3 PROPERTIES ("replication_num" = "1")`,
	)
	type row struct{ k, v string }
	gen := func(n, mod, off int) []row {
		var out []row
		for i := 0; i < n; i++ {
			out = append(out, row{itoa((i*7 + off) % mod), itoa(i % 4)})
		}
		return append(out, row{"NULL", "1"}, row{"NULL", "1"})
	}
	data := map[string][]row{"a": gen(120, 50, 0), "b": gen(90, 40, 3), "c": gen(60, 30, 1)}
	for tbl, rows := range data {
		var vals []string
		for _, r := range rows {
			vals = append(vals, "("+r.k+", "+r.v+")")
		}
		mustExec(t, db, "INSERT INTO "+tbl+" VALUES "+strings.Join(vals, ","))
	}
	key := func(r row) string { return r.k + "\t" + r.v }
	set := func(rows []row) map[string]bool {
		m := map[string]bool{}
		for _, r := range rows {
			m[key(r)] = true
		}
		return m
	}
	sorted := func(m map[string]bool) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	for _, p := range [][2]string{{"a", "b"}, {"a", "c"}, {"c", "b"}} {
		l, r := set(data[p[0]]), set(data[p[1]])
		inter, except, union := map[string]bool{}, map[string]bool{}, map[string]bool{}
		for k := range l {
			union[k] = true
			if r[k] {
				inter[k] = true
			} else {
				except[k] = true
			}
		}
		for k := range r {
			union[k] = true
		}
		var all []string
		for _, tbl := range p {
			for _, r := range data[tbl] {
				all = append(all, key(r))
			}
		}
		sort.Strings(all)
		for _, c := range []struct {
			op   string
			want []string
		}{{"INTERSECT", sorted(inter)}, {"EXCEPT", sorted(except)}, {"UNION", sorted(union)}, {"UNION ALL", all}} {
			q := "SELECT k, v FROM " + p[0] + " " + c.op + " SELECT k, v FROM " + p[1]
			for _, hint := range []string{"", "/*+ SET_VAR(disable_colocate_plan = true) */ ", "/*+ SET_VAR(parallel_pipeline_task_num = 3) */ "} {
				got := dorisLines(t, db, strings.Replace(q, "SELECT ", "SELECT "+hint, 1))
				for i := range got {
					got[i] = strings.ReplaceAll(got[i], `\N`, "NULL")
				}
				sort.Strings(got)
				if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
					t.Errorf("%s%s: %d rows, want %d", hint, q, len(got), len(c.want))
				}
			}
		}
	}
	wantExplain(t, db, "SELECT k, v FROM a INTERSECT SELECT k, v FROM b", []string{"2:INTERSECT\n  |\n  |----1:OlapScanNode"}, nil)
	wantExplain(t, db, "SELECT k, v FROM a EXCEPT SELECT k, v FROM c", []string{"HASH_PARTITIONED: `c`.`k`, `c`.`v`"}, nil)
	wantExplain(t, db, "SELECT k, v FROM a UNION ALL SELECT k, v FROM c", []string{"PARTITION: RANDOM", "    RANDOM"}, nil)

	// numbers joined with an OLAP table, either side.
	q := `SELECT a.k, a.v, n.number FROM a JOIN numbers("number" = "20") n ON a.k = n.number`
	wantExplain(t, db, q, []string{"colocate: false, reason: only olap table support colocate plan", "(BUCKET_SHUFFLE)", "DataGenScanNode"}, nil)
	var want []string
	for _, r := range data["a"] {
		if r.k != "NULL" && atoiE2E(r.k) < 20 {
			want = append(want, r.k+"\t"+r.v+"\t"+r.k)
		}
	}
	sort.Strings(want)
	for _, q := range []string{q,
		`SELECT a.k, a.v, n.number FROM numbers("number" = "20") n JOIN a ON n.number = a.k`,
		`SELECT a.k, a.v, n.number FROM a JOIN [shuffle] numbers("number" = "20") n ON a.k = n.number`,
		`SELECT a.k, a.v, n.number FROM a JOIN [broadcast] numbers("number" = "20") n ON a.k = n.number`} {
		got := dorisLines(t, db, q)
		sort.Strings(got)
		if strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Errorf("%s: %d rows, want %d\n%v", q, len(got), len(want), got)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func atoiE2E(s string) int { n, _ := strconv.Atoi(s); return n }
