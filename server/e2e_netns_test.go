package server_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// netnsCluster is a cluster started by cmd/dorisgo/netns/cluster.sh: the
// FE and every BE in a network namespace of its own, on a bridge.
type netnsCluster struct {
	t      *testing.T
	name   string
	dir    string
	script string
	addrs  map[string]string // host (fe, be1, …) → address
}

func startNetnsCluster(t *testing.T, nbe int) *netnsCluster {
	t.Helper()
	return startNetnsClusterFEs(t, nbe, 1)
}

// startNetnsClusterFEs starts nbe backends and nfe frontends (fe, fe2, …;
// replicated with --edit-log-port 9010 when nfe > 1).
func startNetnsClusterFEs(t *testing.T, nbe, nfe int) *netnsCluster {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("network namespaces need root (CI runs as root)")
	}
	if _, err := exec.LookPath("ip"); err != nil {
		t.Fatal("the ip command (iproute2) is missing: .ci/run installs it")
	}
	script, err := filepath.Abs("../cmd/dorisgo/netns/cluster.sh")
	if err != nil {
		t.Fatal(err)
	}
	c := &netnsCluster{t: t, name: fmt.Sprintf("n%d", os.Getpid()%1000), dir: t.TempDir(), script: script, addrs: map[string]string{}}
	if nfe > 1 {
		c.name = fmt.Sprintf("h%d", os.Getpid()%1000)
	}
	out, err := exec.Command("bash", script, "up", c.name, dorisgoBinary(t), c.dir, fmt.Sprint(nbe), fmt.Sprint(nfe)).CombinedOutput()
	t.Cleanup(func() {
		if out, err := exec.Command("bash", script, "down", c.name, c.dir).CombinedOutput(); err != nil {
			t.Errorf("cluster.sh down: %v\n%s", err, out)
		}
	})
	if err != nil {
		t.Fatalf("cluster.sh up: %v\n%s", err, out)
	}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(l); len(f) == 2 {
			c.addrs[f[0]] = f[1]
		}
	}
	if len(c.addrs) != nbe+nfe {
		t.Fatalf("cluster.sh up printed %q", out)
	}
	return c
}

func (c *netnsCluster) link(cmd, host string) {
	c.t.Helper()
	if out, err := exec.Command("bash", c.script, cmd, c.name, host).CombinedOutput(); err != nil {
		c.t.Fatalf("cluster.sh %s %s: %v\n%s", cmd, host, err, out)
	}
}

func (c *netnsCluster) logs() string {
	var b strings.Builder
	files, _ := filepath.Glob(filepath.Join(c.dir, "*.log"))
	for _, f := range files {
		data, _ := os.ReadFile(f)
		lines := strings.Split(strings.TrimSpace(string(data)), "\n")
		b.WriteString("== " + filepath.Base(f) + "\n" + strings.Join(lines[max(0, len(lines)-10):], "\n") + "\n")
	}
	return b.String()
}

