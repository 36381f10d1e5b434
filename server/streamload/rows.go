package streamload

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/types"
)

// A stream load's rows go through Doris's stages (the file scanner, its
// where conjuncts, the table sink), each of which may drop a row:
//
//	fields ──▶ source batch ──▶ table row ──▶ where ──▶ sink checks ──▶ loaded
//	  │ wrong count   │ strict_mode:         │ mapping    │ false/NULL:   │ NULL into NOT NULL,
//	  ▼ filtered      ▼ bad value filtered   ▼ exprs      ▼ unselected    ▼ too long: filtered
//
// Filtered rows count against max_filter_ratio and are kept (the first
// maxErrorRows) for the ErrorURL; unselected rows do not count.

// rowFault is one fault of one row of a batch.
type rowFault struct {
	row  int   // in the batch, 0-based
	col  int   // source column (-1: the whole row)
	kind fault // faultStrict/faultFields filter before where, the rest after
	n    int   // faultFields: how many fields the row had
	val  string
}

// pre: the fault drops the row before the where condition sees it (the
// file scanner's checks), so such a row is filtered, never unselected.
func (f rowFault) pre() bool { return f.kind == faultStrict || f.kind == faultFields }

// typedBatch is one batch of source rows: src holds the table's columns,
// then the raw text of the columns expressions read (bind.Load).
type typedBatch struct {
	src    arrow.Record
	first  int // the load's row number of row 0 (1-based)
	faults []rowFault
	// lineOf renders row i as read, for the error log.
	lineOf func(i int) string
}

// rowAsm assembles a typed source batch row by row.
type rowAsm struct {
	p      *loadParser
	cols   []colParser
	set    []bool // source columns the current row has filled
	defs   [][]byte
	faults []rowFault
	row    int
}

func (p *loadParser) newRowAsm(rows int) *rowAsm {
	a := &rowAsm{p: p, cols: make([]colParser, len(p.src)), set: make([]bool, len(p.src)), defs: p.defs}
	for i, c := range p.src {
		a.cols[i] = newColParser(c, rows)
		if sc, ok := a.cols[i].(*stringCol); ok {
			h := int(p.strHint[i].Load())
			sc.data = make([]byte, 0, h+h/8)
			sc.hint = &p.strHint[i]
		}
	}
	return a
}

// fault records what went wrong with source column ci's value text in the
// current row, with Doris's reading of it: a value that does not convert
// is NULL, or filters its row under strict_mode (only for columns the file
// fills directly; expressions and defaults are not checked).
func (a *rowAsm) fault(ci int, f fault, text []byte) { a.faultAt(a.row, ci, f, text) }

func (a *rowAsm) faultAt(row, ci int, f fault, text []byte) {
	if f == faultBadValue {
		switch {
		case a.p.strict:
			f = faultStrict
		case !a.p.src[ci].Nullable:
			f = faultNull
		default:
			return
		}
	}
	rf := rowFault{row: row, col: ci, kind: f}
	if f != faultNull {
		rf.val = string(text)
	}
	a.faults = append(a.faults, rf)
}

// endRow fills the table columns the row did not: default, NULL, or a
// placeholder for those an expression computes.
func (a *rowAsm) endRow() {
	for i, ok := range a.set {
		if ok {
			a.set[i] = false
			continue
		}
		switch a.p.fill[i] {
		case fillDefault:
			if f := a.cols[i].add(a.defs[i]); f != faultNone {
				a.fault(i, f, a.defs[i])
			}
		case fillNull:
			a.cols[i].addNull()
		default:
			a.cols[i].pad()
		}
	}
	a.row++
}

// badFields ends a row that had n fields instead of the file's columns.
func (a *rowAsm) badFields(n int) {
	a.faults = append(a.faults, rowFault{row: a.row, col: -1, kind: faultFields, n: n})
	for i, ok := range a.set {
		if !ok {
			a.cols[i].pad()
		}
		a.set[i] = false
	}
	a.row++
}

// record finishes the batch's columns; faults the columns find only now
// (castCol) join b's.
func (a *rowAsm) record(b *typedBatch) (arrow.Record, error) {
	arrs := make([]arrow.Array, len(a.cols))
	release := func() {
		for _, x := range arrs {
			if x != nil {
				x.Release()
			}
		}
	}
	for i, cp := range a.cols {
		x, err := cp.finish(func(row int, text string) { a.faultAt(row, i, faultBadValue, []byte(text)) })
		if err != nil {
			release()
			return nil, err
		}
		arrs[i] = x
	}
	b.faults = a.faults
	rec := array.NewRecord(a.p.srcSchema, arrs, int64(a.row))
	release()
	return rec, nil
}

