package server_test

// Shared helpers of the end-to-end tests (e2e_*_test.go): they drive dorisgo
// the way a user does, through go-sql-driver/mysql, HTTP stream load, the
// mariadb CLI and, for crash tests, the dorisgo binary as a subprocess.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dorisgo/dorisgo/server"
)

// binDir holds the dorisgo binary built for the crash tests.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "dorisgo-e2e-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	// Killed servers make go-sql-driver log "unexpected EOF"; the tests check errors themselves.
	mysql.SetLogger(log.New(io.Discard, "", 0))
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	buildOnce sync.Once
	buildErr  error
)

// dorisgoBinary builds cmd/dorisgo once per test binary run. It is built
// lazily so that runs that select no subprocess test do not pay for it.
func dorisgoBinary(t *testing.T) string {
	t.Helper()
	path := filepath.Join(binDir, "dorisgo")
	buildOnce.Do(func() {
		start := time.Now()
		out, err := exec.Command("go", "build", "-o", path, "github.com/dorisgo/dorisgo/cmd/dorisgo").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build dorisgo: %v\n%s", err, out)
		}
		t.Logf("built dorisgo in %v", time.Since(start).Round(time.Millisecond))
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return path
}

// quietLog keeps server logs out of test output except warnings and errors.
func quietLog() *slog.Logger {
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// startServer starts an in-process standalone server (3 backends) on dir.
func startServer(t *testing.T, dir string) *server.Server {
	t.Helper()
	s, err := server.Start(server.Config{DataDir: dir, Host: "127.0.0.1", Backends: 3, Log: quietLog()})
	if err != nil {
		t.Fatalf("server.Start: %v", err)
	}
	s.CheckPlans()
	return s
}

// newServer starts a server on a fresh data dir, closed at test end.
func newServer(t *testing.T) *server.Server {
	t.Helper()
	s := startServer(t, t.TempDir())
	t.Cleanup(s.Close)
	return s
}

// dsn builds a go-sql-driver DSN.
func dsn(addr, user, pass, db string, interpolate bool) string {
	c := mysql.NewConfig()
	c.Net, c.Addr, c.User, c.Passwd, c.DBName = "tcp", addr, user, pass, db
	c.InterpolateParams = interpolate
	c.Timeout = 10 * time.Second
	c.ReadTimeout = 60 * time.Second
	c.WriteTimeout = 60 * time.Second
	return c.FormatDSN()
}

// openDB opens a pool as root, closed at test end.
func openDB(t *testing.T, addr, db string, interpolate bool) *sql.DB {
	t.Helper()
	return openDBAs(t, addr, "root", "", db, interpolate)
}

func openDBAs(t *testing.T, addr, user, pass, db string, interpolate bool) *sql.DB {
	t.Helper()
	d, err := sql.Open("mysql", dsn(addr, user, pass, db, interpolate))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	return d
}

// protocols names the two ways go-sql-driver talks: server-side prepared
// statements (binary rows) and client-side interpolation (text rows).
var protocols = []struct {
	name        string
	interpolate bool
}{{"binary", false}, {"text", true}}

// errCode is the MySQL error number of err, 0 if it is not a server error.
func errCode(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

func wantCode(t *testing.T, err error, code uint16, what string) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: succeeded, want error %d", what, code)
	}
	if got := errCode(err); got != code {
		t.Fatalf("%s: error %v (code %d), want code %d", what, err, got, code)
	}
}

func mustExec(t *testing.T, q interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, stmt string, args ...any) sql.Result {
	t.Helper()
	r, err := q.ExecContext(context.Background(), stmt, args...)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return r
}

type querier interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}

// queryStrings runs a query and returns every row as strings ("NULL" for NULL).
func queryStrings(t *testing.T, q querier, stmt string, args ...any) [][]string {
	t.Helper()
	rows, err := queryStringsErr(q, stmt, args...)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return rows
}

func queryStringsErr(q querier, stmt string, args ...any) ([][]string, error) {
	rs, err := q.QueryContext(context.Background(), stmt, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, err
	}
	var out [][]string
	for rs.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		row := make([]string, len(cols))
		for i, v := range vals {
			row[i] = "NULL"
			if v.Valid {
				row[i] = v.String
			}
		}
		out = append(out, row)
	}
	return out, rs.Err()
}

// queryInts reads a single integer column.
func queryInts(t *testing.T, q querier, stmt string, args ...any) []int64 {
	t.Helper()
	rs, err := q.QueryContext(context.Background(), stmt, args...)
	if err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	defer rs.Close()
	var out []int64
	for rs.Next() {
		var v int64
		if err := rs.Scan(&v); err != nil {
			t.Fatalf("%s: scan: %v", stmt, err)
		}
		out = append(out, v)
	}
	if err := rs.Err(); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
	return out
}

// sortedRows sorts rows lexicographically (queries have no ORDER BY yet).
func sortedRows(rows [][]string) [][]string {
	sort.Slice(rows, func(i, j int) bool {
		return strings.Join(rows[i], "\x00") < strings.Join(rows[j], "\x00")
	})
	return rows
}

func sortInts(v []int64) []int64 {
	sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
	return v
}

