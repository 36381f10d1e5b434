// Package webui is the FE's web UI: server-rendered pages (html/template)
// over what the FE knows of its queries, backends, tables, sessions,
// variables and loads, and a query page that draws the distributed plan
// (static/plan.js, laid out with the vendored dagre). Everything it serves
// is embedded (go:embed); nothing is fetched from the internet.
//
// The FE authenticates each request with HTTP basic auth against its own
// accounts (Source.Login) and answers as that account: the pages show
// what its SHOW statements would show it, and Kill is KILL QUERY run as it.
package webui

import (
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io/fs"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Source is the FE, as the UI reads it.
type Source interface {
	// Login checks the request's basic auth: false means 401.
	Login(r *http.Request) (Viewer, bool)
}

// Viewer is the FE as one logged-in account sees it.
type Viewer interface {
	User() string
	// Queries are the running statements (first) and the recent ones it may see.
	Queries() []Query
	// Query is one running or recent query with its plan and counters.
	Query(id string) (*QueryDetail, bool)
	// Run runs one statement (a SHOW, or KILL) as the account.
	Run(stmt string) (*Table, error)
	// Backends is SHOW BACKENDS' columns the page shows, with each one's load.
	Backends() (*Table, error)
	// Databases are the databases the account sees.
	Databases() []string
	// Tables are the tables it sees; Groups the colocate groups of their databases.
	Tables() ([]TableInfo, []Group)
}

//go:embed templates/*.html
var templateFS embed.FS

// The vendoring notes (static/VENDOR.md, refresh-dagre.sh) stay out.
//
//go:embed static/*.js static/*.css static/dagre.LICENSE static/*.LEGAL.txt
var staticFS embed.FS

// pages are the navigation bar's entries.
var pages = []struct{ Path, Title string }{
	{"/", "Queries"}, {"/backends", "Backends"}, {"/tables", "Tables"},
	{"/sessions", "Sessions"}, {"/variables", "Variables"}, {"/loads", "Loads"}, {"/alters", "Schema changes"},
}

type ui struct {
	src   Source
	pages map[string]*template.Template
}

// New returns the UI's handler; the FE mounts it at "/".
func New(src Source) http.Handler {
	u := &ui{src: src, pages: map[string]*template.Template{}}
	funcs := template.FuncMap{"bytes": humanBytes, "ms": func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) },
		"est": func(v int64) string {
			if v < 0 {
				return "?"
			}
			return strconv.FormatInt(v, 10)
		}, "since": func(t time.Time) string { return t.Format("2006-01-02 15:04:05") }}
	for _, name := range []string{"queries", "query", "sections", "tables"} {
		u.pages[name] = template.Must(template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html"))
	}
	static, _ := fs.Sub(staticFS, "static")
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /{$}", u.auth(u.queriesPage))
	mux.HandleFunc("GET /query/{id}", u.auth(u.queryPage))
	mux.HandleFunc("GET /backends", u.auth(u.backendsPage))
	mux.HandleFunc("GET /tables", u.auth(u.tablesPage))
	mux.HandleFunc("GET /sessions", u.auth(u.statementPage("Sessions", "SHOW PROCESSLIST")))
	mux.HandleFunc("GET /variables", u.auth(u.statementPage("Variables", "SHOW VARIABLES")))
	mux.HandleFunc("GET /loads", u.auth(u.loadsPage))
	mux.HandleFunc("GET /alters", u.auth(u.altersPage))
	// The JSON the pages poll.
	mux.HandleFunc("GET /ui/api/queries", u.auth(func(w http.ResponseWriter, r *http.Request, v Viewer) {
		writeJSON(w, http.StatusOK, v.Queries())
	}))
	mux.HandleFunc("GET /ui/api/query/{id}", u.auth(func(w http.ResponseWriter, r *http.Request, v Viewer) {
		q, ok := v.Query(r.PathValue("id"))
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{"error": "no such query"})
			return
		}
		writeJSON(w, http.StatusOK, q)
	}))
	mux.HandleFunc("POST /ui/api/kill/{conn}", u.auth(u.kill))
	return mux
}

type viewerHandler func(w http.ResponseWriter, r *http.Request, v Viewer)

// auth answers 401 with a basic auth challenge (the browser asks for the
// login) unless the request carries a valid one.
func (u *ui) auth(h viewerHandler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		v, ok := u.src.Login(r)
		if !ok {
			w.Header().Set("WWW-Authenticate", `Basic realm="dorisgo"`)
			http.Error(w, "401 Unauthorized: log in with a dorisgo account (HTTP basic auth)", http.StatusUnauthorized)
			return
		}
		h(w, r, v)
	}
}

// page is what every template gets: the layout's fields plus the page's own.
type page struct {
	Title string
	User  string
	Nav   any
	Data  any
}

