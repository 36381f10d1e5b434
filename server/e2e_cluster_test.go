package server_test

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// startBE runs `dorisgo be` on a free port; the returned proc's mysqlAddr
// field holds its gRPC address.
// startFE runs an FE process on free ports, killed at test end.
func startFE(t *testing.T, dir string) *proc {
	t.Helper()
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		fe := &proc{t: t, dir: dir, exited: make(chan struct{}), out: &syncBuffer{}}
		mp, hp := freePort(t), freePort(t)
		fe.mysqlAddr, fe.httpAddr = fmt.Sprintf("127.0.0.1:%d", mp), fmt.Sprintf("127.0.0.1:%d", hp)
		fe.cmd = exec.Command(dorisgoBinary(t), "fe", "--data-dir", fe.dir, "--mysql-port", fmt.Sprint(mp), "--http-port", fmt.Sprint(hp), "--log-level", "warn")
		fe.cmd.Stdout, fe.cmd.Stderr = fe.out, fe.out
		if err := fe.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { fe.cmd.Wait(); close(fe.exited) }()
		t.Cleanup(fe.kill)
		t.Cleanup(fe.dumpIfFailed)
		// A port taken between freePort and the bind makes it exit: again
		// on new ports.
		if lastErr = fe.waitReady(30 * time.Second); lastErr == nil {
			return fe
		}
		fe.kill()
	}
	t.Fatalf("frontend did not start: %v", lastErr)
	return nil
}

func startBE(t *testing.T, dir string, withHTTP bool) *proc {
	t.Helper()
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port := freePort(t)
		p := &proc{t: t, dir: dir, mysqlAddr: fmt.Sprintf("127.0.0.1:%d", port), exited: make(chan struct{}), out: &syncBuffer{}}
		args := []string{"be", "--data-dir", dir, "--be-port", fmt.Sprint(port), "--log-level", "warn"}
		if withHTTP {
			hp := freePort(t)
			p.httpAddr = fmt.Sprintf("127.0.0.1:%d", hp)
			args = append(args, "--http-port", fmt.Sprint(hp))
		}
		p.cmd = exec.Command(dorisgoBinary(t), args...)
		p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { p.cmd.Wait(); close(p.exited) }()
		t.Cleanup(p.kill)
		t.Cleanup(p.dumpIfFailed)
		// A port taken by someone else between freePort and the bind makes
		// the backend exit: start it again on new ports.
		if lastErr = p.waitListening(30*time.Second, p.mysqlAddr, p.httpAddr); lastErr == nil {
			return p
		}
		p.kill()
	}
	t.Fatalf("backend did not start: %v", lastErr)
	return nil
}

