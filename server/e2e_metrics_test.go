package server_test

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

func httpGet(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	return string(b)
}

// metricValue sums the samples of series (`name` or `name{k="v",…}`: every
// given label must match) in a Prometheus text exposition; -1 if none.
func metricValue(text, series string) float64 {
	name, labels, _ := strings.Cut(series, "{")
	labels = strings.TrimSuffix(labels, "}")
	var want []string
	if labels != "" {
		want = strings.Split(labels, ",")
	}
	sum, found := 0.0, false
	for _, line := range strings.Split(text, "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		sp := strings.LastIndexByte(line, ' ')
		if sp < 0 {
			continue
		}
		head, val := line[:sp], line[sp+1:]
		n, ls, _ := strings.Cut(head, "{")
		if n != name {
			continue
		}
		ok := true
		for _, w := range want {
			ok = ok && strings.Contains(ls, w)
		}
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(val, 64)
		if err == nil {
			sum, found = sum+v, true
		}
	}
	if !found {
		return -1
	}
	return sum
}

// The FE's /metrics carries its own doris_fe_* series and, in standalone
// mode, every embedded backend's doris_be_* series labelled by backend.
func TestE2EMetrics(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE m")
	mustExec(t, db, `CREATE TABLE m.t (k BIGINT, v INT) DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 6 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, db, "INSERT INTO m.t VALUES (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7)")
	before := httpGet(t, "http://"+s.HTTPAddr()+"/metrics")
	queryStrings(t, db, "SELECT /*+ SET_VAR(parallel_pipeline_task_num = 2) */ v, count(*) FROM m.t GROUP BY v")
	after := httpGet(t, "http://"+s.HTTPAddr()+"/metrics")
	if v := metricValue(after, "doris_fe_connection_total"); v < 1 {
		t.Errorf("doris_fe_connection_total = %v", v)
	}
	for _, b := range s.Backends() {
		l := `backend="` + b.Addr() + `"`
		if v := metricValue(after, "doris_be_uptime_seconds{"+l+"}"); v <= 0 {
			t.Errorf("backend %s: no uptime series", b.Addr())
		}
	}
	for _, series := range []string{`doris_be_fragment_instances_total{outcome="ok"}`, "doris_be_scan_rows_total",
		"doris_be_exchange_sent_rows_total", "doris_be_pipeline_tasks_total"} {
		if d := metricValue(after, series) - max(metricValue(before, series), 0); d <= 0 {
			t.Errorf("%s did not grow with a query (before %v, after %v)", series, metricValue(before, series), metricValue(after, series))
		}
	}
	if v := metricValue(after, "doris_be_scan_rows_total"); v < 7 {
		t.Errorf("scan rows %v, want at least the 7 rows read", v)
	}
	// The first scan decoded the columns; the same scan again finds them
	// all in the column cache.
	again := httpGet(t, "http://"+s.HTTPAddr()+"/metrics")
	queryStrings(t, db, "SELECT v, count(*) FROM m.t GROUP BY v")
	last := httpGet(t, "http://"+s.HTTPAddr()+"/metrics")
	hits := metricValue(last, "doris_be_column_cache_hits_total") - metricValue(again, "doris_be_column_cache_hits_total")
	misses := metricValue(last, "doris_be_column_cache_misses_total") - metricValue(again, "doris_be_column_cache_misses_total")
	if hits <= 0 || misses != 0 {
		t.Errorf("repeated scan: %v column cache hits, %v misses; want hits only", hits, misses)
	}
}
