package server

import (
	"strings"
	"sync/atomic"
	"time"

	"github.com/dorisgo/dorisgo/server/httpapi"
	"github.com/dorisgo/dorisgo/sql/parser"
)

// stmtStats counts finished statements for /metrics under Doris's names
// (MetricRepo, updated as Doris does where the audit line is written):
//
//	doris_fe_request_total     every statement (each of a multi-statement text; a COM_STMT_PREPARE too)
//	doris_fe_query_total       query statements (SELECT, set operations)
//	doris_fe_query_err         the failed ones among them (any error; Doris leaves out analysis errors)
//	doris_fe_query_latency_ms  their latency, a histogram over all of them (Doris: a quantile summary of the good ones)
//	doris_fe_qps, doris_fe_rps, doris_fe_query_err_rate  per second over the last ~15 s (Doris's MetricCalculator period;
//	                           computed at scrapes by server/httpapi)
//
// The zero value is ready: Session.finish may count before /metrics is
// served.
type stmtStats struct {
	requests, queries, queryErrs atomic.Uint64
	buckets                      [len(latencyBucketsMs)]atomic.Uint64 // non-cumulative
	sumMicros                    atomic.Int64
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

// counts is what /metrics reads of m (httpapi.StmtCounts).
func (m *stmtStats) counts() httpapi.StmtCounts {
	c := httpapi.StmtCounts{Requests: m.requests.Load(), Queries: m.queries.Load(), QueryErrs: m.queryErrs.Load(),
		LatencyBuckets: map[float64]uint64{}, LatencySumMs: float64(m.sumMicros.Load()) / 1000}
	var n uint64
	for i, ub := range latencyBucketsMs {
		n += m.buckets[i].Load()
		c.LatencyBuckets[ub] = n
	}
	// The count is the query count (read before the buckets: a query that
	// finished in between may be in a bucket only, hence the max).
	c.LatencyCount = max(c.Queries, n)
	return c
}
