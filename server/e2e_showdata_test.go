package server_test

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestE2EShowDataAndTransaction: SHOW DATA, SHOW TABLETS, SHOW PARTITIONS
// and SHOW TABLE STATUS report what the backends store (growing with
// loads, every replica counted where Doris counts them), and SHOW
// TRANSACTION finds loads by id, label and status with their source type.
func TestE2EShowDataAndTransaction(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE sd")
	mustExec(t, db, "USE sd")
	db = openDB(t, s.MySQLAddr(), "sd", true)
	mustExec(t, db, `CREATE TABLE a (k INT, v VARCHAR(100)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4
		PROPERTIES ("replication_num" = "2")`)
	mustExec(t, db, `CREATE TABLE b (k INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2
		PROPERTIES ("replication_num" = "1")`)

	size := func(table string) (bytes float64, replicas int) {
		t.Helper()
		for _, r := range queryStrings(t, db, "SHOW DATA") {
			if r[0] == table {
				n, _ := strconv.Atoi(r[2])
				return parseShowBytes(t, r[1]), n
			}
		}
		t.Fatalf("SHOW DATA has no row %s", table)
		return 0, 0
	}
	if b, n := size("a"); b != 0 || n != 8 {
		t.Fatalf("empty a: %v bytes, %d replicas; want 0, 8", b, n)
	}
	mustExec(t, db, "INSERT INTO a SELECT number, repeat('x', 50) FROM numbers('number' = '1000')")
	b1, _ := size("a")
	if b1 < 2*1000*50 { // two replicas of 50 KB of strings at least
		t.Fatalf("a after 1000 rows: %v bytes", b1)
	}
	mustExec(t, db, "INSERT INTO a SELECT number, repeat('y', 50) FROM numbers('number' = '1000')")
	b2, _ := size("a")
	if b2 < 1.8*b1 {
		t.Fatalf("a after a second load: %v bytes, was %v", b2, b1)
	}
	all := queryStrings(t, db, "SHOW DATA")
	if r := all[len(all)-3]; r[0] != "Total" || r[2] != "10" {
		t.Fatalf("Total row: %v", r)
	}

	// SHOW DATA FROM t: one copy of the rows, all replicas' bytes.
	rows := queryStrings(t, db, "SHOW DATA FROM sd.a")
	if len(rows) != 2 || rows[0][4] != "2000" || rows[0][3] != "8" || rows[1][1] != "Total" {
		t.Fatalf("SHOW DATA FROM a: %v", rows)
	}

	// SHOW TABLETS: each replica's own size, rows and rowset count.
	var tabletRows, tabletBytes int64
	for _, r := range queryStrings(t, db, "SHOW TABLETS FROM a") {
		n, _ := strconv.ParseInt(r[10], 10, 64)
		sz, _ := strconv.ParseInt(r[8], 10, 64)
		if r[14] == "-1" || n < 0 || sz <= 0 {
			t.Fatalf("tablet row without stats: %v", r)
		}
		tabletRows += n
		tabletBytes += sz
	}
	if tabletRows != 4000 || float64(tabletBytes) < b2*0.999 || float64(tabletBytes) > b2*1.001 {
		t.Fatalf("tablets: %d rows, %d bytes; want 4000 (2 replicas) and %v", tabletRows, tabletBytes, b2)
	}
	// SHOW PARTITIONS and SHOW TABLE STATUS: one copy.
	p := queryStrings(t, db, "SHOW PARTITIONS FROM a")
	if got := parseShowBytes(t, p[0][14]); got < b2/2*0.99 || got > b2/2*1.01 {
		t.Fatalf("partition DataSize %v, want about %v", got, b2/2)
	}
	st := queryStrings(t, db, "SHOW TABLE STATUS LIKE 'a'")
	if dl, _ := strconv.ParseFloat(st[0][6], 64); dl < b2/2*0.99 || dl > b2/2*1.01 {
		t.Fatalf("Data_length %v, want about %v", st[0][6], b2/2)
	}

	// SHOW TRANSACTION.
	mustExec(t, db, "INSERT INTO b WITH LABEL lb1 VALUES (1), (2)")
	r := mustStreamLoad(t, s.HTTPAddr(), "sd", "b", map[string]string{"label": "sl1"}, []byte("3\n4\n"))
	byLabel := queryStrings(t, db, "SHOW TRANSACTION WHERE label = 'lb1'")
	if len(byLabel) != 1 || byLabel[0][1] != "lb1" || byLabel[0][3] != "VISIBLE" || byLabel[0][4] != "FRONTEND" ||
		byLabel[0][9] == "NULL" || byLabel[0][13] == "0" {
		t.Fatalf("SHOW TRANSACTION label: %v", byLabel)
	}
	byID := queryStrings(t, db, "SHOW TRANSACTION FROM sd WHERE id = "+strconv.FormatInt(r.TxnID, 10))
	if len(byID) != 1 || byID[0][1] != "sl1" || byID[0][4] != "BACKEND_STREAMING" {
		t.Fatalf("SHOW TRANSACTION id: %v", byID)
	}
	if n := len(queryStrings(t, db, "SHOW TRANSACTION WHERE status = 'visible'")); n < 4 {
		t.Fatalf("visible transactions: %d, want at least 4", n)
	}
	for stmt, msg := range map[string]string{
		"SHOW TRANSACTION":                     "Where clause should look like",
		"SHOW TRANSACTION WHERE k = 1":         "Where clause should look like",
		"SHOW TRANSACTION WHERE label = 'zz'":  "transaction with label zz does not exist",
		"SHOW TRANSACTION WHERE status = 'no'": "Invalid transaction status",
	} {
		_, err := db.Exec(stmt)
		wantCode(t, err, 1105, stmt)
		if !strings.Contains(err.Error(), msg) {
			t.Errorf("%s: %v, want %q", stmt, err, msg)
		}
	}
	mustExec(t, db, "CREATE USER 'plain'@'%'")
	mustExec(t, db, "GRANT SELECT_PRIV ON sd.* TO 'plain'@'%'")
	_, err := openDBAs(t, s.MySQLAddr(), "plain", "", "sd", true).Exec("SHOW TRANSACTION WHERE label = 'lb1'")
	wantCode(t, err, 1227, "SHOW TRANSACTION without ADMIN")
}

