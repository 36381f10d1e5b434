package slt

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
)

// Failure is one record that did not behave as the script expects.
type Failure struct {
	Line   int    // line of the record's statement/query keyword
	SQL    string // the record's SQL
	Reason string // short, groupable: the error message, "wrong result", ...
	Detail string // expected vs got (truncated), or the full error
}

func (f Failure) String() string {
	s := fmt.Sprintf("line %d: %s\n  sql: %s", f.Line, f.Reason, truncate(oneLine(f.SQL), 300))
	if f.Detail != "" {
		s += "\n  " + strings.ReplaceAll(f.Detail, "\n", "\n  ")
	}
	return s
}

// Result is the outcome of one script.
type Result struct {
	Path                    string
	Passed, Failed, Skipped int
	Failures                []Failure
	Halted                  bool // a halt record stopped the script
	Duration                time.Duration
	// StatementTime and QueryTime split Duration by record kind.
	StatementTime, QueryTime time.Duration
	// ByVerb splits Duration by the first word of each record's SQL
	// (CREATE, INSERT, SELECT, …), upper-cased: where an engine spends it.
	ByVerb map[string]time.Duration
	// NotRun lists the records left out because the Budget ran out; they
	// neither passed nor failed.
	NotRun []int
	// Slow lists the records that took at least Runner.SlowThreshold.
	Slow []Timing
}

// Timing is how long one record took.
type Timing struct {
	Line     int
	SQL      string
	Duration time.Duration
}

// Runner executes scripts against a database. The zero value is not usable:
// DB is required; the other fields have defaults.
type Runner struct {
	DB *sql.DB
	// Engine is the name matched by skipif/onlyif (default "mysql").
	Engine string
	// Timeout bounds one record (default 60s). It is sent to the server as
	// query_timeout and also enforced client side, a little later, by
	// dropping the connection.
	Timeout time.Duration
	// Budget, if positive, bounds the time spent on one script: records
	// after it runs out are not run (Result.NotRun).
	Budget time.Duration
	// SlowThreshold is the duration from which a record is listed in
	// Result.Slow (default 1s).
	SlowThreshold time.Duration
	// OnFailure, if set, is called for every failure as it happens.
	OnFailure func(path string, f Failure)

	seq atomic.Int64 // numbers the per-script databases
}

// Run runs the script at path in a fresh database with default settings.
func Run(ctx context.Context, db *sql.DB, path string) (*Result, error) {
	return (&Runner{DB: db}).RunFile(ctx, path)
}

// RunFile runs the script at path in a fresh database.
func (r *Runner) RunFile(ctx context.Context, path string) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return r.RunScript(ctx, path, f)
}

// RunScript parses and runs a script read from src; name labels the result.
// The error is for setup problems (parse error, no database); failing
// records are reported in the Result.
func (r *Runner) RunScript(ctx context.Context, name string, src io.Reader) (*Result, error) {
	recs, err := Parse(name, src)
	if err != nil {
		return nil, err
	}
	return r.RunRecords(ctx, name, recs)
}

