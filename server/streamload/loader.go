// Package streamload serves Doris's HTTP stream load: PUT
// /api/{db}/{table}/_stream_load (CSV or JSON in the body, loaded as one
// transaction under the request's label), its second phase
// /api/{db}/_stream_load_2pc, and the error logs of the rows it filtered
// (/api/_load_error_log). The server builds one Loader with what it needs
// (catalog, coordinator, authentication) and mounts its handlers; the
// Loader also keeps the recent and running loads for SHOW STREAM LOAD.
package streamload

import (
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/coord"
)

// Config is what a Loader takes from the frontend that serves it.
type Config struct {
	Catalog *catalog.Catalog
	Coord   *coord.Coordinator
	Log     *slog.Logger
	// DataDir holds the error logs, under DataDir/load_error_log.
	DataDir string
	// Access checks a request's HTTP basic auth and returns the account's
	// privileges; false: wrong user or password.
	Access func(r *http.Request) (*catalog.Access, bool)
	// Redirect sends a follower's load to the master and reports whether
	// it did (then the load is not run here); nil: never.
	Redirect func(w http.ResponseWriter, r *http.Request) bool
	// Count is told of each stream load reply past authentication: its
	// status ("success", "fail", "label_exists") and, for a success, the
	// rows loaded and bytes read (the FE's metrics); nil: not counted.
	Count func(status string, rows, bytes int64)
}

// Loader serves stream loads; New makes one.
type Loader struct {
	cfg Config
	// errLogs keeps the loads' rejected rows (errlog.go).
	errLogs loadErrorLogs
	// recs are the last finished loads, live the running ones (live.go).
	recs records
	live liveStreams
}

// New returns a Loader over cfg.
func New(cfg Config) *Loader {
	if cfg.Log == nil {
		cfg.Log = slog.Default()
	}
	return &Loader{cfg: cfg}
}

func (l *Loader) count(status string, rows, bytes int64) {
	if l.cfg.Count != nil {
		l.cfg.Count(status, rows, bytes)
	}
}

// RecordsKept is how many finished stream loads SHOW STREAM LOAD
// remembers (Doris keeps them on the backends with
// enable_stream_load_record; dorisgo keeps the last ones in the FE's
// memory, since the FE started).
const RecordsKept = 10000

// Record is one stream load, as SHOW STREAM LOAD lists it.
type Record struct {
	Label, DB, Table, ClientIP, Status, Message, URL string
	Total, Loaded, Filtered, Unselected, Bytes       int64
	Start, Finish                                    time.Time
	User, Comment                                    string
}

// Records are the last RecordsKept finished loads, oldest first, then
// the running ones (Status RUNNING, their counters as of now). A load
// ending meanwhile may be listed twice, never missed.
func (l *Loader) Records() []Record {
	return append(l.recs.all(), l.live.records()...)
}

// records is a ring of the last stream loads.
type records struct {
	mu   sync.Mutex
	recs []Record
	next int
}

func (r *records) add(rec Record) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.recs) < RecordsKept {
		r.recs = append(r.recs, rec)
		return
	}
	r.recs[r.next] = rec
	r.next = (r.next + 1) % RecordsKept
}

// all lists the kept records oldest first.
func (r *records) all() []Record {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append(append([]Record(nil), r.recs[r.next:]...), r.recs[:r.next]...)
}

// record keeps a finished stream load's reply for SHOW STREAM LOAD.
func (l *Loader) record(r *http.Request, db, table, user string, start time.Time, resp *streamLoadResp) {
	l.recs.add(Record{Label: resp.Label, DB: db, Table: table, ClientIP: clientIP(r), Status: resp.Status,
		Message: resp.Message, URL: resp.ErrorURL, Total: resp.NumberTotalRows, Loaded: resp.NumberLoadedRows,
		Filtered: resp.NumberFilteredRows, Unselected: resp.NumberUnselectedRows, Bytes: resp.LoadBytes,
		Start: start, Finish: time.Now(), User: user, Comment: resp.Comment})
}

func clientIP(r *http.Request) string {
	ip, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		ip = r.RemoteAddr
	}
	return ip
}

// writeJSON writes v as the reply, indented as the server's other
// endpoints write theirs.
func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "    ")
	_ = enc.Encode(v)
}