// TestE2ENetnsCluster runs the cluster as four hosts with addresses of
// their own: tablets sit on three BE hosts, colocate, bucket shuffle and
// shuffle joins move rows between them over the bridge, and when one BE's
// link is cut in the middle of a shuffle join the query fails within 5 s
// naming that backend, and after the link comes back the same query
// answers right again. Loads into a 3-replica table commit on the
// majority while another BE is cut off, and its replicas catch up after.
func TestE2ENetnsCluster(t *testing.T) {
	start := time.Now()
	c := startNetnsCluster(t, 3)
	db := openDB(t, c.addrs["fe"]+":9030", "", true)
	var err error
	for i := 0; i < 100; i++ { // the FE may still be binding its port
		if err = db.Ping(); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("FE at %s: %v\n%s", c.addrs["fe"], err, c.logs())
	}
	for i := 1; i <= 3; i++ {
		mustExec(t, db, fmt.Sprintf(`ALTER SYSTEM ADD BACKEND "%s:9060"`, c.addrs[fmt.Sprintf("be%d", i)]))
	}
	waitBackendsAlive(t, db, 3)
	t.Logf("cluster up in %s", time.Since(start).Round(time.Millisecond))
	hosts := map[string]bool{}
	for _, r := range queryStrings(t, db, "SHOW BACKENDS") {
		hosts[r[1]] = true
	}
	for i := 1; i <= 3; i++ {
		if !hosts[c.addrs[fmt.Sprintf("be%d", i)]] {
			t.Fatalf("SHOW BACKENDS hosts %v lack be%d's address %s", hosts, i, c.addrs[fmt.Sprintf("be%d", i)])
		}
	}

	mustExec(t, db, "CREATE DATABASE n")
	mustExec(t, db, `CREATE TABLE n.f (k BIGINT, v BIGINT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 6
		PROPERTIES ("replication_num" = "2", "colocate_with" = "g")`)
	mustExec(t, db, `CREATE TABLE n.d (k BIGINT, name VARCHAR(8)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 6
		PROPERTIES ("replication_num" = "2", "colocate_with" = "g")`)
	mustExec(t, db, `CREATE TABLE n.r (v BIGINT, tag VARCHAR(8)) DUPLICATE KEY(v) DISTRIBUTED BY HASH(v) BUCKETS 3
		PROPERTIES ("replication_num" = "2")`)
	mustExec(t, db, `INSERT INTO n.f SELECT number, number % 100 FROM numbers("number" = "100000")`)
	mustExec(t, db, `INSERT INTO n.d SELECT number, concat('n', number % 7) FROM numbers("number" = "1000")`)
	mustExec(t, db, `INSERT INTO n.r SELECT number, concat('t', number % 3) FROM numbers("number" = "1000")`)
	t.Logf("loaded at %s", time.Since(start).Round(time.Millisecond))
	perHost := map[string]int{}
	for _, r := range queryStrings(t, db, "SHOW TABLETS FROM n.f") {
		perHost[r[2]]++
	}
	if len(perHost) != 3 {
		t.Fatalf("replicas of n.f on %d backends, want 3: %v", len(perHost), perHost)
	}
	for _, q := range []struct{ sql, dist, want string }{
		// k < 1000 of f meets every row of d: 1000 rows, sum of k.
		{"SELECT count(*), sum(f.k) FROM n.f JOIN n.d ON f.k = d.k", "COLOCATE", "1000 499500"},
		// every f row meets the r row with its v (1000 f rows per v < 100).
		{"SELECT count(*), sum(r.v) FROM n.r JOIN [bucket] n.f ON r.v = f.v", "BUCKET_SHUFFLE", "100000 4950000"},
		{"SELECT count(*), sum(r.v) FROM n.f JOIN [shuffle] n.r ON f.v = r.v", "PARTITIONED", "100000 4950000"},
	} {
		plan := strings.Join(netnsLines(queryStrings(t, db, "EXPLAIN "+q.sql)), "\n")
		if !strings.Contains(plan, "join op: INNER JOIN ("+q.dist+")") {
			t.Errorf("%s: plan is not %s:\n%s", q.sql, q.dist, plan)
		}
		if got := strings.Join(queryStrings(t, db, q.sql)[0], " "); got != q.want {
			t.Errorf("%s = %s, want %s", q.sql, got, q.want)
		}
	}

	// Cut be2 half a second into a shuffle join of 100M matches (100
	// values of v, 1000 rows each on both sides: seconds; the 50M of an
	// earlier version once finished before the cut in a loaded run).
	long := "SELECT count(*) FROM n.f a JOIN [shuffle] n.f b ON a.v = b.v"
	done := make(chan error, 1)
	go func() {
		_, err := queryStringsErr(db, long)
		done <- err
	}()
	time.Sleep(500 * time.Millisecond)
	c.link("cut", "be2")
	cut := time.Now()
	select {
	case err := <-done:
		waited := time.Since(cut)
		if err == nil {
			t.Fatalf("the join succeeded with be2 cut off (it may have finished before the cut: make it longer)")
		}
		if !strings.Contains(err.Error(), c.addrs["be2"]) {
			t.Errorf("the error does not name be2 (%s): %v", c.addrs["be2"], err)
		}
		if waited > 5*time.Second {
			t.Errorf("the join failed %s after the cut, want within 5 s", waited)
		}
		t.Logf("failed %s after the cut: %v", waited.Round(time.Millisecond), err)
	case <-time.After(15 * time.Second):
		t.Fatalf("the join still runs 15 s after be2 was cut off\n%s", c.logs())
	}

	// The link back: the cluster heals by itself and answers right.
	c.link("heal", "be2")
	healed := false
	var last error
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		rows, err := queryStringsErr(db, "SELECT count(*), sum(r.v) FROM n.f JOIN [shuffle] n.r ON f.v = r.v")
		// A query failing while the cluster settles names the backend
		// whose link was cut (a healthy backend whose exchange to it broke
		// names both ends), not only a healthy one.
		if err != nil {
			t.Logf("after the heal: %v", err)
			if !strings.Contains(err.Error(), c.addrs["be2"]+":") {
				t.Errorf("after be2's link came back a query failed without naming be2 (%s): %v", c.addrs["be2"], err)
			}
		}
		if last = err; err == nil {
			if got := strings.Join(rows[0], " "); got != "100000 4950000" {
				t.Fatalf("after the heal the join returned %s", got)
			}
			healed = true
			break
		}
	}
	if !healed {
		t.Fatalf("the cluster did not heal within 30 s of the link coming back: %v\n%s", last, c.logs())
	}

	// Loads keep committing on the majority while be3 is cut off, and
	// once its link is back its replicas catch up: every acknowledged row
	// is there, no refused one is, and every replica is healthy again.
	waitBackendsAlive(t, db, 3)
	mustExec(t, db, `CREATE TABLE n.l (k BIGINT, v BIGINT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 6
		PROPERTIES ("replication_num" = "3")`)
	var acked []int
	var failed []string
	duringCut := 0
	var cutAt, healAt time.Time
	for i, t0 := 0, time.Now(); time.Since(t0) < 12*time.Second; i++ {
		switch {
		case cutAt.IsZero() && time.Since(t0) > 2*time.Second:
			c.link("cut", "be3")
			cutAt = time.Now()
		case healAt.IsZero() && time.Since(t0) > 8*time.Second:
			c.link("heal", "be3")
			healAt = time.Now()
		}
		if _, err := db.Exec(fmt.Sprintf("INSERT INTO n.l VALUES (%d, %d)", i, i*10)); err != nil {
			failed = append(failed, err.Error())
			continue
		}
		acked = append(acked, i)
		// Past the 5 s a cut takes to notice, while still cut.
		if !cutAt.IsZero() && healAt.IsZero() && time.Since(cutAt) > 5*time.Second {
			duringCut++
		}
	}
	if duringCut == 0 {
		t.Errorf("no load committed while be3 was cut off (%d acknowledged, %d failed: %v)", len(acked), len(failed), failed)
	}
	var wantSum int64
	for _, k := range acked {
		wantSum += int64(k) * 10
	}
	want := fmt.Sprintf("%d %d", len(acked), wantSum)
	if len(acked) == 0 {
		want = "0 NULL"
	}
	if got := strings.Join(queryStrings(t, db, "SELECT count(*), sum(v) FROM n.l")[0], " "); got != want {
		t.Errorf("after the loads n.l has %s, want the %d acknowledged rows: %s (refused: %v)", got, len(acked), want, failed)
	}
	t.Logf("%d loads acknowledged (%d while be3 was cut off), %d refused", len(acked), duringCut, len(failed))
	var bad [][]string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		if bad = unhealthy(t, db, "n.l"); len(bad) == 0 {
			break
		}
	}
	if len(bad) > 0 {
		t.Errorf("replicas of n.l still unhealthy a minute after the link came back: %v", bad)
	}

	// The route between be2 and be3 breaks while the FE still reaches
	// both (both stay alive): a shuffle join between them fails naming
	// both ends of the broken link — the backend whose exchange failed
	// and the one it could not reach — not just one healthy backend; with
	// the route back it answers again.
	c.isolate("isolate", "be2", "be3")
	join := "SELECT count(*), sum(r.v) FROM n.f JOIN [shuffle] n.r ON f.v = r.v"
	began := time.Now()
	_, err = queryStringsErr(db, join)
	if err == nil {
		t.Errorf("the shuffle join succeeded with be2 and be3 unable to reach each other")
	} else {
		t.Logf("failed %s after be2 and be3 lost each other: %v", time.Since(began).Round(time.Millisecond), err)
		if !strings.Contains(err.Error(), c.addrs["be2"]+":") || !strings.Contains(err.Error(), c.addrs["be3"]+":") {
			t.Errorf("the error does not name both ends of the broken link (be2 %s, be3 %s): %v", c.addrs["be2"], c.addrs["be3"], err)
		}
		if took := time.Since(began); took > 15*time.Second {
			t.Errorf("the join failed %s after it began, want within 15 s", took)
		}
	}
	c.isolate("rejoin", "be2", "be3")
	rejoined := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		rows, err := queryStringsErr(db, join)
		if last = err; err == nil {
			if got := strings.Join(rows[0], " "); got != "100000 4950000" {
				t.Fatalf("after the route came back the join returned %s", got)
			}
			rejoined = true
			break
		}
	}
	if !rejoined {
		t.Errorf("the join still fails 30 s after be2 and be3 reach each other again: %v", last)
	}
}

// isolate runs cluster.sh isolate|rejoin between two hosts.
func (c *netnsCluster) isolate(cmd, host, peer string) {
	c.t.Helper()
	if out, err := exec.Command("bash", c.script, cmd, c.name, host, peer).CombinedOutput(); err != nil {
		c.t.Fatalf("cluster.sh %s %s %s: %v\n%s", cmd, host, peer, err, out)
	}
}

func netnsLines(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, strings.Join(r, " "))
	}
	return out
}
