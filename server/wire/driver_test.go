package wire

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

func openDB(t *testing.T, addr, user, pass, db, params string) *sql.DB {
	t.Helper()
	d, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(%s)/%s?timeout=5s&%s", user, pass, addr, db, params))
	if err != nil {
		t.Fatal(err)
	}
	d.SetMaxIdleConns(4)
	t.Cleanup(func() { _ = d.Close() })
	return d
}

func myErr(t *testing.T, err error, code uint16) *mysql.MySQLError {
	t.Helper()
	var me *mysql.MySQLError
	if !errors.As(err, &me) {
		t.Fatalf("want MySQL error %d, got %v", code, err)
	}
	if me.Number != code {
		t.Fatalf("want error %d, got %d: %s", code, me.Number, me.Message)
	}
	return me
}

func TestAuth(t *testing.T) {
	_, addr := startServer(t, Config{}, newTestHandler())
	cases := []struct {
		user, pass, db, params string
		code                   uint16
		msg                    string
	}{
		{user: "root"},
		{user: "alice", pass: "secret"},
		{user: "bob", pass: "pw2"},   // native → switch to caching_sha2, fast auth
		{user: "carol", pass: "pw3"}, // native only
		{user: "alice", pass: "secret", db: "db1"},
		{user: "root", pass: "x", code: 1045, msg: "Access denied for user 'root'@'127.0.0.1' (using password: YES)"},
		{user: "alice", pass: "wrong", code: 1045, msg: "Access denied for user 'alice'@'127.0.0.1' (using password: YES)"},
		{user: "alice", code: 1045, msg: "Access denied for user 'alice'@'127.0.0.1' (using password: NO)"},
		{user: "nobody", pass: "x", code: 1045, msg: "Access denied for user 'nobody'@'127.0.0.1' (using password: YES)"},
		{user: "bob", pass: "bad", code: 1045},                            // caching_sha2 full auth over RSA
		{user: "bob", pass: "bad", params: "tls=skip-verify", code: 1045}, // full auth in clear over TLS
		{user: "bob", pass: "pw2", params: "tls=skip-verify"},
		// The database is checked only after authentication (no existence leak).
		{user: "alice", pass: "wrong", db: "nope", code: 1045},
		{user: "alice", pass: "secret", db: "nope", code: 1049, msg: "Unknown database 'nope'"},
	}
	for _, tc := range cases {
		t.Run(tc.user+"/"+tc.pass+"/"+tc.db+"/"+tc.params, func(t *testing.T) {
			d := openDB(t, addr, tc.user, tc.pass, tc.db, tc.params)
			var user, db, client string
			var tls, multi bool
			err := d.QueryRow("whoami").Scan(&user, &db, &tls, &client, &multi)
			if tc.code == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if user != tc.user || db != tc.db || client != "Go-MySQL-Driver" || tls != (tc.params != "") {
					t.Fatalf("whoami = %q %q %v %q", user, db, tls, client)
				}
				return
			}
			me := myErr(t, err, tc.code)
			if tc.msg != "" && me.Message != tc.msg {
				t.Fatalf("message %q, want %q", me.Message, tc.msg)
			}
		})
	}
}

