package server_test

import (
	"database/sql"
	"fmt"
	"testing"
	"time"
)

// backendRow is SHOW BACKENDS' row of backend id.
func backendRow(t *testing.T, db *sql.DB, id string) []string {
	t.Helper()
	for _, r := range queryStrings(t, db, "SHOW BACKENDS") {
		if r[0] == id {
			return r
		}
	}
	t.Fatalf("backend %s not in SHOW BACKENDS", id)
	return nil
}

// A backend dead past the repair delay is replaced: its replicas are
// re-created on the other backends, and a table is dropped while it is
// away. Restarted, it reports its tablets, and the FE has it drop every
// one the catalog no longer assigns to it (Doris's tablet report): its
// DataUsedCapacity falls to a fraction of what it held, the FE's TabletNum
// for it stays 0, queries give the same answers, and, with the other
// backends' copies, the table survives losing another backend.
func TestE2EReturningBackendDropsStaleReplicas(t *testing.T) {
	_, bes, db := startClusterProcs(t, 4)
	mustExec(t, db, `ADMIN SET FRONTEND CONFIG ("disable_balance" = "true")`)
	mustExec(t, db, `ADMIN SET FRONTEND CONFIG ("tablet_repair_delay_factor_second" = "1")`)
	mustExec(t, db, "CREATE DATABASE rp")
	for _, n := range []string{"t", "gone"} {
		mustExec(t, db, `CREATE TABLE rp.`+n+` (k BIGINT, v BIGINT, s VARCHAR(64)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4
			PROPERTIES ("replication_num" = "3")`)
		mustExec(t, db, `INSERT INTO rp.`+n+` SELECT number, number * 7, concat('row-', cast(number * 2654435761 AS VARCHAR)) FROM numbers("number" = "300000")`)
	}
	const q = "SELECT count(*), sum(v), count(DISTINCT s) FROM rp.t"
	want := fmt.Sprint(queryStrings(t, db, q))
	if want != "[[300000 314998950000 300000]]" {
		t.Fatalf("%s = %s", q, want)
	}
	victim := bes[1]
	id := backendIDOf(t, db, victim)
	var held float64
	waitFor(t, 10*time.Second, "the victim's data size reported", func() bool {
		held = parseShowBytes(t, backendRow(t, db, id)[12])
		return held > 2<<20
	})
	victim.kill()
	waitFor(t, 60*time.Second, "the dead backend's replicas re-created elsewhere", func() bool {
		if len(unhealthy(t, db, "rp.t")) != 0 || len(unhealthy(t, db, "rp.gone")) != 0 {
			return false
		}
		return backendRow(t, db, id)[11] == "0"
	})
	mustExec(t, db, "DROP TABLE rp.gone FORCE")
	if got := fmt.Sprint(queryStrings(t, db, q)); got != want {
		t.Fatalf("with the victim replaced: %s, want %s", got, want)
	}

	bes[1] = restartBE(t, victim)
	waitBackendsAliveWithin(t, db, 4, 10*time.Second)
	var after float64
	waitFor(t, 30*time.Second, "the returned backend's disk freed", func() bool {
		after = parseShowBytes(t, backendRow(t, db, id)[12])
		return after < held/4
	})
	t.Logf("returned backend's DataUsedCapacity: %.0f bytes before, %.0f after its report", held, after)
	if r := backendRow(t, db, id); r[11] != "0" {
		t.Errorf("TabletNum of the returned backend %s, want 0", r[11])
	}
	if got := fmt.Sprint(queryStrings(t, db, q)); got != want {
		t.Errorf("after the report: %s, want %s", got, want)
	}
	// The data lives on the other three: losing one of them still leaves
	// a majority, and the returned backend (holding nothing) is not read.
	bes[0].kill()
	waitFor(t, 10*time.Second, "backend 0 marked dead", func() bool {
		return backendRow(t, db, backendIDOf(t, db, bes[0]))[9] == "false"
	})
	if got := fmt.Sprint(queryStrings(t, db, q)); got != want {
		t.Errorf("with another backend down: %s, want %s", got, want)
	}
	if _, err := db.Exec("INSERT INTO rp.t VALUES (-1, 1, 'x')"); err != nil {
		t.Errorf("INSERT with one of the three holders down (a majority left): %v", err)
	}
	if got := fmt.Sprint(queryStrings(t, db, "SELECT count(*) FROM rp.t")); got != "[[300001]]" {
		t.Errorf("after the INSERT: %s rows, want 300001", got)
	}
}