// RunRecords runs parsed records in a fresh database on one pinned connection.
func (r *Runner) RunRecords(ctx context.Context, name string, recs []Record) (*Result, error) {
	start := time.Now()
	engine := r.Engine
	if engine == "" {
		engine = "mysql"
	}
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	slow := r.SlowThreshold
	if slow <= 0 {
		slow = time.Second
	}
	// The random part keeps concurrent runners on one server apart.
	dbName := fmt.Sprintf("slt_%d_%d", r.seq.Add(1), rand.Uint32())
	if _, err := r.DB.ExecContext(ctx, "DROP DATABASE IF EXISTS "+dbName); err != nil {
		return nil, fmt.Errorf("drop old %s: %w", dbName, err)
	}
	if _, err := r.DB.ExecContext(ctx, "CREATE DATABASE "+dbName); err != nil {
		return nil, fmt.Errorf("create %s: %w", dbName, err)
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		_, _ = r.DB.ExecContext(cctx, "DROP DATABASE IF EXISTS "+dbName)
	}()
	s := &session{db: r.DB, dbName: dbName, timeout: timeout}
	defer s.close()
	if err := s.open(ctx); err != nil {
		return nil, err
	}

	res := &Result{Path: name}
	labels := map[string]string{}
	for i := range recs {
		rec := &recs[i]
		if err := ctx.Err(); err != nil {
			return res, err
		}
		runnable := rec.Kind == KindStatement || rec.Kind == KindQuery
		if rec.Skipped(engine) {
			if runnable {
				res.Skipped++
			}
			continue
		}
		if r.Budget > 0 && time.Since(start) > r.Budget {
			if runnable {
				res.NotRun = append(res.NotRun, rec.Line)
			}
			continue
		}
		var fail *Failure
		t0 := time.Now()
		switch rec.Kind {
		case KindHalt:
			res.Halted = true
		case KindHashThreshold:
			continue
		case KindStatement:
			fail = s.statement(ctx, rec)
			res.StatementTime += time.Since(t0)
		case KindQuery:
			fail = s.query(ctx, rec, labels)
			res.QueryTime += time.Since(t0)
		}
		if res.Halted {
			break
		}
		d := time.Since(t0)
		if res.ByVerb == nil {
			res.ByVerb = map[string]time.Duration{}
		}
		res.ByVerb[verb(rec.SQL)] += d
		if d >= slow {
			res.Slow = append(res.Slow, Timing{Line: rec.Line, SQL: rec.SQL, Duration: d})
		}
		if fail != nil {
			res.Failed++
			res.Failures = append(res.Failures, *fail)
			if r.OnFailure != nil {
				r.OnFailure(name, *fail)
			}
		} else {
			res.Passed++
		}
	}
	res.Duration = time.Since(start)
	return res, nil
}

// verb is the first word of sql, upper-cased, with the object kind after
// CREATE and DROP (CREATE TABLE and CREATE INDEX cost differently).
func verb(sql string) string {
	f := strings.Fields(strings.ToUpper(sql))
	switch {
	case len(f) == 0:
		return ""
	case len(f) > 1 && (f[0] == "CREATE" || f[0] == "DROP"):
		return f[0] + " " + f[1]
	}
	return f[0]
}

// session is the pinned connection a script runs on. If the connection is
// lost (client-side timeout, server error), it is reopened in the same
// database so that later records still run.
type session struct {
	db      *sql.DB
	dbName  string
	timeout time.Duration
	conn    *sql.Conn
}

func (s *session) open(ctx context.Context) error {
	c, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	for _, q := range []string{"USE " + s.dbName, fmt.Sprintf("SET query_timeout = %d", max(1, int(s.timeout/time.Second)))} {
		if _, err := c.ExecContext(ctx, q); err != nil && !strings.HasPrefix(q, "SET") {
			c.Close()
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	s.conn = c
	return nil
}

// close discards the connection rather than pooling it: a script may have
// changed session state (variables, current database).
func (s *session) close() {
	if s.conn != nil {
		_ = s.conn.Raw(func(any) error { return driver.ErrBadConn })
		s.conn.Close()
		s.conn = nil
	}
}

// ctx bounds one record client side: the server's query_timeout should
// fire first and leave the connection usable.
func (s *session) recordCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.timeout+10*time.Second)
}

// recover reopens the connection after an error that may have broken it.
func (s *session) recover(ctx context.Context, err error) {
	if err == nil || ctx.Err() != nil {
		return
	}
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return // a server error; the connection is fine
	}
	s.close()
	_ = s.open(ctx)
}

func (s *session) statement(ctx context.Context, rec *Record) *Failure {
	if s.conn == nil {
		if err := s.open(ctx); err != nil {
			return &Failure{Line: rec.Line, SQL: rec.SQL, Reason: "no connection: " + errText(err)}
		}
	}
	rctx, cancel := s.recordCtx(ctx)
	_, err := s.conn.ExecContext(rctx, rec.SQL)
	cancel()
	s.recover(ctx, err)
	switch {
	case rec.ExpectError && err == nil:
		return &Failure{Line: rec.Line, SQL: rec.SQL, Reason: "statement succeeded, error expected"}
	case !rec.ExpectError && err != nil:
		return &Failure{Line: rec.Line, SQL: rec.SQL, Reason: errText(err), Detail: err.Error()}
	}
	return nil
}

