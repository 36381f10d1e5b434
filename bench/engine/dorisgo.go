package engine

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	_ "github.com/go-sql-driver/mysql" // the MySQL driver for dorisgo and gms
)

// Dorisgo is a running dorisgo: one standalone process, or a FE plus BEs.
type Dorisgo struct {
	procs     []*exec.Cmd
	mysqlPort int
	httpPort  int
	db        *sql.DB
	dbName    string
	Backends  int
	pids      []int // processes whose peak RSS is reported (ours or -connect's)
}

// ConnectDorisgo uses an already running dorisgo whose MySQL and HTTP
// ports are given; pid, when not 0, is the process whose memory is reported.
func ConnectDorisgo(mysqlPort, httpPort, pid, backends int) (*Dorisgo, error) {
	d := &Dorisgo{mysqlPort: mysqlPort, httpPort: httpPort, Backends: backends}
	if pid != 0 {
		d.pids = []int{pid}
	}
	if err := d.connect(""); err != nil {
		return nil, err
	}
	return d, nil
}

// BuildDorisgo compiles ../cmd/dorisgo (run from the bench module) to out.
func BuildDorisgo(root, out string) error {
	cmd := exec.Command("go", "build", "-o", out, "./cmd/dorisgo")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return cmd.Run()
}

// FreePort is a loopback port free now that this process has not handed
// out before: the kernel may give a port just released to the next
// request, and two processes started on one port (a soak's backends) make
// the second fail.
func FreePort() (int, error) {
	portsMu.Lock()
	defer portsMu.Unlock()
	for {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if !portsGiven[p] {
			portsGiven[p] = true
			return p, nil
		}
	}
}

var (
	portsMu    sync.Mutex
	portsGiven = map[int]bool{}
)

func start(bin, logPath string, args ...string) (*exec.Cmd, error) {
	log, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return cmd, nil
}

// StartDorisgo starts dorisgo with a fresh data dir under dir. With cluster
// it runs `dorisgo fe` and `backends` separate `dorisgo be` processes joined
// by ALTER SYSTEM ADD BACKEND; else one standalone process.
func StartDorisgo(bin, dir string, backends int, cluster bool) (*Dorisgo, error) {
	d := &Dorisgo{Backends: backends}
	var err error
	if d.mysqlPort, err = FreePort(); err != nil {
		return nil, err
	}
	if d.httpPort, err = FreePort(); err != nil {
		return nil, err
	}
	common := []string{"--mysql-port", strconv.Itoa(d.mysqlPort), "--http-port", strconv.Itoa(d.httpPort)}
	var bePorts []int
	if cluster {
		fe, err := start(bin, filepath.Join(dir, "fe.log"), append([]string{"fe", "--data-dir", filepath.Join(dir, "fe")}, common...)...)
		if err != nil {
			return nil, err
		}
		d.procs = append(d.procs, fe)
		for i := 0; i < backends; i++ {
			p, err := FreePort()
			if err != nil {
				d.Close()
				return nil, err
			}
			be, err := start(bin, filepath.Join(dir, fmt.Sprintf("be%d.log", i)), "be", "--be-port", strconv.Itoa(p),
				"--data-dir", filepath.Join(dir, fmt.Sprintf("be%d", i)))
			if err != nil {
				d.Close()
				return nil, err
			}
			d.procs = append(d.procs, be)
			bePorts = append(bePorts, p)
		}
	} else {
		sa, err := start(bin, filepath.Join(dir, "dorisgo.log"), append([]string{"standalone", "--data-dir", filepath.Join(dir, "data"),
			"--backends", strconv.Itoa(backends), "--be-port", "0"}, common...)...)
		if err != nil {
			return nil, err
		}
		d.procs = append(d.procs, sa)
	}
	if err := d.connect(""); err != nil {
		d.Close()
		return nil, err
	}
	for _, p := range bePorts {
		if err := waitPort(p, 60*time.Second); err != nil {
			d.Close()
			return nil, err
		}
		if _, err := d.db.Exec(fmt.Sprintf(`ALTER SYSTEM ADD BACKEND "127.0.0.1:%d"`, p)); err != nil {
			d.Close()
			return nil, fmt.Errorf("add backend: %w", err)
		}
	}
	return d, nil
}