func (u *ui) render(w http.ResponseWriter, v Viewer, name, title string, data any) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if err := u.pages[name].Execute(w, page{Title: title, User: v.User(), Nav: pages, Data: data}); err != nil {
		http.Error(w, "rendering "+title+": "+err.Error(), http.StatusInternalServerError)
	}
}

// kill is the Kill button: KILL QUERY run as the viewer, so the same
// privileges decide. A custom header is required, which a cross-site form
// cannot send: the browser's remembered basic auth must not let another
// site kill queries.
func (u *ui) kill(w http.ResponseWriter, r *http.Request, v Viewer) {
	if r.Header.Get("X-Dorisgo-UI") == "" {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": "the X-Dorisgo-UI header is required"})
		return
	}
	conn, err := strconv.ParseUint(r.PathValue("conn"), 10, 32)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"error": "bad connection id " + strconv.Quote(r.PathValue("conn"))})
		return
	}
	if _, err := v.Run(fmt.Sprintf("KILL QUERY %d", conn)); err != nil {
		writeJSON(w, http.StatusForbidden, map[string]string{"error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "killed"})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(v)
}

// humanBytes is a byte count as the pages print it: 512 B, 1.5 KB, 3.0 MB.
func humanBytes(n int64) string {
	if n < 0 {
		return "?"
	}
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	f, i := float64(n), -1
	for f >= unit && i < 4 {
		f /= unit
		i++
	}
	return fmt.Sprintf("%.1f %cB", f, "KMGTP"[i])
}

// section is one titled table of a statement page (or its error).
type section struct {
	Title string
	Table *Table
	Err   string
}

func sectionOf(title string, t *Table, err error) section {
	s := section{Title: title, Table: t}
	if err != nil {
		s.Err = err.Error()
	}
	return s
}

// statementPage shows one statement's result.
func (u *ui) statementPage(title, stmt string) viewerHandler {
	return func(w http.ResponseWriter, r *http.Request, v Viewer) {
		t, err := v.Run(stmt)
		u.render(w, v, "sections", title, []section{sectionOf(stmt, t, err)})
	}
}

func (u *ui) backendsPage(w http.ResponseWriter, r *http.Request, v Viewer) {
	t, err := v.Backends()
	fe, ferr := v.Run("SHOW FRONTENDS")
	u.render(w, v, "sections", "Backends", []section{sectionOf("SHOW BACKENDS", t, err), sectionOf("SHOW FRONTENDS", fe, ferr)})
}

// loadsPage lists each visible database's loads (SHOW LOAD, with their
// progress) and stream loads.
func (u *ui) loadsPage(w http.ResponseWriter, r *http.Request, v Viewer) {
	var secs []section
	for _, db := range v.Databases() {
		q := "`" + strings.ReplaceAll(db, "`", "``") + "`"
		for _, stmt := range []string{"SHOW LOAD FROM " + q, "SHOW STREAM LOAD FROM " + q} {
			t, err := v.Run(stmt)
			if err == nil && len(t.Rows) == 0 {
				continue
			}
			secs = append(secs, sectionOf(stmt, t, err))
		}
	}
	u.render(w, v, "sections", "Loads", secs)
}

// altersPage lists each visible database's schema change jobs, running
// and finished, with their state and progress (SHOW ALTER TABLE COLUMN).
func (u *ui) altersPage(w http.ResponseWriter, r *http.Request, v Viewer) {
	var secs []section
	for _, db := range v.Databases() {
		stmt := "SHOW ALTER TABLE COLUMN FROM `" + strings.ReplaceAll(db, "`", "``") + "` ORDER BY JobId DESC"
		t, err := v.Run(stmt)
		if err == nil && len(t.Rows) == 0 {
			continue
		}
		secs = append(secs, sectionOf(stmt, t, err))
	}
	u.render(w, v, "sections", "Schema changes", secs)
}

func (u *ui) queriesPage(w http.ResponseWriter, r *http.Request, v Viewer) {
	u.render(w, v, "queries", "Queries", v.Queries())
}

func (u *ui) queryPage(w http.ResponseWriter, r *http.Request, v Viewer) {
	q, ok := v.Query(r.PathValue("id"))
	if !ok {
		http.Error(w, "no such query: "+r.PathValue("id")+" (not running, not among the kept profiles, or not yours)", http.StatusNotFound)
		return
	}
	js, _ := json.Marshal(q)
	u.render(w, v, "query", "Query "+q.Query.QueryID, struct {
		*QueryDetail
		JSON template.JS
	}{q, template.JS(js)})
}

func (u *ui) tablesPage(w http.ResponseWriter, r *http.Request, v Viewer) {
	tables, groups := v.Tables()
	u.render(w, v, "tables", "Tables", struct {
		Tables []TableInfo
		Groups []Group
	}{tables, groups})
}
