package server_test

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestE2EMetadata checks what clients and GUI tools read about a table:
// DESC, SHOW CREATE TABLE (re-executable), information_schema, SHOW FULL
// TABLES, @@version_comment and DATABASE().
func TestE2EMetadata(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	if got := queryStrings(t, root, "SELECT DATABASE()"); !reflect.DeepEqual(got, [][]string{{"NULL"}}) {
		t.Errorf("SELECT DATABASE() with no database = %q, want NULL", got)
	}
	if got := queryStrings(t, root, "SELECT @@version_comment"); len(got) != 1 || !strings.Contains(got[0][0], "dorisgo") {
		t.Errorf("@@version_comment = %q", got)
	}
	mustExec(t, root, "CREATE DATABASE mdb")
	tables := map[string]string{
		"fact": `CREATE TABLE mdb.fact (k1 INT NOT NULL COMMENT "the key", k2 VARCHAR(32) NOT NULL DEFAULT "x",
		  v DECIMAL(12,2), dt DATE NOT NULL, ts DATETIME, s STRING, f DOUBLE)
		  DUPLICATE KEY(k1, k2)
		  PARTITION BY RANGE(dt) (PARTITION p1 VALUES LESS THAN ("2024-01-01"), PARTITION p2 VALUES LESS THAN ("2025-01-01"))
		  DISTRIBUTED BY HASH(k1) BUCKETS 4 PROPERTIES ("replication_num" = "2", "colocate_with" = "mg")`,
		"agg": `CREATE TABLE mdb.agg (k BIGINT NOT NULL, b BOOLEAN, total BIGINT SUM, hi INT MAX, lo INT MIN, last_v VARCHAR(8) REPLACE)
		  AGGREGATE KEY(k, b) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`,
		"uniq": `CREATE TABLE mdb.uniq (id LARGEINT NOT NULL, c CHAR(3), tiny TINYINT, small SMALLINT, fl FLOAT)
		  UNIQUE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ("replication_num" = "1")`,
		"rnd": `CREATE TABLE mdb.rnd (a INT, b VARCHAR(5)) DUPLICATE KEY(a) DISTRIBUTED BY RANDOM BUCKETS 3 PROPERTIES ("replication_num" = "1")`,
		"lst": `CREATE TABLE mdb.lst (city VARCHAR(10) NOT NULL, n INT) DUPLICATE KEY(city)
		  PARTITION BY LIST(city) (PARTITION pa VALUES IN ("a", "b"), PARTITION pc VALUES IN ("c"))
		  DISTRIBUTED BY HASH(city) BUCKETS 2 PROPERTIES ("replication_num" = "1")`,
		"plain": "CREATE TABLE mdb.plain (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL, created DATETIME)",
	}
	names := make([]string, 0, len(tables))
	for n, ddl := range tables {
		mustExec(t, root, ddl)
		names = append(names, n)
	}
	sort.Strings(names)

	db := openDB(t, s.MySQLAddr(), "mdb", false)
	if got := queryStrings(t, db, "SELECT DATABASE()"); !reflect.DeepEqual(got, [][]string{{"mdb"}}) {
		t.Errorf("SELECT DATABASE() = %q, want mdb", got)
	}

	// DESC.
	desc := queryStrings(t, db, "DESC fact")
	wantDesc := [][]string{
		{"k1", "INT", "NO", "true", "NULL", ""},
		{"k2", "VARCHAR(32)", "NO", "true", "x", ""},
		{"v", "DECIMAL(12,2)", "YES", "false", "NULL", ""},
		{"dt", "DATE", "NO", "false", "NULL", ""},
		{"ts", "DATETIME", "YES", "false", "NULL", ""},
		{"s", "STRING", "YES", "false", "NULL", ""},
		{"f", "DOUBLE", "YES", "false", "NULL", ""},
	}
	if !reflect.DeepEqual(desc, wantDesc) {
		t.Errorf("DESC fact =\n%q\nwant\n%q", desc, wantDesc)
	}
	descAgg := queryStrings(t, db, "DESC agg")
	if len(descAgg) != 6 || descAgg[2][5] != "SUM" || descAgg[3][5] != "MAX" || descAgg[4][5] != "MIN" || descAgg[5][5] != "REPLACE" {
		t.Errorf("DESC agg aggregation column: %q", descAgg)
	}

	// SHOW CREATE TABLE: the text, run under another name, makes the same table.
	for _, n := range names {
		sc := queryStrings(t, db, "SHOW CREATE TABLE "+n)
		if len(sc) != 1 || sc[0][0] != n {
			t.Fatalf("SHOW CREATE TABLE %s = %q", n, sc)
		}
		text := sc[0][1]
		copyName := n + "_copy"
		copyDDL := strings.Replace(text, "CREATE TABLE `"+n+"`", "CREATE TABLE `"+copyName+"`", 1)
		if copyDDL == text {
			t.Fatalf("SHOW CREATE TABLE %s does not start with CREATE TABLE `%s`: %s", n, n, text)
		}
		if _, err := db.Exec(copyDDL); err != nil {
			t.Errorf("re-running SHOW CREATE TABLE %s: %v\n%s", n, err, copyDDL)
			continue
		}
		if a, b := queryStrings(t, db, "DESC "+n), queryStrings(t, db, "DESC "+copyName); !reflect.DeepEqual(a, b) {
			t.Errorf("DESC %s differs from its copy:\n%q\n%q", n, a, b)
		}
		sc2 := queryStrings(t, db, "SHOW CREATE TABLE "+copyName)
		if got := strings.Replace(sc2[0][1], copyName, n, 1); got != text {
			t.Errorf("SHOW CREATE TABLE of the copy of %s differs:\n%s\n---\n%s", n, got, text)
		}
		pa, pb := queryStrings(t, db, "SHOW PARTITIONS FROM "+n), queryStrings(t, db, "SHOW PARTITIONS FROM "+copyName)
		if len(pa) != len(pb) {
			t.Errorf("%s has %d partitions, its copy %d", n, len(pa), len(pb))
		}
		for i := 0; i < len(pa) && i < len(pb); i++ {
			// Same key, range, distribution, buckets and replication; an
			// unpartitioned table's one partition is named after the table.
			a, b := append([]string{}, pa[i][5:10]...), append([]string{}, pb[i][5:10]...)
			if pa[i][5] != "" {
				a, b = append(a, pa[i][1]), append(b, pb[i][1])
			}
			if !reflect.DeepEqual(a, b) {
				t.Errorf("partition %d of %s and its copy differ:\n%q\n%q", i, n, pa[i], pb[i])
			}
		}
		if n == "fact" && !strings.Contains(text, "PARTITION BY RANGE") {
			t.Errorf("SHOW CREATE TABLE fact lost the partitioning: %s", text)
		}
	}
	if groups := queryStrings(t, db, "SHOW PROC '/colocation_group'"); len(groups) != 1 || !strings.Contains(groups[0][2], ",") {
		t.Errorf("fact and its copy should share colocate group mg: %q", groups)
	}

	// information_schema.
	cols := queryStrings(t, db, `SELECT column_name, ordinal_position, data_type, is_nullable, column_type, column_key
	  FROM information_schema.columns WHERE table_schema = ? AND table_name = ?`, "mdb", "fact")
	sort.Slice(cols, func(i, j int) bool {
		a, _ := strconv.Atoi(cols[i][1])
		b, _ := strconv.Atoi(cols[j][1])
		return a < b
	})
	wantCols := [][]string{
		{"k1", "1", "int", "NO", "int", "DUP"},
		{"k2", "2", "varchar", "NO", "varchar(32)", "DUP"},
		{"v", "3", "decimal", "YES", "decimal(12,2)", ""},
		{"dt", "4", "date", "NO", "date", ""},
		{"ts", "5", "datetime", "YES", "datetime", ""},
		{"s", "6", "text", "YES", "string", ""}, // as Doris: STRING is text to MySQL tools
		{"f", "7", "double", "YES", "double", ""},
	}
	if !reflect.DeepEqual(cols, wantCols) {
		t.Errorf("information_schema.columns for fact =\n%q\nwant\n%q", cols, wantCols)
	}
	var schemata []string
	for _, r := range queryStrings(t, db, "SELECT schema_name FROM information_schema.schemata") {
		schemata = append(schemata, r[0])
	}
	sort.Strings(schemata)
	if !reflect.DeepEqual(schemata, []string{"information_schema", "mdb"}) {
		t.Errorf("information_schema.schemata = %q", schemata)
	}
	var itables []string
	for _, r := range queryStrings(t, db, "SELECT table_name, table_type FROM information_schema.tables WHERE table_schema = 'mdb'") {
		if r[1] != "BASE TABLE" {
			t.Errorf("information_schema.tables type of %s = %q", r[0], r[1])
		}
		itables = append(itables, r[0])
	}
	sort.Strings(itables)

	// SHOW TABLES / SHOW FULL TABLES.
	var wantTables [][]string
	var wantNames []string
	for _, n := range names {
		wantNames = append(wantNames, n, n+"_copy")
	}
	sort.Strings(wantNames)
	for _, n := range wantNames {
		wantTables = append(wantTables, []string{n, "BASE TABLE"})
	}
	if !reflect.DeepEqual(itables, wantNames) {
		t.Errorf("information_schema.tables = %q, want %q", itables, wantNames)
	}
	if got := sortedRows(queryStrings(t, db, "SHOW FULL TABLES")); !reflect.DeepEqual(got, wantTables) {
		t.Errorf("SHOW FULL TABLES = %q, want %q", got, wantTables)
	}
	rs, err := db.Query("SHOW FULL TABLES FROM mdb")
	if err != nil {
		t.Fatal(err)
	}
	hdr, _ := rs.Columns()
	rs.Close()
	if !reflect.DeepEqual(hdr, []string{"Tables_in_mdb", "Table_type"}) {
		t.Errorf("SHOW FULL TABLES columns = %q", hdr)
	}
	if got := queryStrings(t, db, "SHOW VARIABLES LIKE 'query_timeout'"); !reflect.DeepEqual(got, [][]string{{"query_timeout", "900"}}) {
		t.Errorf("SHOW VARIABLES LIKE 'query_timeout' = %q", got)
	}
}
