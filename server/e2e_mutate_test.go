package server_test

// The bounded SQL mutation run (issue 12): valid statements over a small
// schema are mutated token by token and sent to a real server through
// go-sql-driver, over the text protocol and as prepared statements. Every
// reply must be rows or a MySQL error with an expected code whose text
// shows none of our internals; no panic may be logged; the connection must
// answer SELECT 1 after each error and the server be alive at the end.
//
// The normal run sends -mutate.n statements (2,000, about 20 s under
// -race); a long run:
//
//	go test -race -count=1 -run TestE2ESQLMutations ./server/ -mutate.n=100000 -mutate.seed=7 -timeout 2h

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/go-sql-driver/mysql"

	"github.com/dorisgo/dorisgo/server"
)

var (
	mutateN    = flag.Int("mutate.n", 2000, "statements the SQL mutation run (TestE2ESQLMutations) sends")
	mutateSeed = flag.Uint64("mutate.seed", 1, "seed of the SQL mutation run")
	mutateV    = flag.Bool("mutate.v", false, "log each distinct error of the SQL mutation run")
)

// mutateSetup is the schema and rows the seed statements read.
var mutateSetup = []string{
	"CREATE DATABASE mut",
	`CREATE TABLE mut.t (k INT NOT NULL, v INT, s VARCHAR(20), d DATE, dt DATETIME, m DECIMAL(10, 2), f DOUBLE, b BIGINT)
	  DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 3 PROPERTIES ("replication_num" = "1")`,
	`CREATE TABLE mut.u (k INT NOT NULL, name VARCHAR(10), v INT) UNIQUE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2
	  PROPERTIES ("replication_num" = "1")`,
	`CREATE TABLE mut.a (k INT NOT NULL, total BIGINT SUM, hi INT MAX) AGGREGATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 2
	  PROPERTIES ("replication_num" = "1")`,
	`CREATE TABLE mut.p (k INT NOT NULL, d DATE, v INT) DUPLICATE KEY(k)
	  PARTITION BY RANGE(d) (PARTITION p1 VALUES LESS THAN ("2024-01-01"), PARTITION p2 VALUES LESS THAN ("2025-01-01"))
	  DISTRIBUTED BY HASH(k) BUCKETS 2 PROPERTIES ("replication_num" = "1")`,
	`INSERT INTO mut.t SELECT number, number % 7, concat('s', number % 5), date_add('2024-01-01', number),
	  date_add('2024-01-01 10:00:00', number), number * 1.25, number / 3, number * 1000000007 FROM numbers("number" = "40")`,
	"INSERT INTO mut.t VALUES (100, NULL, NULL, NULL, NULL, NULL, NULL, NULL), (101, -1, '', '1970-01-01', '1970-01-01 00:00:00', -0.5, -0.0, -9)",
	"INSERT INTO mut.u VALUES (1, 'a', 10), (2, 'b', 20), (3, NULL, 30), (4, 'd', NULL)",
	"INSERT INTO mut.a VALUES (1, 5, 1), (1, 7, 9), (2, 1, 2)",
	"INSERT INTO mut.p VALUES (1, '2023-05-01', 1), (2, '2024-05-01', 2)",
}

