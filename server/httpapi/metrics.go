package httpapi

import (
	"math"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/dorisgo/dorisgo/storage"
)

// metrics are the FE's Prometheus metrics; the registry is per server (no
// globals), so several servers in one test process do not collide.
type metrics struct {
	reg         *prometheus.Registry
	loadRows    prometheus.Counter
	loadBytes   prometheus.Counter
	loads       *prometheus.CounterVec
	httpLatency *prometheus.HistogramVec
}

func newMetrics(cfg Config) *metrics {
	cat := cfg.Catalog
	m := &metrics{reg: prometheus.NewRegistry()}
	m.loadRows = prometheus.NewCounter(prometheus.CounterOpts{Namespace: "doris", Subsystem: "fe", Name: "load_rows", Help: "Rows loaded by committed loads."})
	m.loadBytes = prometheus.NewCounter(prometheus.CounterOpts{Namespace: "doris", Subsystem: "fe", Name: "load_bytes", Help: "Bytes of load input read."})
	m.loads = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "doris", Subsystem: "fe", Name: "stream_load_total", Help: "Stream loads by status."}, []string{"status"})
	m.httpLatency = prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "doris", Subsystem: "fe", Name: "http_request_seconds", Help: "HTTP request latency."}, []string{"path"})
	m.reg.MustRegister(m.loadRows, m.loadBytes, m.loads, m.httpLatency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		columnCacheGauge(), &stmtCollector{counts: cfg.StmtCounts},
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "doris", Subsystem: "fe", Name: "connection_total", Help: "Open MySQL connections."},
			func() float64 { return float64(cfg.Connections()) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "doris", Subsystem: "fe", Name: "txn_begin", Help: "Load transactions begun."},
			func() float64 { return float64(cat.TxnCounts().Begun) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "doris", Subsystem: "fe", Name: "txn_success", Help: "Load transactions made visible."},
			func() float64 { return float64(cat.TxnCounts().Succeeded) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "doris", Subsystem: "fe", Name: "txn_failed", Help: "Load transactions aborted."},
			func() float64 { return float64(cat.TxnCounts().Failed) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "doris", Subsystem: "fe", Name: "backends_alive", Help: "Alive backends."},
			func() float64 {
				n := 0
				for _, b := range cat.Backends() {
					if b.Alive {
						n++
					}
				}
				return float64(n)
			}))
	// Embedded backends (standalone) report through the FE's endpoint,
	// each series labelled with its backend's address; a separate
	// `dorisgo be` serves its own (--http-port).
	for _, b := range cfg.Embedded {
		prometheus.WrapRegistererWith(prometheus.Labels{"backend": b.Addr()}, m.reg).MustRegister(b.Collectors()...)
	}
	return m
}

// CountStreamLoad counts a stream load's reply in the FE's metrics
// (doris_fe_stream_load_total by status; rows and bytes of a success).
func (a *API) CountStreamLoad(status string, rows, bytes int64) {
	a.metrics.loads.WithLabelValues(status).Inc()
	if status == "success" {
		a.metrics.loadRows.Add(float64(rows))
		a.metrics.loadBytes.Add(float64(bytes))
	}
}

// columnCacheGauge reports the process's decoded column cache (shared by
// its backends, so it is not per backend).
func columnCacheGauge() prometheus.Collector {
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "doris", Name: "column_cache_bytes",
		Help: "Bytes of decoded segment columns the process's column cache holds."},
		func() float64 { return float64(storage.ColumnCacheBytes()) })
}

// StmtCounts are the FE's finished statements so far, as the server
// counts them where the audit line is written (Doris's MetricRepo).
type StmtCounts struct {
	// Requests is every statement (each of a multi-statement text; a
	// COM_STMT_PREPARE too); Queries the query statements (SELECT, set
	// operations), QueryErrs the failed ones among them.
	Requests, Queries, QueryErrs uint64
	// The queries' latency: LatencyBuckets by upper bound in ms, cumulative;
	// LatencyCount all of them (+Inf), LatencySumMs their sum.
	LatencyBuckets map[float64]uint64
	LatencyCount   uint64
	LatencySumMs   float64
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

// stmtCollector exposes a server's StmtCounts, and the per-second rates
// (doris_fe_qps, doris_fe_rps, doris_fe_query_err_rate) it computes from
// them at scrapes.
type stmtCollector struct {
	counts func() StmtCounts

	mu      sync.Mutex
	last    time.Time
	lastN   [3]uint64  // requests, queries, errors at last
	perSec  [3]float64 // rps, qps, err rate
	started bool
}

var _ prometheus.Collector = (*stmtCollector)(nil)

func (c *stmtCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descRequests, descQueries, descQueryErr, descLatency, descRPS, descQPS, descErrRate} {
		ch <- d
	}
}

func (c *stmtCollector) Collect(ch chan<- prometheus.Metric) {
	m := c.counts()
	now := [3]uint64{m.Requests, m.Queries, m.QueryErrs}
	ch <- prometheus.MustNewConstMetric(descRequests, prometheus.CounterValue, float64(now[0]))
	ch <- prometheus.MustNewConstMetric(descQueries, prometheus.CounterValue, float64(now[1]))
	ch <- prometheus.MustNewConstMetric(descQueryErr, prometheus.CounterValue, float64(now[2]))
	ch <- prometheus.MustNewConstHistogram(descLatency, m.LatencyCount, m.LatencySumMs, m.LatencyBuckets)
	r := c.rates(now)
	ch <- prometheus.MustNewConstMetric(descRPS, prometheus.GaugeValue, r[0])
	ch <- prometheus.MustNewConstMetric(descQPS, prometheus.GaugeValue, r[1])
	ch <- prometheus.MustNewConstMetric(descErrRate, prometheus.GaugeValue, r[2])
}

// ratePeriod is how often the per-second gauges are recomputed, at a
// scrape (Doris's MetricCalculator runs every 15 s).
const ratePeriod = 15 * time.Second

// rates are the per-second gauges, recomputed when a scrape comes at least
// ratePeriod after the last computation.
func (c *stmtCollector) rates(now [3]uint64) [3]float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := time.Now()
	if !c.started {
		c.started, c.last, c.lastN = true, t, now
		return c.perSec
	}
	if d := t.Sub(c.last).Seconds(); d >= ratePeriod.Seconds() {
		for i := range now {
			c.perSec[i] = math.Max(0, float64(now[i]-c.lastN[i])/d)
		}
		c.last, c.lastN = t, now
	}
	return c.perSec
}
