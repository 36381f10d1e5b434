package server_test

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// The Grafana dashboard (server/webui/grafana/dorisgo-fe.json) charts only
// series that /metrics really exports: every metric name in its queries is
// in a scrape taken after queries, a failed one, an INSERT and a stream
// load; its latency quantiles read a histogram's buckets; and it covers
// queries, errors, latency, connections, transactions and loads.
func TestE2EGrafanaDashboardMetrics(t *testing.T) {
	raw, err := os.ReadFile("webui/grafana/dorisgo-fe.json")
	if err != nil {
		t.Fatal(err)
	}
	var dash struct {
		UID        string `json:"uid"`
		Title      string `json:"title"`
		Templating struct {
			List []struct {
				Query any `json:"query"`
			} `json:"list"`
		} `json:"templating"`
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(raw, &dash); err != nil {
		t.Fatalf("dashboard JSON: %v", err)
	}
	if dash.UID == "" || dash.Title == "" || len(dash.Panels) == 0 {
		t.Fatalf("dashboard without uid, title or panels: %+v", dash)
	}
	var exprs []string
	for _, p := range dash.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, tg := range p.Targets {
			exprs = append(exprs, tg.Expr)
		}
	}
	for _, v := range dash.Templating.List {
		if q, ok := v.Query.(string); ok {
			exprs = append(exprs, q)
		}
	}

	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE gd")
	mustExec(t, db, `CREATE TABLE gd.t (k BIGINT NOT NULL, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO gd.t VALUES (1, 1), (2, 2)")
	queryStrings(t, db, "SELECT count(*) FROM gd.t")
	if _, err := queryStringsErr(db, "SELECT * FROM gd.nosuch"); err == nil {
		t.Fatal("a query of a missing table succeeded")
	}
	mustStreamLoad(t, s.HTTPAddr(), "gd", "t", map[string]string{"column_separator": ","}, []byte("3,3\n4,4\n"))
	scrape := httpGet(t, "http://"+s.HTTPAddr()+"/metrics")

	exported := map[string]bool{}
	histograms := map[string]bool{}
	for _, line := range strings.Split(scrape, "\n") {
		if f := strings.Fields(line); len(f) == 4 && f[0] == "#" && f[1] == "TYPE" && f[3] == "histogram" {
			histograms[f[2]] = true
		}
		if line == "" || line[0] == '#' {
			continue
		}
		name := line[:strings.IndexAny(line, "{ ")]
		exported[name] = true
	}
	name := regexp.MustCompile(`\bdoris_[a-z0-9_]+`)
	used := map[string]bool{}
	for _, e := range exprs {
		for _, m := range name.FindAllString(e, -1) {
			used[m] = true
			if !exported[m] {
				t.Errorf("the dashboard charts %s (in %q), which /metrics does not export", m, e)
			}
		}
		if strings.Contains(e, "histogram_quantile") {
			for _, m := range name.FindAllString(e, -1) {
				if !strings.HasSuffix(m, "_bucket") || !histograms[strings.TrimSuffix(m, "_bucket")] {
					t.Errorf("histogram_quantile over %s, not a histogram's buckets: %q", m, e)
				}
			}
		}
	}
	for _, want := range []string{"doris_fe_query_total", "doris_fe_query_err", "doris_fe_query_latency_ms_bucket", "doris_fe_connection_total",
		"doris_fe_txn_begin", "doris_fe_txn_success", "doris_fe_txn_failed", "doris_fe_load_rows", "doris_fe_stream_load_total"} {
		if !used[want] {
			t.Errorf("the dashboard does not chart %s", want)
		}
	}
}
