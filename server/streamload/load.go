package streamload

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// loadBatchRows is how many input rows make one batch sent to the backends.
const loadBatchRows = 8192

// streamLoadResp is Doris's stream load reply.
type streamLoadResp struct {
	TxnID                  int64  `json:"TxnId"`
	Label                  string `json:"Label"`
	Comment                string `json:"Comment"`
	TwoPhaseCommit         string `json:"TwoPhaseCommit"`
	Status                 string `json:"Status"`
	ExistingJobStatus      string `json:"ExistingJobStatus,omitempty"`
	Message                string `json:"Message"`
	NumberTotalRows        int64  `json:"NumberTotalRows"`
	NumberLoadedRows       int64  `json:"NumberLoadedRows"`
	NumberFilteredRows     int64  `json:"NumberFilteredRows"`
	NumberUnselectedRows   int64  `json:"NumberUnselectedRows"`
	LoadBytes              int64  `json:"LoadBytes"`
	LoadTimeMs             int64  `json:"LoadTimeMs"`
	BeginTxnTimeMs         int64  `json:"BeginTxnTimeMs"`
	StreamLoadPutTimeMs    int64  `json:"StreamLoadPutTimeMs"`
	ReadDataTimeMs         int64  `json:"ReadDataTimeMs"`
	WriteDataTimeMs        int64  `json:"WriteDataTimeMs"`
	CommitAndPublishTimeMs int64  `json:"CommitAndPublishTimeMs"`
	// ErrorURL serves the rejected rows and why (GET, same login).
	ErrorURL      string `json:"ErrorURL,omitempty"`
	FirstErrorMsg string `json:"FirstErrorMsg,omitempty"`
}

// loadIdleTimeout is how long a stream load may wait for its next bytes: a
// client that stops sending mid-body fails its load instead of holding it.
const loadIdleTimeout = 60 * time.Second

