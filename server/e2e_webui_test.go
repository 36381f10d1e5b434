package server_test

import (
	"context"
	"database/sql"
	"encoding/base64"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"
)

var updateScreenshot = flag.Bool("webui.screenshot", false, "rewrite server/webui/testdata/query-page.png (the README's screenshot)")

// chromiumPath is Debian's chromium; .ci/run installs it, so the browser
// tests fail, not skip, without it.
const chromiumPath = "/usr/bin/chromium"

// artifactDir is where the browser tests keep their screenshots:
// $DORISGO_ARTIFACTS if set, else the test's temp dir.
func artifactDir(t *testing.T) string {
	if d := os.Getenv("DORISGO_ARTIFACTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// browser starts headless chromium with every request carrying user's
// basic auth, as a logged-in browser sends it.
func browser(t *testing.T, user, pass string) context.Context {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("the web UI tests need Debian's chromium at %s (apt-get install chromium; .ci/run installs it): %v", chromiumPath, err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1500, 1100),
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelC(); cancelA() })
	auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
	if _, err := chromedp.Call(ctx, network.Enable, network.EnableParams{}); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	if _, err := chromedp.Call(ctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: network.Headers{"Authorization": auth}}); err != nil {
		t.Fatalf("setting the login header: %v", err)
	}
	return ctx
}

// do runs browser steps with a deadline.
func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// get runs one browser action that returns a value, with a deadline.
func get[T any](t *testing.T, ctx context.Context, what string, a chromedp.Action[T]) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, a)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return v
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	return get(t, ctx, "text of "+sel, chromedp.Text(chromedp.CSS(sel)))
}

func screenshot(t *testing.T, ctx context.Context, dir, name string) []byte {
	t.Helper()
	png := get(t, ctx, "screenshot "+name, chromedp.FullScreenshot(100))
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
	return png
}

// queryPage is what a query page's DOM shows.
type queryPage struct {
	Fragments  int      `json:"fragments"`  // fragment sections
	Boxes      int      `json:"boxes"`      // fragment boxes in the graph
	Kinds      []string `json:"kinds"`      // exchange kinds, per exchange table
	XBytes     []string `json:"xbytes"`     // measured exchange bytes cells
	EdgeLabels []string `json:"edgeLabels"` // the graph's exchange labels
	Joins      []string `json:"joins"`      // join distribution cells
	Colocate   []string `json:"colocate"`   // colocate cells of joins
	Backends   []string `json:"backends"`   // instance rows' backends, over fragments
	State      string   `json:"state"`
}

const readQueryPage = `(() => {
  const texts = (sel) => Array.from(document.querySelectorAll(sel)).map((e) => e.textContent.trim());
  return {
    fragments: document.querySelectorAll("section.fragment").length,
    boxes: document.querySelectorAll("#plan-graph g.fragment-box").length,
    kinds: texts("td.exchange-kind"), xbytes: texts("td.exchange-bytes"),
    edgeLabels: texts("#plan-graph .edge-label"),
    joins: texts("td.join-dist"), colocate: texts("td.colocate"),
    backends: texts("table.instances tbody tr td:first-child"),
    state: document.getElementById("state").textContent.trim(),
  };
})()`

func openQueryPage(t *testing.T, ctx context.Context, base, id string) queryPage {
	t.Helper()
	do(t, ctx, "query page "+id, chromedp.Navigate(base+"/query/"+id), chromedp.WaitVisible(chromedp.CSS("#plan-graph g.fragment-box")))
	return get(t, ctx, "reading the query page", chromedp.Evaluate[queryPage](readQueryPage))
}

// edgeLabel is a plan graph exchange label: kind, estimated then measured rows and bytes.
var edgeLabel = regexp.MustCompile(`^(hash|bucket shuffle|broadcast|gather|merge|random) · est (\d+|\?) rows / (\?|[\d.]+ [KMGTP]?B) → (\d+) rows / ([\d.]+ [KMGTP]?B)$`)

