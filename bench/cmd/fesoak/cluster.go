package main

import (
	"context"
	"database/sql"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"github.com/dorisgo/dorisgo/bench/engine"
)

// proc is one dorisgo process.
type proc struct {
	name string
	dir  string
	args []string
	log  string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
	killed bool
	status string
}

func (p *proc) start(bin string, extra ...string) error {
	f, err := os.OpenFile(p.log, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, append(slices.Clone(p.args), extra...)...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		f.Close()
		return err
	}
	exited := make(chan struct{})
	p.mu.Lock()
	p.cmd, p.exited, p.killed, p.status = cmd, exited, false, ""
	p.mu.Unlock()
	go func() {
		err := cmd.Wait()
		f.Close()
		p.mu.Lock()
		p.status = fmt.Sprint(err)
		if !p.killed {
			log.Printf("%s exited on its own: %v (see %s)", p.name, err, p.log)
		}
		p.mu.Unlock()
		close(exited)
	}()
	return nil
}

// kill SIGKILLs the process and waits for it.
func (p *proc) kill() {
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.killed = true
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-exited
}

// exitedOnItsOwn reports a process that ended without kill (a frontend
// that lost its master role exits, as Doris's does).
func (p *proc) exitedOnItsOwn() (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.killed {
		return "", false
	}
	select {
	case <-p.exited:
		return p.status, true
	default:
		return "", false
	}
}

// fe is a replicated frontend.
type fe struct {
	proc
	mysql, http, edit int
	db                *sql.DB
}

func (f *fe) editAddr() string { return "127.0.0.1:" + strconv.Itoa(f.edit) }

type cluster struct {
	bin string
	fes []*fe
	bes []*proc
}

func freePort() int {
	p, err := engine.FreePort()
	if err != nil {
		log.Fatal(err)
	}
	return p
}

func openDB(port int, user, pass string) *sql.DB {
	db, err := sql.Open("mysql", fmt.Sprintf("%s:%s@tcp(127.0.0.1:%d)/?interpolateParams=true&timeout=3s&readTimeout=90s&writeTimeout=30s", user, pass, port))
	if err != nil {
		log.Fatal(err)
	}
	db.SetConnMaxIdleTime(10 * time.Second)
	return db
}