func (s *session) query(ctx context.Context, rec *Record, labels map[string]string) *Failure {
	if s.conn == nil {
		if err := s.open(ctx); err != nil {
			return &Failure{Line: rec.Line, SQL: rec.SQL, Reason: "no connection: " + errText(err)}
		}
	}
	rctx, cancel := s.recordCtx(ctx)
	vals, ncol, err := s.fetch(rctx, rec)
	cancel()
	s.recover(ctx, err)
	if err != nil {
		return &Failure{Line: rec.Line, SQL: rec.SQL, Reason: errText(err), Detail: err.Error()}
	}
	if ncol != len(rec.Types) {
		return &Failure{Line: rec.Line, SQL: rec.SQL, Reason: "wrong column count",
			Detail: fmt.Sprintf("want %d columns (%s), got %d", len(rec.Types), rec.Types, ncol)}
	}
	SortValues(vals, ncol, rec.Sort)
	hash := HashValues(vals)
	var fail *Failure
	if rec.IsHash {
		if len(vals) != rec.HashCount || hash != rec.Hash {
			fail = &Failure{Line: rec.Line, SQL: rec.SQL, Reason: "wrong result",
				Detail: fmt.Sprintf("want %d values hashing to %s\ngot  %d values hashing to %s\ngot: %s",
					rec.HashCount, rec.Hash, len(vals), hash, preview(vals))}
		}
	} else if !valuesEqual(vals, rec.Expected) {
		fail = &Failure{Line: rec.Line, SQL: rec.SQL, Reason: "wrong result",
			Detail: fmt.Sprintf("want: %s\ngot:  %s", preview(rec.Expected), preview(vals))}
	}
	if rec.Label != "" {
		if prev, ok := labels[rec.Label]; ok && prev != hash && fail == nil {
			fail = &Failure{Line: rec.Line, SQL: rec.SQL, Reason: "label mismatch",
				Detail: fmt.Sprintf("label %s: result differs from an earlier query with the same label", rec.Label)}
		} else if !ok {
			labels[rec.Label] = hash
		}
	}
	return fail
}

// fetch runs a query and returns its formatted values, row-major.
func (s *session) fetch(ctx context.Context, rec *Record) ([]string, int, error) {
	rows, err := s.conn.QueryContext(ctx, rec.SQL)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, 0, err
	}
	ncol := len(cols)
	raw := make([]any, ncol)
	dest := make([]any, ncol)
	for i := range raw {
		dest[i] = &raw[i]
	}
	var buf []byte
	var vals []string
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, ncol, err
		}
		for i, v := range raw {
			typ := byte('T')
			if i < len(rec.Types) {
				typ = rec.Types[i]
			}
			buf = appendText(buf[:0], v)
			vals = append(vals, FormatValue(typ, buf, v == nil))
		}
	}
	if err := rows.Err(); err != nil {
		return nil, ncol, err
	}
	return vals, ncol, nil
}

func valuesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// errText is the message of a server error without the driver's prefix
// ("Error 1105 (HY000): ") but with the code kept, so that reasons group.
func errText(err error) string {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return fmt.Sprintf("%d: %s", me.Number, oneLine(me.Message))
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return "client timeout"
	}
	return oneLine(err.Error())
}

func preview(vals []string) string {
	return truncate(strings.Join(vals, " "), 200) + fmt.Sprintf(" (%d values)", len(vals))
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// appendText renders a value as go-sql-driver decoded it from the text
// protocol (it parses integer and float columns) back to MySQL's text.
func appendText(b []byte, v any) []byte {
	switch v := v.(type) {
	case []byte:
		return append(b, v...)
	case string:
		return append(b, v...)
	case int64:
		return strconv.AppendInt(b, v, 10)
	case uint64:
		return strconv.AppendUint(b, v, 10)
	case float64:
		return appendFloat(b, v, 64)
	case float32:
		return appendFloat(b, float64(v), 32)
	case nil:
		return b
	}
	return fmt.Append(b, v)
}

// appendFloat prints like MySQL: plain digits unless the magnitude needs
// an exponent.
func appendFloat(b []byte, f float64, bits int) []byte {
	if a := math.Abs(f); a == 0 || (a >= 1e-5 && a < 1e15) {
		return strconv.AppendFloat(b, f, 'f', -1, bits)
	}
	return strconv.AppendFloat(b, f, 'g', -1, bits)
}