// mutateSeeds are valid statements; each runs unmutated first.
var mutateSeeds = []string{
	"SELECT 1",
	"SELECT 1 + 2 * 3, 'x', NULL, 1.5, -7",
	"SELECT * FROM mut.t ORDER BY k LIMIT 5",
	"SELECT k, v, s FROM mut.t WHERE v > 2 AND s LIKE 's%' ORDER BY k DESC LIMIT 3 OFFSET 1",
	"SELECT count(*), sum(v), min(s), max(d), avg(m) FROM mut.t",
	"SELECT v, count(*) AS c FROM mut.t GROUP BY v HAVING count(*) > 1 ORDER BY v",
	"SELECT s, sum(m), count(DISTINCT v) FROM mut.t GROUP BY s ORDER BY s",
	"SELECT v, s, count(*) FROM mut.t GROUP BY ROLLUP(v, s)",
	"SELECT v, s, sum(k) FROM mut.t GROUP BY GROUPING SETS ((v), (s), ())",
	"SELECT DISTINCT v FROM mut.t WHERE v IS NOT NULL ORDER BY v",
	"SELECT k FROM mut.t WHERE k IN (1, 2, 3) OR v BETWEEN 2 AND 4 ORDER BY k",
	"SELECT k FROM mut.t WHERE s IN ('s1', 's2') AND NOT (v = 3) ORDER BY k",
	"SELECT CASE WHEN v > 3 THEN 'big' WHEN v IS NULL THEN 'none' ELSE 'small' END, count(*) FROM mut.t GROUP BY 1",
	"SELECT cast(k AS VARCHAR(10)), cast(s AS INT), cast(m AS DOUBLE), cast('2024-02-30' AS DATE) FROM mut.t LIMIT 4",
	"SELECT coalesce(v, -1), ifnull(s, 'z'), nullif(v, 3), if(v > 2, 1, 0) FROM mut.t ORDER BY k LIMIT 6",
	"SELECT concat(s, '-', k), upper(s), length(s), substring(s, 1, 1), replace(s, 's', 'S'), lpad(s, 5, '*') FROM mut.t LIMIT 5",
	"SELECT abs(v - 5), round(m, 1), floor(f), ceil(f), mod(k, 3), k % 4, k DIV 2 FROM mut.t LIMIT 5",
	"SELECT year(d), month(d), day(dt), date_add(d, INTERVAL 1 DAY), datediff(d, '2024-01-01') FROM mut.t LIMIT 5",
	"SELECT k, b * 3, f * 2.5, m / 7 FROM mut.t WHERE b > 100 ORDER BY k LIMIT 5",
	"SELECT t.k, u.name FROM mut.t t JOIN mut.u u ON t.k = u.k ORDER BY t.k",
	"SELECT t.k, u.name FROM mut.t t LEFT JOIN mut.u u ON t.k = u.k AND u.v > 10 WHERE t.k < 6 ORDER BY t.k",
	"SELECT t.k, u.k FROM mut.t t RIGHT OUTER JOIN mut.u u ON t.v = u.k ORDER BY 1, 2",
	"SELECT t.k, u.k FROM mut.t t FULL OUTER JOIN mut.u u ON t.k = u.v ORDER BY 1, 2",
	"SELECT count(*) FROM mut.t a, mut.t b WHERE a.k = b.v",
	"SELECT count(*) FROM mut.t a CROSS JOIN mut.u b",
	"SELECT a.k FROM mut.t a JOIN [broadcast] mut.u b ON a.k = b.k",
	"SELECT a.k FROM mut.t a JOIN [shuffle] mut.t b ON a.s = b.s WHERE a.k < 3 ORDER BY a.k",
	"SELECT a.k FROM mut.t a LEFT SEMI JOIN mut.u b ON a.k = b.k ORDER BY a.k",
	"SELECT a.k FROM mut.t a LEFT ANTI JOIN mut.u b ON a.k = b.k WHERE a.k < 8 ORDER BY a.k",
	"SELECT t.k FROM mut.t t JOIN mut.u u ON t.k = u.k JOIN mut.a a ON a.k = u.k",
	"SELECT k FROM mut.t WHERE k IN (SELECT k FROM mut.u WHERE v > 10) ORDER BY k",
	"SELECT k FROM mut.t WHERE EXISTS (SELECT 1 FROM mut.u WHERE u.k = t.k) ORDER BY k",
	"SELECT k FROM mut.t WHERE NOT EXISTS (SELECT 1 FROM mut.u WHERE u.k = t.v) AND k < 5 ORDER BY k",
	"SELECT k, (SELECT max(v) FROM mut.u WHERE u.k = t.v) FROM mut.t t ORDER BY k LIMIT 6",
	"SELECT k, (SELECT count(*) FROM mut.u WHERE u.k < t.v) FROM mut.t t ORDER BY k LIMIT 6",
	"SELECT k FROM mut.t WHERE v > (SELECT avg(v) FROM mut.t) ORDER BY k",
	"SELECT k FROM mut.t WHERE v NOT IN (SELECT v FROM mut.u WHERE v IS NOT NULL) ORDER BY k LIMIT 5",
	"SELECT x.c FROM (SELECT v, count(*) AS c FROM mut.t GROUP BY v) x WHERE x.c > 1 ORDER BY x.c",
	"WITH c AS (SELECT k, v FROM mut.t WHERE v > 1) SELECT count(*) FROM c",
	"WITH c AS (SELECT k FROM mut.u), d AS (SELECT k FROM c WHERE k > 1) SELECT * FROM d ORDER BY k",
	"SELECT k, row_number() OVER (PARTITION BY v ORDER BY k) FROM mut.t ORDER BY k LIMIT 8",
	"SELECT k, sum(v) OVER (ORDER BY k ROWS BETWEEN 1 PRECEDING AND CURRENT ROW), rank() OVER (ORDER BY v) FROM mut.t ORDER BY k LIMIT 8",
	"SELECT k, lag(v, 1) OVER (ORDER BY k), max(m) OVER (PARTITION BY s) FROM mut.t ORDER BY k LIMIT 8",
	"SELECT k FROM mut.t UNION SELECT k FROM mut.u ORDER BY k LIMIT 5",
	"SELECT k FROM mut.t UNION ALL SELECT v FROM mut.u",
	"SELECT k FROM mut.t INTERSECT SELECT k FROM mut.u",
	"SELECT k FROM mut.t EXCEPT SELECT k FROM mut.u ORDER BY k LIMIT 3",
	"SELECT group_concat(s), count(*) FROM mut.t GROUP BY v ORDER BY v",
	"SELECT number FROM numbers(\"number\" = \"5\")",
	"SELECT count(*) FROM numbers(\"number\" = \"1000\") a JOIN mut.t b ON a.number = b.k",
	"SELECT k, total, hi FROM mut.a ORDER BY k",
	"SELECT * FROM mut.p PARTITION (p1)",
	"SELECT * FROM mut.p WHERE d >= '2024-01-01'",
	"SELECT k FROM mut.t WHERE d = DATE '2024-01-05' OR dt > '2024-02-01 00:00:00'",
	"SELECT k <=> v, k = v, v <> 3, v IS NULL, s REGEXP '^s[0-2]$' FROM mut.t LIMIT 5",
	"SELECT /*+ SET_VAR(parallel_pipeline_task_num = 2) */ v, count(*) FROM mut.t GROUP BY v",
	"SELECT SQL_CALC_FOUND_ROWS k FROM mut.t LIMIT 1",
	"SELECT @@version_comment, @@query_timeout, DATABASE(), CONNECTION_ID()",
	"EXPLAIN SELECT t.k FROM mut.t t JOIN mut.u u ON t.k = u.k WHERE t.v > 1",
	"EXPLAIN VERBOSE SELECT v, count(*) FROM mut.t GROUP BY v",
	"SHOW DATABASES",
	"SHOW TABLES FROM mut",
	"SHOW CREATE TABLE mut.t",
	"SHOW COLUMNS FROM mut.u",
	"DESC mut.t",
	"SHOW PARTITIONS FROM mut.p",
	"SHOW VARIABLES LIKE 'query%'",
	"SHOW PROCESSLIST",
	"SHOW WARNINGS",
	"SHOW GRANTS",
	"SELECT table_name, table_rows FROM information_schema.tables WHERE table_schema = 'mut' ORDER BY table_name",
	"SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 't' ORDER BY ordinal_position",
	"SELECT * FROM information_schema.user_privileges",
	"SET @x = 5",
	"SELECT @x + 1",
	"SET exec_mem_limit = 1073741824",
	"SET parallel_pipeline_task_num = 2",
	"USE mut",
	"INSERT INTO mut.t VALUES (200, 1, 'ins', '2024-06-01', '2024-06-01 01:02:03', 9.99, 1.5e3, 12345678901)",
	"INSERT INTO mut.t (k, v, s) VALUES (201, 2, 'partial')",
	"INSERT INTO mut.u SELECT k + 1000, s, v FROM mut.t WHERE k < 3",
	"INSERT INTO mut.a VALUES (3, 100, 7)",
	"INSERT INTO mut.p VALUES (9, '2024-12-31', 9)",
	`CREATE TABLE IF NOT EXISTS mut.scratch (id BIGINT NOT NULL, name VARCHAR(32) DEFAULT 'x', amount DECIMAL(12, 3))
	  DUPLICATE KEY(id) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ("replication_num" = "1")`,
	"INSERT INTO mut.scratch VALUES (1, 'one', 1.5), (2, NULL, -3.25)",
	"SELECT id, name, amount FROM mut.scratch ORDER BY id",
	"CREATE DATABASE IF NOT EXISTS mut2",
	"SELECT k FROM mut.t WHERE k = ? LIMIT 1",
}

