package server

import (
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// After every statement (Session.finish, from guard): its diagnostics are
// kept for SHOW WARNINGS / SHOW ERRORS and @@warning_count / @@error_count,
// a failed or slow one is logged with its query id, and the audit log gets
// one line, as Doris's fe.audit.log.

// diagEntry is one row of SHOW WARNINGS.
type diagEntry struct {
	level   string // "Error" or "Warning"
	code    sqlerr.Code
	message string
}

// stmtResult is what a statement sent the client, for the audit line.
type stmtResult struct {
	rows      atomic.Int64 // rows returned or affected
	resultSet atomic.Bool  // it sent a result set (Doris's state EOF, else OK)
	// scanRows and scanBytes are what its scans read from storage
	// (build.OpStats.ScanRows, ScanBytes), summed over its queries.
	scanRows, scanBytes atomic.Int64
	// task is the statement's Task Type (QUERY, LOAD or ""), set before
	// it runs; profile is what it ran (Session.keepProfile).
	task    string
	profile []string
	// run is a query's plan and counters while it runs (the web UI's
	// query page; Session.trackRun); its profile keeps them after.
	run atomic.Pointer[planRun]
}

// countScans adds what the query run as root read from storage to the
// running statement's counts; the caller has closed root, so every
// instance that finished has reported.
func (s *Session) countScans(root op.Operator) {
	q, ok := root.(interface{ Profile() *coord.Profile })
	if !ok {
		return
	}
	rows, bytes := q.Profile().Scanned()
	s.mu.Lock()
	res := s.stmtRes
	s.mu.Unlock()
	if res != nil {
		res.scanRows.Add(rows)
		res.scanBytes.Add(bytes)
	}
}

// collectWarnings adds the warnings of the remote instances of the query
// run as root to the running statement's (the root fragment's own went
// there directly); the caller has closed root.
func (s *Session) collectWarnings(root op.Operator) {
	if q, ok := root.(interface{ Profile() *coord.Profile }); ok {
		q.Profile().Warnings(s.warnings())
	}
}

// countingWriter passes a statement's results on and counts them.
type countingWriter struct {
	wire.ResultWriter
	res *stmtResult
}

func (c *countingWriter) WriteOK(ok wire.OK) error {
	c.res.rows.Add(int64(ok.AffectedRows))
	return c.ResultWriter.WriteOK(ok)
}

func (c *countingWriter) WriteColumns(cols []wire.Column) error {
	c.res.resultSet.Store(true)
	return c.ResultWriter.WriteColumns(cols)
}

func (c *countingWriter) WriteRows(rec arrow.Record) error {
	c.res.rows.Add(rec.NumRows())
	return c.ResultWriter.WriteRows(rec)
}

// auditSQL bounds the statement text of an audit line or a log record.
const auditSQL = 4096

// finish does the bookkeeping of one statement that ran from start and
// ended with err (nil: success).
func (s *Session) finish(queryID, text string, start time.Time, err error) {
	elapsed := time.Since(start)
	s.mu.Lock()
	res, keep, warn := s.stmtRes, s.keepDiag, s.warn
	s.stmtRes, s.keepDiag, s.warn = nil, false, nil
	db := s.db
	s.mu.Unlock()
	var e *sqlerr.Error
	if err != nil {
		e = sqlerr.As(err)
		s.setDiag([]diagEntry{{level: "Error", code: e.Code, message: e.Message}})
	} else if !keep && !readsDiagCount(text) {
		var d []diagEntry
		keepN := s.vars.int("max_error_count")
		for _, x := range warn.List() {
			if int64(len(d)) >= keepN {
				break
			}
			d = append(d, diagEntry{level: "Warning", code: sqlerr.Code(x.Code), message: x.Message})
		}
		s.setDiag(d)
		if n := warn.Count(); n > int64(len(d)) {
			s.vars.vals["warning_count"] = strconv.FormatInt(n, 10)
		}
	}
	short := redactPasswords(text)
	if len(short) > auditSQL {
		short = short[:auditSQL] + "..."
	}
	ms := elapsed.Milliseconds()
	if e != nil {
		s.srv.log.Info("statement failed", "query_id", queryID, "conn", s.info.ID, "user", s.info.User, "db", db,
			"code", int(e.Code), "err", e.Message, "time_ms", ms, "sql", short)
	}
	if slow := s.vars.int("qe_slow_log_ms"); slow >= 0 && ms >= slow {
		s.srv.log.Warn("slow query", "query_id", queryID, "conn", s.info.ID, "user", s.info.User, "db", db,
			"time_ms", ms, "threshold_ms", slow, "ok", e == nil, "sql", short)
	}
	ran := res != nil
	if !ran {
		res = &stmtResult{} // it failed before running (a syntax error), or was a COM_STMT_PREPARE
		if e != nil {
			res.task = taskOfText(text)
		}
	}
	state, code, msg := "OK", 0, ""
	if res.resultSet.Load() {
		state = "EOF"
	}
	if e != nil {
		state, code, msg = "ERR", int(e.Code), e.Message
	}
	s.recordStatement(queryID, short, db, state, start, elapsed, res, ran || e != nil)
	if s.srv.audit == nil {
		return
	}
	line := fmt.Sprintf("%s [query] |Client=%s|User=%s|Db=%s|State=%s|ErrorCode=%d|ErrorMessage=%s|Time(ms)=%d|ScanBytes=%d|ScanRows=%d|ReturnRows=%d|QueryId=%s|Stmt=%s\n",
		start.UTC().Format("2006-01-02 15:04:05.000"), s.info.Host, s.info.User, db, state, code, oneLine(msg), ms,
		res.scanBytes.Load(), res.scanRows.Load(), res.rows.Load(), queryID, oneLine(short))
	if _, werr := io.WriteString(s.srv.audit, line); werr != nil {
		s.srv.log.Warn("audit log", "err", werr)
	}
}

// quotedPassword matches the password literal of CREATE/ALTER USER …
// IDENTIFIED BY [PASSWORD] '…' and SET PASSWORD [FOR u] = [PASSWORD(]'…'.
var quotedPassword = regexp.MustCompile(`(?is)(IDENTIFIED\s+BY\s+(?:PASSWORD\s+)?|SET\s+PASSWORD\b[^=]*=\s*(?:PASSWORD\s*\(\s*)?)('(?:[^'\\]|\\.|'')*'|"(?:[^"\\]|\\.|"")*")`)

// redactPasswords hides password literals, as Doris's audit log does: the
// logs must not hold what the catalog stores only hashed.
func redactPasswords(text string) string {
	// Every statement passes here: the regexp runs only on text that can
	// hold a password (both its forms name PASSWORD or IDENTIFIED).
	if !hasFold(text, "PASSWORD") && !hasFold(text, "IDENTIFIED") {
		return text
	}
	return quotedPassword.ReplaceAllString(text, "${1}'*****'")
}

// hasFold reports whether s holds word (upper-case ASCII) in any case.
func hasFold(s, word string) bool {
	for i := 0; i+len(word) <= len(s); i++ {
		j := 0
		for j < len(word) && (s[i+j] == word[j] || s[i+j] == word[j]+('a'-'A')) {
			j++
		}
		if j == len(word) {
			return true
		}
	}
	return false
}

// oneLine keeps an audit record on one line.
func oneLine(s string) string {
	return lineEscaper.Replace(s)
}

// lineEscaper is built once: a Replacer builds its tables on first use,
// which took a tenth of a small statement's allocations when per call.
var lineEscaper = strings.NewReplacer("\r", `\r`, "\n", `\n`)

// setDiag replaces the session's diagnostics and the variables counting them.
func (s *Session) setDiag(d []diagEntry) {
	errs := 0
	for _, x := range d {
		if x.level == "Error" {
			errs++
		}
	}
	s.mu.Lock()
	s.diag = d
	s.mu.Unlock()
	s.vars.vals["warning_count"] = strconv.Itoa(len(d))
	s.vars.vals["error_count"] = strconv.Itoa(errs)
}

// showDiagnostics serves SHOW WARNINGS (every entry) and SHOW ERRORS (the
// errors) of the previous statement, which they leave in place.
func (s *Session) showDiagnostics(errorsOnly bool, w wire.ResultWriter) error {
	s.mu.Lock()
	s.keepDiag = true
	d := s.diag
	s.mu.Unlock()
	var rows [][]types.Datum
	for _, x := range d {
		if errorsOnly && x.level != "Error" {
			continue
		}
		rows = append(rows, []types.Datum{str(x.level), num(int64(x.code)), str(x.message)})
	}
	return writeTable(w, []wire.Column{strCol("Level"), intCol("Code"), strCol("Message")}, rows)
}

// readsDiagCount reports whether a statement reads @@warning_count or
// @@error_count, which (as in MySQL) leaves the diagnostics it reads.
func readsDiagCount(text string) bool {
	t := strings.ToLower(text)
	return strings.Contains(t, "@@warning_count") || strings.Contains(t, "@@error_count") ||
		strings.Contains(t, "@@session.warning_count") || strings.Contains(t, "@@session.error_count")
}
