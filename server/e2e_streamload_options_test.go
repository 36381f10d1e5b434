package server_test

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/pierrec/lz4/v4"
)

// optCase is one stream load of TestE2EStreamLoadOptions into a fresh
// table (k INT NOT NULL, v INT, s VARCHAR(5), d INT DEFAULT "7").
type optCase struct {
	name    string
	headers map[string]string // column_separator "," unless given
	body    string
	fail    string // "": Success; else a part of the Fail message
	// Doris's counts: total, loaded, filtered, unselected.
	counts [4]int64
	rows   [][]string // the table afterwards, sorted
	errLog []string   // the lines ErrorURL serves (nil: no ErrorURL)
}

const tooLongReason = "Reason: column_name[s], the length of input is too long than schema. first 32 bytes of input str: [toolong] schema length: 5; actual length: 7; . src line [3,3,toolong,3]; "

var optCases = []optCase{
	{name: "plain", body: "1,2,ab,3\n", counts: [4]int64{1, 1, 0, 0}, rows: [][]string{{"1", "2", "ab", "3"}}},
	{name: "columns by position; default and NULL for the rest", headers: map[string]string{"columns": "s, k"},
		body: "ab,1\n", counts: [4]int64{1, 1, 0, 0}, rows: [][]string{{"1", "NULL", "ab", "7"}}},
	{name: "columns with an expression over a temporary", headers: map[string]string{"columns": "k, tmp, v = tmp * 2"},
		body: "1,10\n2,\\N\n", counts: [4]int64{2, 2, 0, 0},
		rows: [][]string{{"1", "20", "NULL", "7"}, {"2", "NULL", "NULL", "7"}}},
	{name: "temporaries computed from temporaries",
		headers: map[string]string{"columns": "k, a, b, t = a + b, v = t * 10, s = concat(a, '-', b)"},
		body:    "1,2,3\n", counts: [4]int64{1, 1, 0, 0}, rows: [][]string{{"1", "50", "2-3", "7"}}},
	{name: "a file column replaced by an expression of itself", headers: map[string]string{"columns": "k, v, v = v + 1"},
		body: "1,5\n", counts: [4]int64{1, 1, 0, 0}, rows: [][]string{{"1", "6", "NULL", "7"}}},
	{name: "an unused temporary is skipped", headers: map[string]string{"columns": "k, junk, v"},
		body: "1,zzz,3\n", counts: [4]int64{1, 1, 0, 0}, rows: [][]string{{"1", "3", "NULL", "7"}}},
	{name: "where", headers: map[string]string{"columns": "k, v", "where": "v > 50"},
		body: "1,10\n2,60\n3,\\N\n4,51\n", counts: [4]int64{4, 2, 0, 2},
		rows: [][]string{{"2", "60", "NULL", "7"}, {"4", "51", "NULL", "7"}}},
	{name: "where over mapped columns", headers: map[string]string{"columns": "k, tmp, v = tmp * 2", "where": "v > 30 and k != 3"},
		body: "1,10\n2,20\n3,30\n", counts: [4]int64{3, 1, 0, 2}, rows: [][]string{{"2", "40", "NULL", "7"}}},
	{name: "not strict: a bad value is NULL", body: "1,abc,ab,3\n", counts: [4]int64{1, 1, 0, 0},
		rows: [][]string{{"1", "NULL", "ab", "3"}}},
	{name: "strict_mode filters it, within max_filter_ratio",
		headers: map[string]string{"strict_mode": "true", "max_filter_ratio": "0.5"},
		body:    "1,abc,ab,3\n2,5,cd,4\n", counts: [4]int64{2, 1, 1, 0}, rows: [][]string{{"2", "5", "cd", "4"}},
		errLog: []string{"Reason: column(v) value is incorrect while strict mode is true, src value is abc. src line [1,abc,ab,3]; "}},
	{name: "strict_mode with the default max_filter_ratio 0 fails", headers: map[string]string{"strict_mode": "true"},
		body: "1,abc,ab,3\n2,5,cd,4\n", fail: "[DATA_QUALITY_ERROR]too many filtered rows", counts: [4]int64{2, 1, 1, 0},
		errLog: []string{"Reason: column(v) value is incorrect while strict mode is true, src value is abc. src line [1,abc,ab,3]; "}},
	{name: "NULL into NOT NULL is filtered, strict or not", headers: map[string]string{"max_filter_ratio": "0.25"},
		body: "abc,1,ab,3\n2,2,cd,4\n3,3,ef,5\n4,4,gh,6\n", counts: [4]int64{4, 3, 1, 0},
		rows:   [][]string{{"2", "2", "cd", "4"}, {"3", "3", "ef", "5"}, {"4", "4", "gh", "6"}},
		errLog: []string{"Reason: column_name[k], null value for not null column, type=INT. src line [abc,1,ab,3]; "}},
	{name: "over max_filter_ratio", headers: map[string]string{"max_filter_ratio": "0.2"},
		body: "abc,1,ab,3\n2,2,cd,4\n3,3,ef,5\n4,4,gh,6\n", fail: "too many filtered rows", counts: [4]int64{4, 3, 1, 0},
		errLog: []string{"Reason: column_name[k], null value for not null column, type=INT. src line [abc,1,ab,3]; "}},
	{name: "unselected rows are not in the ratio", headers: map[string]string{"where": "k > 2", "max_filter_ratio": "0.5"},
		body: "1,1,ab,1\n2,2,ab,2\n3,3,toolong,3\n4,4,cd,4\n", counts: [4]int64{4, 1, 1, 2},
		rows: [][]string{{"4", "4", "cd", "4"}}, errLog: []string{tooLongReason}},
	{name: "unselected rows are not in the ratio, over it", headers: map[string]string{"where": "k > 2", "max_filter_ratio": "0.4"},
		body: "1,1,ab,1\n2,2,ab,2\n3,3,toolong,3\n4,4,cd,4\n", fail: "too many filtered rows", counts: [4]int64{4, 1, 1, 2},
		errLog: []string{tooLongReason}},
	{name: "where runs before the sink's NOT NULL check", headers: map[string]string{"where": "k > 1"},
		body: "abc,1,ab,1\n2,2,ab,2\n", counts: [4]int64{2, 1, 0, 1}, rows: [][]string{{"2", "2", "ab", "2"}}},
	{name: "wrong field counts", headers: map[string]string{"max_filter_ratio": "1"},
		body: "1,2\n2,2,ab,2\n1,2,3,4,5\n", counts: [4]int64{3, 1, 2, 0}, rows: [][]string{{"2", "2", "ab", "2"}},
		errLog: []string{
			"Reason: actual column number in csv file is less than schema column number.actual number: 2, column separator: [,], line delimiter: [\\n], schema column number: 4; . src line [1,2]; ",
			"Reason: actual column number in csv file is more than schema column number.actual number: 5, column separator: [,], line delimiter: [\\n], schema column number: 4; . src line [1,2,3,4,5]; ",
		}},
	{name: "skip_lines", headers: map[string]string{"skip_lines": "2"}, body: "h1\nh2\n1,2,ab,3\n",
		counts: [4]int64{1, 1, 0, 0}, rows: [][]string{{"1", "2", "ab", "3"}}},
	{name: "csv_with_names", headers: map[string]string{"format": "csv_with_names"}, body: "k,v,s,d\n1,2,ab,3\n",
		counts: [4]int64{1, 1, 0, 0}, rows: [][]string{{"1", "2", "ab", "3"}}},
	{name: "column_separator and line_delimiter", headers: map[string]string{"column_separator": `\x01`, "line_delimiter": "|"},
		body: "1\x012\x01ab\x013|2\x013\x01cd\x014", counts: [4]int64{2, 2, 0, 0},
		rows: [][]string{{"1", "2", "ab", "3"}, {"2", "3", "cd", "4"}}},
	{name: "JSON with columns and where",
		headers: map[string]string{"format": "json", "strip_outer_array": "true", "columns": "k, tmp, v = tmp + 1", "where": "v > 2"},
		body:    `[{"k": 1, "tmp": "1"}, {"k": 2, "tmp": 5}]`, counts: [4]int64{2, 1, 0, 1}, rows: [][]string{{"2", "6", "NULL", "7"}}},
	{name: "JSON under strict_mode", headers: map[string]string{"format": "json", "strict_mode": "true", "max_filter_ratio": "1"},
		body: `{"k": 1, "v": "x"}` + "\n" + `{"k": 2, "v": 3}`, counts: [4]int64{2, 1, 1, 0}, rows: [][]string{{"2", "3", "NULL", "7"}},
		errLog: []string{`Reason: column(v) value is incorrect while strict mode is true, src value is x. src line [{"k": "1", "v": "x", "s": null, "d": "7"}]; `}},
	{name: "a JSON array without strip_outer_array", headers: map[string]string{"format": "json"}, body: `[{"k": 1}]`,
		fail: "got an array (to load an array of objects, set the header strip_outer_array: true)"},
	{name: "a NOT NULL column without a default left out", headers: map[string]string{"columns": "v, s"}, body: "1,a\n",
		fail: "Column has no default value, column=k"},
	{name: "an unknown column in where", headers: map[string]string{"where": "zz > 1"}, body: "1,2,ab,3\n",
		fail: "Unknown column 'zz' in 'where clause'"},
	{name: "an unknown column in an expression", headers: map[string]string{"columns": "k, v = nope + 1"}, body: "1\n",
		fail: "Unknown column 'nope' in 'columns'"},
	{name: "a column named twice", headers: map[string]string{"columns": "k, k"}, body: "1,1\n", fail: "Duplicate column name 'k'"},
	{name: "bad columns syntax", headers: map[string]string{"columns": "k, v ="}, body: "1,1\n", fail: "columns: You have an error in your SQL syntax"},
	{name: "strict_mode not a bool", headers: map[string]string{"strict_mode": "yes"}, body: "1,2,ab,3\n",
		fail: "Invalid strict_mode format. Must be bool type"},
	{name: "max_filter_ratio out of range", headers: map[string]string{"max_filter_ratio": "2"}, body: "1,2,ab,3\n",
		fail: "Invalid max_filter_ratio: '2'"},
	{name: "timeout not a number", headers: map[string]string{"timeout": "soon"}, body: "1,2,ab,3\n", fail: "Invalid timeout format"},
	{name: "timeout out of range", headers: map[string]string{"timeout": "0"}, body: "1,2,ab,3\n", fail: "Invalid timeout: '0'"},
	{name: "a timeout long enough", headers: map[string]string{"timeout": "600"}, body: "1,2,ab,3\n",
		counts: [4]int64{1, 1, 0, 0}, rows: [][]string{{"1", "2", "ab", "3"}}},
	{name: "an unknown compress_type", headers: map[string]string{"compress_type": "lzo"}, body: "1,2,ab,3\n",
		fail: "compress_type lzo is not supported by dorisgo"},
	{name: "a body that is not gz", headers: map[string]string{"compress_type": "gz"}, body: "1,2,ab,3\n",
		fail: "the body is not valid gz data"},
	{name: "default values of unsupported headers are fine",
		headers: map[string]string{"two_phase_commit": "false", "merge_type": "APPEND", "fuzzy_parse": "false", "group_commit": "off_mode"},
		body:    "1,2,ab,3\n", counts: [4]int64{1, 1, 0, 0}, rows: [][]string{{"1", "2", "ab", "3"}}},
	{name: "ordinary HTTP headers",
		headers: map[string]string{"User-Agent": "curl/8.5.0", "Expect": "100-continue", "Content-Type": "text/csv",
			"X-Forwarded-For": "10.0.0.1", "X-Request_Id": "a_b", "Accept": "*/*"},
		body: "1,2,ab,3\n", counts: [4]int64{1, 1, 0, 0}, rows: [][]string{{"1", "2", "ab", "3"}}},
}

