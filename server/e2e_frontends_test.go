package server_test

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// startHAFE runs a replicated frontend process: its journal on editPort,
// joining helper's cluster unless helper is "".
func startHAFE(t *testing.T, dir string, mysqlPort, httpPort, editPort int, helper string) *proc {
	t.Helper()
	fe := &proc{t: t, dir: dir, exited: make(chan struct{}), out: &syncBuffer{},
		mysqlAddr: fmt.Sprintf("127.0.0.1:%d", mysqlPort), httpAddr: fmt.Sprintf("127.0.0.1:%d", httpPort)}
	args := []string{"fe", "--data-dir", dir, "--mysql-port", fmt.Sprint(mysqlPort), "--http-port", fmt.Sprint(httpPort),
		"--edit-log-port", fmt.Sprint(editPort), "--log-level", "warn"}
	if helper != "" {
		args = append(args, "--helper", helper)
	}
	fe.cmd = exec.Command(dorisgoBinary(t), args...)
	fe.cmd.Stdout, fe.cmd.Stderr = fe.out, fe.out
	if err := fe.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { fe.cmd.Wait(); close(fe.exited) }()
	t.Cleanup(fe.kill)
	if err := fe.waitReady(60 * time.Second); err != nil {
		t.Fatal(err)
	}
	return fe
}

type feView struct {
	role     string
	master   bool
	joined   bool
	alive    bool
	journal  uint64
	errMsg   string
	currentC bool
}

// frontends reads SHOW FRONTENDS by name.
func frontends(db *sql.DB) (map[string]feView, error) {
	rows, err := queryStringsErr(db, "SHOW FRONTENDS")
	if err != nil {
		return nil, err
	}
	out := map[string]feView{}
	for _, r := range rows {
		j, _ := strconv.ParseUint(r[9], 10, 64)
		out[r[0]] = feView{role: r[5], master: r[6] == "true", joined: r[7] == "true", alive: r[8] == "true", journal: j, errMsg: r[12], currentC: r[14] == "Yes"}
	}
	return out, nil
}

// Three FOLLOWER frontends as separate processes over three backends:
// writes sent to a follower are forwarded to the master and seen by the
// client's next read there and on every frontend; kill -9 of the master
// elects a new one within 10 s with every acknowledged DDL, grant and
// INSERT present; the killed master restarts as a follower and catches up;
// a stream load sent to a follower is redirected to the master.
// stablePort is a free port below Linux's ephemeral range (32768 up), so
// that no outgoing connection takes it before a frontend binds it, or
// while one restarts on it (its name in the cluster is its edit log port).
func stablePort(t *testing.T) int {
	t.Helper()
	stableMu.Lock()
	defer stableMu.Unlock()
	for range 100 {
		p := 20000 + rand.IntN(12000)
		if stableUsed[p] {
			continue // handed out already: never twice in one test binary
		}
		if ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p)); err == nil {
			ln.Close()
			stableUsed[p] = true
			return p
		}
	}
	t.Fatal("no free port below 32000")
	return 0
}

var (
	stableMu   sync.Mutex
	stableUsed = map[int]bool{}
)

// haCluster is three FOLLOWER frontend processes over three backends.
type haCluster struct {
	root  string
	fes   []*proc
	dbs   []*sql.DB
	addrs []feAddr
}

type feAddr struct{ mysql, http, edit int }

func (c *haCluster) name(i int) string { return fmt.Sprintf("127.0.0.1:%d", c.addrs[i].edit) }

// restart starts frontend i again on its data dir and ports.
func (c *haCluster) restart(t *testing.T, i int) {
	c.fes[i] = startHAFE(t, filepath.Join(c.root, fmt.Sprintf("fe%d", i)), c.addrs[i].mysql, c.addrs[i].http, c.addrs[i].edit, "")
	c.dbs[i] = openDB(t, c.fes[i].mysqlAddr, "", true)
}

