package explain

import (
	"fmt"
	"strings"
)

// Mode selects the output.
type Mode uint8

const (
	Plain Mode = iota
	Verbose
	Distributed
)

// Writer collects one node's attribute lines.
type Writer struct {
	mode  Mode
	lines []string
}

// NewWriter returns a writer for one node's lines in mode.
func NewWriter(mode Mode) *Writer { return &Writer{mode: mode} }

// Lines are the lines written so far.
func (w *Writer) Lines() []string { return w.lines }

// Verbose reports whether verbose-only attributes are printed.
func (w *Writer) Verbose() bool { return w.mode == Verbose }

// Attr adds one attribute line.
func (w *Writer) Attr(format string, args ...any) {
	w.lines = append(w.lines, fmt.Sprintf(format, args...))
}

// VAttr adds a line printed only by EXPLAIN VERBOSE.
func (w *Writer) VAttr(format string, args ...any) {
	if w.mode == Verbose {
		w.Attr(format, args...)
	}
}

// Node is one operator as EXPLAIN shows it.
type Node interface {
	// Label is the header after "id:" (e.g. "HASH JOIN").
	Label() string
	NodeID() int
	// Explain writes the attribute lines.
	Explain(w *Writer)
	// Inputs are the children inside the same fragment (an exchange has none).
	Inputs() []Node
}

// Fragment is one plan fragment as EXPLAIN shows it.
type Fragment struct {
	ID          int
	OutputExprs []string // root fragment only
	Partition   string   // UNPARTITIONED | RANDOM | HASH_PARTITIONED: e1, e2
	// ExchangeID < 0 marks the RESULT SINK.
	ExchangeID    int
	SinkPartition string // UNPARTITIONED | HASH_PARTITIONED: e | BUCKET_SHFFULE_HASH_PARTITIONED: e | RANDOM
	Root          Node
	// Notes are extra verbose lines after the sink (e.g. instances).
	Notes []string
	// TableSink, when set, replaces RESULT SINK: the OLAP TABLE SINK's
	// lines (its header first).
	TableSink []string
}

// Doris prints fragments in DORIS-PLANNING.md §3's format (lines right-trimmed).
func Doris(frags []Fragment, mode Mode) []string {
	var out []string
	add := func(s string) { out = append(out, strings.TrimRight(s, " ")) }
	for i, f := range frags {
		if i > 0 {
			add("")
		}
		add(fmt.Sprintf("PLAN FRAGMENT %d", f.ID))
		add(" OUTPUT EXPRS:" + strings.Join(f.OutputExprs, " | "))
		add("  PARTITION: " + f.Partition)
		add("")
		if len(f.TableSink) > 0 {
			add("  " + f.TableSink[0])
			for _, l := range f.TableSink[1:] {
				add("    " + l)
			}
		} else if f.ExchangeID < 0 {
			add("  RESULT SINK")
		} else {
			add("  STREAM DATA SINK")
			add(fmt.Sprintf("    EXCHANGE ID: %02d", f.ExchangeID))
			add("    " + f.SinkPartition)
		}
		if mode == Verbose {
			for _, n := range f.Notes {
				add("  " + n)
			}
		}
		add("")
		printNode(f.Root, "  ", "  ", mode, add)
	}
	return out
}

// printNode draws n: header with headPrefix, details with detailBase plus a
// rail ("|  ") when n has children or 3 spaces otherwise.
func printNode(n Node, headPrefix, base string, mode Mode, add func(string)) {
	add(fmt.Sprintf("%s%d:%s", headPrefix, n.NodeID(), n.Label()))
	w := &Writer{mode: mode}
	n.Explain(w)
	ins := n.Inputs()
	detail := base + "   "
	if len(ins) > 0 {
		detail = base + "|  "
	}
	for _, l := range w.lines {
		add(detail + l)
	}
	if len(ins) == 0 {
		return
	}
	add(detail)
	for _, c := range ins[1:] {
		printNode(c, base+"|----", base+"|    ", mode, add)
		add(base + "|    ")
	}
	printNode(ins[0], base, base, mode, add)
}
