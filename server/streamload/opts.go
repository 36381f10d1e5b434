package streamload

import (
	"compress/bzip2"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/pierrec/lz4/v4"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/bind"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// Doris's stream load headers (be/src/http/http_common.h) that dorisgo does
// not implement, each with the one value still accepted ("" for none):
// its default, which asks for nothing. Any other value fails the load
// naming the header, rather than loading as if it had not been sent.
var unsupportedLoadHeaders = map[string]string{
	"txn_id": "", "txn_operation": "", "unique_key_update_mode": "upsert",
	"function_column.sequence_col": "", "sequence_col": "", "hidden_columns": "",
	"temporary_partitions": "", "timezone": "", "time_zone": "",
	"exec_mem_limit": "", "load_mem_limit": "", "enclose": "", "escape": "", "trim_double_quotes": "false",
	"negative": "false", "load_to_single_tablet": "false", "enable_profile": "false",
	"memtable_on_sink_node": "false", "group_commit": "off_mode", "cloud_cluster": "",
}

// loadHeaders are the stream load headers dorisgo implements.
var loadHeaders = map[string]bool{
	"label": true, "format": true, "column_separator": true, "line_delimiter": true, "columns": true,
	"where": true, "max_filter_ratio": true, "strict_mode": true, "strip_outer_array": true,
	"read_json_by_line": true, "timeout": true, "comment": true, "skip_lines": true, "compress_type": true,
	"jsonpaths": true, "json_root": true, "fuzzy_parse": true, "num_as_string": true, "two_phase_commit": true,
	"partitions": true, "merge_type": true, "delete": true, "partial_columns": true,
	// Only how many senders feed the tablets (Doris); nothing to change here.
	"send_batch_parallelism": true,
}

// maxLoadTimeout is Doris's max_stream_load_timeout_second (3 days).
const maxLoadTimeout = 259200

// fillKind is how a table column the file does not fill gets its value.
type fillKind uint8

const (
	fillNull    fillKind = iota // NULL
	fillDefault                 // the column's default
	fillPad                     // computed by an expression: a placeholder
)

// loadParser turns a CSV or JSON body into typed batches of the table's
// rows, with the load's column mapping, where condition and Doris's
// accounting of filtered and unselected rows. One serves one load.
type loadParser struct {
	format     string // csv or json
	sep        []byte
	lineSep    byte
	skipLines  int
	stripOuter bool
	twoPhase   bool // two_phase_commit: stop at PRECOMMITTED
	// table is the load's table; parts, when the partitions header names
	// some, the indexes of those partitions (rows of others are filtered).
	table *catalog.Table
	parts map[int]bool
	// jsonRoot and jsonPaths are gjson paths from json_root and jsonpaths
	// ("" and nil when not sent); jsonRootText is json_root as written.
	jsonRoot, jsonRootText string
	jsonPaths              []string
	compress               string // "" or gz, bz2, lz4, deflate
	strict                 bool
	maxRatio               float64
	timeout                time.Duration // 0: none
	comment                string

	plan *bind.Load
	// partial is set by partial_columns: the columns the load leaves to
	// the existing rows (merge.go).
	partial *storage.PartialUpdate
	// file[i] is the source column the i-th field of a row fills (-1:
	// skipped); fileKeys[i] is its name, lower case (JSON keys).
	file     []int
	fileKeys map[string]int
	// src are the source batch's columns: the table's, then raw texts.
	src       []types.Column
	srcSchema *arrow.Schema
	fill      []fillKind // per table column
	defs      [][]byte   // per table column: its default's text
	to        []types.Column
	schema    *arrow.Schema // of to
	// plain: no expression, no raw text, no where: a batch without
	// faults is loaded as parsed.
	plain bool
	ectx  expr.Context

	total, loaded, filtered, unselected atomic.Int64
	errs                                errorRows

	// chunkHint is the byte size of the last CSV chunk, to size the next;
	// strHint[i] that of string source column i's bytes in the last batch.
	chunkHint int
	strHint   []atomic.Int64
	// dataHint[i]: JSON file column i's string bytes in the last batch, so
	// the next batch's builders are sized once instead of growing (and
	// zeroing) their buffers step by step.
	dataHint []int
}

// newLoadParser reads a stream load's headers and plans its columns.
func newLoadParser(h http.Header, t *catalog.Table) (*loadParser, error) {
	if err := checkLoadHeaders(h); err != nil {
		return nil, err
	}
	p := &loadParser{sep: []byte("\t"), lineSep: '\n', ectx: expr.Context{Now: time.Now()}}
	switch f := strings.ToLower(h.Get("format")); f {
	case "", "csv":
		p.format = "csv"
	case "csv_with_names", "csv_with_names_and_types":
		// The first line (names) or two (names, types) are not data.
		p.format = "csv"
		p.skipLines = 1 + strings.Count(f, "_and_")
	case "json":
		p.format = "json"
	case "parquet", "orc", "arrow":
		return nil, sqlerr.Doris.New("format " + f + " is not supported by dorisgo's stream load (csv, csv_with_names, csv_with_names_and_types, json)")
	default:
		return nil, sqlerr.Doris.New("unknown data format, format=" + h.Get("format"))
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
	var err error
	if p.stripOuter, err = boolHeader(h, "strip_outer_array"); err != nil {
		return nil, err
	}
	if _, err = boolHeader(h, "read_json_by_line"); err != nil {
		return nil, err
	}
	if err := p.readJSONPathHeaders(h); err != nil {
		return nil, err
	}
	if p.twoPhase, err = boolHeader(h, "two_phase_commit"); err != nil {
		return nil, err
	}
	p.table = t
	if v := strings.TrimSpace(h.Get("partitions")); v != "" {
		p.parts = map[int]bool{}
		for _, name := range strings.Split(v, ",") {
			name = strings.TrimSpace(name)
			part := t.PartitionByName(name)
			if part == nil {
				return nil, sqlerr.Doris.New(fmt.Sprintf("partition %s does not exist in table %s", name, t.Name))
			}
			for i, q := range t.Partitions {
				if q.ID == part.ID {
					p.parts[i] = true
				}
			}
		}
	}
	if p.strict, err = boolHeader(h, "strict_mode"); err != nil {
		return nil, err
	}
	if v := h.Get("max_filter_ratio"); v != "" {
		r, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(r) || r < 0 || r > 1 {
			return nil, sqlerr.Doris.New("Invalid max_filter_ratio: '" + v + "'. Expected a number between 0 and 1")
		}
		p.maxRatio = r
	}
	if v := h.Get("timeout"); v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			return nil, sqlerr.Doris.New("Invalid timeout format")
		}
		if n < 1 || n > maxLoadTimeout {
			return nil, sqlerr.Doris.New(fmt.Sprintf("Invalid timeout: '%d'. Expected values should be between 1 and %d seconds", n, maxLoadTimeout))
		}
		p.timeout = time.Duration(n) * time.Second
	}
	if v := h.Get("skip_lines"); v != "" {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 0 {
			return nil, sqlerr.Doris.New("Invalid skip_lines: '" + v + "'. Expected a non-negative integer")
		}
		if p.format != "csv" {
			return nil, sqlerr.Doris.New("skip_lines applies to csv only")
		}
		if p.skipLines == 0 {
			// csv_with_names skips its header lines instead (Doris).
			p.skipLines = n
		}
	}
	if v := h.Get("send_batch_parallelism"); v != "" {
		if n, err := strconv.Atoi(strings.TrimSpace(v)); err != nil || n < 1 {
			return nil, sqlerr.Doris.New("Invalid send_batch_parallelism: '" + v + "'. Expected a positive integer")
		}
	}
	switch c := strings.ToLower(h.Get("compress_type")); c {
	case "":
	case "gz", "gzip":
		p.compress = "gz"
	case "bz2", "bzip2":
		p.compress = "bz2"
	case "lz4", "lz4frame":
		p.compress = "lz4"
	case "deflate":
		p.compress = "deflate"
	default:
		return nil, sqlerr.Doris.New("compress_type " + h.Get("compress_type") + " is not supported by dorisgo (gz, bz2, lz4, deflate)")
	}
	p.comment = h.Get("comment")
	if err := p.planColumns(h, t); err != nil {
		return nil, err
	}
	if p.partial, err = partialColumns(h, t, p.plan); err != nil {
		return nil, err
	}
	if len(p.jsonPaths) > len(p.plan.File) {
		return nil, sqlerr.Doris.New(fmt.Sprintf("jsonpaths has %d paths but the load has %d columns (the columns header, or the table's)", len(p.jsonPaths), len(p.plan.File)))
	}
	return p, nil
}

