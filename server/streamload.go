package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/catalog"
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
}

// loadIdleTimeout is how long a stream load may wait for its next bytes: a
// client that stops sending mid-body fails its load instead of holding it.
const loadIdleTimeout = 60 * time.Second

// countingReader counts the bytes of the load body and renews the idle
// read deadline before every read.
type countingReader struct {
	r  io.Reader
	rc *http.ResponseController
	n  int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.rc != nil {
		_ = c.rc.SetReadDeadline(time.Now().Add(loadIdleTimeout))
	}
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// streamLoad serves PUT /api/{db}/{table}/_stream_load: CSV or JSON in the
// body, loaded as one transaction under the request's label.
func (s *Server) streamLoad(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	resp := &streamLoadResp{TwoPhaseCommit: "false", Label: r.Header.Get("label")}
	fail := func(code int, msg string) {
		resp.Status, resp.Message = "Fail", msg
		resp.LoadTimeMs = time.Since(start).Milliseconds()
		s.metrics.loads.WithLabelValues("fail").Inc()
		writeJSON(w, code, resp)
	}
	a, ok := s.httpAccess(r)
	if !ok {
		w.Header().Set("WWW-Authenticate", `Basic realm="dorisgo"`)
		resp.Status, resp.Message = "Fail", "Access denied: wrong user or password"
		writeJSON(w, http.StatusUnauthorized, resp)
		return
	}
	db, table := r.PathValue("db"), r.PathValue("table")
	// LOAD_PRIV is checked before the table is looked up, so a caller
	// without it learns nothing of what exists.
	if !a.Table(db, table, catalog.WantLoad) {
		fail(http.StatusForbidden, sqlerr.TableAccessDenied.New("LOAD", a.User, a.Host, db+"."+table).Message)
		return
	}
	t, err := s.cat.Table(db, table)
	if err != nil {
		fail(http.StatusOK, sqlerr.As(err).Message)
		return
	}
	if resp.Label != "" {
		if txn, ok := s.cat.TxnByLabel(db, resp.Label); ok && txn.State != catalog.TxnAborted {
			resp.Status = "Label Already Exists"
			resp.ExistingJobStatus = "RUNNING"
			if txn.State == catalog.TxnVisible {
				resp.ExistingJobStatus = "FINISHED"
			}
			resp.Message = fmt.Sprintf("Label [%s] has already been used, relate to txn [%d], state [%s]", resp.Label, txn.ID, txn.State)
			resp.TxnID = int64(txn.ID)
			s.metrics.loads.WithLabelValues("label_exists").Inc()
			writeJSON(w, http.StatusOK, resp)
			return
		}
	}
	parser, err := newLoadParser(r.Header, t)
	if err != nil {
		fail(http.StatusOK, sqlerr.As(err).Message)
		return
	}
	body := &countingReader{r: r.Body, rc: http.NewResponseController(w)}
	// The load does not follow the request's context: Go's server cancels
	// it as soon as the client half-closes its side after the body, while
	// that client still waits for the reply. Whether the load may commit is
	// decided by the body instead: a client gone before the end of the body
	// fails the body's read (unexpected EOF, or the idle deadline), which
	// aborts the transaction; a body read to its end is loaded whole.
	ctx := context.WithoutCancel(r.Context())
	var total int64
	res, err := s.coord.Load(ctx, db, t, resp.Label, func(yield func(arrow.Record) error) error {
		return pipeline(ctx, func(emit func(loadWork) error) error {
			return parser.parse(ctx, body, emit)
		}, func(rec arrow.Record) error {
			total += rec.NumRows()
			return yield(rec)
		})
	})
	resp.LoadBytes = body.n
	resp.NumberTotalRows = total
	if err != nil {
		fail(http.StatusOK, sqlerr.As(err).Message)
		return
	}
	resp.TxnID = int64(res.Txn)
	resp.Label = res.Label
	resp.Status, resp.Message = "Success", "OK"
	resp.NumberLoadedRows = res.Rows
	resp.LoadTimeMs = time.Since(start).Milliseconds()
	s.metrics.loads.WithLabelValues("success").Inc()
	s.metrics.loadRows.Add(float64(res.Rows))
	s.metrics.loadBytes.Add(float64(body.n))
	writeJSON(w, http.StatusOK, resp)
}

func tableTypes(t *catalog.Table) []types.Column {
	out := make([]types.Column, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = c.Column
	}
	return out
}

// loadParser turns a CSV or JSON body into batches of the table's columns
// as strings (typed later, strictly, by toStorage).
type loadParser struct {
	t       *catalog.Table
	format  string
	sep     []byte
	lineSep byte
	// fileCols[i] = table column index of the i-th field of a row (-1: skip).
	fileCols   []int
	stripOuter bool
	from       []types.Column // all string columns
	to         []types.Column // the table's columns
	schema     *arrow.Schema  // of to
	defaults   []*string
	// chunkHint is the byte size of the last CSV chunk, to size the next;
	// strHint[i] that of string column i's bytes in the last typed batch.
	chunkHint int
	strHint   []atomic.Int64
	// dataHint[i]: column i's string bytes in the last batch, so the next
	// batch's builders are sized once instead of growing (and zeroing)
	// their buffers step by step.
	dataHint []int
}

func newLoadParser(h http.Header, t *catalog.Table) (*loadParser, error) {
	p := &loadParser{t: t, format: strings.ToLower(h.Get("format")), sep: []byte("\t"), lineSep: '\n'}
	if p.format == "" {
		p.format = "csv"
	}
	if v := h.Get("column_separator"); v != "" {
		p.sep = []byte(unescapeSep(v))
	}
	if v := h.Get("line_delimiter"); v != "" {
		d := unescapeSep(v)
		if len(d) != 1 {
			return nil, sqlerr.Doris.New("line_delimiter must be one byte")
		}
		p.lineSep = d[0]
	}
	p.stripOuter = strings.EqualFold(h.Get("strip_outer_array"), "true")
	if v := h.Get("columns"); v != "" {
		for _, name := range strings.Split(v, ",") {
			name = strings.Trim(strings.TrimSpace(name), "`")
			ci := t.ColumnIndex(name)
			if ci < 0 {
				return nil, sqlerr.BadField.New(name, "columns")
			}
			p.fileCols = append(p.fileCols, ci)
		}
	} else {
		for i := range t.Columns {
			p.fileCols = append(p.fileCols, i)
		}
	}
	for _, c := range t.Columns {
		p.from = append(p.from, types.Column{Name: c.Name, Type: types.StringT, Nullable: true})
		p.defaults = append(p.defaults, c.Default)
	}
	p.to = tableTypes(t)
	p.strHint = make([]atomic.Int64, len(t.Columns))
	p.schema = types.ArrowSchema(p.to)
	if p.format != "csv" && p.format != "json" {
		return nil, sqlerr.Doris.New("unsupported format " + p.format)
	}
	return p, nil
}

func unescapeSep(s string) string {
	switch s {
	case `\t`:
		return "\t"
	case `\n`:
		return "\n"
	case `\x01`:
		return "\x01"
	}
	if strings.HasPrefix(s, `\x`) && len(s) == 4 {
		if v, err := strconv.ParseUint(s[2:], 16, 8); err == nil {
			return string([]byte{byte(v)})
		}
	}
	return s
}

// batch accumulates string columns.
type batch struct {
	p     *loadParser
	bs    []*array.StringBuilder
	set   []bool
	rows  int
	first int
}

func (p *loadParser) newBatch(first int) *batch {
	b := &batch{p: p, first: first, set: make([]bool, len(p.t.Columns))}
	for i := range p.t.Columns {
		sb := array.NewStringBuilder(memory.DefaultAllocator)
		sb.Reserve(loadBatchRows)
		if i < len(p.dataHint) && p.dataHint[i] > 0 {
			sb.ReserveData(p.dataHint[i] + p.dataHint[i]/8)
		}
		b.bs = append(b.bs, sb)
	}
	return b
}

// endRow fills the columns the row did not set with their defaults.
func (b *batch) endRow() {
	for i, ok := range b.set {
		if !ok {
			if d := b.p.defaults[i]; d != nil {
				b.bs[i].Append(*d)
			} else {
				b.bs[i].AppendNull()
			}
		}
		b.set[i] = false
	}
	b.rows++
}

func (b *batch) record() arrow.Record {
	cols := make([]arrow.Array, len(b.bs))
	if len(b.p.dataHint) != len(b.bs) {
		b.p.dataHint = make([]int, len(b.bs))
	}
	for i, sb := range b.bs {
		b.p.dataHint[i] = sb.DataLen()
		cols[i] = sb.NewArray()
		sb.Release()
	}
	rec := array.NewRecord(types.ArrowSchema(b.p.from), cols, int64(b.rows))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// loadWork turns one parsed piece of the body into a typed batch; the
// pipeline runs several at once.
type loadWork func() (arrow.Record, error)

func (p *loadParser) parse(ctx context.Context, r io.Reader, emit func(loadWork) error) error {
	if p.format == "json" {
		return p.parseJSON(ctx, r, emit)
	}
	return p.parseCSV(ctx, r, emit)
}

// flush hands a string batch (JSON) to the pipeline, to be cast there.
func (p *loadParser) flush(b *batch, emit func(loadWork) error) error {
	rec := b.record()
	if rec.NumRows() == 0 {
		rec.Release()
		return nil
	}
	return emit(func() (arrow.Record, error) {
		defer rec.Release()
		return toStorage(rec, p.from, p.to, b.first)
	})
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
		return emit(func() (arrow.Record, error) { return p.parseChunk(c, n) })
	}
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

func (p *loadParser) parseJSON(ctx context.Context, r io.Reader, emit func(loadWork) error) error {
	dec := json.NewDecoder(bufio.NewReaderSize(r, 1<<20))
	dec.UseNumber()
	row := 1
	b := p.newBatch(row)
	add := func(obj map[string]any) error {
		for k, v := range obj {
			ci := p.t.ColumnIndex(k)
			if ci < 0 {
				continue
			}
			switch x := v.(type) {
			case nil:
				b.bs[ci].AppendNull()
			case string:
				b.bs[ci].Append(x)
			case json.Number:
				b.bs[ci].Append(x.String())
			case bool:
				if x {
					b.bs[ci].Append("1")
				} else {
					b.bs[ci].Append("0")
				}
			default:
				enc, _ := json.Marshal(x)
				b.bs[ci].Append(string(enc))
			}
			b.set[ci] = true
		}
		b.endRow()
		row++
		if b.rows == loadBatchRows {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := p.flush(b, emit); err != nil {
				return err
			}
			b = p.newBatch(row)
		}
		return nil
	}
	if p.stripOuter {
		tok, err := dec.Token()
		if err != nil {
			return sqlerr.Doris.New("bad JSON: " + err.Error())
		}
		if d, ok := tok.(json.Delim); !ok || d != '[' {
			return sqlerr.Doris.New("JSON data is not an array-object, strip_outer_array must be TRUE")
		}
		for dec.More() {
			var obj map[string]any
			if err := dec.Decode(&obj); err != nil {
				return jsonRowErr(row, err, true)
			}
			if err := add(obj); err != nil {
				return err
			}
		}
	} else {
		for {
			var obj map[string]any
			err := dec.Decode(&obj)
			if err == io.EOF {
				break
			}
			if err != nil {
				return jsonRowErr(row, err, false)
			}
			if err := add(obj); err != nil {
				return err
			}
		}
	}
	return p.flush(b, emit)
}

// jsonRowErr says why row of a JSON load could not be read, in terms of
// the data: a value of the wrong shape names the shape expected and the
// one found (encoding/json's own text names Go types).
func jsonRowErr(row int, err error, inArray bool) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		msg := fmt.Sprintf("bad JSON at row %d: expected an object of column names and values, got %s", row, jsonShape(te.Value))
		if te.Value == "array" && !inArray {
			msg += " (to load an array of objects, set the header strip_outer_array: true)"
		}
		return sqlerr.Doris.New(msg)
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		return sqlerr.Doris.New(fmt.Sprintf("bad JSON at row %d (byte %d): %v", row, syn.Offset, err))
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return sqlerr.Doris.New(fmt.Sprintf("bad JSON at row %d: the data ends inside a value", row))
	}
	return sqlerr.Doris.New(fmt.Sprintf("bad JSON at row %d: %v", row, err))
}

// jsonShape names a JSON value kind as UnmarshalTypeError.Value gives it.
func jsonShape(v string) string {
	switch v {
	case "array":
		return "an array"
	case "object":
		return "an object"
	case "number", "string", "bool":
		return "a " + v
	}
	if strings.HasPrefix(v, "number") {
		return "a number"
	}
	return v
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
