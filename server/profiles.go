package server

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Query profiles, as Doris's ProfileManager keeps them: every query and
// load statement (Task Type QUERY or LOAD) leaves one when it finishes
// (Session.finish), failed ones too. The FE keeps the last
// max_query_profile_num (a global variable, Doris's FE config of that
// name) in memory for SHOW QUERY PROFILE and /api/profile, and writes the
// profile of a statement that took at least auto_profile_threshold_ms
// (Doris's session variable; -1 none) to <data-dir>/log/profile, where at
// most max_spilled_profile_num files and spilledProfileBytes bytes are
// kept (Doris's max_spilled_profile_num, spilled_profile_storage_limit_bytes),
// the oldest removed first.

// spilledProfileBytes bounds the profile files on disk (Doris's default
// spilled_profile_storage_limit_bytes).
const spilledProfileBytes = 1 << 30

// profile is one finished statement's report: Doris's summary and what
// EXPLAIN ANALYZE prints after the plan (Lines; none for a statement that
// failed before it ran).
type profile struct {
	ID      int64     `json:"id"` // the FE's sequence number
	QueryID string    `json:"query_id"`
	Task    string    `json:"task_type"` // QUERY or LOAD
	User    string    `json:"user"`
	DB      string    `json:"db"`
	SQL     string    `json:"sql"`
	State   string    `json:"state"` // as the audit log's: OK, EOF, ERR
	Start   time.Time `json:"start"`
	End     time.Time `json:"end"`
	Lines   []string  `json:"-"`
	// Conn is its connection; Rows returned or affected and Bytes read
	// from storage (the audit log's ReturnRows and ScanBytes); run and
	// measured are a query's plan and its final counters, for the web UI's
	// query page.
	Conn     uint32         `json:"conn"`
	Rows     int64          `json:"rows"`
	Bytes    int64          `json:"scan_bytes"`
	run      *planRun       `json:"-"`
	measured *coord.Profile `json:"-"`
}

// profiles keeps the latest query profiles.
type profiles struct {
	mu   sync.Mutex
	next int64
	ring []*profile
	// diskMu orders the profile files' writes and pruning.
	diskMu sync.Mutex
}

// add keeps x, the last keep of them.
func (p *profiles) add(x *profile, keep int) {
	keep = max(keep, 0)
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	x.ID = p.next
	p.ring = append(p.ring, x)
	if len(p.ring) > keep {
		p.ring = p.ring[len(p.ring)-keep:]
	}
}

// prettyMs is a duration as Doris's profiles print it: 3ms, 1sec204ms,
// 2min3sec.
func prettyMs(d time.Duration) string {
	ms := d.Milliseconds()
	switch {
	case ms < 1000:
		return fmt.Sprintf("%dms", ms)
	case ms < 60_000:
		return fmt.Sprintf("%dsec%dms", ms/1000, ms%1000)
	}
	return fmt.Sprintf("%dmin%dsec", ms/60_000, ms%60_000/1000)
}

const profileTime = "2006-01-02 15:04:05"

// text is the profile as SHOW QUERY PROFILE "/<id>" and /api/profile/{id}
// serve it and as its file holds it.
func (x *profile) text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Summary:\n  - Profile ID: %s\n  - Task Type: %s\n  - Start Time: %s\n  - End Time: %s\n  - Total: %s\n"+
		"  - Task State: %s\n  - User: %s\n  - Default Catalog: internal\n  - Default Db: %s\n  - Sql Statement: %s\n",
		x.QueryID, x.Task, x.Start.Format(profileTime), x.End.Format(profileTime), prettyMs(x.End.Sub(x.Start)),
		x.State, x.User, x.DB, oneLine(x.SQL))
	for _, l := range x.Lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return b.String()
}

// spill writes x's profile to dir and removes the oldest
// files beyond maxFiles or spilledProfileBytes. Files are named
// <end unix ms>_<sequence number>_<query id>.profile, so names sort by age.
func (p *profiles) spill(x *profile, dir string, maxFiles int) error {
	if maxFiles <= 0 {
		return nil
	}
	p.diskMu.Lock()
	defer p.diskMu.Unlock()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	name := fmt.Sprintf("%013d_%010d_%s.profile", x.End.UnixMilli(), x.ID, x.QueryID)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(x.text()), 0o644); err != nil {
		return err
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	type file struct {
		name string
		size int64
	}
	var files []file
	var total int64
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".profile") {
			continue
		}
		info, err := e.Info()
		if err != nil {
			continue
		}
		files = append(files, file{e.Name(), info.Size()})
		total += info.Size()
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	for len(files) > 1 && (len(files) > maxFiles || total > spilledProfileBytes) {
		if err := os.Remove(filepath.Join(dir, files[0].name)); err != nil && !os.IsNotExist(err) {
			return err
		}
		total -= files[0].size
		files = files[1:]
	}
	return nil
}

// visible: a user sees the profiles of its own queries (by user name, as
// SHOW PROCESSLIST); ADMIN_PRIV sees all.
func visible(a *catalog.Access, x *profile) bool {
	return x.User == a.User || a.Global(catalog.WantAdmin)
}