// checkLoadHeaders fails on a Doris stream load header dorisgo does not
// implement, or on one no Doris version knows: HTTP's own headers have
// hyphens or one word, Doris's have underscores, so a header with an
// underscore that is not Doris's is a typo that would otherwise load the
// file as if the option had not been given.
func checkLoadHeaders(h http.Header) error {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		name := strings.ToLower(k)
		if loadHeaders[name] {
			continue
		}
		if def, known := unsupportedLoadHeaders[name]; known {
			v := strings.TrimSpace(h.Get(k))
			if def != "" && strings.EqualFold(v, def) {
				continue
			}
			if def != "" {
				return sqlerr.Doris.New(fmt.Sprintf("stream load header %q is not supported by dorisgo (only %q, the default)", name+": "+v, def))
			}
			return sqlerr.Doris.New(fmt.Sprintf("stream load header %q is not supported by dorisgo", name))
		}
		if strings.Contains(name, "_") && !strings.HasPrefix(name, "x-") {
			return sqlerr.Doris.New(fmt.Sprintf("unknown stream load header %q", name))
		}
	}
	return nil
}

// boolHeader reads a true/false header (absent: false).
func boolHeader(h http.Header, name string) (bool, error) {
	switch v := strings.TrimSpace(h.Get(name)); {
	case v == "" || strings.EqualFold(v, "false"):
		return false, nil
	case strings.EqualFold(v, "true"):
		return true, nil
	}
	return false, sqlerr.Doris.New("Invalid " + name + " format. Must be bool type")
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

// planColumns binds the columns and where headers and lays out the source
// batches (bind.Load).
func (p *loadParser) planColumns(h http.Header, t *catalog.Table) error {
	var cols []parser.LoadColumn
	var err error
	if v := h.Get("columns"); strings.TrimSpace(v) != "" {
		if cols, err = parser.ParseLoadColumns(v); err != nil {
			return withHeader("columns", err)
		}
	}
	if cols, err = mergeTypeColumn(h, t, cols); err != nil {
		return err
	}
	var where = h.Get("where")
	b := bind.New(&bind.Context{Now: p.ectx.Now, Vars: noLoadVars{}})
	var plan *bind.Load
	if strings.TrimSpace(where) != "" {
		w, err := parser.ParseLoadWhere(where)
		if err != nil {
			return withHeader("where", err)
		}
		if plan, err = b.BindLoad(t, cols, w); err != nil {
			return err
		}
	} else {
		var err error
		if plan, err = b.BindLoad(t, cols, nil); err != nil {
			return err
		}
	}
	p.plan = plan
	n := len(t.Columns)
	p.to = tableTypes(t)
	p.schema = types.ArrowSchema(p.to)
	p.src = append([]types.Column(nil), p.to...)
	p.fill = make([]fillKind, n)
	p.defs = make([][]byte, n)
	for i, c := range t.Columns {
		switch {
		case plan.Exprs[i] != nil:
			p.fill[i] = fillPad
		case c.Default != nil:
			p.fill[i], p.defs[i] = fillDefault, []byte(*c.Default)
		}
	}
	raws := make([]types.Column, plan.Raws)
	p.fileKeys = map[string]int{}
	for i, f := range plan.File {
		switch {
		case f.Column >= 0:
			p.file = append(p.file, f.Column)
		case f.Raw >= 0:
			p.file = append(p.file, n+f.Raw)
			raws[f.Raw] = types.Column{Name: f.Name, Type: types.StringT, Nullable: true}
		default:
			p.file = append(p.file, -1)
		}
		if _, dup := p.fileKeys[strings.ToLower(f.Name)]; !dup {
			p.fileKeys[strings.ToLower(f.Name)] = i
		}
	}
	p.src = append(p.src, raws...)
	p.srcSchema = types.ArrowSchema(p.src)
	p.strHint = make([]atomic.Int64, len(p.src))
	p.plain = plan.Raws == 0 && plan.Where == nil
	for _, x := range plan.Exprs {
		p.plain = p.plain && x == nil
	}
	return nil
}

// withHeader names the header a parse error comes from.
func withHeader(name string, err error) error {
	e := sqlerr.As(err)
	return &sqlerr.Error{Code: e.Code, State: e.State, Message: name + ": " + e.Message}
}

// noLoadVars answers variable references in a load's expressions: a load
// has no session.
type noLoadVars struct{}

func (noLoadVars) System(name string, _ bool) (types.Datum, error) {
	return types.Datum{}, sqlerr.Doris.New("system variable @@" + name + " is not available in a stream load")
}

func (noLoadVars) User(string) types.Datum { return types.NullDatum(types.StringT) }

// body is the load's data: r decompressed as compress_type says, its
// errors (corrupt data) told apart from those of the body's transport.
func (p *loadParser) body(r io.Reader) (io.Reader, error) {
	if p.compress == "" {
		return r, nil
	}
	src := &errReader{r: r}
	var d io.Reader
	switch p.compress {
	case "gz":
		z, err := gzip.NewReader(src)
		if err != nil {
			return nil, p.corrupt(src, err)
		}
		d = z
	case "bz2":
		d = bzip2.NewReader(src)
	case "lz4":
		d = lz4.NewReader(src)
	case "deflate":
		z, err := zlib.NewReader(src)
		if err != nil {
			return nil, p.corrupt(src, err)
		}
		d = z
	}
	return &decompressed{p: p, src: src, r: d}, nil
}

// corrupt is the error of a decompressor that failed: the transport's own
// if the body could not be read, else a message saying the data is bad
// (Go's decompressors name their own internals).
func (p *loadParser) corrupt(src *errReader, err error) error {
	if src.err != nil && !errors.Is(src.err, io.EOF) {
		return src.err
	}
	return sqlerr.Doris.New("the body is not valid " + p.compress + " data (compress_type: " + p.compress + ")")
}

// errReader remembers the first error of its reader.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(b []byte) (int, error) {
	n, err := e.r.Read(b)
	if err != nil && e.err == nil {
		e.err = err
	}
	return n, err
}

type decompressed struct {
	p   *loadParser
	src *errReader
	r   io.Reader
}

func (d *decompressed) Read(b []byte) (int, error) {
	n, err := d.r.Read(b)
	if err != nil && err != io.EOF {
		err = d.p.corrupt(d.src, err)
	}
	return n, err
}
