package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/storage"
)

func newAPI(t *testing.T) *httptest.Server {
	t.Helper()
	meta, err := storage.OpenMeta(t.TempDir(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { meta.Close() })
	cat, err := catalog.Open(meta)
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.CreateUser("u", "%", "pw", false); err != nil {
		t.Fatal(err)
	}
	// The frontends' own endpoints are the server's; none here.
	api := New(Config{Catalog: cat, Forward: http.NotFound, FEHeartbeat: http.NotFound, Frontends: http.NotFound, ProcessList: http.NotFound,
		Redirect:    func(http.ResponseWriter, *http.Request) bool { return false },
		ProfileText: func(a *catalog.Access, id string) (string, bool) { return "profile " + id + " of " + a.User, id == "7" },
		Connections: func() int { return 3 },
		StmtCounts: func() StmtCounts {
			return StmtCounts{Requests: 9, Queries: 5, QueryErrs: 1, LatencyBuckets: map[float64]uint64{1: 2, 10: 4}, LatencyCount: 5, LatencySumMs: 42}
		}})
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, method, url, user, pass string) (int, http.Header, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, nil)
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

// The auth of /api: 401 with a challenge without valid credentials, 403
// for an admin endpoint without ADMIN_PRIV, the catalog's error for an
// admin's request on a missing group.
func TestAuth(t *testing.T) {
	srv := newAPI(t)
	code, h, body := get(t, "GET", srv.URL+"/api/health", "", "")
	if code != 401 || h.Get("WWW-Authenticate") == "" || !strings.Contains(body, "wrong user or password") {
		t.Fatalf("no credentials: %d %v %s", code, h, body)
	}
	if code, _, _ := get(t, "GET", srv.URL+"/api/health", "u", "nope"); code != 401 {
		t.Fatalf("wrong password: %d", code)
	}
	if code, _, body := get(t, "GET", srv.URL+"/api/health", "u@somewhere", "pw"); code != 200 || !strings.Contains(body, `"status": "OK"`) {
		t.Fatalf("health: %d %s", code, body)
	}
	group := "/api/colocate/group_stable?group=" + catalog.GlobalGroupPrefix + "nosuch"
	if code, _, body := get(t, "POST", srv.URL+group, "u", "pw"); code != 403 || !strings.Contains(body, "ADMIN") {
		t.Fatalf("group_stable without ADMIN_PRIV: %d %s", code, body)
	}
	code, _, body = get(t, "POST", srv.URL+group, catalog.RootUser, "")
	var reply struct {
		Code int
		Msg  string
	}
	if err := json.Unmarshal([]byte(body), &reply); err != nil || code != 400 || reply.Code != 1 || !strings.Contains(reply.Msg, "does not exist") {
		t.Fatalf("group_stable of a missing group: %d %s", code, body)
	}
	if code, _, body := get(t, "GET", srv.URL+"/api/profile/7", "u", "pw"); code != 200 || body != "profile 7 of u" {
		t.Fatalf("profile: %d %q", code, body)
	}
	if code, _, body := get(t, "GET", srv.URL+"/api/profile/8", "u", "pw"); code != 404 || !strings.Contains(body, "no such profile") {
		t.Fatalf("missing profile: %d %q", code, body)
	}
	if code, _, _ := get(t, "GET", srv.URL+"/debug/pprof/", "u", "pw"); code != 403 {
		t.Fatalf("pprof without ADMIN_PRIV: %d", code)
	}
}

// /metrics is open and carries what the server counts under Doris's names.
func TestMetrics(t *testing.T) {
	srv := newAPI(t)
	code, _, body := get(t, "GET", srv.URL+"/metrics", "", "")
	if code != 200 {
		t.Fatalf("metrics: %d", code)
	}
	for _, want := range []string{"doris_fe_request_total 9", "doris_fe_query_total 5", "doris_fe_query_err 1",
		`doris_fe_query_latency_ms_bucket{le="10"} 4`, "doris_fe_query_latency_ms_count 5", "doris_fe_query_latency_ms_sum 42",
		"doris_fe_connection_total 3", "doris_fe_rps 0", "doris_column_cache_bytes"} {
		if !strings.Contains(body, want+"\n") && !strings.Contains(body, want+" ") {
			t.Errorf("no %q in /metrics", want)
		}
	}
}
