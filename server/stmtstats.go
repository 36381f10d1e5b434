package server

import (
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dorisgo/dorisgo/sql/parser"
)

// stmtStats counts finished statements for /metrics under Doris's names
// (MetricRepo, updated as Doris does where the audit line is written):
//
//	doris_fe_request_total     every statement (each of a multi-statement text; a COM_STMT_PREPARE too)
//	doris_fe_query_total       query statements (SELECT, set operations)
//	doris_fe_query_err         the failed ones among them (any error; Doris leaves out analysis errors)
//	doris_fe_query_latency_ms  their latency, a histogram over all of them (Doris: a quantile summary of the good ones)
//	doris_fe_qps, doris_fe_rps, doris_fe_query_err_rate  per second over the last ~15 s (Doris's MetricCalculator period)
//
// The zero value is ready: Session.finish may count before /metrics is
// served.
type stmtStats struct {
	requests, queries, queryErrs atomic.Uint64
	buckets                      [len(latencyBucketsMs)]atomic.Uint64 // non-cumulative
	sumMicros                    atomic.Int64

	mu      sync.Mutex
	last    time.Time
	lastN   [3]uint64  // requests, queries, errors at last
	perSec  [3]float64 // rps, qps, err rate
	started bool
}

// latencyBucketsMs are the histogram's upper bounds: 1 ms to 10 min, about
// ×2.5 apart (interactive queries to long loads).
var latencyBucketsMs = [...]float64{1, 2, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000, 300000, 600000}

// Task types of SHOW QUERY PROFILE (Doris's ProfileType).
const (
	taskQuery = "QUERY"
	taskLoad  = "LOAD"
)

// taskOf is the Task Type of a parsed statement ("": neither a query nor a
// load, so no profile and not a query in the metrics).
func taskOf(stmt parser.Statement) string {
	switch st := stmt.(type) {
	case *parser.Vitess:
		switch st.Kind {
		case parser.KindSelect:
			return taskQuery
		case parser.KindInsert, parser.KindUpdate, parser.KindDelete:
			return taskLoad
		}
	case *parser.CreateTableAs:
		return taskLoad
	}
	return ""
}

// taskOfText is the Task Type of a statement that failed before it was
// parsed, by its first word.
func taskOfText(text string) string {
	f := strings.Fields(strings.TrimLeft(text, "( \t\r\n"))
	if len(f) == 0 {
		return ""
	}
	switch strings.ToUpper(f[0]) {
	case "SELECT", "WITH":
		return taskQuery
	case "INSERT", "UPDATE", "DELETE":
		return taskLoad
	}
	return ""
}

// observe counts one finished statement.
func (m *stmtStats) observe(task string, failed bool, elapsed time.Duration) {
	m.requests.Add(1)
	if task != taskQuery {
		return
	}
	m.queries.Add(1)
	if failed {
		m.queryErrs.Add(1)
	}
	ms := float64(elapsed.Microseconds()) / 1000
	m.sumMicros.Add(elapsed.Microseconds())
	for i, ub := range latencyBucketsMs {
		if ms <= ub {
			m.buckets[i].Add(1)
			return
		}
	}
	// Above the last bound: counted by _count (+Inf) only.
}

var (
	descRequests = prometheus.NewDesc("doris_fe_request_total", "Statements finished (each of a multi-statement text, prepares too).", nil, nil)
	descQueries  = prometheus.NewDesc("doris_fe_query_total", "Query statements finished, failed ones included.", nil, nil)
	descQueryErr = prometheus.NewDesc("doris_fe_query_err", "Query statements that failed.", nil, nil)
	descLatency  = prometheus.NewDesc("doris_fe_query_latency_ms", "Query statement latency in milliseconds.", nil, nil)
	descRPS      = prometheus.NewDesc("doris_fe_rps", "Statements per second over the last ~15 s.", nil, nil)
	descQPS      = prometheus.NewDesc("doris_fe_qps", "Query statements per second over the last ~15 s.", nil, nil)
	descErrRate  = prometheus.NewDesc("doris_fe_query_err_rate", "Failed query statements per second over the last ~15 s.", nil, nil)
)

// stmtCollector exposes a server's stmtStats.
type stmtCollector struct{ m *stmtStats }

var _ prometheus.Collector = stmtCollector{}

func (c stmtCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRequests, descQueries, descQueryErr, descLatency, descRPS, descQPS, descErrRate} {
		ch <- d
	}
}

func (c stmtCollector) Collect(ch chan<- prometheus.Metric) {
	m := c.m
	now := [3]uint64{m.requests.Load(), m.queries.Load(), m.queryErrs.Load()}
	ch <- prometheus.MustNewConstMetric(descRequests, prometheus.CounterValue, float64(now[0]))
	ch <- prometheus.MustNewConstMetric(descQueries, prometheus.CounterValue, float64(now[1]))
	ch <- prometheus.MustNewConstMetric(descQueryErr, prometheus.CounterValue, float64(now[2]))
	cum := map[float64]uint64{}
	var n uint64
	for i, ub := range latencyBucketsMs {
		n += m.buckets[i].Load()
		cum[ub] = n
	}
	// _count is the query count (read before the buckets: a query that
	// finished in between may be in a bucket only, hence the max).
	ch <- prometheus.MustNewConstHistogram(descLatency, max(now[1], n), float64(m.sumMicros.Load())/1000, cum)
	r := m.rates(now)
	ch <- prometheus.MustNewConstMetric(descRPS, prometheus.GaugeValue, r[0])
	ch <- prometheus.MustNewConstMetric(descQPS, prometheus.GaugeValue, r[1])
	ch <- prometheus.MustNewConstMetric(descErrRate, prometheus.GaugeValue, r[2])
}

// ratePeriod is how often the per-second gauges are recomputed, at a
// scrape (Doris's MetricCalculator runs every 15 s).
const ratePeriod = 15 * time.Second

// rates are the per-second gauges, recomputed when a scrape comes at least
// ratePeriod after the last computation.
func (m *stmtStats) rates(now [3]uint64) [3]float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	t := time.Now()
	if !m.started {
		m.started, m.last, m.lastN = true, t, now
		return m.perSec
	}
	if d := t.Sub(m.last).Seconds(); d >= ratePeriod.Seconds() {
		for i := range now {
			m.perSec[i] = math.Max(0, float64(now[i]-m.lastN[i])/d)
		}
		m.last, m.lastN = t, now
	}
	return m.perSec
}