// mutateCodes are the MySQL codes a mutated statement may get back.
var mutateCodes = map[uint16]bool{
	1044: true, 1046: true, 1048: true, 1049: true, 1050: true, 1051: true, 1052: true, 1054: true, 1055: true,
	1059: true, 1060: true, 1064: true, 1065: true, 1066: true, 1067: true, 1105: true, 1110: true, 1111: true, 1116: true,
	1136: true, 1140: true, 1146: true, 1149: true, 1193: true, 1210: true, 1222: true, 1231: true, 1232: true,
	1235: true, 1241: true, 1242: true, 1248: true, 1264: true, 1292: true, 1305: true, 1317: true, 1364: true, 1365: true,
	1366: true, 1406: true, 1463: true, 1473: true, 1582: true, 1690: true, 3024: true, 5063: true,
}

// badErrorText matches error text that shows our internals: Go types and
// runtime messages, source or server file paths, raw gRPC status.
var badErrorText = regexp.MustCompile(`interface \{\}|map\[|\[\]byte|\*[a-z]+\.[A-Z]|\bgoroutine\b|runtime error|nil pointer|index out of range|` +
	`\.go:\d|/tmp/|/home/|/work/|rpc error|code = [A-Z]|desc = |unexpected panic|json: |reflect\.`)

