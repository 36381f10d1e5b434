package be

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/planner/fragment"
)

// metrics are a backend's Prometheus series (doris_be_*), fed from each
// fragment instance's report when it ends and from live state on scrape.
type metrics struct {
	instances    *prometheus.CounterVec // by outcome
	tasks        prometheus.Counter
	instanceTime prometheus.Histogram
	sentRows     prometheus.Counter
	sentBytes    prometheus.Counter
	sentWire     prometheus.Counter
	sentBlocked  prometheus.Counter
	recvRows     prometheus.Counter
	recvBytes    prometheus.Counter
	recvBlocked  prometheus.Counter
	operatorRows prometheus.Counter
	collectors   []prometheus.Collector
}

func newMetrics(b *Backend) *metrics {
	c := func(name, help string) prometheus.Counter {
		return prometheus.NewCounter(prometheus.CounterOpts{Namespace: "doris", Subsystem: "be", Name: name, Help: help})
	}
	m := &metrics{
		instances: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "doris", Subsystem: "be",
			Name: "fragment_instances_total", Help: "Fragment instances run, by outcome (ok, error)."}, []string{"outcome"}),
		tasks: c("pipeline_tasks_total", "Pipeline tasks run by fragment instances."),
		instanceTime: prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "doris", Subsystem: "be",
			Name: "fragment_instance_seconds", Help: "Wall time of fragment instances.", Buckets: prometheus.ExponentialBuckets(0.001, 4, 10)}),
		sentRows:     c("exchange_sent_rows_total", "Rows sent by exchange sinks."),
		sentBytes:    c("exchange_sent_bytes_total", "Arrow bytes sent by exchange sinks."),
		sentWire:     c("exchange_sent_wire_bytes_total", "IPC bytes exchange sinks put on the wire."),
		sentBlocked:  c("exchange_sender_blocked_seconds_total", "Time exchange senders waited for receivers (backpressure)."),
		recvRows:     c("exchange_received_rows_total", "Rows received by exchange inboxes."),
		recvBytes:    c("exchange_received_bytes_total", "Arrow bytes received by exchange inboxes."),
		recvBlocked:  c("exchange_receiver_blocked_seconds_total", "Time inboxes held senders back on their byte budget."),
		operatorRows: c("scan_rows_total", "Rows returned by OLAP scans."),
	}
	running := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "doris", Subsystem: "be", Name: "fragment_instances_running",
		Help: "Fragment instances running now."}, func() float64 { return float64(b.RunningInstances()) })
	buffered := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "doris", Subsystem: "be", Name: "exchange_buffered_bytes",
		Help: "Unread bytes in exchange inboxes and outboxes now."}, func() float64 {
		b.mu.Lock()
		defer b.mu.Unlock()
		var n int64
		for _, s := range b.queries {
			for _, ib := range s.inboxes {
				n += ib.Buffered()
			}
			for _, ob := range s.outboxes {
				n += ob.Buffered()
			}
		}
		return float64(n)
	})
	early := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "doris", Subsystem: "be", Name: "exchange_early_streams",
		Help: "Exchange streams waiting now for their receiving instance to start."}, func() float64 {
		return float64(b.earlyStreams.Load())
	})
	uptime := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "doris", Subsystem: "be", Name: "uptime_seconds",
		Help: "Seconds since the backend started."}, func() float64 { return time.Since(b.start).Seconds() })
	cacheHits := prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "doris", Subsystem: "be", Name: "column_cache_hits_total",
		Help: "Segment columns scans found decoded in the column cache."}, func() float64 { h, _ := b.store.ColumnCacheStats(); return float64(h) })
	cacheMisses := prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "doris", Subsystem: "be", Name: "column_cache_misses_total",
		Help: "Segment columns scans read from storage and decoded."}, func() float64 { _, m := b.store.ColumnCacheStats(); return float64(m) })
	m.collectors = []prometheus.Collector{m.instances, m.tasks, m.instanceTime, m.sentRows, m.sentBytes, m.sentWire,
		m.sentBlocked, m.recvRows, m.recvBytes, m.recvBlocked, m.operatorRows, running, buffered, early, uptime, cacheHits, cacheMisses}
	return m
}

// instanceDone records one finished instance (rep nil: it failed).
func (m *metrics) instanceDone(rep *rpc.InstanceReport, wall time.Duration) {
	m.instanceTime.Observe(wall.Seconds())
	if rep == nil {
		m.instances.WithLabelValues("error").Inc()
		return
	}
	m.instances.WithLabelValues("ok").Inc()
	m.tasks.Add(float64(max(rep.Tasks, 1)))
	m.sentRows.Add(float64(rep.Sink.Rows))
	m.sentBytes.Add(float64(rep.Sink.Bytes))
	m.sentWire.Add(float64(rep.Sink.WireBytes))
	m.sentBlocked.Add(time.Duration(rep.Sink.BlockedNs).Seconds())
	for _, x := range rep.Exchanges {
		m.recvRows.Add(float64(x.Rows))
		m.recvBytes.Add(float64(x.Bytes))
		m.recvBlocked.Add(time.Duration(x.BlockedNs).Seconds())
	}
	for _, o := range rep.Operators {
		if o.Kind == fragment.KindScan {
			m.operatorRows.Add(float64(o.Rows))
		}
	}
}

// Collectors are the backend's metrics, for a registry to serve: its own
// (dorisgo be --http-port) or, in standalone mode, the FE's, labelled by
// backend.
func (b *Backend) Collectors() []prometheus.Collector { return b.metrics.collectors }

// RunningInstances counts the fragment instances running here now (the
// backend's load, as the FE's web UI shows it).
func (b *Backend) RunningInstances() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for _, s := range b.queries {
		n += len(s.cancels)
	}
	return n
}
