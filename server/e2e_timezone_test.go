package server_test

import (
	"context"
	"testing"
	"time"
)

// TestTimeZone: SET time_zone is honoured by the clock functions and by
// from_unixtime / unix_timestamp, on the frontend and over a table whose
// rows the backends evaluate; an unknown zone is refused with 1298.
func TestTimeZone(t *testing.T) {
	srv := newServer(t)
	db := openDB(t, srv.MySQLAddr(), "", true)
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	mustExec(t, conn, "CREATE DATABASE tz")
	mustExec(t, conn, "USE tz")
	mustExec(t, conn, `CREATE TABLE e (k INT, ts BIGINT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, conn, "INSERT INTO e VALUES (1, 0), (2, 86400), (3, NULL)")

	one := func(q string) string {
		t.Helper()
		rows := queryStrings(t, conn, q)
		if len(rows) != 1 || len(rows[0]) != 1 {
			t.Fatalf("%s: %v", q, rows)
		}
		return rows[0][0]
	}
	if got := one("SELECT from_unixtime(0)"); got != "1970-01-01 00:00:00" {
		t.Errorf("UTC from_unixtime(0) = %s", got)
	}
	utcNow := one("SELECT now()")

	mustExec(t, conn, "SET time_zone = 'Asia/Shanghai'")
	if got := one("SELECT @@time_zone"); got != "Asia/Shanghai" {
		t.Errorf("@@time_zone = %s", got)
	}
	if got := one("SELECT from_unixtime(0)"); got != "1970-01-01 08:00:00" {
		t.Errorf("Asia/Shanghai from_unixtime(0) = %s, want 1970-01-01 08:00:00", got)
	}
	if got := one("SELECT unix_timestamp('1970-01-01 08:00:00')"); got != "0" {
		t.Errorf("Asia/Shanghai unix_timestamp = %s, want 0", got)
	}
	// now() moved by eight hours; utc_timestamp() did not.
	shNow := one("SELECT now()")
	a, err1 := time.Parse(time.DateTime, utcNow)
	b, err2 := time.Parse(time.DateTime, shNow)
	if err1 != nil || err2 != nil {
		t.Fatalf("now(): %q %q", utcNow, shNow)
	}
	if d := b.Sub(a); d < 8*time.Hour-time.Minute || d > 8*time.Hour+time.Minute {
		t.Errorf("now() in Asia/Shanghai %s is %v after now() in UTC %s", shNow, d, utcNow)
	}
	for q, want := range map[string]string{
		"SELECT timestampdiff(HOUR, utc_timestamp(), now())":             "8",
		"SELECT timestampdiff(HOUR, utc_timestamp(), current_timestamp)": "8",
		"SELECT curdate() = date(now())":                                 "1",
	} {
		if got := one(q); got != want {
			t.Errorf("%s = %s, want %s", q, got, want)
		}
	}
	// The backends evaluate the scan's rows in the session zone too.
	rows := queryStrings(t, conn, "SELECT k, from_unixtime(ts), unix_timestamp(from_unixtime(ts)) FROM e ORDER BY k")
	want := [][]string{{"1", "1970-01-01 08:00:00", "0"}, {"2", "1970-01-02 08:00:00", "86400"}, {"3", "NULL", "NULL"}}
	if len(rows) != len(want) {
		t.Fatalf("rows %v", rows)
	}
	for i := range want {
		for j := range want[i] {
			if rows[i][j] != want[i][j] {
				t.Errorf("row %d: %v, want %v", i, rows[i], want[i])
				break
			}
		}
	}

	mustExec(t, conn, "SET time_zone = '+08:00'")
	if got := one("SELECT from_unixtime(0)"); got != "1970-01-01 08:00:00" {
		t.Errorf("+08:00 from_unixtime(0) = %s", got)
	}
	mustExec(t, conn, "SET time_zone = 'SYSTEM'")
	if got := one("SELECT from_unixtime(0)"); got != "1970-01-01 00:00:00" {
		t.Errorf("SYSTEM from_unixtime(0) = %s", got)
	}
	mustExec(t, conn, "SET time_zone = 'UTC'")
	if got := one("SELECT from_unixtime(0)"); got != "1970-01-01 00:00:00" {
		t.Errorf("UTC from_unixtime(0) = %s", got)
	}
	for _, bad := range []string{"Mars/Base", "+15:00", "08:00", ""} {
		_, err := conn.ExecContext(ctx, "SET time_zone = '"+bad+"'")
		wantCode(t, err, 1298, "SET time_zone = '"+bad+"'")
	}
	if got := one("SELECT @@time_zone"); got != "UTC" {
		t.Errorf("a refused SET changed @@time_zone to %s", got)
	}
}