// panicCounter counts log records of panics (the server's panic guard
// and the coordinator log "panic ...", the wire layer "wire: panic ...").
type panicCounter struct {
	slog.Handler
	st *panicLog
}

type panicLog struct {
	mu     sync.Mutex
	panics []string
}

func (p *panicCounter) Handle(ctx context.Context, r slog.Record) error {
	if strings.HasPrefix(r.Message, "panic") || strings.Contains(r.Message, ": panic") {
		p.st.mu.Lock()
		p.st.panics = append(p.st.panics, r.Message)
		p.st.mu.Unlock()
	}
	return p.Handler.Handle(ctx, r)
}

func (p *panicCounter) WithAttrs(as []slog.Attr) slog.Handler {
	return &panicCounter{Handler: p.Handler.WithAttrs(as), st: p.st}
}

func (p *panicCounter) WithGroup(name string) slog.Handler {
	return &panicCounter{Handler: p.Handler.WithGroup(name), st: p.st}
}

func TestE2ESQLMutations(t *testing.T) {
	counter := &panicCounter{Handler: slog.NewTextHandler(discardLog{}, &slog.HandlerOptions{Level: slog.LevelWarn}), st: &panicLog{}}
	s, err := server.Start(server.Config{DataDir: t.TempDir(), Host: "127.0.0.1", Backends: 3, Log: slog.New(counter)})
	if err != nil {
		t.Fatal(err)
	}
	s.CheckPlans()
	t.Cleanup(s.Close)
	root := openDB(t, s.MySQLAddr(), "", true)
	for _, q := range mutateSetup {
		mustExec(t, root, q)
	}
	c := mysql.NewConfig()
	c.Net, c.Addr, c.User = "tcp", s.MySQLAddr(), "root"
	c.Timeout, c.ReadTimeout, c.WriteTimeout = 10*time.Second, 60*time.Second, 60*time.Second
	// A mutation can make a statement unbounded (a huge LIMIT over a cross
	// join); the server's own timeout ends it.
	c.Params = map[string]string{"query_timeout": "3"}
	db, err := sql.Open("mysql", c.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// A connection given back is closed, so that reconnecting after a
	// mutated SET starts a fresh session (a pooled one kept
	// parallel_pipeline_task_num = 2^31 - 1 for the statements after it).
	db.SetMaxIdleConns(0)
	ctx := context.Background()
	run := &mutationRun{t: t, db: db, codes: map[uint16]int{}, seen: map[string]bool{}}
	run.reconnect()
	defer func() { run.conn.Close() }()

	// The seeds are valid.
	for _, q := range mutateSeeds {
		if strings.Contains(q, "?") {
			continue // a placeholder: only its mutations (COM_QUERY: 1064/1210) run
		}
		if err := run.send(ctx, q, false); err != nil {
			t.Fatalf("seed %q: %v", q, err)
		}
	}
	rng := rand.New(rand.NewPCG(*mutateSeed, 0x5eed))
	start := time.Now()
	for i := 0; i < *mutateN; i++ {
		seed := mutateSeeds[rng.IntN(len(mutateSeeds))]
		q := mutate(rng, seed)
		run.one(ctx, q, rng.IntN(4) == 0)
		if len(run.failures) >= 20 {
			break
		}
	}
	took := time.Since(start)
	// Alive at the end: a new connection answers, the backends are up.
	alive := openDB(t, s.MySQLAddr(), "", false)
	if got := queryStrings(t, alive, "SELECT count(*) FROM mut.u WHERE k < 5"); len(got) != 1 {
		t.Errorf("the server at the end: %v", got)
	}
	waitBackendsAliveWithin(t, alive, 3, 10*time.Second)
	counter.st.mu.Lock()
	panics := counter.st.panics
	counter.st.mu.Unlock()
	if len(panics) > 0 {
		t.Errorf("%d panics logged: %q", len(panics), panics)
	}
	var hist []string
	for code, n := range run.codes {
		hist = append(hist, fmt.Sprintf("%d:%d", code, n))
	}
	sort.Strings(hist)
	t.Logf("%d statements in %v (seed %d): %d rows replies, errors by code %s", run.sent, took.Round(time.Millisecond),
		*mutateSeed, run.ok, strings.Join(hist, " "))
	for _, f := range run.failures {
		t.Error(f)
	}
}

type discardLog struct{}

func (discardLog) Write(p []byte) (int, error) { return len(p), nil }

type mutationRun struct {
	t        *testing.T
	db       *sql.DB
	conn     *sql.Conn
	sent, ok int
	codes    map[uint16]int
	seen     map[string]bool
	failures []string
}

func (r *mutationRun) reconnect() {
	if r.conn != nil {
		r.conn.Close()
	}
	conn, err := r.db.Conn(context.Background())
	if err != nil {
		r.t.Fatalf("connect: %v", err)
	}
	r.conn = conn
}

// send runs q (prepared if prepared) and reads every row.
func (r *mutationRun) send(ctx context.Context, q string, prepared bool) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	var rows *sql.Rows
	var err error
	if prepared {
		var st *sql.Stmt
		if st, err = r.conn.PrepareContext(ctx, q); err != nil {
			return err
		}
		defer st.Close()
		rows, err = st.QueryContext(ctx)
	} else {
		rows, err = r.conn.QueryContext(ctx, q)
	}
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	for i := range vals {
		vals[i] = new(sql.RawBytes)
	}
	for rows.Next() {
		if err := rows.Scan(vals...); err != nil {
			return err
		}
	}
	return rows.Err()
}