// The web UI in a real browser: each of a colocate, a bucket-shuffle and a
// broadcast join's query page draws its fragments joined by exchanges of
// the right kind with estimated and measured byte labels and shows the
// join's distribution; the UI answers 401 without a login; a running
// query's page updates live and its Kill button stops it; a user sees and
// kills only what KILL would let it.
func TestE2EWebUIBrowser(t *testing.T) {
	s := newServer(t)
	base := "http://" + s.HTTPAddr()
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE wu")
	for _, ddl := range []string{
		`CREATE TABLE wu.a (k BIGINT NOT NULL, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 6 PROPERTIES ("replication_num" = "1", "colocate_with" = "g")`,
		`CREATE TABLE wu.b (k BIGINT NOT NULL, w INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 6 PROPERTIES ("replication_num" = "1", "colocate_with" = "g")`,
		`CREATE TABLE wu.d (i INT NOT NULL, k BIGINT) DUPLICATE KEY(i) DISTRIBUTED BY HASH(i) BUCKETS 4 PROPERTIES ("replication_num" = "1")`,
		`INSERT INTO wu.a SELECT number, number % 100 FROM numbers("number" = "3000")`,
		`INSERT INTO wu.b SELECT number, number % 7 FROM numbers("number" = "3000")`,
		`INSERT INTO wu.d SELECT number, number * 2 FROM numbers("number" = "1000")`,
		"CREATE USER 'viewer'@'%' IDENTIFIED BY 'pw'",
		"GRANT SELECT_PRIV ON wu.* TO 'viewer'@'%'",
		"CREATE USER 'outsider'@'%' IDENTIFIED BY 'pw'",
	} {
		mustExec(t, db, ddl)
	}
	c := conn1(t, db)
	joins := []struct {
		name, sql, dist, kind string
	}{
		{"colocate", "SELECT count(*), sum(b.w) FROM wu.a JOIN wu.b ON a.k = b.k", "COLOCATE", ""},
		{"bucket-shuffle", "SELECT count(*), sum(d.i) FROM wu.a JOIN wu.d ON a.k = d.k", "BUCKET_SHUFFLE", "bucket shuffle"},
		{"broadcast", "SELECT count(*), sum(d.i) FROM wu.a JOIN [broadcast] wu.d ON a.v = d.i", "BROADCAST", "broadcast"},
	}
	ids := map[string]string{}
	for _, j := range joins {
		plan := strings.Join(flatten(queryStrings(t, c, "EXPLAIN "+j.sql)), "\n")
		if !strings.Contains(plan, "("+j.dist+")") {
			t.Fatalf("%s: EXPLAIN does not plan a %s join:\n%s", j.name, j.dist, plan)
		}
		queryStrings(t, c, j.sql)
		ids[j.name] = queryStrings(t, c, "SELECT last_query_id()")[0][0]
	}

	t.Run("login required", func(t *testing.T) {
		for _, path := range []string{"/", "/query/" + ids["colocate"], "/backends", "/ui/api/queries"} {
			resp, err := http.Get(base + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Basic") {
				t.Errorf("GET %s without a login: %d %q, want 401 with a Basic challenge", path, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
			}
			if code, _ := httpAs(t, "GET", base+path, "root", "wrong", nil); code != http.StatusUnauthorized {
				t.Errorf("GET %s with a wrong password: %d, want 401", path, code)
			}
		}
	})

	// An account without privileges on wu sees none of it; pages that
	// are SHOW statements answer as the statement does for it.
	t.Run("privileges", func(t *testing.T) {
		for _, path := range []string{"/tables", "/loads", "/"} {
			code, body := httpAs(t, "GET", base+path, "outsider", "pw", nil)
			if code != http.StatusOK || strings.Contains(body, "wu.") || strings.Contains(body, "FROM `wu`") {
				t.Errorf("outsider GET %s: %d, shows wu:\n%s", path, code, body)
			}
		}
		// The backends page lists the frontends too: a frontend of its own
		// is its cluster's only master.
		if code, body := httpAs(t, "GET", base+"/backends", "root", "", nil); code != http.StatusOK || !strings.Contains(body, "SHOW FRONTENDS") || !strings.Contains(body, "IsMaster") {
			t.Errorf("root GET /backends: %d, lacks SHOW FRONTENDS:\n%s", code, body)
		}
		code, body := httpAs(t, "GET", base+"/backends", "outsider", "pw", nil)
		if code != http.StatusOK || !strings.Contains(body, `class="error"`) {
			t.Errorf("outsider GET /backends: %d, want SHOW BACKENDS' access error:\n%s", code, body)
		}
		if code, body := httpAs(t, "GET", base+"/tables", "viewer", "pw", nil); code != http.StatusOK || !strings.Contains(body, "wu.a") {
			t.Errorf("viewer GET /tables: %d, lacks wu.a", code)
		}
	})

	ctx := browser(t, "root", "")
	art := artifactDir(t)
	for _, j := range joins {
		t.Run(j.name, func(t *testing.T) {
			p := openQueryPage(t, ctx, base, ids[j.name])
			png := screenshot(t, ctx, art, "query-"+j.name+".png")
			if j.name == "bucket-shuffle" && *updateScreenshot {
				if err := os.WriteFile("webui/testdata/query-page.png", png, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if p.State != "EOF" {
				t.Errorf("state %q, want EOF", p.State)
			}
			if p.Fragments < 2 || p.Boxes != p.Fragments {
				t.Errorf("%d fragment sections and %d graph boxes, want the same number, at least 2", p.Fragments, p.Boxes)
			}
			if len(p.Joins) != 1 || p.Joins[0] != j.dist {
				t.Errorf("join distributions %q, want [%s]", p.Joins, j.dist)
			}
			if j.dist == "COLOCATE" {
				if len(p.Colocate) != 1 || p.Colocate[0] != "colocated" {
					t.Errorf("colocate cell %q, want colocated", p.Colocate)
				}
			} else if len(p.Colocate) != 1 || !strings.HasPrefix(p.Colocate[0], "not colocated: ") || len(p.Colocate[0]) <= len("not colocated: ") {
				t.Errorf("colocate cell %q, want not colocated with a reason", p.Colocate)
			}
			if len(p.EdgeLabels) != p.Fragments-1 || len(p.Kinds) != p.Fragments-1 {
				t.Fatalf("%d edge labels and %d exchange tables for %d fragments: %q", len(p.EdgeLabels), len(p.Kinds), p.Fragments, p.EdgeLabels)
			}
			found := j.kind == ""
			for i, l := range p.EdgeLabels {
				m := edgeLabel.FindStringSubmatch(l)
				if m == nil {
					t.Errorf("edge label %q is not kind · est rows / bytes → rows / bytes", l)
					continue
				}
				if m[1] != p.Kinds[i] {
					t.Errorf("edge label %q against exchange kind %q", l, p.Kinds[i])
				}
				if m[4] == "0" || m[5] == "0 B" || p.XBytes[i] == "0 B" {
					t.Errorf("exchange %q measured nothing (bytes cell %q)", l, p.XBytes[i])
				}
				if m[1] == j.kind {
					found = true
				}
				if j.kind == "" && m[1] != "gather" {
					t.Errorf("a colocate join moved rows over a %s exchange: %q", m[1], l)
				}
			}
			if !found {
				t.Errorf("no %s exchange among %q", j.kind, p.EdgeLabels)
			}
			distinct := map[string]bool{}
			for _, b := range p.Backends {
				if strings.HasPrefix(b, "127.0.0.1:") {
					distinct[b] = true
				}
			}
			if len(distinct) != 3 {
				t.Errorf("instances on backends %q, want all 3", p.Backends)
			}
		})
	}

	// The other two kinds the UI names: a merging sort's and a two-phase
	// aggregation's shuffle (from the JSON the query page polls).
	t.Run("merge and hash exchanges", func(t *testing.T) {
		for stmt, kind := range map[string]string{
			"SELECT k FROM wu.a ORDER BY k LIMIT 5":           "merge",
			"SELECT w, count(*) FROM wu.b GROUP BY w":         "hash",
			"SELECT k, count(*) FROM wu.a GROUP BY k LIMIT 1": "gather",
		} {
			queryStrings(t, c, stmt)
			id := queryStrings(t, c, "SELECT last_query_id()")[0][0]
			code, body := httpAs(t, "GET", base+"/ui/api/query/"+id, "root", "", nil)
			var d struct {
				Fragments []struct {
					Exchange *struct {
						Kind  string `json:"kind"`
						Rows  int64  `json:"rows"`
						Bytes int64  `json:"bytes"`
					} `json:"exchange"`
				} `json:"fragments"`
			}
			if err := json.Unmarshal([]byte(body), &d); code != http.StatusOK || err != nil {
				t.Fatalf("%s: %d %v %s", stmt, code, err, body)
			}
			var kinds []string
			found := false
			for _, f := range d.Fragments {
				if x := f.Exchange; x != nil {
					kinds = append(kinds, x.Kind)
					found = found || x.Kind == kind && x.Rows > 0 && x.Bytes > 0
				}
			}
			if !found {
				t.Errorf("%s: exchanges %q, want a %s one that moved rows", stmt, kinds, kind)
			}
		}
	})

	// An INSERT … SELECT's page shows its OLAP TABLE SINK fragment run on
	// the backends.
	t.Run("insert select", func(t *testing.T) {
		mustExec(t, c, "INSERT INTO wu.d SELECT v, k FROM wu.a WHERE k < 100")
		id := queryStrings(t, c, "SELECT last_query_id()")[0][0]
		p := openQueryPage(t, ctx, base, id)
		sinks := get(t, ctx, "sinks", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("code.sink")).map(e => e.textContent)`))
		if p.State != "OK" || len(sinks) == 0 || sinks[0] != "OLAP TABLE SINK" || len(p.Backends) == 0 {
			t.Errorf("INSERT … SELECT page: state %q, sinks %q, instances on %q", p.State, sinks, p.Backends)
		}
	})

	t.Run("pages", func(t *testing.T) {
		do(t, ctx, "backends", chromedp.Navigate(base+"/backends"))
		txt := text(t, ctx, "main")
		if n := strings.Count(txt, "true"); n < 3 || !strings.Contains(txt, "RunningInstances") || !strings.Contains(txt, "LastHeartbeat") {
			t.Errorf("backends page: %d alive, text:\n%s", n, txt)
		}
		screenshot(t, ctx, art, "backends.png")
		do(t, ctx, "tables", chromedp.Navigate(base+"/tables"))
		txt = text(t, ctx, "#groups")
		seq := get(t, ctx, "buckets", chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#groups span.bucket")).map(e => e.textContent.trim())`))
		if !strings.Contains(txt, "stable") || !strings.Contains(txt, "wu.a, wu.b") || len(seq) != 6 {
			t.Errorf("colocate groups: %d buckets %q, text:\n%s", len(seq), seq, txt)
		}
		txt = text(t, ctx, `section[data-table="wu.d"]`)
		if !strings.Contains(txt, "HASH(i) BUCKETS 4") || strings.Count(txt, "backend ") != 3 {
			t.Errorf("table wu.d:\n%s", txt)
		}
		screenshot(t, ctx, art, "tables.png")
		do(t, ctx, "loads", chromedp.Navigate(base+"/loads"))
		txt = text(t, ctx, "main")
		if !strings.Contains(txt, "Progress") || strings.Count(txt, "100.00% (1/1)") < 3 {
			t.Errorf("loads page:\n%s", txt)
		}
		do(t, ctx, "variables", chromedp.Navigate(base+"/variables"))
		txt = text(t, ctx, "main")
		if !strings.Contains(txt, "max_query_profile_num") {
			t.Errorf("variables page lacks max_query_profile_num")
		}
		do(t, ctx, "sessions", chromedp.Navigate(base+"/sessions"))
		txt = text(t, ctx, "main")
		if !strings.Contains(txt, "SHOW PROCESSLIST") || !strings.Contains(txt, "root") {
			t.Errorf("sessions page:\n%s", txt)
		}
	})

	// A running query's backend fragments report their counters while
	// they run (query_status), so the page's numbers move there too.
	t.Run("backends live", func(t *testing.T) {
		conn, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		errc := make(chan error, 1)
		go func() {
			_, err := conn.ExecContext(context.Background(), `SELECT count(*) FROM wu.a x, wu.b y, wu.a z /*webui remote*/`)
			errc <- err
		}()
		var id string
		var connID uint32
		waitFor(t, 20*time.Second, "the cross join in /ui/api/queries", func() bool {
			for _, q := range apiQueries(t, base, "root", "") {
				if q.State == "RUNNING" && strings.Contains(q.SQL, "webui remote") {
					id, connID = q.QueryID, q.Conn
					return true
				}
			}
			return false
		})
		remoteRows := func() (rows int64, backends int) {
			_, body := httpAs(t, "GET", base+"/ui/api/query/"+id, "root", "", nil)
			var d struct {
				Fragments []struct {
					ID        int `json:"id"`
					Instances []struct {
						Backend string `json:"backend"`
					} `json:"instances"`
					Nodes []struct {
						Label string `json:"label"`
						Rows  int64  `json:"rows"`
					} `json:"nodes"`
				} `json:"fragments"`
			}
			if err := json.Unmarshal([]byte(body), &d); err != nil {
				t.Fatalf("%v: %s", err, body)
			}
			for _, f := range d.Fragments {
				if f.ID == 0 {
					continue
				}
				for _, n := range f.Nodes {
					if strings.Contains(n.Label, "JOIN") { // the joins run on the backends, never ending here
						rows += n.Rows
					}
				}
				for _, in := range f.Instances {
					if strings.HasPrefix(in.Backend, "127.0.0.1:") {
						backends++
					}
				}
			}
			return rows, backends
		}
		first, _ := remoteRows()
		waitFor(t, 15*time.Second, "the backend fragment's join rows to grow", func() bool {
			rows, backends := remoteRows()
			return rows > first && backends > 0
		})
		mustExec(t, db, fmt.Sprintf("KILL QUERY %d", connID))
		wantCode(t, <-errc, 1317, "the killed cross join")
	})

	t.Run("live and kill", func(t *testing.T) {
		conn, err := db.Conn(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		// Its rows stream into fragment 0, whose counters the FE has live (the
		// backends report theirs when their instances end).
		long := `SELECT z.number, x.v FROM numbers("number" = "100000000000") z JOIN [broadcast] wu.a x ON z.number % 3000 = x.k /*webui long*/`
		id, connID, errc := startLongQuery(t, conn, base, long, "webui long")
		// The viewer sees none of root's queries and may not kill them.
		for _, q := range apiQueries(t, base, "viewer", "pw") {
			if q.User != "viewer" {
				t.Errorf("viewer sees %s's query %q", q.User, q.SQL)
			}
		}
		for _, path := range []string{"/query/" + id, "/ui/api/query/" + id, "/query/" + ids["colocate"]} {
			if code, _ := httpAs(t, "GET", base+path, "viewer", "pw", nil); code != http.StatusNotFound {
				t.Errorf("viewer GET %s (root's query): %d, want 404", path, code)
			}
		}
		kill := fmt.Sprintf("%s/ui/api/kill/%d", base, connID)
		if code, body := httpAs(t, "POST", kill, "viewer", "pw", map[string]string{"X-Dorisgo-UI": "1"}); code != http.StatusForbidden || !strings.Contains(body, "not owner of thread") {
			t.Errorf("viewer killing root's query: %d %s, want 403 with KILL's error", code, body)
		}
		if code, _ := httpAs(t, "POST", kill, "root", "", nil); code != http.StatusForbidden {
			t.Errorf("kill without the UI's header: %d, want 403", code)
		}

		// The running query's page polls its counters.
		p := openQueryPage(t, ctx, base, id)
		if p.State != "RUNNING" {
			t.Errorf("running query's state %q", p.State)
		}
		live := `Array.from(document.querySelectorAll('td[data-live$=".rows"]')).map(e => e.textContent)`
		t1 := text(t, ctx, `[data-live="time_ms"]`)
		rows1 := get(t, ctx, "live rows", chromedp.Evaluate[[]string](live))
		waitFor(t, 15*time.Second, "the query page's counters to move", func() bool {
			t2 := text(t, ctx, `[data-live="time_ms"]`)
			rows2 := get(t, ctx, "live rows", chromedp.Evaluate[[]string](live))
			return t2 != t1 && sum(rows2) > sum(rows1)
		})
		screenshot(t, ctx, art, "query-running.png")

		// Kill from the Queries page.
		btn := fmt.Sprintf(`tr[data-query-id="%s"] button.kill`, id)
		do(t, ctx, "queries page", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(btn)))
		screenshot(t, ctx, art, "queries-running.png")
		// The page marks the result ok only on the FE's success reply (then reloads).
		do(t, ctx, "kill", chromedp.Click(chromedp.CSS(btn)), chromedp.WaitVisible(chromedp.CSS("#kill-result.ok")))
		select {
		case err := <-errc:
			wantCode(t, err, 1317, "the killed query")
		case <-time.After(10 * time.Second):
			t.Fatal("the Kill button did not stop the query")
		}
	})
}

func flatten(rows [][]string) []string {
	var out []string
	for _, r := range rows {
		out = append(out, strings.Join(r, " "))
	}
	return out
}

func sum(cells []string) int64 {
	var n int64
	for _, c := range cells {
		v, _ := strconv.ParseInt(strings.TrimSpace(c), 10, 64)
		n += v
	}
	return n
}

type uiQuery struct {
	QueryID string `json:"query_id"`
	Conn    uint32 `json:"conn"`
	User    string `json:"user"`
	SQL     string `json:"sql"`
	State   string `json:"state"`
	HasPlan bool   `json:"has_plan"`
}

func apiQueries(t *testing.T, base, user, pass string) []uiQuery {
	t.Helper()
	code, body := httpAs(t, "GET", base+"/ui/api/queries", user, pass, nil)
	if code != http.StatusOK {
		t.Fatalf("/ui/api/queries as %s: %d %s", user, code, body)
	}
	var qs []uiQuery
	if err := json.Unmarshal([]byte(body), &qs); err != nil {
		t.Fatal(err)
	}
	return qs
}

func httpAs(t *testing.T, method, url, user, pass string, headers map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(user, pass)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// startLongQuery runs stmt (whose text holds marker) on conn in the
// background and returns its query id and connection once /ui/api/queries
// lists it running with its plan, and the channel its end arrives on.
func startLongQuery(t *testing.T, conn *sql.Conn, base, stmt, marker string) (string, uint32, <-chan error) {
	t.Helper()
	errc := make(chan error, 1)
	go func() {
		_, err := conn.ExecContext(context.Background(), stmt)
		errc <- err
	}()
	var id string
	var connID uint32
	waitFor(t, 20*time.Second, "the long query in /ui/api/queries", func() bool {
		for _, q := range apiQueries(t, base, "root", "") {
			if q.State == "RUNNING" && strings.Contains(q.SQL, marker) && q.HasPlan {
				id, connID = q.QueryID, q.Conn
				return true
			}
		}
		return false
	})
	return id, connID, errc
}
