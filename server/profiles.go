package server

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// keptProfiles is how many finished queries' profiles the FE keeps.
const keptProfiles = 100

// profile is one finished query's report (what EXPLAIN ANALYZE prints after
// the plan).
type profile struct {
	ID    int64     `json:"id"`
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

func (p *profiles) add(sql string, lines []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	p.ring = append(p.ring, &profile{ID: p.next, SQL: sql, End: time.Now(), Lines: lines})
	if len(p.ring) > keptProfiles {
		p.ring = p.ring[len(p.ring)-keptProfiles:]
	}
}

// serveList lists the kept profiles, newest first (JSON).
func (p *profiles) serveList(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	list := make([]*profile, 0, len(p.ring))
	for i := len(p.ring) - 1; i >= 0; i-- {
		list = append(list, p.ring[i])
	}
	p.mu.Unlock()
	writeJSON(w, http.StatusOK, list)
}

// serveOne returns one profile as text.
func (p *profiles) serveOne(w http.ResponseWriter, r *http.Request) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil {
		http.Error(w, "bad profile id", http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	var found *profile
	for _, x := range p.ring {
		if x.ID == id {
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