// countingReader counts the bytes of the load body and renews the idle
// read deadline before every read (never past the load's timeout).
type countingReader struct {
	r        io.Reader
	rc       *http.ResponseController
	n        atomic.Int64 // read by SHOW STREAM LOAD while the load runs
	deadline time.Time    // the load's timeout (zero: none)
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.rc != nil {
		d := time.Now().Add(loadIdleTimeout)
		if !c.deadline.IsZero() && c.deadline.Before(d) {
			d = c.deadline
		}
		_ = c.rc.SetReadDeadline(d)
	}
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// ServeLoad serves PUT /api/{db}/{table}/_stream_load: CSV or JSON in the
// body, loaded as one transaction under the request's label. It
// authenticates the request itself (its 401 is a load reply) and needs
// LOAD_PRIV on the table.
func (l *Loader) ServeLoad(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	resp := &streamLoadResp{TwoPhaseCommit: "false", Label: r.Header.Get("label")}
	fail := func(code int, msg string) {
		resp.Status, resp.Message = "Fail", msg
		resp.LoadTimeMs = time.Since(start).Milliseconds()
		l.count("fail", 0, 0)
		writeJSON(w, code, resp)
	}
	if l.cfg.Redirect != nil && l.cfg.Redirect(w, r) {
		return
	}
	a, ok := l.cfg.Access(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Basic realm="dorisgo"`)
		resp.Status, resp.Message = "Fail", "Access denied: wrong user or password"
		writeJSON(w, http.StatusUnauthorized, resp)
		return
	}
	db, table := r.PathValue("db"), r.PathValue("table")
	var live *liveStream
	defer func() {
		l.record(r, db, table, a.User, start, resp)
		l.live.remove(live) // after the record: always shown in one of them
	}()
	// LOAD_PRIV is checked before the table is looked up, so a caller
	// without it learns nothing of what exists.
	if !a.Table(db, table, catalog.WantLoad) {
		fail(http.StatusForbidden, sqlerr.TableAccessDenied.New("LOAD", a.User, a.Host, db+"."+table).Message)
		return
	}
	t, err := l.cfg.Catalog.Table(db, table)
	if err != nil {
		fail(http.StatusOK, sqlerr.As(err).Message)
		return
	}
	if resp.Label != "" {
		if txn, ok := l.cfg.Catalog.TxnByLabel(db, resp.Label); ok && txn.State != catalog.TxnAborted {
			resp.Status = "Label Already Exists"
			resp.ExistingJobStatus = "RUNNING"
			if txn.State == catalog.TxnVisible {
				resp.ExistingJobStatus = "FINISHED"
			}
			resp.Message = fmt.Sprintf("Label [%s] has already been used, relate to txn [%d], state [%s]", resp.Label, txn.ID, txn.State)
			resp.TxnID = int64(txn.ID)
			l.count("label_exists", 0, 0)
			writeJSON(w, http.StatusOK, resp)
			return
		}
	}
	parser, err := newLoadParser(r.Header, t)
	if err != nil {
		fail(http.StatusOK, sqlerr.As(err).Message)
		return
	}
	resp.Comment = parser.comment
	body := &countingReader{r: r.Body, rc: http.NewResponseController(w)}
	if resp.Label == "" {
		resp.Label = catalog.NewLoadLabel()
	}
	live = l.live.add(r, db, table, a.User, resp.Label, start, parser, body)
	// The load does not follow the request's context: Go's server cancels
	// it as soon as the client half-closes its side after the body, while
	// that client still waits for the reply. Whether the load may commit is
	// decided by the body instead: a client gone before the end of the body
	// fails the body's read (unexpected EOF, or the idle deadline), which
	// aborts the transaction; a body read to its end is loaded whole.
	ctx := context.WithoutCancel(r.Context())
	if parser.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, parser.timeout)
		defer cancel()
		body.deadline, _ = ctx.Deadline()
	}
	ctx = coord.WithLoadInfo(ctx, catalog.TxnInfo{Source: "BACKEND_STREAMING", Timeout: parser.timeout, User: a.User})
	if parser.twoPhase {
		ctx = coord.WithTwoPhase(ctx)
		resp.TwoPhaseCommit = "true"
	}
	if parser.partial != nil {
		ctx = rpc.WithPartialUpdate(ctx, parser.partial)
	}
	res, err := l.cfg.Coord.Load(ctx, db, t, resp.Label, func(yield func(arrow.Record) error) error {
		err := pipeline(ctx, func(emit func(loadWork) error) error {
			return parser.parse(ctx, body, emit)
		}, func(rec arrow.Record) error {
			if rec.NumRows() == 0 {
				return nil
			}
			return yield(rec)
		})
		if err != nil {
			return err
		}
		// Doris's data quality gate (stream_load_executor.cpp): the
		// filtered share of the rows the where condition kept.
		if sel := parser.total.Load() - parser.unselected.Load(); sel > 0 &&
			float64(parser.filtered.Load())/float64(sel) > parser.maxRatio {
			return tooManyFiltered()
		}
		return nil
	})
	if ctx.Err() == context.DeadlineExceeded && err != nil {
		err = sqlerr.Doris.New(fmt.Sprintf("[TIMEOUT]stream load timed out: it ran past its timeout of %d seconds", int(parser.timeout/time.Second)))
	}
	resp.LoadBytes = body.n.Load()
	resp.NumberTotalRows = parser.total.Load()
	resp.NumberFilteredRows = parser.filtered.Load()
	resp.NumberUnselectedRows = parser.unselected.Load()
	resp.NumberLoadedRows = parser.loaded.Load()
	if resp.NumberFilteredRows > 0 {
		lines := parser.errs.lines()
		if len(lines) > 0 {
			resp.FirstErrorMsg = strings.TrimPrefix(lines[0], "Reason: ")
		}
		if name, serr := l.errLogs.save(l.cfg.DataDir, loadErrorMeta{DB: db, Table: t.Name, User: a.User}, lines); serr != nil {
			l.cfg.Log.Warn("stream load error log", "label", resp.Label, "err", serr)
		} else {
			resp.ErrorURL = "http://" + r.Host + "/api/_load_error_log?file=" + name
		}
	}
	if err != nil {
		fail(http.StatusOK, sqlerr.As(err).Message)
		return
	}
	resp.TxnID = int64(res.Txn)
	resp.Label = res.Label
	resp.Status, resp.Message = "Success", "OK"
	resp.NumberLoadedRows = res.Rows
	resp.LoadTimeMs = time.Since(start).Milliseconds()
	l.count("success", res.Rows, body.n.Load())
	writeJSON(w, http.StatusOK, resp)
}

// tooManyFiltered fails a load whose filtered rows exceed
// max_filter_ratio, in Doris's words ("Do not modify the error message
// here, … some users may rely on this error message").
func tooManyFiltered() error { return sqlerr.Doris.New("[DATA_QUALITY_ERROR]too many filtered rows") }

func tableTypes(t *catalog.Table) []types.Column {
	out := make([]types.Column, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Column
	}
	return out
}

// loadWork turns one parsed piece of the body into the rows to load (a
// typed batch, mapped and filtered); the pipeline runs several at once.
type loadWork func() (arrow.Record, error)

func (p *loadParser) parse(ctx context.Context, r io.Reader, emit func(loadWork) error) error {
	r, err := p.body(r)
	if err != nil {
		return err
	}
	if p.format == "json" {
		return p.parseJSON(ctx, r, emit)
	}
	return p.parseCSV(ctx, r, emit)
}

// parseCSV cuts the body into chunks of loadBatchRows non-empty lines; the
// pipeline's workers parse each into a typed batch (parseChunk).
func (p *loadParser) parseCSV(ctx context.Context, r io.Reader, emit func(loadWork) error) error {
	br := bufio.NewReaderSize(r, 1<<20)
	row := 1
	chunk := csvChunk{first: row, data: make([]byte, 0, p.chunkHint+p.chunkHint/8+4096)}
	rows := 0
	send := func() error {
		if rows == 0 {
			return nil
		}
		c, n := chunk, rows
		p.chunkHint = len(c.data)
		chunk = csvChunk{first: row, data: make([]byte, 0, p.chunkHint+p.chunkHint/8+4096)}
		rows = 0
		return emit(func() (arrow.Record, error) {
			b, err := p.parseChunk(c, n)
			if err != nil {
				return nil, err
			}
			return p.finish(b)
		})
	}
	skip := p.skipLines
	for {
		line, err := br.ReadSlice(p.lineSep)
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: gather it whole.
			full := append([]byte{}, line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice(p.lineSep)
				full = append(full, line...)
			}
			line = full
		}
		if skip > 0 && len(line) > 0 {
			// skip_lines (or csv_with_names's header) are not rows.
			skip--
			line = nil
		}
		if len(line) > 0 {
			chunk.data = append(chunk.data, line...)
			if len(line) == 0 || line[len(line)-1] != p.lineSep {
				// The last line without a separator: end it, so that
				// chunks always hold whole lines.
				chunk.data = append(chunk.data, p.lineSep)
			}
			if !emptyLine(line, p.lineSep) {
				rows++
				row++
				if rows == loadBatchRows {
					if err := ctx.Err(); err != nil {
						return err
					}
					if err := send(); err != nil {
						return err
					}
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
	}
	return send()
}

// emptyLine reports whether a line (with its separator, if any) holds
// nothing once the separator and, for '\n', a '\r' are trimmed.
func emptyLine(line []byte, sep byte) bool {
	n := len(line)
	if n > 0 && line[n-1] == sep {
		n--
	}
	if sep == '\n' && n > 0 && line[n-1] == '\r' {
		n--
	}
	return n == 0
}

// loadConverters is how many goroutines turn parsed pieces into typed
// batches while the parser reads ahead and the caller routes to backends.
const loadConverters = 2

// pipeline runs a load's three stages concurrently: produce (cut the body
// into pieces) feeds the workers (typed, checked batches; several, since
// row order within a load does not matter) feeding consume (route to the
// backends, in the caller's goroutine). The first error stops every stage.
func pipeline(ctx context.Context, produce func(emit func(loadWork) error) error, consume func(arrow.Record) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	raw := make(chan loadWork, 2*loadConverters)
	typed := make(chan arrow.Record, 2*loadConverters)
	errc := make(chan error, 2+loadConverters)
	// dropped records that a converter threw work away: the load is then
	// incomplete and must fail even if no stage reported an error (a
	// cancelled ctx alone stops the converters), or an empty or partial
	// transaction would commit as a success.
	var dropped atomic.Bool
	go func() {
		defer close(raw)
		errc <- produce(func(w loadWork) error {
			select {
			case raw <- w:
				return nil
			case <-ctx.Done():
				return ctx.Err()
			}
		})
	}()
	var wg sync.WaitGroup
	for i := 0; i < loadConverters; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for w := range raw {
				if ctx.Err() != nil {
					dropped.Store(true)
					continue // drain: a stage failed
				}
				out, err := w()
				if err != nil {
					errc <- err
					cancel()
					continue
				}
				select {
				case typed <- out:
				case <-ctx.Done():
					dropped.Store(true)
					out.Release()
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(typed)
	}()
	var cerr error
	for rec := range typed {
		if cerr == nil {
			if cerr = consume(rec); cerr != nil {
				cancel()
			}
		}
		rec.Release()
	}
	// The producer's result comes first in errc unless a converter failed;
	// report the first real failure, not the cancellations it caused.
	close(errc)
	var first error
	for err := range errc {
		if err != nil && (first == nil || errors.Is(first, context.Canceled)) {
			first = err
		}
	}
	if cerr != nil {
		return cerr
	}
	if first == nil && dropped.Load() {
		if first = ctx.Err(); first == nil {
			first = context.Canceled
		}
	}
	return first
}