// TestE2EStreamLoadOptions runs each optCase and checks its reply, its
// rows and its error log exactly.
func TestE2EStreamLoadOptions(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE opt")
	ctx := context.Background()
	for i, tc := range optCases {
		table := fmt.Sprintf("t%d", i)
		mustExec(t, db, `CREATE TABLE opt.`+table+` (k INT NOT NULL, v INT, s VARCHAR(5), d INT DEFAULT "7")
		  DUPLICATE KEY(k) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`)
		h := map[string]string{"column_separator": ","}
		for k, v := range tc.headers {
			h[k] = v
		}
		r, err := streamLoad(ctx, s.HTTPAddr(), "opt", table, "root", "", h, strings.NewReader(tc.body))
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		checkOptReply(t, s.HTTPAddr(), tc, r)
		got := sortedRows(queryStrings(t, db, "SELECT k, v, s, d FROM opt."+table))
		if len(got) != len(tc.rows) || len(got) > 0 && !reflect.DeepEqual(got, tc.rows) {
			t.Errorf("%s: rows %q, want %q", tc.name, got, tc.rows)
		}
	}
}

func checkOptReply(t *testing.T, httpAddr string, tc optCase, r loadReply) {
	t.Helper()
	if tc.fail == "" && r.Status != "Success" || tc.fail != "" && (r.Status != "Fail" || !strings.Contains(r.Message, tc.fail)) {
		t.Errorf("%s: %s %q, want %q", tc.name, r.Status, r.Message, tc.fail)
	}
	if got := [4]int64{r.NumberTotalRows, r.NumberLoadedRows, r.NumberFilteredRows, r.NumberUnselectedRows}; got != tc.counts {
		t.Errorf("%s: total, loaded, filtered, unselected %v, want %v", tc.name, got, tc.counts)
	}
	if tc.errLog == nil {
		if r.ErrorURL != "" {
			t.Errorf("%s: ErrorURL %s without filtered rows", tc.name, r.ErrorURL)
		}
		return
	}
	code, text := fetchErrorLog(t, r.ErrorURL, "root", "")
	if got := strings.Split(strings.TrimSuffix(text, "\n"), "\n"); code != 200 || !reflect.DeepEqual(got, tc.errLog) {
		t.Errorf("%s: error log (HTTP %d):\n%s\nwant:\n%s", tc.name, code, text, strings.Join(tc.errLog, "\n"))
	}
}

