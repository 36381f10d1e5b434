package streamload

import (
	"net/http"
	"sort"
	"sync"
	"time"
)

// liveStream is a stream load whose body is being read: SHOW STREAM LOAD
// (and so the web UI's Loads page) lists it with Status RUNNING and the
// rows and bytes received so far, which grow as the body is read; when it
// ends it is replaced by its record. Doris lists only finished stream
// loads there; a running one is otherwise invisible but for SHOW
// TRANSACTION, so this row is dorisgo's addition.
type liveStream struct {
	label, db, table, clientIP, user string
	start                            time.Time
	parser                           *loadParser
	body                             *countingReader
}

// liveStreams are the running stream loads.
type liveStreams struct {
	mu sync.Mutex
	m  map[*liveStream]struct{}
}

func (l *liveStreams) add(r *http.Request, db, table, user, label string, start time.Time, p *loadParser, body *countingReader) *liveStream {
	ls := &liveStream{label: label, db: db, table: table, clientIP: clientIP(r), user: user, start: start, parser: p, body: body}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[*liveStream]struct{}{}
	}
	l.m[ls] = struct{}{}
	return ls
}

func (l *liveStreams) remove(ls *liveStream) {
	if ls == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, ls)
}

// records are the running loads as SHOW STREAM LOAD rows, oldest first:
// the parser's counters and the body's bytes as of now.
func (l *liveStreams) records() []Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]Record, 0, len(l.m))
	for ls := range l.m {
		p := ls.parser
		out = append(out, Record{Label: ls.label, DB: ls.db, Table: ls.table, ClientIP: ls.clientIP,
			Status: "RUNNING", Message: "receiving the body", Total: p.total.Load(), Loaded: p.loaded.Load(),
			Filtered: p.filtered.Load(), Unselected: p.unselected.Load(), Bytes: ls.body.n.Load(),
			Start: ls.start, User: ls.user, Comment: p.comment})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Start.Before(out[j].Start) })
	return out
}
