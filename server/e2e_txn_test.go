package server_test

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/binary"
	"fmt"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/packet"
)

// pinned returns one connection of db (a transaction is per connection).
func pinned(t *testing.T, db *sql.DB) *sql.Conn {
	t.Helper()
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func countRows(t *testing.T, q querier, table string) int64 {
	t.Helper()
	return queryInts(t, q, "SELECT count(*) FROM "+table)[0]
}

// TestE2ETransactions: BEGIN … COMMIT makes every statement's rows visible
// together and only then; ROLLBACK, a closed connection and a failed
// statement discard exactly their rows; Doris's rules inside BEGIN; labels.
func TestE2ETransactions(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE tx")
	mustExec(t, db, "CREATE DATABASE other")
	for _, ddl := range []string{
		`CREATE TABLE tx.a (id INT NOT NULL, v VARCHAR(10)) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 3 PROPERTIES ("replication_num" = "1")`,
		`CREATE TABLE tx.b (id INT NOT NULL, v INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ("replication_num" = "3")`,
		`CREATE TABLE other.c (id INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("replication_num" = "1")`,
	} {
		mustExec(t, db, ddl)
	}
	waitBackendsAlive(t, db, 3)
	other := openDB(t, s.MySQLAddr(), "tx", true)

	c := pinned(t, openDB(t, s.MySQLAddr(), "tx", false))
	mustExec(t, c, "BEGIN WITH LABEL l1")
	mustExec(t, c, "INSERT INTO a VALUES (1, 'x'), (2, 'y')")
	mustExec(t, c, "INSERT INTO a VALUES (3, 'z')")
	mustExec(t, c, "INSERT INTO b SELECT id, id * 10 FROM a") // reads committed rows: none yet
	mustExec(t, c, "INSERT INTO b VALUES (7, 70)")
	if n := countRows(t, other, "a"); n != 0 {
		t.Fatalf("uncommitted rows visible to another session: %d", n)
	}
	// Doris refuses anything but writes inside BEGIN.
	for _, q := range []string{"SELECT * FROM a", "SHOW TABLES", "CREATE TABLE z (i INT) DISTRIBUTED BY HASH(i) BUCKETS 1", "SET autocommit = 1"} {
		_, err := c.ExecContext(context.Background(), q)
		if err == nil || !strings.Contains(err.Error(), "This is in a transaction, only insert, update, delete, commit, rollback is acceptable.") {
			t.Errorf("%s inside BEGIN: %v", q, err)
		}
	}
	if _, err := c.ExecContext(context.Background(), "INSERT INTO other.c VALUES (1)"); err == nil || !strings.Contains(err.Error(), "Transaction insert must be in the same database") {
		t.Errorf("insert into another database: %v", err)
	}
	// A failed statement rolls back alone.
	if _, err := c.ExecContext(context.Background(), "INSERT INTO a VALUES (4, 'w'), (NULL, 'bad')"); err == nil {
		t.Error("NULL into a NOT NULL column inside the transaction succeeded")
	}
	mustExec(t, c, "BEGIN") // inside a transaction: ignored, as in Doris
	mustExec(t, c, "COMMIT")
	if got := queryStrings(t, other, "SELECT id, v FROM a ORDER BY id"); fmt.Sprint(got) != "[[1 x] [2 y] [3 z]]" {
		t.Errorf("a after COMMIT: %v", got)
	}
	if got := queryStrings(t, other, "SELECT id, v FROM b ORDER BY id"); fmt.Sprint(got) != "[[7 70]]" {
		t.Errorf("b after COMMIT: %v", got)
	}
	// The label is used up: by BEGIN and by INSERT … WITH LABEL.
	if _, err := c.ExecContext(context.Background(), "BEGIN WITH LABEL l1"); err == nil || !strings.Contains(err.Error(), "Label [l1] has already been used") {
		t.Errorf("BEGIN with a used label: %v", err)
	}
	if _, err := c.ExecContext(context.Background(), "INSERT INTO a WITH LABEL l1 VALUES (9, 'q')"); err == nil || !strings.Contains(err.Error(), "Label [l1] has already been used") {
		t.Errorf("INSERT with the transaction's label: %v", err)
	}

	// ROLLBACK discards every statement and frees the label.
	mustExec(t, c, "BEGIN WITH LABEL l2")
	mustExec(t, c, "INSERT INTO a VALUES (10, 'r')")
	mustExec(t, c, "INSERT INTO b VALUES (10, 100)")
	mustExec(t, c, "ROLLBACK")
	if n := countRows(t, other, "a") + countRows(t, other, "b"); n != 4 {
		t.Errorf("rows after ROLLBACK: %d, want the 4 committed", n)
	}
	mustExec(t, c, "BEGIN WITH LABEL l2")
	mustExec(t, c, "INSERT INTO a VALUES (11, 's')")
	mustExec(t, c, "COMMIT")
	if n := countRows(t, other, "a"); n != 4 {
		t.Errorf("a after the retried label: %d rows, want 4", n)
	}

	// A connection that goes away rolls its transaction back.
	c2 := pinned(t, openDB(t, s.MySQLAddr(), "tx", true))
	mustExec(t, c2, "BEGIN WITH LABEL l3")
	mustExec(t, c2, "INSERT INTO a VALUES (12, 't')")
	c2.Raw(func(any) error { return driver.ErrBadConn }) // the pool closes it instead of keeping it
	c2.Close()
	waitFor(t, 10*time.Second, "label l3 freed by the closed connection", func() bool {
		_, err := other.Exec("BEGIN WITH LABEL l3")
		if err == nil {
			other.Exec("ROLLBACK")
		}
		return err == nil
	})
	if n := countRows(t, other, "a"); n != 4 {
		t.Errorf("a after a closed connection's transaction: %d rows, want 4", n)
	}

	// The driver's own transaction API (START TRANSACTION … COMMIT/ROLLBACK).
	tx, err := other.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO b VALUES (20, 200)"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	tx, err = other.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO b VALUES (21, 210)"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := queryInts(t, other, "SELECT id FROM b ORDER BY id"); fmt.Sprint(got) != "[7 21]" {
		t.Errorf("b after driver transactions: %v", got)
	}
	// DELETE is a statement of the transaction too: applied at COMMIT,
	// never after an INSERT into the same table (Doris's rule).
	mustExec(t, c, "BEGIN")
	mustExec(t, c, "DELETE FROM b WHERE id = 7")
	mustExec(t, c, "INSERT INTO b VALUES (8, 80)")
	if _, err := c.ExecContext(context.Background(), "DELETE FROM b WHERE id = 8"); err == nil || !strings.Contains(err.Error(), "Can not delete because there is a insert operation for the same table") {
		t.Errorf("DELETE after INSERT into the same table: %v", err)
	}
	if got := queryInts(t, other, "SELECT id FROM b ORDER BY id"); fmt.Sprint(got) != "[7 21]" {
		t.Errorf("b before COMMIT: %v", got)
	}
	mustExec(t, c, "COMMIT")
	if got := queryInts(t, other, "SELECT id FROM b ORDER BY id"); fmt.Sprint(got) != "[8 21]" {
		t.Errorf("b after COMMIT of DELETE + INSERT: %v, want [8 21]", got)
	}
	mustExec(t, c, "BEGIN")
	mustExec(t, c, "DELETE FROM b WHERE id = 21")
	mustExec(t, c, "ROLLBACK")
	if got := queryInts(t, other, "SELECT id FROM b ORDER BY id"); fmt.Sprint(got) != "[8 21]" {
		t.Errorf("b after a rolled back DELETE: %v", got)
	}
	// A transaction open longer than max(insert_timeout, query_timeout)
	// is rolled back, COMMIT included.
	c3 := pinned(t, openDB(t, s.MySQLAddr(), "tx", true))
	mustExec(t, c3, "SET query_timeout = 1")
	mustExec(t, c3, "SET insert_timeout = 1")
	mustExec(t, c3, "BEGIN")
	mustExec(t, c3, "INSERT INTO b VALUES (30, 300)")
	time.Sleep(1100 * time.Millisecond)
	if _, err := c3.ExecContext(context.Background(), "COMMIT"); err == nil || !strings.Contains(err.Error(), "timed out") {
		t.Errorf("COMMIT past the transaction timeout: %v", err)
	}
	if got := queryInts(t, other, "SELECT id FROM b WHERE id = 30"); len(got) != 0 {
		t.Errorf("a timed-out transaction's row is visible: %v", got)
	}
	// What is not implemented says so.
	for _, q := range []string{"SAVEPOINT s1", "START TRANSACTION READ ONLY", "ROLLBACK TO SAVEPOINT s1", "COMMIT AND CHAIN"} {
		_, err := other.Exec(q)
		wantCode(t, err, 1235, q)
	}
}

// TestE2EAutocommitOff: with autocommit off, writes wait for COMMIT (or
// SET autocommit = 1, or a DDL statement's implicit commit), ROLLBACK
// drops them, and reading a table the transaction wrote is refused rather
// than answered without its rows.
func TestE2EAutocommitOff(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE ac")
	mustExec(t, db, `CREATE TABLE ac.t (id INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, `CREATE TABLE ac.u (id INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	waitBackendsAlive(t, db, 3)
	other := openDB(t, s.MySQLAddr(), "ac", true)

	cl := pinned(t, openDB(t, s.MySQLAddr(), "ac", false))
	exec := func(q string) {
		t.Helper()
		mustExec(t, cl, q)
	}
	exec("SET autocommit = 0")
	exec("INSERT INTO t VALUES (1), (2)")
	if n := countRows(t, other, "t"); n != 0 {
		t.Errorf("uncommitted rows visible: %d", n)
	}
	// Other tables read as usual; the written one is refused.
	countRows(t, cl, "u")
	if _, err := cl.QueryContext(context.Background(), "SELECT count(*) FROM t"); err == nil || !strings.Contains(err.Error(), "uncommitted transaction") {
		t.Errorf("reading a table written in the open transaction: %v", err)
	}
	exec("COMMIT")
	if n := countRows(t, other, "t"); n != 2 {
		t.Errorf("rows after COMMIT: %d, want 2", n)
	}
	exec("INSERT INTO t VALUES (3)")
	exec("ROLLBACK")
	exec("INSERT INTO t VALUES (4)")
	exec(`CREATE TABLE v (id INT) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("replication_num" = "1")`) // implicit commit
	exec("INSERT INTO t VALUES (5)")
	exec("SET autocommit = 1")
	if got := queryInts(t, other, "SELECT id FROM t ORDER BY id"); fmt.Sprint(got) != "[1 2 4 5]" {
		t.Errorf("t: %v, want [1 2 4 5] (3 rolled back, 4 committed by the DDL, 5 by autocommit = 1)", got)
	}
	exec("INSERT INTO t VALUES (6)")
	if n := countRows(t, other, "t"); n != 5 {
		t.Errorf("autocommitted row not visible: %d rows", n)
	}
	// The implicit transaction belongs to the database it first writes,
	// whatever the current one is.
	mustExec(t, db, "CREATE DATABASE ac2")
	mustExec(t, db, `CREATE TABLE ac2.w (id INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("replication_num" = "1")`)
	exec("SET autocommit = 0")
	exec("INSERT INTO ac2.w VALUES (1)")
	if _, err := cl.ExecContext(context.Background(), "INSERT INTO t VALUES (7)"); err == nil || !strings.Contains(err.Error(), "Transaction insert must be in the same database") {
		t.Errorf("second database in one implicit transaction: %v", err)
	}
	exec("COMMIT")
	if got := queryInts(t, other, "SELECT id FROM ac2.w"); fmt.Sprint(got) != "[1]" {
		t.Errorf("ac2.w after COMMIT: %v", got)
	}
}

// TestE2ECrashCommit kills the server while an explicit transaction over
// two tables commits: after restart both tables hold all of the
// transaction's rows or none of them.
func TestE2ECrashCommit(t *testing.T) {
	t.Parallel()
	const n = 50_000
	dir := t.TempDir()
	p := startProc(t, dir)
	db := openDB(t, p.mysqlAddr, "", true)
	mustExec(t, db, "CREATE DATABASE c")
	mustExec(t, db, `CREATE TABLE c.src (id BIGINT NOT NULL, s VARCHAR(40), x INT) DUPLICATE KEY(id)
	  DISTRIBUTED BY HASH(id) BUCKETS 4 PROPERTIES ("replication_num" = "1")`)
	for _, tb := range []string{"d1", "d2"} {
		mustExec(t, db, fmt.Sprintf(`CREATE TABLE c.%s (id BIGINT NOT NULL, s VARCHAR(40), x INT) DUPLICATE KEY(id)
		  DISTRIBUTED BY HASH(id) BUCKETS 8 PROPERTIES ("replication_num" = "3")`, tb))
	}
	mustStreamLoad(t, p.httpAddr, "c", "src", map[string]string{"column_separator": ","}, csvRows(1, n))

	run := func(db *sql.DB) (time.Duration, chan error) {
		c := pinned(t, db)
		mustExec(t, c, "BEGIN")
		mustExec(t, c, "INSERT INTO c.d1 SELECT * FROM c.src")
		mustExec(t, c, "INSERT INTO c.d2 SELECT * FROM c.src")
		done := make(chan error, 1)
		start := time.Now()
		go func() {
			_, err := c.ExecContext(context.Background(), "COMMIT")
			done <- err
		}()
		return time.Since(start), done
	}
	_, done := run(db)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	checkAllOrNone(t, db, "c.d1", n, true, "uninterrupted COMMIT")
	checkAllOrNone(t, db, "c.d2", n, true, "uninterrupted COMMIT")
	for i, delay := range []time.Duration{0, 2 * time.Millisecond, 10 * time.Millisecond} {
		mustExec(t, db, "TRUNCATE TABLE c.d1")
		mustExec(t, db, "TRUNCATE TABLE c.d2")
		conn := openDB(t, p.mysqlAddr, "", i%2 == 0)
		_, done := run(conn)
		time.Sleep(delay) // the point of the test: a kill at this instant
		p.kill()
		err := <-done
		conn.Close()
		db.Close()

		p = startProc(t, dir)
		db = openDB(t, p.mysqlAddr, "", true)
		got1 := checkAllOrNone(t, db, "c.d1", n, err == nil, fmt.Sprintf("kill %v into COMMIT", delay))
		got2 := checkAllOrNone(t, db, "c.d2", n, err == nil, fmt.Sprintf("kill %v into COMMIT", delay))
		if got1 != got2 {
			t.Fatalf("kill %v into COMMIT: d1 has %d rows, d2 %d: half a transaction survived", delay, got1, got2)
		}
		t.Logf("kill %v into COMMIT: err=%v, %d rows in each table after restart", delay, err, got1)
	}
}

// okClient speaks just enough of the protocol by hand to read what an OK
// packet carries that database/sql hides: the status flags and the info
// text (Doris's {'label':…, 'status':…, 'txnId':…}).
type okClient struct {
	t  *testing.T
	pc *packet.Conn
}

func dialOK(t *testing.T, addr, db string) *okClient {
	t.Helper()
	nc, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	_ = nc.SetDeadline(time.Now().Add(30 * time.Second))
	t.Cleanup(func() { nc.Close() })
	c := &okClient{t: t, pc: packet.NewConn(nc)}
	if _, err := c.pc.ReadPacket(); err != nil { // greeting
		t.Fatal(err)
	}
	caps := uint32(mysql.CLIENT_PROTOCOL_41 | mysql.CLIENT_SECURE_CONNECTION | mysql.CLIENT_PLUGIN_AUTH |
		mysql.CLIENT_CONNECT_WITH_DB | mysql.CLIENT_TRANSACTIONS | mysql.CLIENT_LONG_PASSWORD)
	b := binary.LittleEndian.AppendUint32(nil, caps)
	b = binary.LittleEndian.AppendUint32(b, 1<<24)
	b = append(b, 45)
	b = append(b, make([]byte, 23)...)
	b = append(append(b, "root"...), 0)
	b = append(b, 0) // empty auth response: root has no password
	b = append(append(b, db...), 0)
	b = append(append(b, mysql.AUTH_NATIVE_PASSWORD...), 0)
	if err := c.pc.WritePacket(append(make([]byte, 4), b...)); err != nil {
		t.Fatal(err)
	}
	if r, err := c.pc.ReadPacket(); err != nil || r[0] != mysql.OK_HEADER {
		t.Fatalf("login: %x %v", r, err)
	}
	return c
}

// exec sends q and returns the OK packet's status flags and info text.
func (c *okClient) exec(q string) (uint16, string) {
	c.t.Helper()
	c.pc.ResetSequence()
	if err := c.pc.WritePacket(append(append(make([]byte, 4), mysql.COM_QUERY), q...)); err != nil {
		c.t.Fatal(err)
	}
	r, err := c.pc.ReadPacket()
	if err != nil {
		c.t.Fatal(err)
	}
	if r[0] != mysql.OK_HEADER {
		c.t.Fatalf("%s: not an OK packet: %q", q, r)
	}
	r = r[1:]
	for i := 0; i < 2; i++ { // affected rows, last insert id
		_, _, n := mysql.LengthEncodedInt(r)
		r = r[n:]
	}
	status := binary.LittleEndian.Uint16(r)
	r = r[4:] // status, warnings
	info, _, _, _ := mysql.LengthEncodedString(r)
	return status, string(info)
}

// TestE2ETxnStatusAndInfo checks what drivers read off the OK packets:
// SERVER_STATUS_IN_TRANS while a transaction is open, AUTOCOMMIT as the
// variable says, and Doris's label/status/txnId info text.
func TestE2ETxnStatusAndInfo(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE st")
	mustExec(t, db, `CREATE TABLE st.t (id INT) DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ("replication_num" = "1")`)
	waitBackendsAlive(t, db, 3)
	c := dialOK(t, s.MySQLAddr(), "st")
	flags := func(st uint16) string {
		return fmt.Sprintf("autocommit=%v in_trans=%v", st&mysql.SERVER_STATUS_AUTOCOMMIT != 0, st&mysql.SERVER_STATUS_IN_TRANS != 0)
	}
	idRE := regexp.MustCompile(`'txnId':'\d+'`)
	for _, step := range []struct{ q, flags, info string }{
		{"INSERT INTO t WITH LABEL solo VALUES (1)", "autocommit=true in_trans=false", "{'label':'solo', 'status':'VISIBLE', 'txnId':'N'}"},
		{"BEGIN WITH LABEL b1", "autocommit=true in_trans=true", "{'label':'b1', 'status':'PREPARE', 'txnId':''}"},
		{"INSERT INTO t VALUES (2)", "autocommit=true in_trans=true", "{'label':'b1', 'status':'PREPARE', 'txnId':'N'}"},
		{"COMMIT", "autocommit=true in_trans=false", "{'label':'b1', 'status':'VISIBLE', 'txnId':'N'}"},
		{"BEGIN WITH LABEL b2", "autocommit=true in_trans=true", "{'label':'b2', 'status':'PREPARE', 'txnId':''}"},
		{"ROLLBACK", "autocommit=true in_trans=false", "{'label':'b2', 'status':'ABORTED', 'txnId':''}"},
		{"SET autocommit = 0", "autocommit=false in_trans=false", ""},
		{"INSERT INTO t VALUES (3)", "autocommit=false in_trans=true", "'status':'PREPARE'"},
		{"COMMIT", "autocommit=false in_trans=false", "'status':'VISIBLE'"},
		{"SET autocommit = 1", "autocommit=true in_trans=false", ""},
	} {
		st, info := c.exec(step.q)
		if f := flags(st); f != step.flags {
			t.Errorf("%s: %s, want %s", step.q, f, step.flags)
		}
		info = idRE.ReplaceAllString(info, "'txnId':'N'")
		if !strings.Contains(info, step.info) || step.info == "" && info != "" {
			t.Errorf("%s: info %q, want %q", step.q, info, step.info)
		}
	}
	if got := queryInts(t, db, "SELECT id FROM st.t ORDER BY id"); fmt.Sprint(got) != "[1 2 3]" {
		t.Errorf("rows: %v", got)
	}
}