// fetchErrorLog GETs a load's ErrorURL as user (no user: no credentials).
func fetchErrorLog(t *testing.T, url, user, pass string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestE2EStreamLoadHeaders: each Doris stream load header dorisgo does not
// implement, and a misspelt one, fails the load naming it, loading
// nothing; compressed bodies, comment, the ErrorURL's login, a label
// after a failed load, and timeout.
func TestE2EStreamLoadHeaders(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "CREATE DATABASE hdr")
	mustExec(t, db, `CREATE TABLE hdr.t (k INT NOT NULL, v INT) DUPLICATE KEY(k)
	  DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`)
	ctx := context.Background()
	load := func(h map[string]string, body []byte) loadReply {
		t.Helper()
		all := map[string]string{"column_separator": ","}
		for k, v := range h {
			all[k] = v
		}
		r, err := streamLoad(ctx, s.HTTPAddr(), "hdr", "t", "root", "", all, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	count := func() int { return len(queryInts(t, db, "SELECT k FROM hdr.t")) }

	for name, value := range map[string]string{
		"function_column.sequence_col": "v", "timezone": "UTC", "exec_mem_limit": "1000", "enclose": `"`, "escape": `\`, "trim_double_quotes": "true",
		"group_commit": "async_mode", "hidden_columns": "__DORIS_DELETE_SIGN__",
	} {
		r := load(map[string]string{name: value}, []byte("1,1\n"))
		if r.Status != "Fail" || !strings.Contains(r.Message, `"`+name) || !strings.Contains(r.Message, "not supported") {
			t.Errorf("header %s: %s %q", name, r.Status, r.Message)
		}
	}
	if r := load(map[string]string{"max_filter_ration": "1"}, []byte("1,1\n")); r.Status != "Fail" ||
		r.Message != `unknown stream load header "max_filter_ration"` {
		t.Errorf("misspelt header: %s %q", r.Status, r.Message)
	}
	if n := count(); n != 0 {
		t.Fatalf("refused loads stored %d rows", n)
	}

	// Compressed bodies (bz2 has no writer in Go's library).
	var gz, zl, l4 bytes.Buffer
	for _, w := range []io.WriteCloser{gzip.NewWriter(&gz), zlib.NewWriter(&zl), lz4.NewWriter(&l4)} {
		if _, err := w.Write([]byte("1,1\n2,2\n")); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	for kind, body := range map[string][]byte{"gz": gz.Bytes(), "deflate": zl.Bytes(), "lz4": l4.Bytes()} {
		if r := load(map[string]string{"compress_type": kind}, body); r.Status != "Success" || r.NumberLoadedRows != 2 {
			t.Errorf("compress_type %s: %+v", kind, r)
		}
	}
	if n := count(); n != 6 {
		t.Errorf("after compressed loads: %d rows, want 6", n)
	}
	if r := load(map[string]string{"comment": "nightly batch"}, []byte("3,3\n")); r.Comment != "nightly batch" {
		t.Errorf("comment: %+v", r)
	}

	// A failed load leaves its label free; its error log needs a login
	// that may load the table.
	bad := load(map[string]string{"label": "retry-me"}, []byte("4,4\nx,5\n"))
	if bad.Status != "Fail" || bad.NumberFilteredRows != 1 || bad.ErrorURL == "" {
		t.Fatalf("bad load: %+v", bad)
	}
	mustExec(t, db, "CREATE USER 'other'@'%' IDENTIFIED BY 'pw'")
	want := "Reason: column_name[k], null value for not null column, type=INT. src line [x,5]; \n"
	for _, c := range []struct {
		user, pass string
		code       int
	}{{"", "", 401}, {"root", "wrong", 401}, {"other", "pw", 404}, {"root", "", 200}} {
		code, text := fetchErrorLog(t, bad.ErrorURL, c.user, c.pass)
		if code != c.code || c.code == 200 && text != want {
			t.Errorf("error log as %q: HTTP %d %q, want %d", c.user, code, text, c.code)
		}
	}
	mustExec(t, db, "GRANT LOAD_PRIV ON hdr.t TO 'other'@'%'")
	if code, text := fetchErrorLog(t, bad.ErrorURL, "other", "pw"); code != 200 || text != want {
		t.Errorf("error log with LOAD_PRIV: HTTP %d %q", code, text)
	}
	if code, _ := fetchErrorLog(t, strings.Replace(bad.ErrorURL, "error_log_", "../error_log_", 1), "root", ""); code != 404 {
		t.Errorf("error log outside its directory: HTTP %d", code)
	}
	if r := load(map[string]string{"label": "retry-me"}, []byte("4,4\n5,5\n")); r.Status != "Success" || r.NumberLoadedRows != 2 {
		t.Errorf("retry under the failed load's label: %+v", r)
	}

	// timeout: a body that stops coming fails the load when it runs out,
	// and the label stays free.
	pr, pw := io.Pipe()
	defer pw.Close()
	go func() { _, _ = pw.Write([]byte("10,10\n")) }()
	start := time.Now()
	r, err := streamLoad(ctx, s.HTTPAddr(), "hdr", "t", "root", "",
		map[string]string{"label": "slow", "timeout": "1", "column_separator": ","}, pr)
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != "Fail" || !strings.Contains(r.Message, "[TIMEOUT]") || time.Since(start) > 30*time.Second {
		t.Errorf("load past its timeout: %+v after %v", r, time.Since(start))
	}
	if r := load(map[string]string{"label": "slow"}, []byte("10,10\n")); r.Status != "Success" {
		t.Errorf("label of a timed out load: %+v", r)
	}
	if n := count(); n != 10 {
		t.Errorf("at the end: %d rows, want 10", n)
	}
}
