// Command soak runs a dorisgo cluster of separate processes (an FE and five
// BEs on loopback) under a steady stream of 3-replica loads and queries,
// kills one backend at random (kill -9) every round and restarts it after
// a random time — some shorter than the repair delay (its replicas are
// caught up), some longer (they are re-created elsewhere, and the stale
// copies dropped when it returns) — and checks every round:
//
//   - every acknowledged row is there and no refused one is (loads paused,
//     count(*) and sum(v) against what the loaders were told);
//   - queries during the round never saw fewer rows than were acknowledged
//     before they started;
//   - every tablet has 3 healthy replicas again within -heal after the
//     backend came back.
//
// It exits 1 at the first round that breaks one (the cluster's logs stay in
// -dir). Run from the bench module:
//
//	cd bench && go run ./cmd/soak -duration 10m
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/dorisgo/dorisgo/bench/engine"
)

type config struct {
	duration    time.Duration
	backends    int
	repairDelay int // tablet_repair_delay_factor_second
	heal        time.Duration
	seed        uint64
	dir         string
	loaders     int
}

func main() {
	var c config
	flag.DurationVar(&c.duration, "duration", 5*time.Minute, "how long to run rounds")
	flag.IntVar(&c.backends, "backends", 5, "backend processes")
	flag.IntVar(&c.repairDelay, "repair-delay", 8, "tablet_repair_delay_factor_second: a backend dead longer is replaced")
	flag.DurationVar(&c.heal, "heal", 2*time.Minute, "bound on every replica being healthy again after a restart")
	flag.Uint64Var(&c.seed, "seed", uint64(time.Now().UnixNano()), "random seed (printed; rerun a failure with it)")
	flag.StringVar(&c.dir, "dir", "", "data and log directory (default: a temporary one, removed after a pass)")
	flag.IntVar(&c.loaders, "loaders", 2, "concurrent INSERT streams")
	flag.Parse()
	log.SetFlags(log.Ltime)
	temp := c.dir == ""
	if temp {
		d, err := os.MkdirTemp("", "dorisgo-soak-")
		if err != nil {
			log.Fatal(err)
		}
		c.dir = d
	}
	if err := run(c); err != nil {
		log.Printf("FAIL: %v (seed %d; logs in %s)", err, c.seed, c.dir)
		os.Exit(1)
	}
	if temp {
		_ = os.RemoveAll(c.dir)
	}
	log.Print("PASS")
}

// proc is one dorisgo process.
type proc struct {
	name string
	args []string
	log  string
	cmd  *exec.Cmd
}

func (p *proc) start(bin string) error {
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	p.cmd = exec.Command(bin, p.args...)
	p.cmd.Stdout, p.cmd.Stderr = f, f
	return p.cmd.Start()
}

func (p *proc) kill() {
	if p.cmd != nil && p.cmd.Process != nil {
		_ = p.cmd.Process.Signal(syscall.SIGKILL)
		_, _ = p.cmd.Process.Wait()
		p.cmd = nil
	}
}

func freePort() int {
	p, err := engine.FreePort()
	if err != nil {
		log.Fatal(err)
	}
	return p
}

// loadStats is what the loaders were told.
type loadStats struct {
	mu               sync.RWMutex // loaders hold it shared per INSERT; a check takes it whole
	acked, ackedSum  atomic.Int64
	refused          atomic.Int64
	refusedFirst     atomic.Value
	nextKey          atomic.Int64
	queries, qErrors atomic.Int64
	qShort           atomic.Value // a query that saw fewer rows than acknowledged
	lastQueryErr     atomic.Value
	stop             atomic.Bool
}

func run(c config) error {
	rng := rand.New(rand.NewPCG(c.seed, 0))
	log.Printf("seed %d, %d backends, repair delay %d s, logs in %s", c.seed, c.backends, c.repairDelay, c.dir)
	bin := filepath.Join(c.dir, "dorisgo")
	if err := engine.BuildDorisgo("..", bin); err != nil {
		return fmt.Errorf("build: %w (run from the bench directory)", err)
	}
	mp, hp := freePort(), freePort()
	fe := &proc{name: "fe", log: filepath.Join(c.dir, "fe.log"),
		args: []string{"fe", "--data-dir", filepath.Join(c.dir, "fe"), "--mysql-port", strconv.Itoa(mp), "--http-port", strconv.Itoa(hp), "--log-level", "warn"}}
	if err := fe.start(bin); err != nil {
		return err
	}
	defer fe.kill()
	bes := make([]*proc, c.backends)
	for i := range bes {
		port := freePort()
		bes[i] = &proc{name: fmt.Sprintf("be%d", i), log: filepath.Join(c.dir, fmt.Sprintf("be%d.log", i)),
			args: []string{"be", "--data-dir", filepath.Join(c.dir, fmt.Sprintf("be%d", i)), "--be-port", strconv.Itoa(port), "--log-level", "warn"}}
		if err := bes[i].start(bin); err != nil {
			return err
		}
		defer bes[i].kill()
	}
	db, err := sql.Open("mysql", fmt.Sprintf("root@tcp(127.0.0.1:%d)/?interpolateParams=true", mp))
	if err != nil {
		return err
	}
	defer db.Close()
	if err := waitFor(60*time.Second, "the FE to answer", func() bool { return db.Ping() == nil }); err != nil {
		return err
	}
	for _, b := range bes {
		if _, err := db.Exec(fmt.Sprintf(`ALTER SYSTEM ADD BACKEND "127.0.0.1:%s"`, b.args[4])); err != nil {
			return err
		}
	}
	if err := waitFor(60*time.Second, "every backend alive", func() bool { return aliveCount(db) == c.backends }); err != nil {
		return err
	}
	for _, q := range []string{
		fmt.Sprintf(`ADMIN SET FRONTEND CONFIG ("tablet_repair_delay_factor_second" = "%d")`, c.repairDelay),
		"CREATE DATABASE soak",
		`CREATE TABLE soak.t (k BIGINT, v BIGINT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 10 PROPERTIES ("replication_num" = "3")`,
	} {
		if _, err := db.Exec(q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}

	st := &loadStats{}
	var wg sync.WaitGroup
	for i := 0; i < c.loaders; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); loader(db, st) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); querier(db, st) }()
	defer func() { st.stop.Store(true); wg.Wait() }()

	end := time.Now().Add(c.duration)
	for round := 1; time.Now().Before(end); round++ {
		victim := bes[rng.IntN(len(bes))]
		down := time.Duration(500+rng.IntN(2*c.repairDelay*1000)) * time.Millisecond
		log.Printf("round %d: kill -9 %s for %v (acknowledged %d rows so far)", round, victim.name, down.Round(100*time.Millisecond), st.acked.Load())
		victim.kill()
		time.Sleep(down)
		if err := victim.start(bin); err != nil {
			return err
		}
		if err := waitFor(60*time.Second, victim.name+" alive again", func() bool { return aliveCount(db) == c.backends }); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		t0 := time.Now()
		var bad []string
		if err := waitFor(c.heal, "every replica healthy", func() bool { bad = unhealthy(db); return len(bad) == 0 }); err != nil {
			return fmt.Errorf("round %d: %w; still: %v", round, err, bad)
		}
		healed := time.Since(t0)
		if err := check(db, st); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		log.Printf("round %d: healthy %v after the restart; %d rows acknowledged, %d loads refused, %d queries (%d failed) — all there",
			round, healed.Round(100*time.Millisecond), st.acked.Load(), st.refused.Load(), st.queries.Load(), st.qErrors.Load())
	}
	if v := st.refusedFirst.Load(); v != nil {
		log.Printf("first refused load: %v", v)
	}
	if v := st.lastQueryErr.Load(); v != nil {
		log.Printf("last failed query: %v", v)
	}
	return nil
}

