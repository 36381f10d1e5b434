package streamload

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
)

// A stream load that filters rows keeps their reasons in one file under
// <data-dir>/load_error_log, served by GET /api/_load_error_log?file=NAME
// (Doris's BE serves the same endpoint from its load directory). The
// first line of a file is its metadata (loadErrorMeta, JSON), the rest
// Doris's lines: "Reason: …. src line […]; ".
const (
	// loadErrorLogKeep is how long an error log stays: Doris's
	// load_error_log_reserve_hours (48).
	loadErrorLogKeep = 48 * time.Hour
	// loadErrorLogFiles bounds how many stay, the oldest going first, so
	// a flood of bad loads cannot fill the disk (each holds at most
	// maxErrorRows lines of maxErrorLine bytes).
	loadErrorLogFiles = 1000
)

// loadErrorName is the shape of the names save gives: nothing a path
// could be made of.
var loadErrorName = regexp.MustCompile(`^error_log_[0-9]+_[0-9a-f]{16}$`)

// loadErrorMeta says whose load a log is, to check its readers.
type loadErrorMeta struct {
	DB    string `json:"db"`
	Table string `json:"table"`
	User  string `json:"user"`
}

// loadErrorLogs writes and serves the error logs; the mutex orders the
// writes and the sweeps of the directory.
type loadErrorLogs struct {
	mu sync.Mutex
}

func loadErrorDir(dataDir string) string { return filepath.Join(dataDir, "load_error_log") }

// save writes one load's error lines and returns the file's name.
func (l *loadErrorLogs) save(dataDir string, meta loadErrorMeta, lines []string) (string, error) {
	var rnd [8]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	name := fmt.Sprintf("error_log_%d_%s", time.Now().UnixNano(), hex.EncodeToString(rnd[:]))
	dir := loadErrorDir(dataDir)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	l.sweep(dir)
	head, err := json.Marshal(meta)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.Write(head)
	b.WriteByte('\n')
	for _, line := range lines {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	tmp := filepath.Join(dir, "."+name)
	if err := os.WriteFile(tmp, []byte(b.String()), 0o644); err != nil {
		return "", err
	}
	return name, os.Rename(tmp, filepath.Join(dir, name))
}

// sweep removes the logs past loadErrorLogKeep, and the oldest beyond
// loadErrorLogFiles - 1 (one is about to be added).
func (l *loadErrorLogs) sweep(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type file struct {
		name string
		mod  time.Time
	}
	var files []file
	for _, e := range ents {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if time.Since(info.ModTime()) > loadErrorLogKeep {
			_ = os.Remove(filepath.Join(dir, e.Name()))
			continue
		}
		files = append(files, file{e.Name(), info.ModTime()})
	}
	sort.Slice(files, func(i, j int) bool { return files[i].mod.Before(files[j].mod) })
	for len(files) >= loadErrorLogFiles {
		_ = os.Remove(filepath.Join(dir, files[0].name))
		files = files[1:]
	}
}

// ServeErrorLog serves GET /api/_load_error_log?file=NAME: the
// rejected rows of a load, as text, to the user who ran it or anyone with
// LOAD_PRIV on its table (ADMIN_PRIV included).
func (l *Loader) ServeErrorLog(w http.ResponseWriter, r *http.Request, a *catalog.Access) {
	name := r.URL.Query().Get("file")
	notFound := func() {
		writeJSON(w, http.StatusNotFound, map[string]any{"code": 404, "msg": "Not Found",
			"data": "no load error log " + name + " (kept " + loadErrorLogKeep.String() + ")", "count": 0})
	}
	if !loadErrorName.MatchString(name) {
		notFound()
		return
	}
	f, err := os.Open(filepath.Join(loadErrorDir(l.cfg.DataDir), name))
	if err != nil {
		notFound()
		return
	}
	defer f.Close()
	br := bufio.NewReader(f)
	head, err := br.ReadBytes('\n')
	var meta loadErrorMeta
	if err != nil || json.Unmarshal(head, &meta) != nil {
		notFound()
		return
	}
	if a.User != meta.User && !a.Table(meta.DB, meta.Table, catalog.WantLoad) {
		// As for a load itself: no hint that the log exists.
		notFound()
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = br.WriteTo(w)
}