func waitPort(port int, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
		if err == nil {
			c.Close()
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("port %d not listening after %s", port, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (d *Dorisgo) connect(db string) error {
	if err := waitPort(d.mysqlPort, 60*time.Second); err != nil {
		return err
	}
	if d.db != nil {
		d.db.Close()
	}
	conn, err := sql.Open("mysql", fmt.Sprintf("root:@tcp(127.0.0.1:%d)/%s", d.mysqlPort, db))
	if err != nil {
		return err
	}
	conn.SetMaxOpenConns(4)
	d.db, d.dbName = conn, db
	return conn.Ping()
}

// Use creates database name if needed and makes it the default.
func (d *Dorisgo) Use(name string, fresh bool) error {
	if fresh {
		if _, err := d.db.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
			return err
		}
	}
	if _, err := d.db.Exec("CREATE DATABASE IF NOT EXISTS " + name); err != nil {
		return err
	}
	return d.connect(name)
}

// Exec runs a statement.
func (d *Dorisgo) Exec(q string) error {
	_, err := d.db.Exec(q)
	return err
}

// Name implements Engine.
func (d *Dorisgo) Name() string { return "dorisgo" }

// Query implements Engine.
func (d *Dorisgo) Query(ctx context.Context, q string) (Result, error) { return queryDB(ctx, d.db, q) }

// Lines runs an EXPLAIN-like statement and returns its first column.
func (d *Dorisgo) Lines(ctx context.Context, q string) ([]string, error) {
	r, err := queryDB(ctx, d.db, q)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, row := range r.Rows {
		out = append(out, row[0])
	}
	return out, nil
}

// Session is one dedicated connection to dorisgo, so that session
// variables set on it hold for every query run through it.
type Session struct{ c *sql.Conn }

// Session opens a dedicated connection and runs setup (e.g. SET
// statements) on it.
func (d *Dorisgo) Session(ctx context.Context, setup ...string) (*Session, error) {
	c, err := d.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	for _, q := range setup {
		if _, err := c.ExecContext(ctx, q); err != nil {
			c.Close()
			return nil, fmt.Errorf("%s: %w", q, err)
		}
	}
	return &Session{c: c}, nil
}

// Query runs q on the session's connection.
func (s *Session) Query(ctx context.Context, q string) (Result, error) { return queryDB(ctx, s.c, q) }

// Close discards the connection, so that its session variables do not
// leak into the pool.
func (s *Session) Close() error {
	_ = s.c.Raw(func(any) error { return driver.ErrBadConn })
	return s.c.Close()
}

// PeakRSS returns the VmHWM of every dorisgo process, in bytes.
func (d *Dorisgo) PeakRSS() []int64 {
	var out []int64
	for _, p := range d.procs {
		out = append(out, vmHWM(p.Process.Pid))
	}
	for _, pid := range d.pids {
		out = append(out, vmHWM(pid))
	}
	return out
}

func vmHWM(pid int) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// Close stops every process it started.
func (d *Dorisgo) Close() error {
	if d.db != nil {
		d.db.Close()
	}
	for i := len(d.procs) - 1; i >= 0; i-- {
		p := d.procs[i]
		_ = p.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = p.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = p.Process.Kill()
			<-done
		}
	}
	d.procs = nil
	return nil
}

// StreamLoad sends data (CSV, '|' separated) to table by HTTP stream load
// with the given label and returns the rows loaded.
func (d *Dorisgo) StreamLoad(table, label string, data []byte) (int64, error) {
	url := fmt.Sprintf("http://127.0.0.1:%d/api/%s/%s/_stream_load", d.httpPort, d.dbName, table)
	req, err := http.NewRequest(http.MethodPut, url, bytes.NewReader(data))
	if err != nil {
		return 0, err
	}
	req.SetBasicAuth("root", "")
	req.Header.Set("label", label)
	req.Header.Set("column_separator", "|")
	req.Header.Set("Expect", "100-continue")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	var r struct {
		Status           string
		Message          string
		NumberLoadedRows int64
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return 0, fmt.Errorf("stream load %s: HTTP %d: %s", table, resp.StatusCode, body)
	}
	if r.Status != "Success" {
		return 0, fmt.Errorf("stream load %s: %s: %s", table, r.Status, r.Message)
	}
	return r.NumberLoadedRows, nil
}