// loader INSERTs batches of 50 new keys until stop.
func loader(db *sql.DB, st *loadStats) {
	for !st.stop.Load() {
		lo := st.nextKey.Add(50) - 50
		var vals []string
		var sum int64
		for k := lo; k < lo+50; k++ {
			vals = append(vals, fmt.Sprintf("(%d, %d)", k, k*3))
			sum += k * 3
		}
		st.mu.RLock()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		_, err := db.ExecContext(ctx, "INSERT INTO soak.t VALUES "+strings.Join(vals, ","))
		cancel()
		if err == nil {
			st.acked.Add(50)
			st.ackedSum.Add(sum)
		} else {
			st.refused.Add(1)
			st.refusedFirst.CompareAndSwap(nil, err.Error())
		}
		st.mu.RUnlock()
	}
}

// querier reads the table until stop: it must see at least the rows
// acknowledged before it asked.
func querier(db *sql.DB, st *loadStats) {
	for !st.stop.Load() {
		before := st.acked.Load()
		var n, s sql.NullInt64
		err := db.QueryRow("SELECT count(*), sum(v) FROM soak.t").Scan(&n, &s)
		st.queries.Add(1)
		switch {
		case err != nil:
			st.qErrors.Add(1)
			st.lastQueryErr.Store(err.Error())
		case n.Int64 < before:
			st.qShort.CompareAndSwap(nil, fmt.Sprintf("a query saw %d rows with %d acknowledged before it began", n.Int64, before))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// check pauses the loaders and compares the table with what they were told.
func check(db *sql.DB, st *loadStats) error {
	if v := st.qShort.Load(); v != nil {
		return fmt.Errorf("%v", v)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	var n, s sql.NullInt64
	var err error
	for try := 0; try < 5; try++ { // a query may fail right after a restart: it names the backend
		if err = db.QueryRow("SELECT count(*), sum(v) FROM soak.t").Scan(&n, &s); err == nil {
			break
		}
		time.Sleep(time.Second)
	}
	if err != nil {
		return fmt.Errorf("reading the table: %w", err)
	}
	if n.Int64 != st.acked.Load() || s.Int64 != st.ackedSum.Load() {
		return fmt.Errorf("the table holds %d rows (sum %d), the loaders were acknowledged %d (sum %d)",
			n.Int64, s.Int64, st.acked.Load(), st.ackedSum.Load())
	}
	return nil
}

// unhealthy lists the replicas not OK at the visible version, and tablets
// without 3 replicas.
func unhealthy(db *sql.DB) []string {
	rows, err := db.Query("ADMIN SHOW REPLICA STATUS FROM soak.t")
	if err != nil {
		return []string{err.Error()}
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var out []string
	per := map[string]int{}
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return []string{err.Error()}
		}
		per[vals[0].String]++
		// TabletId, …, BackendId, Version, LastFailedVersion, …, CommittedVersion, …, Status.
		if vals[12].String != "OK" || vals[3].String != vals[6].String || vals[4].String != "-1" {
			out = append(out, fmt.Sprintf("tablet %s on backend %s: %s", vals[0].String, vals[2].String, vals[12].String))
		}
	}
	for tab, n := range per {
		if n != 3 {
			out = append(out, fmt.Sprintf("tablet %s has %d replicas", tab, n))
		}
	}
	return out
}

func aliveCount(db *sql.DB) int {
	rows, err := db.Query("SHOW BACKENDS")
	if err != nil {
		return -1
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	n := 0
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if rows.Scan(ptrs...) == nil && vals[9].String == "true" {
			n++
		}
	}
	return n
}

func waitFor(d time.Duration, what string, cond func() bool) error {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(250 * time.Millisecond)
	}
	return nil
}