// startCluster starts three backends and three frontends: the first
// bootstraps the journal and adds the backends and the other two, which
// join with it as their helper.
func startCluster(bin, dir string) (*cluster, error) {
	c := &cluster{bin: bin}
	for i := 0; i < 3; i++ {
		port := freePort()
		b := &proc{name: fmt.Sprintf("be%d", i), dir: filepath.Join(dir, fmt.Sprintf("be%d", i)), log: filepath.Join(dir, fmt.Sprintf("be%d.log", i))}
		b.args = []string{"be", "--data-dir", b.dir, "--be-port", strconv.Itoa(port), "--log-level", "warn"}
		if err := b.start(bin); err != nil {
			return nil, err
		}
		c.bes = append(c.bes, b)
	}
	for i := 0; i < 3; i++ {
		f := &fe{mysql: freePort(), http: freePort(), edit: freePort()}
		f.name, f.dir, f.log = fmt.Sprintf("fe%d", i), filepath.Join(dir, fmt.Sprintf("fe%d", i)), filepath.Join(dir, fmt.Sprintf("fe%d.log", i))
		f.args = []string{"fe", "--data-dir", f.dir, "--mysql-port", strconv.Itoa(f.mysql), "--http-port", strconv.Itoa(f.http),
			"--edit-log-port", strconv.Itoa(f.edit), "--log-level", "warn"}
		f.db = openDB(f.mysql, "root", "")
		c.fes = append(c.fes, f)
	}
	ok := false
	defer func() {
		if !ok {
			c.stopAll()
		}
	}()
	f0 := c.fes[0]
	if err := f0.start(bin); err != nil {
		return nil, err
	}
	if err := waitFor(60*time.Second, "fe0 to answer", func() bool { return f0.db.Ping() == nil }); err != nil {
		return nil, err
	}
	for _, b := range c.bes {
		if _, err := f0.db.Exec(fmt.Sprintf(`ALTER SYSTEM ADD BACKEND "127.0.0.1:%s"`, b.args[4])); err != nil {
			return nil, err
		}
	}
	if err := waitFor(60*time.Second, "every backend alive", func() bool { return aliveBackends(f0.db) == 3 }); err != nil {
		return nil, err
	}
	for _, q := range []string{
		"CREATE DATABASE soak",
		`CREATE TABLE soak.t (k BIGINT, v BIGINT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 4 PROPERTIES ("replication_num" = "3")`,
	} {
		if _, err := f0.db.Exec(q); err != nil {
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	for _, f := range c.fes[1:] {
		if _, err := f0.db.Exec(fmt.Sprintf(`ALTER SYSTEM ADD FOLLOWER "%s"`, f.editAddr())); err != nil {
			return nil, err
		}
		if err := f.start(bin, "--helper", f0.editAddr()); err != nil {
			return nil, err
		}
	}
	if err := waitFor(2*time.Minute, "three voting followers, all alive", func() bool { return c.allAlive(0) }); err != nil {
		return nil, err
	}
	ok = true
	return c, nil
}

func (c *cluster) stopAll() {
	for _, f := range c.fes {
		f.kill()
		f.db.Close()
	}
	for _, b := range c.bes {
		b.kill()
	}
}

// restartExited restarts a frontend that exited on its own.
func (c *cluster) restartExited() error {
	for _, f := range c.fes {
		if st, ok := f.exitedOnItsOwn(); ok {
			log.Printf("%s exited on its own (%s); restarting it", f.name, st)
			if err := f.start(c.bin); err != nil {
				return err
			}
		}
	}
	return nil
}

// frontendRow is a SHOW FRONTENDS row.
type frontendRow struct {
	name, role           string
	master, joined, live bool
}

func showFrontends(db *sql.DB) ([]frontendRow, error) {
	rows, err := queryStrings(db, "SHOW FRONTENDS")
	if err != nil {
		return nil, err
	}
	var out []frontendRow
	for _, r := range rows {
		if len(r) < 9 {
			return nil, fmt.Errorf("SHOW FRONTENDS row %v", r)
		}
		out = append(out, frontendRow{name: r[0], role: r[5], master: r[6] == "true", joined: r[7] == "true", live: r[8] == "true"})
	}
	return out, nil
}

// master is the index of the frontend that the others (all but skip) call
// master, when they agree.
func (c *cluster) master(skip int) (int, error) {
	found := -1
	for i, f := range c.fes {
		if i == skip {
			continue
		}
		rows, err := showFrontends(f.db)
		if err != nil {
			continue
		}
		for _, r := range rows {
			if !r.master {
				continue
			}
			for j, g := range c.fes {
				if g.editAddr() == r.name {
					if found >= 0 && found != j {
						return -1, fmt.Errorf("frontends disagree on the master: fe%d and fe%d", found, j)
					}
					found = j
				}
			}
		}
	}
	if found < 0 {
		return -1, fmt.Errorf("no frontend names a master")
	}
	return found, nil
}

// allAlive: frontend m is the master and lists the three as alive voting
// followers, and every frontend answers.
func (c *cluster) allAlive(m int) bool {
	rows, err := showFrontends(c.fes[m].db)
	if err != nil || len(rows) != 3 {
		return false
	}
	for _, r := range rows {
		if r.role != "FOLLOWER" || !r.joined || !r.live || r.master != (r.name == c.fes[m].editAddr()) {
			return false
		}
	}
	for _, f := range c.fes {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		err := f.db.PingContext(ctx)
		cancel()
		if err != nil {
			return false
		}
	}
	return true
}

func aliveBackends(db *sql.DB) int {
	rows, err := queryStrings(db, "SHOW BACKENDS")
	if err != nil {
		return -1
	}
	n := 0
	for _, r := range rows {
		if len(r) > 9 && r[9] == "true" {
			n++
		}
	}
	return n
}

func queryStrings(db *sql.DB, q string) ([][]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]string
	for rows.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, err
		}
		r := make([]string, len(cols))
		for i, v := range vals {
			r[i] = v.String
		}
		out = append(out, r)
	}
	return out, rows.Err()
}