// one sends one mutated statement and checks the reply and the connection.
func (r *mutationRun) one(ctx context.Context, q string, prepared bool) {
	r.sent++
	// go-sql-driver itself refuses to execute a placeholder without an argument.
	prepared = prepared && !strings.Contains(q, "?")
	began := time.Now()
	err := r.send(ctx, q, prepared)
	if took := time.Since(began); *mutateV && took > 300*time.Millisecond {
		r.t.Logf("slow: %v: %.300s", took.Round(time.Millisecond), q)
	}
	fail := func(format string, args ...any) {
		r.failures = append(r.failures, fmt.Sprintf("%s\n  statement (prepared %v): %.2000s", fmt.Sprintf(format, args...), prepared, q))
	}
	if err == nil {
		r.ok++
	} else {
		var me *mysql.MySQLError
		if !errors.As(err, &me) {
			fail("not a MySQL error reply: %v", err)
			r.reconnect()
			return
		}
		r.codes[me.Number]++
		if *mutateV {
			key := fmt.Sprintf("%d %.60s", me.Number, me.Message)
			if !r.seen[key] {
				r.seen[key] = true
				r.t.Logf("error %d: %.300s\n  from: %.300s", me.Number, me.Message, q)
			}
		}
		switch {
		case !mutateCodes[me.Number]:
			fail("unexpected error code %d: %s", me.Number, me.Message)
		case badErrorText.MatchString(me.Message):
			fail("error %d shows internals: %s", me.Number, me.Message)
		}
		var one int
		if err := r.conn.QueryRowContext(ctx, "SELECT 1").Scan(&one); err != nil || one != 1 {
			fail("SELECT 1 after error %d: %v", me.Number, err)
			r.reconnect()
			return
		}
	}
	// A changed session (a mutated SET or USE) starts over.
	if w := firstWord(q); w == "SET" || w == "USE" {
		r.reconnect()
	}
}

