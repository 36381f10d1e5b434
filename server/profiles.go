package server

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
)

// keptProfiles is how many finished queries' profiles the FE keeps.
const keptProfiles = 100

// profile is one finished query's report (what EXPLAIN ANALYZE prints after
// the plan).
type profile struct {
	ID    int64     `json:"id"`
	User  string    `json:"user"`
	SQL   string    `json:"sql"`
	End   time.Time `json:"end"`
	Lines []string  `json:"-"`
}

// profiles keeps the latest query profiles for GET /api/profile.
type profiles struct {
	mu   sync.Mutex
	next int64
	ring []*profile
}

// add keeps the profile of a query user ran.
func (p *profiles) add(user, sql string, lines []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	p.ring = append(p.ring, &profile{ID: p.next, User: user, SQL: sql, End: time.Now(), Lines: lines})
	if len(p.ring) > keptProfiles {
		p.ring = p.ring[len(p.ring)-keptProfiles:]
	}
}

// visible: a user sees the profiles of its own queries (by user name, as
// SHOW PROCESSLIST); ADMIN_PRIV sees all.
func visible(a *catalog.Access, x *profile) bool {
	return x.User == a.User || a.Global(catalog.WantAdmin)
}

// serveList lists the kept profiles the caller may see, newest first (JSON).
func (p *profiles) serveList(w http.ResponseWriter, r *http.Request, a *catalog.Access) {
	p.mu.Lock()
	list := make([]*profile, 0, len(p.ring))
	for i := len(p.ring) - 1; i >= 0; i-- {
		if visible(a, p.ring[i]) {
			list = append(list, p.ring[i])
		}
	}
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, list)
}

// serveOne returns one profile as text; another user's is 404, as if it
// were not there.
func (p *profiles) serveOne(w http.ResponseWriter, r *http.Request, a *catalog.Access) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		http.Error(w, "bad profile id", http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	var found *profile
	for _, x := range p.ring {
		if x.ID == id && visible(a, x) {
			found = x
		}
	}
	p.mu.Unlock()
	if found == nil {
		http.Error(w, "no such profile", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte(found.SQL + "\n" + strings.Join(found.Lines, "\n") + "\n"))
}