func startHACluster(t *testing.T) *haCluster {
	t.Helper()
	c := &haCluster{root: t.TempDir(), fes: make([]*proc, 3), dbs: make([]*sql.DB, 3), addrs: make([]feAddr, 3)}
	bes := make([]*proc, 3)
	for i := range bes {
		bes[i] = startBE(t, filepath.Join(c.root, fmt.Sprintf("be%d", i)), false)
	}
	for i := range c.addrs {
		c.addrs[i] = feAddr{stablePort(t), stablePort(t), stablePort(t)}
	}
	c.restart(t, 0)
	db0 := c.dbs[0]
	for _, b := range bes {
		mustExec(t, db0, fmt.Sprintf(`ALTER SYSTEM ADD BACKEND "%s"`, b.mysqlAddr))
	}
	waitBackendsAlive(t, db0, 3)
	// A frontend must be added before it can join.
	for i := 1; i < 3; i++ {
		mustExec(t, db0, fmt.Sprintf(`ALTER SYSTEM ADD FOLLOWER "%s"`, c.name(i)))
	}
	_, err := db0.Exec(fmt.Sprintf(`ALTER SYSTEM ADD OBSERVER "%s"`, c.name(1)))
	if err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("adding a member twice: %v", err)
	}
	for i := 1; i < 3; i++ {
		c.fes[i] = startHAFE(t, filepath.Join(c.root, fmt.Sprintf("fe%d", i)), c.addrs[i].mysql, c.addrs[i].http, c.addrs[i].edit, c.name(0))
		c.dbs[i] = openDB(t, c.fes[i].mysqlAddr, "", true)
	}
	waitFor(t, 30*time.Second, "three voting followers, all alive", func() bool {
		v, err := frontends(c.dbs[1])
		if err != nil || len(v) != 3 {
			return false
		}
		for _, f := range v {
			if f.role != "FOLLOWER" || !f.joined || !f.alive {
				return false
			}
		}
		return v[c.name(0)].master && v[c.name(1)].currentC
	})
	return c
}

// master is the frontend SHOW FRONTENDS on frontend i calls master.
func (c *haCluster) master(i int) string {
	v, err := frontends(c.dbs[i])
	if err != nil {
		return ""
	}
	for n, f := range v {
		if f.master {
			return n
		}
	}
	return ""
}