func firstWord(q string) string {
	q = strings.TrimLeft(q, " \t\n(")
	i := strings.IndexFunc(q, func(c rune) bool { return !unicode.IsLetter(c) })
	if i < 0 {
		i = len(q)
	}
	return strings.ToUpper(q[:i])
}

// Tokens of a statement, as the mutations see them.
type tokKind uint8

const (
	tokSpace tokKind = iota
	tokWord
	tokNumber
	tokString
	tokQuoted // `identifier`
	tokPunct
	tokComment
	tokKeyword // for pick: a word in upper case
)

type token struct {
	kind tokKind
	text string
}

func tokenize(q string) []token {
	var out []token
	for i := 0; i < len(q); {
		c := q[i]
		j := i + 1
		kind := tokPunct
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			kind = tokSpace
			for j < len(q) && strings.IndexByte(" \t\n", q[j]) >= 0 {
				j++
			}
		case c == '/' && strings.HasPrefix(q[i:], "/*"):
			kind = tokComment
			if k := strings.Index(q[i+2:], "*/"); k >= 0 {
				j = i + 2 + k + 2
			} else {
				j = len(q)
			}
		case c == '\'' || c == '"' || c == '`':
			kind = tokString
			if c == '`' {
				kind = tokQuoted
			}
			for j < len(q) && q[j] != c {
				if q[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(q))
		case c >= '0' && c <= '9':
			kind = tokNumber
			for j < len(q) && (q[j] >= '0' && q[j] <= '9' || q[j] == '.' || q[j] == 'e' || q[j] == 'E') {
				j++
			}
		case c == '_' || c == '@' || unicode.IsLetter(rune(c)):
			kind = tokWord
			for j < len(q) && (q[j] == '_' || q[j] == '@' || q[j] == '.' && j+1 < len(q) && q[j+1] != ' ' ||
				unicode.IsLetter(rune(q[j])) || q[j] >= '0' && q[j] <= '9') {
				j++
			}
		case strings.HasPrefix(q[i:], "<=>"):
			j = i + 3
		case strings.HasPrefix(q[i:], "<=") || strings.HasPrefix(q[i:], ">=") || strings.HasPrefix(q[i:], "<>") ||
			strings.HasPrefix(q[i:], "!="):
			j = i + 2
		}
		out = append(out, token{kind, q[i:j]})
		i = j
	}
	return out
}

func untokenize(ts []token) string {
	var b strings.Builder
	for _, t := range ts {
		b.WriteString(t.text)
	}
	return b.String()
}

var (
	mutKeywords = strings.Fields(`SELECT DISTINCT ALL FROM WHERE AND OR NOT IS NULL IN LIKE BETWEEN ASC DESC LEFT RIGHT INNER
		CROSS FULL OUTER SEMI ANTI JOIN ON USING UNION INTERSECT EXCEPT GROUP ORDER BY HAVING LIMIT OFFSET AS CASE WHEN
		THEN ELSE END EXISTS ANY SOME OVER PARTITION ROWS RANGE CAST INTERVAL WITH ROLLUP CUBE VALUES INTO TRUE FALSE
		DATE TIMESTAMP INT BIGINT VARCHAR DECIMAL DOUBLE CHAR PRECEDING FOLLOWING UNBOUNDED CURRENT ROW EXPLAIN SHOW
		TABLE INSERT DUPLICATE KEY SET DEFAULT LATERAL RECURSIVE DIV MOD REGEXP XOR COLLATE BINARY SEPARATOR`)
	// Replacements by what an identifier names: a column (of another type,
	// another table or none), a table, a function.
	mutColumns = strings.Fields(`k v s d dt m f b name total hi number id amount nosuch t.k u.name a.k b.v x.c`)
	mutTables  = strings.Fields(`mut.t mut.u mut.a mut.p mut.scratch mut.nosuch nosuch.t t u information_schema.tables
		information_schema.user_privileges`)
	mutFuncs = strings.Fields(`count sum min max avg concat substring coalesce ifnull row_number rank lag lead group_concat
		now md5 repeat lpad upper length abs round floor year date_add datediff if nullif cast numbers nosuchfn`)
	mutNumbers = []string{"0", "-1", "1", "2147483647", "2147483648", "-2147483649", "9223372036854775807",
		"9223372036854775808", "-9223372036854775808", "18446744073709551616", "170141183460469231731687303715884105728",
		"1e308", "1e309", "-1e-320", "0.000000000000000000000000000001", "99999999999999999999999999999999999999.99",
		"123456789012345678901234567890123456789012345678901234567890", "0x7fffffff", "NULL", "1.", ".5", "00000000000000000001"}
	mutStrings = []string{"''", "'x'", "'" + strings.Repeat("y", 3000) + "'", "'\\'", "'\\0\\n\\t'", "'%_%'", "'😀𝓊'",
		"'\xff\xfe'", "'2024-13-45'", "'9999-12-31 23:59:59.999999'", "'NaN'", "'-Infinity'", "'1e999'", "'  7  '",
		"'0000-00-00'", "''''", `"dq"`}
)