// parseShowBytes reads Doris's "1.500 KB".
func parseShowBytes(t *testing.T, s string) float64 {
	t.Helper()
	f := strings.Fields(s)
	if len(f) != 2 {
		t.Fatalf("size %q", s)
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		t.Fatalf("size %q", s)
	}
	for _, u := range []string{"B", "KB", "MB", "GB", "TB", "PB"} {
		if f[1] == u {
			return v
		}
		v *= 1024
	}
	t.Fatalf("size unit %q", s)
	return 0
}

// TestE2EShowLoad: SHOW LOAD lists INSERT loads with their state, SHOW
// STREAM LOAD the recent stream loads with Doris's counters; WHERE, ORDER
// BY and LIMIT as Doris takes them.
func TestE2EShowLoad(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE sl")
	db := openDB(t, s.MySQLAddr(), "sl", true)
	mustExec(t, db, `CREATE TABLE t (k INT NOT NULL, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2
		PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO t WITH LABEL ins_a VALUES (1, 1), (2, 2)")
	mustExec(t, db, "INSERT INTO t WITH LABEL ins_b VALUES (3, 3)")
	_, err := db.Exec("INSERT INTO t WITH LABEL ins_bad SELECT NULL, 1")
	if err == nil {
		t.Fatal("NULL into a NOT NULL column loaded")
	}
	mustStreamLoad(t, s.HTTPAddr(), "sl", "t", map[string]string{"label": "st_ok", "column_separator": ",", "max_filter_ratio": "0.5"},
		[]byte("4,4\nx,5\n6,6\n"))
	bad, err := streamLoad(t.Context(), s.HTTPAddr(), "sl", "t", "root", "", map[string]string{"label": "st_bad", "column_separator": ","},
		strings.NewReader("x,1\n"))
	if err != nil || bad.Status != "Fail" {
		t.Fatalf("bad stream load: %+v %v", bad, err)
	}

	rows := queryStrings(t, db, "SHOW LOAD WHERE LABEL LIKE 'ins%' ORDER BY Label DESC")
	var got []string
	for _, r := range rows {
		got = append(got, r[1]+":"+r[2]+":"+r[4]+":"+r[17])
	}
	if strings.Join(got, " ") != "ins_bad:CANCELLED:INSERT:root ins_b:FINISHED:INSERT:root ins_a:FINISHED:INSERT:root" {
		t.Fatalf("SHOW LOAD: %v", got)
	}
	if r := queryStrings(t, db, "SHOW LOAD FROM sl WHERE LABEL = 'ins_a'"); len(r) != 1 || !strings.Contains(r[0][14], `"LoadedRows":2`) {
		t.Fatalf("SHOW LOAD label: %v", r)
	}
	if r := queryStrings(t, db, "SHOW LOAD WHERE STATE = 'finished' LIMIT 1"); len(r) != 1 {
		t.Fatalf("SHOW LOAD state limit: %v", r)
	}
	if r := queryStrings(t, db, "SHOW LOAD WHERE STATE = 'CANCELLED'"); len(r) != 1 || r[0][1] != "ins_bad" ||
		!strings.HasPrefix(r[0][7], "type:LOAD_RUN_FAIL; msg:") {
		t.Fatalf("failed insert: %v", r)
	}

	st := queryStrings(t, db, "SHOW STREAM LOAD ORDER BY Label")
	if len(st) != 2 {
		t.Fatalf("SHOW STREAM LOAD: %v", st)
	}
	ok, fail := st[1], st[0] // st_bad < st_ok
	if ok[0] != "st_ok" || ok[4] != "Success" || ok[7] != "3" || ok[8] != "2" || ok[9] != "1" || ok[14] != "root" || ok[6] == "" {
		t.Fatalf("st_ok: %v", ok)
	}
	if fail[0] != "st_bad" || fail[4] != "Fail" || !strings.Contains(fail[5], "too many filtered rows") {
		t.Fatalf("st_bad: %v", fail)
	}
	if r := queryStrings(t, db, "SHOW STREAM LOAD WHERE STATUS = 'fail'"); len(r) != 1 || r[0][0] != "st_bad" {
		t.Fatalf("SHOW STREAM LOAD status: %v", r)
	}
	_, err = db.Exec("SHOW LOAD WHERE k = 1")
	wantCode(t, err, 1105, "bad SHOW LOAD condition")
	_, err = db.Exec("SHOW LOAD ORDER BY nosuch")
	wantCode(t, err, 1054, "bad SHOW LOAD order")
}

// TestE2EShowBackendsCapacity: SHOW BACKENDS reports each backend's bytes on
// disk and its file system's real size and free space, from heartbeats.
func TestE2EShowBackendsCapacity(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE cap")
	mustExec(t, db, `CREATE TABLE cap.t (k INT, v VARCHAR(100)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3
		PROPERTIES ("replication_num" = "3")`)
	mustExec(t, db, "INSERT INTO cap.t SELECT number, repeat('z', 100) FROM numbers('number' = '20000')")
	var rows [][]string
	waitFor(t, 10*time.Second, "heartbeats with disk figures", func() bool {
		rows = queryStrings(t, db, "SHOW BACKENDS")
		for _, r := range rows {
			if parseShowBytes(t, r[12]) < 64<<10 { // DataUsedCapacity: the store holds the load's rows
				return false
			}
		}
		return len(rows) == 3
	})
	for _, r := range rows {
		avail, total := parseShowBytes(t, r[14]), parseShowBytes(t, r[15])
		if total <= 0 || avail <= 0 || avail > total || !strings.HasSuffix(r[16], " %") || r[23] != "0" {
			t.Fatalf("backend row: DataUsed %s Avail %s Total %s UsedPct %s HeartbeatFailureCounter %s", r[12], r[14], r[15], r[16], r[23])
		}
	}
}