// finish turns a source batch into the rows to load: mapping expressions,
// the where condition, the sink's checks; it counts every row as loaded,
// filtered or unselected and keeps the filtered ones' reasons. It takes
// b.src; the caller releases the result.
func (p *loadParser) finish(b *typedBatch) (arrow.Record, error) {
	defer b.src.Release()
	rows := int(b.src.NumRows())
	p.total.Add(int64(rows))
	if p.plain && len(b.faults) == 0 && !p.routesPartitions() {
		p.loaded.Add(int64(rows))
		b.src.Retain()
		return b.src, nil
	}
	mem := memory.DefaultAllocator
	cols := make([]arrow.Array, len(p.to))
	defer func() {
		for _, c := range cols {
			if c != nil {
				c.Release()
			}
		}
	}()
	for i, c := range p.to {
		x := p.plan.Exprs[i]
		if x == nil {
			cols[i] = b.src.Column(i)
			cols[i].Retain()
			continue
		}
		v, err := eval.Eval(&p.ectx, x, b.src, mem)
		if err != nil {
			return nil, err
		}
		// A value the conversion refuses is NULL: strict_mode does not
		// apply to computed columns (Doris).
		out, err := castRows(v, x.Type(), c.Type, c.Name, func(int) {})
		v.Release()
		if err != nil {
			return nil, err
		}
		cols[i] = out
		b.faults = sinkFaults(b.faults, i, c, out)
	}
	out := array.NewRecord(p.schema, cols, int64(rows))
	defer out.Release()
	win := winningFaults(b.faults)
	var sel *array.Boolean
	if p.plan.Where != nil {
		var err error
		if sel, err = eval.EvalPredicate(&p.ectx, p.plan.Where, out, mem); err != nil {
			return nil, err
		}
		defer sel.Release()
	}
	keep := array.NewBooleanBuilder(mem)
	defer keep.Release()
	keep.Reserve(rows)
	var loaded, filtered, unselected int64
	partOK := p.partitionCheck(out)
	w := 0
	for r := 0; r < rows; r++ {
		var f *rowFault
		if w < len(win) && win[w].row == r {
			f = &win[w]
			w++
		}
		switch {
		case f != nil && f.pre():
			filtered++
			p.errs.add(b.first+r, func() (string, string) { return p.reason(f), b.lineOf(r) })
		case sel != nil && !sel.Value(r):
			unselected++
		case f != nil:
			filtered++
			p.errs.add(b.first+r, func() (string, string) { return p.reason(f), b.lineOf(r) })
		case partOK != nil && !partOK(r):
			filtered++
			p.errs.add(b.first+r, func() (string, string) { return "no partition for this tuple", b.lineOf(r) })
		default:
			loaded++
			keep.UnsafeAppend(true)
			continue
		}
		keep.UnsafeAppend(false)
	}
	p.loaded.Add(loaded)
	p.filtered.Add(filtered)
	p.unselected.Add(unselected)
	if loaded == int64(rows) {
		out.Retain()
		return out, nil
	}
	k := keep.NewBooleanArray()
	defer k.Release()
	return eval.Filter(out, k, mem)
}

// routesPartitions: rows must be checked against the table's partitions
// (a partitioned table, or a partitions header naming some).
func (p *loadParser) routesPartitions() bool {
	return p.table != nil && (p.table.PartKind != catalog.PartNone || p.parts != nil)
}

// partitionCheck tells, per row of a batch of the table's rows, whether a
// partition the load may write holds it (nil: every row may load). A row no
// partition holds, or one outside the partitions header's, is filtered, as
// Doris's table sink does ("no partition for this tuple").
func (p *loadParser) partitionCheck(out arrow.Record) func(r int) bool {
	if !p.routesPartitions() {
		return nil
	}
	t := p.table
	var col arrow.Array
	var ct types.T
	if t.PartKind != catalog.PartNone {
		col, ct = out.Column(t.PartColumn), t.Columns[t.PartColumn].Type
	}
	return func(r int) bool {
		i := 0
		if col != nil {
			i = t.PartitionIndex(types.DatumAt(col, r, ct))
		}
		return i >= 0 && (p.parts == nil || p.parts[i])
	}
}

// sinkFaults adds the table sink's faults of column i's values: NULL in a
// NOT NULL column, CHAR/VARCHAR strings longer than the column.
func sinkFaults(fs []rowFault, i int, c types.Column, arr arrow.Array) []rowFault {
	if !c.Nullable && arr.NullN() > 0 {
		for r := 0; r < arr.Len(); r++ {
			if arr.IsNull(r) {
				fs = append(fs, rowFault{row: r, col: i, kind: faultNull})
			}
		}
	}
	length := c.Type.Length
	if s, ok := arr.(*array.String); ok && c.Type.Kind != types.String && length > 0 {
		for r := 0; r < s.Len(); r++ {
			if v := s.Value(r); s.IsValid(r) && len(v) > length && utf8.RuneCountInString(v) > length {
				fs = append(fs, rowFault{row: r, col: i, kind: faultTooLong, val: v})
			}
		}
	}
	return fs
}