// waitFor polls cond every 20ms until it holds or timeout passes.
func waitFor(t *testing.T, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", timeout, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// waitBackendsAlive waits until SHOW BACKENDS lists n backends, all Alive.
func waitBackendsAlive(t *testing.T, db *sql.DB, n int) {
	t.Helper()
	waitBackendsAliveWithin(t, db, n, 20*time.Second)
}

// waitBackendsAliveWithin waits until SHOW BACKENDS lists n backends, all Alive.
func waitBackendsAliveWithin(t *testing.T, db *sql.DB, n int, d time.Duration) {
	t.Helper()
	waitFor(t, d, "all backends Alive", func() bool {
		rows, err := queryStringsErr(db, "SHOW BACKENDS")
		if err != nil || len(rows) != n {
			return false
		}
		for _, r := range rows {
			if r[9] != "true" {
				return false
			}
		}
		return true
	})
}

// loadReply is the part of Doris's stream load reply the tests read.
type loadReply struct {
	HTTPCode          int
	TxnID             int64  `json:"TxnId"`
	Label             string `json:"Label"`
	Status            string `json:"Status"`
	ExistingJobStatus string `json:"ExistingJobStatus"`
	Message           string `json:"Message"`
	NumberTotalRows   int64  `json:"NumberTotalRows"`
	NumberLoadedRows  int64  `json:"NumberLoadedRows"`
	// Doris's accounting of rows the load dropped, and where to read why.
	NumberFilteredRows   int64  `json:"NumberFilteredRows"`
	NumberUnselectedRows int64  `json:"NumberUnselectedRows"`
	ErrorURL             string `json:"ErrorURL"`
	Comment              string `json:"Comment"`
}

// streamLoad PUTs body to /api/db/table/_stream_load as user:pass.
func streamLoad(ctx context.Context, httpAddr, db, table, user, pass string, headers map[string]string, body io.Reader) (loadReply, error) {
	url := fmt.Sprintf("http://%s/api/%s/%s/_stream_load", httpAddr, db, table)
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, url, body)
	if err != nil {
		return loadReply{}, err
	}
	req.SetBasicAuth(user, pass)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return loadReply{}, err
	}
	return readLoadReply(resp)
}

// readLoadReply decodes a stream load's JSON reply.
func readLoadReply(resp *http.Response) (loadReply, error) {
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return loadReply{}, err
	}
	r := loadReply{HTTPCode: resp.StatusCode}
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, fmt.Errorf("stream load reply %q: %w", raw, err)
	}
	return r, nil
}

func mustStreamLoad(t *testing.T, httpAddr, db, table string, headers map[string]string, body []byte) loadReply {
	t.Helper()
	r, err := streamLoad(context.Background(), httpAddr, db, table, "root", "", headers, bytes.NewReader(body))
	if err != nil {
		t.Fatalf("stream load into %s.%s: %v", db, table, err)
	}
	if r.Status != "Success" {
		t.Fatalf("stream load into %s.%s: %+v", db, table, r)
	}
	return r
}

// freePort returns a loopback port that was free a moment ago.
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// proc is a dorisgo standalone process on a data dir.
type proc struct {
	t         *testing.T
	dir       string
	mysqlAddr string
	httpAddr  string
	cmd       *exec.Cmd
	exited    chan struct{}
	out       *syncBuffer
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startProc runs the dorisgo binary on dir and waits until it answers
// queries. A port grabbed by someone else between freePort and the bind
// makes the process exit; it is then retried on new ports. extra flags
// follow the defaults (so they override them).
func startProc(t *testing.T, dir string, extra ...string) *proc {
	t.Helper()
	bin := dorisgoBinary(t)
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		mp, hp := freePort(t), freePort(t)
		p := &proc{t: t, dir: dir, mysqlAddr: fmt.Sprintf("127.0.0.1:%d", mp), httpAddr: fmt.Sprintf("127.0.0.1:%d", hp),
			exited: make(chan struct{}), out: &syncBuffer{}}
		p.cmd = exec.Command(bin, append([]string{"--data-dir", dir, "--mysql-port", fmt.Sprint(mp), "--http-port", fmt.Sprint(hp), "--log-level", "warn"}, extra...)...)
		p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { p.cmd.Wait(); close(p.exited) }()
		t.Cleanup(p.kill)
		if lastErr = p.waitReady(30 * time.Second); lastErr == nil {
			return p
		}
		p.kill()
	}
	t.Fatalf("dorisgo did not start: %v", lastErr)
	return nil
}

func (p *proc) waitReady(timeout time.Duration) error {
	db, err := sql.Open("mysql", dsn(p.mysqlAddr, "root", "", "", true))
	if err != nil {
		return err
	}
	defer db.Close()
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-p.exited:
			return fmt.Errorf("process exited: %s", p.out.String())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		err := db.PingContext(ctx)
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after %v: %v; output: %s", timeout, err, p.out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// dumpIfFailed logs the process's output when the test failed: what a
// backend or frontend said is often the only trace of why.
func (p *proc) dumpIfFailed() {
	if p.t.Failed() {
		p.t.Logf("output of %s (%s):\n%s", p.mysqlAddr, p.dir, p.out.String())
	}
}

// kill SIGKILLs the process (no chance to flush anything) and waits for it.
func (p *proc) kill() {
	select {
	case <-p.exited:
		return
	default:
	}
	p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.exited
}