// list is the kept profiles a may see, newest first.
func (p *profiles) list(a *catalog.Access) []*profile {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*profile, 0, len(p.ring))
	for i := len(p.ring) - 1; i >= 0; i-- {
		if visible(a, p.ring[i]) {
			out = append(out, p.ring[i])
		}
	}
	return out
}

// find is the kept profile of id (a query id or the sequence number) if a
// may see it.
func (p *profiles) find(a *catalog.Access, id string) *profile {
	seq, _ := strconv.ParseInt(id, 10, 64)
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, x := range p.ring {
		if (x.QueryID == id || seq > 0 && x.ID == seq) && visible(a, x) {
			return x
		}
	}
	return nil
}

// profileText is the text of the profile id (a query id, or the
// sequence number of a kept one) if a may see it: a kept one, else one
// written to disk (a slow statement's, after it left memory).
func (s *Server) profileText(a *catalog.Access, id string) (string, bool) {
	if x := s.profiles.find(a, id); x != nil {
		return x.text(), true
	}
	if len(id) != 32 || strings.Trim(id, "0123456789abcdef") != "" {
		return "", false // not a query id (nor a glob pattern)
	}
	files, _ := filepath.Glob(filepath.Join(s.profileDir(), "*_"+id+".profile"))
	if len(files) == 0 {
		return "", false
	}
	b, err := os.ReadFile(files[len(files)-1])
	if err != nil {
		return "", false
	}
	text := string(b)
	if !a.Global(catalog.WantAdmin) && !strings.Contains(text, "\n  - User: "+a.User+"\n") {
		return "", false
	}
	return text, true
}

// profileDir is where slow statements' profiles are written.
func (s *Server) profileDir() string { return filepath.Join(s.cfg.DataDir, "log", "profile") }

// showQueryProfile serves SHOW QUERY PROFILE "/" (the kept profiles one
// may see, newest first, under Doris's columns) and "/<query_id>" (its
// text, one row).
func (s *Session) showQueryProfile(st *parser.ShowQueryProfile, w wire.ResultWriter) error {
	a := s.access()
	path := strings.Trim(st.Path, "/")
	if path == "" {
		cols := []wire.Column{strCol("Profile ID"), strCol("Task Type"), strCol("Start Time"), strCol("End Time"),
			strCol("Total"), strCol("Task State"), strCol("User"), strCol("Default Catalog"), strCol("Default Db"), strCol("Sql Statement")}
		var rows [][]types.Datum
		for _, x := range s.srv.profiles.list(a) {
			rows = append(rows, []types.Datum{str(x.QueryID), str(x.Task), str(x.Start.Format(profileTime)), str(x.End.Format(profileTime)),
				str(prettyMs(x.End.Sub(x.Start))), str(x.State), str(x.User), str("internal"), str(x.DB), str(x.SQL)})
		}
		return writeTable(w, cols, rows)
	}
	if strings.Contains(path, "/") {
		return sqlerr.NotSupportedYet.New("SHOW QUERY PROFILE of a fragment or an instance (the profile of \"/<query_id>\" shows them all)")
	}
	text, ok := s.srv.profileText(a, path)
	if _, err := strconv.ParseInt(path, 10, 64); err == nil {
		ok = false // a sequence number (/api/profile's), not a query id
	}
	if !ok {
		return sqlerr.Doris.New(fmt.Sprintf("query id %s not found", path))
	}
	return writeTable(w, []wire.Column{strCol("Profile")}, [][]types.Datum{{str(text)}})
}

// keepProfile records what the running statement ran, for its profile.
func (s *Session) keepProfile(lines []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stmtRes != nil {
		s.stmtRes.profile = lines
	}
}

// lastQueryID is the previous statement's query id (last_query_id()).
func (s *Session) lastQueryID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastQuery
}

// recordStatement does the metrics and profile bookkeeping of a finished
// statement (from Session.finish, which every statement passes once):
// sql is its bounded text, state the audit log's; last: it becomes
// last_query_id() (not a COM_STMT_PREPARE, so that its execution's
// last_query_id() is the statement before the prepare).
func (s *Session) recordStatement(queryID, sql, db, state string, start time.Time, elapsed time.Duration, res *stmtResult, last bool) {
	if last {
		s.mu.Lock()
		s.lastQuery = queryID
		s.mu.Unlock()
	}
	s.srv.stmts.observe(res.task, state == "ERR", elapsed)
	if res.task == "" {
		return
	}
	x := &profile{QueryID: queryID, Task: res.task, User: s.info.User, DB: db, SQL: sql, State: state,
		Start: start, End: start.Add(elapsed), Lines: res.profile, Conn: s.info.ID, Rows: res.rows.Load(), Bytes: res.scanBytes.Load()}
	if run := res.run.Load(); run != nil {
		x.run, x.measured = run, run.profile()
	}
	keep, _ := s.srv.globals.get("max_query_profile_num")
	n, _ := strconv.Atoi(keep)
	s.srv.profiles.add(x, n)
	if slow := s.vars.int("auto_profile_threshold_ms"); slow >= 0 && elapsed.Milliseconds() >= slow {
		files, _ := s.srv.globals.get("max_spilled_profile_num")
		nf, _ := strconv.Atoi(files)
		if err := s.srv.profiles.spill(x, s.srv.profileDir(), nf); err != nil {
			s.srv.log.Warn("writing query profile", "query_id", queryID, "err", err)
		}
	}
}