// winningFaults keeps one fault per row, in row order: the file scanner's
// (wrong field count first, then strict_mode), else the sink's first.
func winningFaults(fs []rowFault) []rowFault {
	if len(fs) == 0 {
		return nil
	}
	rank := func(f rowFault) int {
		switch f.kind {
		case faultFields:
			return 0
		case faultStrict:
			return 1
		}
		return 2
	}
	sort.SliceStable(fs, func(i, j int) bool {
		if fs[i].row != fs[j].row {
			return fs[i].row < fs[j].row
		}
		return rank(fs[i]) < rank(fs[j])
	})
	out := fs[:0:0]
	for i, f := range fs {
		if i == 0 || f.row != fs[i-1].row {
			out = append(out, f)
		}
	}
	return out
}

// reason is Doris's error log text for a fault (vfile_scanner.cpp,
// csv_reader.cpp, vtablet_block_convertor.cpp).
func (p *loadParser) reason(f *rowFault) string {
	switch f.kind {
	case faultFields:
		more := "less"
		if f.n > len(p.file) {
			more = "more"
		}
		return fmt.Sprintf("actual column number in csv file is %s than schema column number.actual number: %d, "+
			"column separator: [%s], line delimiter: [%s], schema column number: %d; ",
			more, f.n, printable(string(p.sep)), printable(string([]byte{p.lineSep})), len(p.file))
	case faultStrict:
		return fmt.Sprintf("column(%s) value is incorrect while strict mode is true, src value is %s", p.src[f.col].Name, f.val)
	case faultTooLong:
		c := p.src[f.col]
		prefix := f.val
		if len(prefix) > 32 {
			prefix = prefix[:32]
		}
		return fmt.Sprintf("column_name[%s], the length of input is too long than schema. first 32 bytes of input str: [%s] "+
			"schema length: %d; actual length: %d; ", c.Name, strings.ToValidUTF8(prefix, ""), c.Type.Length, utf8.RuneCountInString(f.val))
	}
	c := p.src[f.col]
	return fmt.Sprintf("column_name[%s], null value for not null column, type=%s", c.Name, c.Type)
}

// printable writes a separator with escapes for control characters, so an
// error log line stays one line.
func printable(s string) string {
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// maxErrorRows bounds the rejected rows a load keeps for its ErrorURL: the
// first ones by row number (Doris's BE keeps 50, MAX_ERROR_NUM in
// runtime_state.cpp; more help find a pattern, and 1,000 lines of at most
// maxErrorLine bytes stay under a few MB).
const (
	maxErrorRows = 1000
	maxErrorLine = 4096
)

// errorRows collects a load's rejected rows from the pipeline's workers.
type errorRows struct {
	mu   sync.Mutex
	rows []errorRow
	// cut: once rows has been trimmed, rows after this one are not kept.
	cut int
	n   int64
}

type errorRow struct {
	row  int
	text string
}

// add counts a rejected row and keeps its text (made by text, only if the
// row may be kept).
func (e *errorRows) add(row int, text func() (reason, line string)) {
	e.mu.Lock()
	e.n++
	skip := e.cut > 0 && row > e.cut
	e.mu.Unlock()
	if skip {
		return
	}
	reason, line := text()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(line) > maxErrorLine {
		line = strings.ToValidUTF8(line[:maxErrorLine], "") + "..."
	}
	e.rows = append(e.rows, errorRow{row: row, text: "Reason: " + reason + ". src line [" + line + "]; "})
	if len(e.rows) >= 2*maxErrorRows {
		e.trim()
	}
}

// trim keeps the first maxErrorRows by row number.
func (e *errorRows) trim() {
	sort.Slice(e.rows, func(i, j int) bool { return e.rows[i].row < e.rows[j].row })
	if len(e.rows) > maxErrorRows {
		e.rows = e.rows[:maxErrorRows]
		e.cut = e.rows[len(e.rows)-1].row
	}
}

// lines are the kept rows' texts in row order, and Doris's closing line
// when more rows were rejected than kept.
func (e *errorRows) lines() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.trim()
	out := make([]string, 0, len(e.rows)+1)
	for _, r := range e.rows {
		out = append(out, r.text)
	}
	if e.n > int64(len(e.rows)) {
		out = append(out, "TOO MUCH ERROR! already reach "+strconv.Itoa(len(e.rows))+". show no more next error.")
	}
	return out
}