// waitListening waits until every non-empty addr accepts connections, or
// the process exits.
func (p *proc) waitListening(timeout time.Duration, addrs ...string) error {
	deadline := time.Now().Add(timeout)
	for _, a := range addrs {
		for a != "" {
			select {
			case <-p.exited:
				return fmt.Errorf("process exited: %s", p.out.String())
			default:
			}
			c, err := net.DialTimeout("tcp", a, time.Second)
			if err == nil {
				c.Close()
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s not listening after %v: %v", a, timeout, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	return nil
}

// A real cluster of separate processes: an FE and three BEs joined with
// ALTER SYSTEM ADD BACKEND. Queries read tablets on every backend; a
// backend killed in the middle of a query fails that query within 5 s
// with an error naming it, the FE keeps serving from the other replicas,
// and a restarted backend is Alive again within 10 s.
func TestE2EClusterProcesses(t *testing.T) {
	root := t.TempDir()
	bes := make([]*proc, 3)
	for i := range bes {
		bes[i] = startBE(t, filepath.Join(root, fmt.Sprintf("be%d", i)), i == 0)
	}
	fe := startFE(t, filepath.Join(root, "fe"))
	db := openDB(t, fe.mysqlAddr, "", true)
	for _, b := range bes {
		mustExec(t, db, fmt.Sprintf(`ALTER SYSTEM ADD BACKEND "%s"`, b.mysqlAddr))
	}
	waitBackendsAlive(t, db, 3)

	mustExec(t, db, "CREATE DATABASE cl")
	mustExec(t, db, `CREATE TABLE cl.f (k BIGINT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 6 PROPERTIES ("replication_num" = "2")`)
	mustExec(t, db, `CREATE TABLE cl.d (k BIGINT, name VARCHAR(8)) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "2")`)
	var f, d []string
	for i := 0; i < 3000; i++ {
		f = append(f, fmt.Sprintf("(%d, %d)", i%300, i))
	}
	for i := 0; i < 300; i++ {
		d = append(d, fmt.Sprintf("(%d, 'n%d')", i, i%9))
	}
	mustExec(t, db, "INSERT INTO cl.f VALUES "+strings.Join(f, ","))
	mustExec(t, db, "INSERT INTO cl.d VALUES "+strings.Join(d, ","))
	// Tablets really sit on all three backend processes.
	perBE := map[string]int{}
	for _, r := range queryStrings(t, db, "SHOW TABLETS FROM cl.f") {
		perBE[r[2]]++
	}
	if len(perBE) != 3 {
		t.Fatalf("tablet replicas on %d backends, want 3: %v", len(perBE), perBE)
	}
	join := "SELECT d.name, count(*), sum(f.v) FROM cl.f JOIN [shuffle] cl.d ON f.k = d.k GROUP BY d.name ORDER BY d.name"
	want := queryStrings(t, db, join)
	if len(want) != 9 {
		t.Fatalf("join returned %d groups, want 9", len(want))
	}
	// A backend process serves its own Prometheus metrics: the join ran
	// fragment instances on it that sent rows through exchanges.
	metrics := httpGet(t, "http://"+bes[0].httpAddr+"/metrics")
	for _, series := range []string{`doris_be_fragment_instances_total{outcome="ok"}`, "doris_be_exchange_sent_bytes_total",
		"doris_be_exchange_received_rows_total", "doris_be_scan_rows_total"} {
		if v := metricValue(metrics, series); v <= 0 {
			t.Errorf("backend metric %s = %v, want > 0", series, v)
		}
	}

	// Kill one backend during a long query.
	long := "SELECT count(*) FROM cl.f a, cl.f b, cl.d c WHERE a.v + b.v + c.k > 0"
	errc := make(chan error, 1)
	start := time.Now()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		var n int64
		errc <- db.QueryRowContext(ctx, long).Scan(&n)
	}()
	time.Sleep(300 * time.Millisecond)
	killedAt := time.Now()
	bes[1].kill()
	select {
	case err := <-errc:
		if err == nil {
			// The query may have finished before the kill on a fast machine.
			t.Logf("long query finished in %v before the kill took effect", time.Since(start))
		} else {
			if took := time.Since(killedAt); took > 5*time.Second {
				t.Errorf("query failed %v after the backend died, want < 5s", took)
			}
			if !strings.Contains(err.Error(), "backend") {
				t.Errorf("error does not name the backend: %v", err)
			}
		}
	case <-time.After(15 * time.Second):
		t.Fatal("query still running 15s after its backend died")
	}
	// The FE keeps serving; reads go to the surviving replicas.
	waitFor(t, 10*time.Second, "the dead backend marked not alive", func() bool {
		for _, r := range queryStrings(t, db, "SHOW BACKENDS") {
			if r[3] == strings.Split(bes[1].mysqlAddr, ":")[1] && r[9] == "false" {
				return true
			}
		}
		return false
	})
	if got := queryStrings(t, db, join); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after a backend died: %v, want %v", got, want)
	}
	// Restarted on the same port and data dir, it is Alive again within 10 s.
	bes[1] = restartBE(t, bes[1])
	waitBackendsAliveWithin(t, db, 3, 10*time.Second) // restarted backend is Alive again within 10 s
	if got := queryStrings(t, db, join); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after the backend came back: %v, want %v", got, want)
	}

	// A backend that stops answering without closing anything (SIGSTOP:
	// its sockets stay open) fails the query within 5 s, naming it; once
	// it runs again it is Alive within 10 s.
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		var n int64
		errc <- db.QueryRowContext(ctx, long).Scan(&n)
	}()
	time.Sleep(300 * time.Millisecond)
	hungAt := time.Now()
	if err := bes[2].cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if err == nil {
			t.Logf("long query finished before the backend stopped")
		} else {
			if took := time.Since(hungAt); took > 5*time.Second {
				t.Errorf("query failed %v after the backend stopped answering, want < 5s", took)
			}
			if !strings.Contains(err.Error(), "backend") {
				t.Errorf("error does not name the backend: %v", err)
			}
			t.Logf("query failed %v after the backend stopped answering: %v", time.Since(hungAt), err)
		}
	case <-time.After(15 * time.Second):
		t.Error("query still running 15 s after its backend stopped answering")
	}
	if err := bes[2].cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	waitBackendsAliveWithin(t, db, 3, 10*time.Second) // resumed backend is Alive again within 10 s
	if got := queryStrings(t, db, join); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after the backend resumed: %v, want %v", got, want)
	}
}

func restartBE(t *testing.T, old *proc) *proc {
	t.Helper()
	p := &proc{t: t, dir: old.dir, mysqlAddr: old.mysqlAddr, exited: make(chan struct{}), out: &syncBuffer{}}
	port := strings.Split(old.mysqlAddr, ":")[1]
	p.cmd = exec.Command(dorisgoBinary(t), "be", "--data-dir", old.dir, "--be-port", port, "--log-level", "warn")
	p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(p.kill)
	t.Cleanup(p.dumpIfFailed)
	return p
}