func TestE2EFrontendsFailover(t *testing.T) {
	c := startHACluster(t)
	fes, dbs, name := c.fes, c.dbs, c.name
	if rows := queryStrings(t, dbs[2], "SHOW PROC '/frontends'"); len(rows) != 3 {
		t.Fatalf("SHOW PROC '/frontends' on a follower: %d rows, want 3", len(rows))
	}
	// Writes through a follower: DDL, a load, a transaction, a user.
	f1 := dbs[1]
	mustExec(t, f1, "CREATE DATABASE ha")
	mustExec(t, f1, `CREATE TABLE ha.t (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "3")`)
	conn, err := f1.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	// Read-your-writes on the follower: each INSERT is counted at once.
	for i := 1; i <= 10; i++ {
		mustExec(t, conn, fmt.Sprintf("INSERT INTO ha.t VALUES (%d, %d)", i, i*10))
		var n int
		if err := conn.QueryRowContext(t.Context(), "SELECT count(*) FROM ha.t").Scan(&n); err != nil || n != i {
			t.Fatalf("after INSERT %d through a follower it reads %d rows (%v)", i, n, err)
		}
	}
	mustExec(t, conn, "BEGIN")
	mustExec(t, conn, "INSERT INTO ha.t VALUES (11, 110)")
	mustExec(t, conn, "INSERT INTO ha.t VALUES (12, 120)")
	mustExec(t, conn, "COMMIT")
	mustExec(t, conn, "BEGIN")
	mustExec(t, conn, "INSERT INTO ha.t VALUES (99, 990)")
	mustExec(t, conn, "ROLLBACK")
	conn.Close()
	mustExec(t, f1, `CREATE USER reader IDENTIFIED BY 'pw'`)
	mustExec(t, f1, `GRANT SELECT_PRIV ON ha.* TO reader`)
	// SET GLOBAL through a follower reaches every frontend.
	mustExec(t, f1, "SET GLOBAL query_timeout = 321")
	want := "12 780"
	for i, db := range dbs {
		waitFor(t, 10*time.Second, fmt.Sprintf("frontend %d has the SET GLOBAL", i), func() bool {
			r, err := queryStringsErr(db, "SELECT @@global.query_timeout")
			return err == nil && r[0][0] == "321"
		})
		waitFor(t, 10*time.Second, fmt.Sprintf("frontend %d sees the follower's writes", i), func() bool {
			r, err := queryStringsErr(db, "SELECT count(*), sum(v) FROM ha.t")
			return err == nil && strings.Join(r[0], " ") == want
		})
		rd := openDBAs(t, fes[i].mysqlAddr, "reader", "pw", "", true)
		if got := queryStrings(t, rd, "SELECT count(*) FROM ha.t"); got[0][0] != "12" {
			t.Fatalf("the granted user reads %v on frontend %d", got, i)
		}
	}
	// A stream load sent to a follower goes to the master (307).
	rep := mustStreamLoad(t, fes[2].httpAddr, "ha", "t", map[string]string{"column_separator": ","}, []byte("13,130\n14,140\n"))
	if rep.Status != "Success" || rep.NumberLoadedRows != 2 {
		t.Fatalf("stream load through a follower: %+v", rep)
	}

	// A server-side prepared INSERT through a follower (the driver's
	// binary protocol) runs on the master with its arguments.
	prep := openDB(t, fes[1].mysqlAddr, "", false)
	if _, err := prep.Exec("INSERT INTO ha.t VALUES (?, ?)", 15, 150); err != nil {
		t.Fatalf("prepared INSERT through a follower: %v", err)
	}
	if got := queryStrings(t, prep, "SELECT count(*), sum(v) FROM ha.t WHERE k >= 13"); strings.Join(got[0], " ") != "3 420" {
		t.Fatalf("after the stream load and the prepared INSERT a follower reads %v, want 3 420", got)
	}

	// A schema change job the kill interrupts resumes on the new master.
	mustExec(t, f1, `CREATE TABLE ha.sc (k INT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "3")`)
	mustExec(t, f1, `INSERT INTO ha.sc SELECT number, number FROM numbers("number" = "300000")`)

	// Kill -9 the master while clients write through the followers.
	var mu sync.Mutex
	acked := map[int]bool{}  // INSERTed keys acknowledged
	tables := map[int]bool{} // CREATE TABLEs acknowledged
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for k := 1000; ; k++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := dbs[2].Exec(fmt.Sprintf("INSERT INTO ha.t VALUES (%d, 1)", k)); err == nil {
				mu.Lock()
				acked[k] = true
				mu.Unlock()
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := dbs[1].Exec(fmt.Sprintf("CREATE TABLE ha.c%d (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1", i)); err == nil {
				mu.Lock()
				tables[i] = true
				mu.Unlock()
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	time.Sleep(time.Second)
	mustExec(t, dbs[1], "ALTER TABLE ha.sc MODIFY COLUMN v BIGINT")
	killed := time.Now()
	fes[0].kill()
	var newMaster string
	waitFor(t, 10*time.Second, "a new master after kill -9 of the old one", func() bool {
		v, err := frontends(dbs[1])
		if err != nil {
			return false
		}
		for n, f := range v {
			if f.master && n != name(0) {
				newMaster = n
				return true
			}
		}
		return false
	})
	t.Logf("new master %s elected %v after the kill", newMaster, time.Since(killed).Round(time.Millisecond))
	// Writes resume through both followers.
	waitFor(t, 15*time.Second, "writes acknowledged after the failover", func() bool {
		mu.Lock()
		defer mu.Unlock()
		for k := range acked {
			if k > 1000+int(time.Since(killed)/(20*time.Millisecond))/4 {
				return true
			}
		}
		return false
	})
	time.Sleep(time.Second)
	close(stop)
	wg.Wait()
	if j := waitJob(t, dbs[1], "ha", "sc", 60*time.Second); j["State"] != "FINISHED" {
		t.Fatalf("schema change begun before the master was killed: %s (%q)", j["State"], j["Msg"])
	}
	if got := queryStrings(t, dbs[1], "SELECT count(*), sum(v) FROM ha.sc"); strings.Join(got[0], " ") != "300000 44999850000" {
		t.Fatalf("after the schema change across the failover: %v", got)
	}
	for _, r := range queryStrings(t, dbs[1], "DESC ha.sc") {
		if r[0] == "v" && !strings.EqualFold(r[1], "bigint") {
			t.Fatalf("column v is %s after the schema change, want bigint", r[1])
		}
	}

	// The old master restarts and rejoins as a follower.
	c.restart(t, 0)
	waitFor(t, 20*time.Second, "the old master back as an alive follower", func() bool {
		v, err := frontends(dbs[1])
		return err == nil && v[name(0)].alive && !v[name(0)].master && v[newMaster].master
	})
	mu.Lock()
	defer mu.Unlock()
	if len(acked) < 10 || len(tables) < 3 { // a loaded machine writes slowly; the check is that writes ran at all
		t.Fatalf("too few writes acknowledged around the failover: %d inserts, %d tables", len(acked), len(tables))
	}
	for i, db := range dbs {
		waitFor(t, 15*time.Second, fmt.Sprintf("frontend %d has every acknowledged write", i), func() bool {
			rows, err := queryStringsErr(db, "SELECT k FROM ha.t WHERE k >= 1000")
			if err != nil {
				return false
			}
			have := map[int]bool{}
			for _, r := range rows {
				k, _ := strconv.Atoi(r[0])
				have[k] = true
			}
			for k := range acked {
				if !have[k] {
					return false
				}
			}
			for c := range tables {
				if _, err := queryStringsErr(db, fmt.Sprintf("SELECT count(*) FROM ha.c%d", c)); err != nil {
					return false
				}
			}
			return true
		})
	}
	t.Logf("%d INSERTs and %d CREATE TABLEs acknowledged around the kill, all present on the 3 frontends", len(acked), len(tables))

	// A follower whose data dir is lost is rebuilt from the others: the
	// master forgets it and adds it again, and it starts empty with a helper.
	lost := -1
	for i := range fes {
		if name(i) != newMaster {
			lost = i
		}
	}
	var keep int
	for i := range fes {
		if i != lost {
			keep = i
		}
	}
	fes[lost].kill()
	mustExec(t, dbs[keep], fmt.Sprintf(`ALTER SYSTEM DROP FOLLOWER "%s"`, name(lost)))
	if err := os.RemoveAll(filepath.Join(c.root, fmt.Sprintf("fe%d", lost))); err != nil {
		t.Fatal(err)
	}
	mustExec(t, dbs[keep], fmt.Sprintf(`ALTER SYSTEM ADD FOLLOWER "%s"`, name(lost)))
	fes[lost] = startHAFE(t, filepath.Join(c.root, fmt.Sprintf("fe%d", lost)), c.addrs[lost].mysql, c.addrs[lost].http, c.addrs[lost].edit, newMaster)
	dbs[lost] = openDB(t, fes[lost].mysqlAddr, "", true)
	waitFor(t, 20*time.Second, "the rebuilt follower to vote and hold every acknowledged write", func() bool {
		v, err := frontends(dbs[keep])
		if err != nil || !v[name(lost)].joined {
			return false
		}
		q := "SELECT count(*), sum(k) FROM ha.t WHERE k >= 1000"
		r, err := queryStringsErr(dbs[lost], q)
		w, werr := queryStringsErr(dbs[keep], q)
		return err == nil && werr == nil && strings.Join(r[0], " ") == strings.Join(w[0], " ")
	})
}

// A master cut off from both other followers commits nothing: its write
// fails and it gives up the role (it starts over in place, where Doris's
// FE exits); the other two elect a master once they are reachable again,
// the write is not there, and the old master follows by itself.
func TestE2EFrontendsMinorityCommitsNothing(t *testing.T) {
	c := startHACluster(t)
	mustExec(t, c.dbs[0], "CREATE DATABASE mi")
	mustExec(t, c.dbs[0], "CREATE TABLE mi.t (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1")
	// The master now (an election may have moved it since the start).
	m := -1
	waitFor(t, 10*time.Second, "a master", func() bool {
		name := c.master(0)
		for i := range c.fes {
			if c.name(i) == name {
				m = i
			}
		}
		return m >= 0
	})
	// SIGSTOP the two others: the master is alone.
	var others []int
	for i := range c.fes {
		if i != m {
			others = append(others, i)
			c.fes[i].cmd.Process.Signal(syscall.SIGSTOP)
		}
	}
	start := time.Now()
	_, err := c.dbs[m].Exec("INSERT INTO mi.t VALUES (1)")
	_, derr := c.dbs[m].Exec("CREATE TABLE mi.lost (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1")
	if err == nil || derr == nil {
		t.Fatalf("a master without a quorum acknowledged writes: INSERT %v, CREATE TABLE %v", err, derr)
	}
	t.Logf("the isolated master refused the writes after %v: %v", time.Since(start).Round(time.Millisecond), err)
	waitFor(t, 15*time.Second, "the isolated master to give up its role", func() bool {
		return strings.Contains(c.fes[m].out.String(), "no longer the master")
	})
	for _, i := range others {
		c.fes[i].cmd.Process.Signal(syscall.SIGCONT)
	}
	// Any of the three may win the next election, the old master too:
	// it started over with a journal as complete as theirs.
	waitFor(t, 20*time.Second, "a master once a quorum is reachable again", func() bool {
		return c.master(others[0]) != ""
	})
	// The follower replays what the master had committed before it was
	// cut off (the table), not what it refused.
	waitFor(t, 20*time.Second, "the follower to replay the journal", func() bool {
		_, err := queryStringsErr(c.dbs[others[0]], "SELECT count(*) FROM mi.t")
		return err == nil
	})
	if got := queryStrings(t, c.dbs[others[0]], "SELECT count(*) FROM mi.t"); got[0][0] != "0" {
		t.Fatalf("the refused INSERT is visible: %v", got)
	}
	if _, err := queryStringsErr(c.dbs[others[1]], "SELECT * FROM mi.lost"); errCode(err) != 1146 {
		t.Fatalf("the refused CREATE TABLE: %v, want 1146", err)
	}
	waitFor(t, 20*time.Second, "a write through a follower after the partition healed", func() bool {
		_, err := c.dbs[others[1]].Exec("INSERT INTO mi.t VALUES (2)")
		return err == nil
	})
	select {
	case <-c.fes[m].exited:
		t.Fatalf("the old master exited instead of starting over: %s", c.fes[m].out.String())
	default:
	}
	waitFor(t, 30*time.Second, "the old master caught up", func() bool {
		r, err := queryStringsErr(c.dbs[m], "SELECT count(*), max(k) FROM mi.t")
		return err == nil && strings.Join(r[0], " ") == "1 2"
	})
}

// SHOW PROCESSLIST lists this frontend's connections; with
// show_all_fe_connection (Doris's) it lists every frontend's, each named
// in an FE column, under the same visibility rule (a user sees its own).
func TestE2EFrontendsProcessList(t *testing.T) {
	c := startHACluster(t)
	mustExec(t, c.dbs[0], "CREATE DATABASE plx")
	mustExec(t, c.dbs[0], "CREATE USER pu IDENTIFIED BY 'pw'")
	mustExec(t, c.dbs[0], "GRANT SELECT_PRIV ON plx.* TO pu")
	// An idle connection of pu on the third frontend, in plx.
	waitFor(t, 10*time.Second, "the user and its grant on the third frontend", func() bool {
		_, err := queryStringsErr(openDBAs(t, c.fes[2].mysqlAddr, "pu", "pw", "plx", true), "SELECT 1")
		return err == nil
	})
	held := pinned(t, openDBAs(t, c.fes[2].mysqlAddr, "pu", "pw", "plx", true))
	if _, err := held.ExecContext(t.Context(), "SELECT 1"); err != nil {
		t.Fatal(err)
	}
	onThird := func(rows [][]string, fe int) int {
		n := 0
		for _, r := range rows {
			if r[1] == "pu" && r[3] == "plx" && (fe < 0 || r[len(r)-1] == c.name(fe)) {
				n++
			}
		}
		return n
	}
	root := pinned(t, c.dbs[0])
	rows := queryStrings(t, root, "SHOW PROCESSLIST")
	if len(rows[0]) != 8 || onThird(rows, -1) != 0 {
		t.Fatalf("SHOW PROCESSLIST on the first frontend lists another's connection: %v", rows)
	}
	mustExec(t, root, "SET show_all_fe_connection = true")
	rows = queryStrings(t, root, "SHOW PROCESSLIST")
	if len(rows[0]) != 9 || onThird(rows, 2) == 0 {
		t.Fatalf("with show_all_fe_connection: %v, want pu's connection on %s", rows, c.name(2))
	}
	// pu on the second frontend sees its own connection on the third, and
	// not root's.
	pu := pinned(t, openDBAs(t, c.fes[1].mysqlAddr, "pu", "pw", "", true))
	mustExec(t, pu, "SET show_all_fe_connection = true")
	rows = queryStrings(t, pu, "SHOW PROCESSLIST")
	for _, r := range rows {
		if r[1] != "pu" {
			t.Fatalf("pu sees another user's connection: %v", rows)
		}
	}
	if onThird(rows, 2) == 0 {
		t.Fatalf("pu does not see its connection on the third frontend: %v", rows)
	}
}

// On a frontend of its own, show_all_fe_connection adds the FE column,
// naming it as SHOW FRONTENDS does.
func TestE2EProcessListStandaloneFE(t *testing.T) {
	s := newServer(t)
	c := pinned(t, openDB(t, s.MySQLAddr(), "", true))
	mustExec(t, c, "SET show_all_fe_connection = true")
	fe := queryStrings(t, c, "SHOW FRONTENDS")[0][0]
	rows := queryStrings(t, c, "SHOW PROCESSLIST")
	if len(rows) == 0 || len(rows[0]) != 9 || rows[0][8] != fe {
		t.Fatalf("SHOW PROCESSLIST with show_all_fe_connection on a frontend of its own: %v, want an FE column %s", rows, fe)
	}
}