// expected text of typeRows per column, as both protocols must deliver it.
var wantTypes = [][]string{
	{"1", "-128", "-32768", "-2147483648", "-9223372036854775808", "-17014118346046923173168730371588410572",
		"1.5", "-2.25", "-1234567890.12", "ab", "héllo ✓ 日本", strings.Repeat("x", 300),
		"2024-02-29", "2024-02-29 13:14:15", "1999-12-31 23:59:59.123456", "NULL"},
	{"0", "127", "32767", "2147483647", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL", "NULL"},
	{"0", "0", "0", "0", "9223372036854775807", "99999999999999999999999999999999999999",
		"0.25", "12345.5", "0.05", "", "", "🙂", "1970-01-01", "1969-12-31 23:59:59", "2000-01-02 03:04:05.000000", "NULL"},
}

func TestTypesTextAndBinary(t *testing.T) {
	_, addr := startServer(t, Config{}, newTestHandler())
	for _, interpolate := range []bool{true, false} {
		t.Run(fmt.Sprint("interpolateParams=", interpolate), func(t *testing.T) {
			d := openDB(t, addr, "root", "", "", fmt.Sprint("interpolateParams=", interpolate))
			rows, err := d.Query("select types where ?", 1) // interpolate=false: PREPARE + EXECUTE, binary rows
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			cts, err := rows.ColumnTypes()
			if err != nil {
				t.Fatal(err)
			}
			wantNames := []string{"TINYINT", "TINYINT", "SMALLINT", "INT", "BIGINT", "CHAR", "FLOAT", "DOUBLE",
				"DECIMAL", "CHAR", "VARCHAR", "TEXT", "DATE", "DATETIME", "DATETIME", "NULL"}
			for i, ct := range cts {
				if ct.DatabaseTypeName() != wantNames[i] {
					t.Errorf("column %s: type %s, want %s", ct.Name(), ct.DatabaseTypeName(), wantNames[i])
				}
				if n, _ := ct.Nullable(); n != typeCols[i].Nullable {
					t.Errorf("column %s: nullable %v", ct.Name(), n)
				}
			}
			if p, s, ok := cts[8].DecimalSize(); !ok || p != 12 || s != 2 {
				t.Errorf("DECIMAL(12,2) reported as (%d,%d)", p, s)
			}
			var got [][]string
			for rows.Next() {
				vals := make([]sql.NullString, len(cts))
				ptrs := make([]any, len(vals))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				row := make([]string, len(vals))
				for i, v := range vals {
					row[i] = "NULL"
					if v.Valid {
						row[i] = v.String
					}
				}
				got = append(got, row)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(wantTypes) {
				t.Fatalf("rows\n got %q\nwant %q", got, wantTypes)
			}
		})
	}
}

func TestPreparedParams(t *testing.T) {
	_, addr := startServer(t, Config{}, newTestHandler())
	d := openDB(t, addr, "root", "", "", "interpolateParams=false")
	st, err := d.Prepare("echo ?, ?, ?, ?, ?, ?, ?, ?")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// go-sql-driver sends time.Time as text; binary dates are tested in raw_test.go.
	ts := time.Date(2024, 2, 29, 13, 14, 15, 123456000, time.UTC)
	for round, args := range [][]any{
		{int64(-5), uint64(math.MaxUint64), 2.5, "héllo", []byte("raw"), nil, ts, true},
		{int64(7), uint64(3), -0.5, "", []byte{}, "x", ts.Truncate(time.Second), false},
	} {
		vals := make([]sql.NullString, 16)
		ptrs := make([]any, 16)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := st.QueryRow(args...).Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, v := range vals {
			s := "NULL"
			if v.Valid {
				s = v.String
			}
			got = append(got, s)
		}
		want := [][]string{
			{"-5", "BIGINT", "18446744073709551615", "LARGEINT", "2.5", "DOUBLE", "héllo", "VARCHAR(6)",
				"raw", "VARCHAR(3)", "NULL", "NULL", "2024-02-29 13:14:15.123456", "VARCHAR(26)", "1", "BIGINT"},
			{"7", "BIGINT", "3", "BIGINT", "-0.5", "DOUBLE", "", "VARCHAR(0)",
				"", "VARCHAR(0)", "x", "VARCHAR(1)", "2024-02-29 13:14:15", "VARCHAR(19)", "0", "BIGINT"},
		}[round]
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("round %d\n got %q\nwant %q", round, got, want)
		}
	}
}

func TestOKAndErrors(t *testing.T) {
	_, addr := startServer(t, Config{}, newTestHandler())
	for _, interpolate := range []bool{true, false} {
		d := openDB(t, addr, "root", "", "", fmt.Sprint("interpolateParams=", interpolate))
		res, err := d.Exec("insert ?", 1)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := res.RowsAffected(); n != 3 {
			t.Fatalf("affected %d", n)
		}
		if id, _ := res.LastInsertId(); id != 7 {
			t.Fatalf("last insert id %d", id)
		}
		// An error after rows were streamed replaces the closing packet; the
		// code survives wrapping.
		rows, err := d.Query("error mid")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		myErr(t, rows.Err(), 1365)
		rows.Close()
		if n != 2 {
			t.Fatalf("%d rows before the error", n)
		}
		_, err = d.Exec("bogus")
		myErr(t, err, 1064)
		var one int
		if err := d.QueryRow("select 1").Scan(&one); err != nil || one != 1 {
			t.Fatal(one, err)
		}
	}
}

func TestMultiStatements(t *testing.T) {
	_, addr := startServer(t, Config{}, newTestHandler())
	d := openDB(t, addr, "root", "", "", "multiStatements=true")
	var user, db, client string
	var tls, multi bool
	if err := d.QueryRow("whoami").Scan(&user, &db, &tls, &client, &multi); err != nil || !multi {
		t.Fatal(multi, err)
	}
	rows, err := d.Query("multi")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for {
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			got = append(got, s)
		}
		if !rows.NextResultSet() {
			break
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	rows.Close()
	if fmt.Sprint(got) != "[1 2 x]" {
		t.Fatalf("got %v", got)
	}
	_, err = d.Exec("multi-err")
	myErr(t, err, 1064)
	if err := d.QueryRow("select 1").Scan(new(int)); err != nil {
		t.Fatal(err)
	}
	d2 := openDB(t, addr, "root", "", "", "")
	if err := d2.QueryRow("whoami").Scan(&user, &db, &tls, &client, &multi); err != nil || multi {
		t.Fatal(multi, err)
	}
}

func TestMaxConnections(t *testing.T) {
	srv, addr := startServer(t, Config{MaxConnections: 2}, newTestHandler())
	d := openDB(t, addr, "root", "", "", "")
	ctx := context.Background()
	c1, err := d.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c1.Close()
	c2, err := d.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.Close()
	if n := srv.ConnCount(); n != 2 {
		t.Fatalf("ConnCount %d", n)
	}
	_, err = d.Conn(ctx)
	myErr(t, err, 1040)
}

func TestMaxAllowedPacket(t *testing.T) {
	_, addr := startServer(t, Config{MaxAllowedPacket: 4096}, newTestHandler())
	d := openDB(t, addr, "root", "", "", "")
	_, err := d.Exec("insert " + strings.Repeat("x", 5000))
	myErr(t, err, 1153)
	// The server closed that connection; a fresh pool must not reuse it.
	d = openDB(t, addr, "root", "", "", "")
	if _, err := d.Exec("insert " + strings.Repeat("x", 4000)); err != nil {
		t.Fatal(err)
	}
	// Outgoing packets are not limited by it; > 16 MB rows are split.
	var s string
	if err := d.QueryRow("big 17000000").Scan(&s); err != nil || len(s) != 17000000 {
		t.Fatal(len(s), err)
	}
}

func TestPanicClosesOnlyThatConnection(t *testing.T) {
	_, addr := startServer(t, Config{}, newTestHandler())
	d := openDB(t, addr, "root", "", "", "")
	ctx := context.Background()
	other, err := d.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	victim, err := d.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer victim.Close()
	_, err = victim.ExecContext(ctx, "panic")
	myErr(t, err, 1105)
	if err := victim.PingContext(ctx); err == nil {
		t.Fatal("connection survived a panic")
	}
	if err := other.QueryRowContext(ctx, "select 1").Scan(new(int)); err != nil {
		t.Fatal(err)
	}
	if err := d.QueryRow("select 1").Scan(new(int)); err != nil {
		t.Fatal(err)
	}
}

func TestCancelAndKill(t *testing.T) {
	_, addr := startServer(t, Config{}, newTestHandler())
	d := openDB(t, addr, "root", "", "", "")
	ctx := context.Background()
	// ConnInfo.Cancel during a command: the command answers, then the connection closes.
	c, err := d.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.ExecContext(ctx, "cancel me"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * time.Second)
	for c.PingContext(ctx) == nil {
		if time.Now().After(deadline) {
			t.Fatal("cancelled connection still serving")
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.Close()
	// KILL of an idle connection from another one.
	idle, err := d.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	var id int
	if err := idle.QueryRowContext(ctx, "connection_id").Scan(&id); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Exec(fmt.Sprintf("KILL %d", id)); err != nil {
		t.Fatal(err)
	}
	// The idle connection's goroutine closes it asynchronously: allow it a
	// moment, bounded.
	deadline = time.Now().Add(3 * time.Second)
	for idle.PingContext(ctx) == nil {
		if time.Now().After(deadline) {
			t.Fatal("killed connection still serving")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