// mutate applies one or two random mutations to q. A mutation that makes
// the text longer than 256 KiB is undone (a long list of long names made
// 15 MB, which only measures the parser's speed under -race).
func mutate(rng *rand.Rand, q string) string {
	n := 1 + rng.IntN(2)
	for range n {
		if m := mutateOnce(rng, q); len(m) <= 256<<10 {
			q = m
		}
	}
	return q
}

func mutateOnce(rng *rand.Rand, q string) string {
	ts := tokenize(q)
	var idx []int // non-space tokens
	for i, t := range ts {
		if t.kind != tokSpace {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return "SELECT 1"
	}
	// The seeds spell keywords in upper case, names in lower case.
	keyword := func(i int) bool { return ts[i].kind == tokWord && ts[i].text == strings.ToUpper(ts[i].text) }
	pick := func(kinds ...tokKind) int {
		var c []int
		for _, i := range idx {
			for _, k := range kinds {
				switch {
				case k == tokWord && keyword(i), k == tokKeyword && !keyword(i):
				case ts[i].kind == k, k == tokKeyword && ts[i].kind == tokWord:
					c = append(c, i)
				}
			}
		}
		if len(c) == 0 {
			return idx[rng.IntN(len(idx))]
		}
		return c[rng.IntN(len(c))]
	}
	i := idx[rng.IntN(len(idx))]
	// Mostly mutations that keep the syntax (so that binding, planning and
	// execution see them); a quarter break it.
	m := 3 + rng.IntN(8)
	if rng.IntN(4) == 0 {
		m = []int{0, 1, 2, 11, 12, 13}[rng.IntN(6)]
	}
	switch m {
	case 0: // drop a token
		ts = append(ts[:i], ts[i+1:]...)
	case 1: // duplicate one
		ts = append(ts[:i+1], ts[i:]...)
	case 2: // swap two neighbours
		k := rng.IntN(len(idx))
		if k+1 < len(idx) {
			a, b := idx[k], idx[k+1]
			ts[a], ts[b] = ts[b], ts[a]
		}
	case 3: // a number to an extreme
		j := pick(tokNumber)
		ts[j] = token{tokNumber, mutNumbers[rng.IntN(len(mutNumbers))]}
	case 4: // an identifier lengthened
		j := pick(tokWord, tokQuoted)
		n := []int{65, 256, 5000}[rng.IntN(3)]
		w := strings.Trim(ts[j].text, "`")
		ts[j] = token{tokWord, strings.Repeat(w+"_", n/(len(w)+1)+1)[:n]}
	case 5: // a keyword swapped
		j := pick(tokKeyword)
		ts[j] = token{tokWord, mutKeywords[rng.IntN(len(mutKeywords))]}
	case 6: // a name swapped for another of its kind
		j := pick(tokWord)
		names := mutColumns
		switch next := j + 1; {
		case next < len(ts) && ts[next].text == "(":
			names = mutFuncs
		case strings.Contains(ts[j].text, ".") && len(strings.SplitN(ts[j].text, ".", 2)[0]) > 2: // not alias.column
			names = mutTables
		}
		ts[j] = token{tokWord, names[rng.IntN(len(names))]}
	case 7: // a literal to another type
		j := pick(tokNumber, tokString)
		all := append(append([]string{}, mutNumbers...), mutStrings...)
		ts[j] = token{tokString, all[rng.IntN(len(all))]}
	case 8: // a string to an extreme
		j := pick(tokString)
		ts[j] = token{tokString, mutStrings[rng.IntN(len(mutStrings))]}
	case 9: // nesting: parentheses or unary operators around a literal or column
		j := pick(tokNumber, tokWord)
		d := []int{2, 50, 300, 3000}[rng.IntN(4)]
		open, close := strings.Repeat("(", d), strings.Repeat(")", d) // past 199: 1473
		switch d = min(d, 300); rng.IntN(3) {                         // TestE2EHostileInputs has deeper valid nesting
		case 1:
			open, close = strings.Repeat("- ", d), ""
		case 2:
			open, close = strings.Repeat("NOT ", d), ""
		}
		ts[j] = token{tokPunct, open + ts[j].text + close}
	case 10: // nesting: the statement as a derived table, or a subquery in its WHERE
		d := []int{1, 3, 30, 250}[rng.IntN(4)]
		if firstWord(q) == "SELECT" {
			if rng.IntN(2) == 0 {
				return strings.Repeat("SELECT * FROM (", d) + q + strings.Repeat(") z", d)
			}
			return "SELECT count(*) FROM mut.t WHERE k IN (" + q + ")"
		}
	case 11: // cut short
		ts = ts[:i]
	case 12: // a stray token
		stray := []string{"(", ")", ",", ";", ".", "*", "?", "+", "=", "'", "`", "\\", "@", "#", "--", "/*", "*/", "\x00", "😀"}
		ts = append(ts[:i], append([]token{{tokPunct, stray[rng.IntN(len(stray))]}}, ts[i:]...)...)
	case 13: // a whole clause repeated (a long list)
		j := pick(tokNumber, tokWord)
		n := []int{10, 100, 1000}[rng.IntN(3)] // TestE2EHostileInputs has the longest lists
		ts[j] = token{tokPunct, strings.TrimSuffix(strings.Repeat(ts[j].text+", ", n), ", ")}
	}
	return untokenize(ts)
}

// TestE2EMutationFindings keeps what the mutation run found, each as its
// smallest statement with the answer it must give.
func TestE2EMutationFindings(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", false)
	for _, q := range mutateSetup {
		mustExec(t, db, q)
	}
	for _, c := range []struct{ q, want string }{
		// A value of another type is a condition where it is not zero (was
		// 1105 "internal error: eval: predicate … is INT, not BOOLEAN").
		{"SELECT count(*) FROM mut.t WHERE v", "35"},
		{"SELECT count(*) FROM mut.t WHERE v >> 1", "29"},
		{"WITH c AS (SELECT k FROM mut.t WHERE v + 1) SELECT count(*) FROM c", "40"},
		{"SELECT count(*) FROM mut.t WHERE s", "0"}, // 's1' reads as 0, as in MySQL
		{"SELECT count(*) FROM mut.t a JOIN mut.u b ON a.v", "140"},
		{"SELECT count(*) FROM (SELECT v FROM mut.t GROUP BY v HAVING v) g", "7"},
		// A constant that folds to +Inf (was 1105 "json: unsupported value: +Inf" encoding the plan).
		{"SELECT count(*) FROM mut.t t WHERE (SELECT max(v) FROM mut.u WHERE u.k = '1e999') IS NULL", "42"},
		{"SELECT count(*) FROM mut.t WHERE f < '1e999' AND f > '-1e999'", "41"},
		// 3,000 nested NOT or unary minus over an aggregate: binding was
		// cubic in the depth (20 s, past query_timeout).
		{"SELECT " + strings.Repeat("NOT ", 3000) + "count(*) FROM mut.t", "1"},
		{"SELECT " + strings.Repeat("- ", 3000) + "count(*) FROM mut.t", "42"},
		{"SELECT count(*) FROM (SELECT v, " + strings.Repeat("NOT ", 3000) + "count(*) FROM mut.t GROUP BY v) g", "9"},
		// parallel_pipeline_task_num = 2^31 - 1: each backend allocated 51 GB
		// for its task list and the process died out of memory.
		{"SELECT /*+ SET_VAR(parallel_pipeline_task_num = 2147483647) */ count(*) FROM (SELECT v, count(*) FROM mut.t GROUP BY v) g", "9"},
	} {
		start := time.Now()
		got, err := queryStringsErr(db, c.q)
		if err != nil || len(got) != 1 || got[0][0] != c.want {
			t.Errorf("%.80s: %v %v, want %s", c.q, got, err, c.want)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%.80s took %v", c.q, took)
		}
	}
	// A placeholder outside a prepared statement is a syntax error (was
	// 1105 "internal error: eval: unbound parameter ?0").
	_, err := db.Exec("SELECT k FROM mut.t WHERE k = ?")
	wantCode(t, err, 1064, "a placeholder in COM_QUERY")
}
