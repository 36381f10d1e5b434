package slt

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Kind is the kind of a sqllogictest record.
type Kind uint8

// The record kinds.
const (
	KindStatement     Kind = iota + 1 // statement ok|error
	KindQuery                         // query <types> <sort> [label]
	KindHalt                          // halt: stop running the file
	KindHashThreshold                 // hash-threshold N
)

// SortMode is how a query's values are ordered before comparison.
type SortMode uint8

// The sort modes.
const (
	NoSort    SortMode = iota // rows as returned
	RowSort                   // rows sorted by their formatted values
	ValueSort                 // every value sorted independently
)

func (m SortMode) String() string {
	switch m {
	case RowSort:
		return "rowsort"
	case ValueSort:
		return "valuesort"
	}
	return "nosort"
}

// Condition is a skipif/onlyif line guarding the record that follows.
type Condition struct {
	Skip   bool   // skipif (true) or onlyif (false)
	Engine string // e.g. "mysql", "sqlite"
}

// Record is one sqllogictest record.
type Record struct {
	Kind       Kind
	Line       int // 1-based line of the statement/query/halt keyword
	Conditions []Condition

	SQL         string
	ExpectError bool // statement error

	Types string // query column types, one of I, R, T per column
	Sort  SortMode
	Label string

	// Expected values (one per line), or, when IsHash, the count and md5.
	Expected  []string
	IsHash    bool
	HashCount int
	Hash      string

	Threshold int // hash-threshold value
}

// Skipped reports whether the record's conditions exclude engine.
func (r *Record) Skipped(engine string) bool {
	for _, c := range r.Conditions {
		match := strings.EqualFold(c.Engine, engine)
		if c.Skip == match {
			return true
		}
	}
	return false
}

// Parse reads a sqllogictest script. name is used in error messages.
func Parse(name string, src io.Reader) ([]Record, error) {
	sc := bufio.NewScanner(src)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var (
		lines []string
	)
	for sc.Scan() {
		lines = append(lines, strings.TrimRight(sc.Text(), "\r"))
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var recs []Record
	var conds []Condition
	i := 0
	blank := func(s string) bool { return strings.TrimSpace(s) == "" }
	// block returns lines from i up to (not including) the next blank line
	// or, when stopAtSep, the "----" separator.
	block := func(stopAtSep bool) []string {
		start := i
		for i < len(lines) && !blank(lines[i]) && !(stopAtSep && strings.TrimSpace(lines[i]) == "----") {
			i++
		}
		return lines[start:i]
	}
	for i < len(lines) {
		line := lines[i]
		if blank(line) || strings.HasPrefix(strings.TrimSpace(line), "#") {
			i++
			continue
		}
		f := strings.Fields(stripComment(line))
		lineNo := i + 1
		i++
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%s:%d: "+format, append([]any{name, lineNo}, args...)...)
		}
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "skipif", "onlyif":
			if len(f) < 2 {
				return nil, bad("%s without engine", f[0])
			}
			conds = append(conds, Condition{Skip: f[0] == "skipif", Engine: f[1]})
			continue
		case "statement":
			if len(f) < 2 || (f[1] != "ok" && f[1] != "error") {
				return nil, bad("want statement ok|error, got %q", line)
			}
			sql := block(false)
			recs = append(recs, Record{Kind: KindStatement, Line: lineNo, Conditions: conds,
				SQL: strings.Join(sql, "\n"), ExpectError: f[1] == "error"})
		case "query":
			if len(f) < 2 {
				return nil, bad("query without types")
			}
			r := Record{Kind: KindQuery, Line: lineNo, Conditions: conds, Types: f[1]}
			for _, c := range r.Types {
				if c != 'I' && c != 'R' && c != 'T' {
					return nil, bad("bad column type %q", c)
				}
			}
			if len(f) > 2 {
				switch f[2] {
				case "nosort":
				case "rowsort":
					r.Sort = RowSort
				case "valuesort":
					r.Sort = ValueSort
				default:
					return nil, bad("bad sort mode %q", f[2])
				}
			}
			if len(f) > 3 {
				r.Label = f[3]
			}
			r.SQL = strings.Join(block(true), "\n")
			if i < len(lines) && strings.TrimSpace(lines[i]) == "----" {
				i++
				exp := block(false)
				if len(exp) == 1 {
					if n, h, ok := parseHashLine(exp[0]); ok {
						r.IsHash, r.HashCount, r.Hash = true, n, h
						exp = nil
					}
				}
				for _, e := range exp {
					r.Expected = append(r.Expected, strings.TrimRight(e, " \t"))
				}
			}
			recs = append(recs, r)
		case "halt":
			recs = append(recs, Record{Kind: KindHalt, Line: lineNo, Conditions: conds})
		case "hash-threshold":
			if len(f) < 2 {
				return nil, bad("hash-threshold without value")
			}
			n, err := strconv.Atoi(f[1])
			if err != nil {
				return nil, bad("bad hash-threshold %q", f[1])
			}
			recs = append(recs, Record{Kind: KindHashThreshold, Line: lineNo, Conditions: conds, Threshold: n})
		default:
			return nil, bad("unknown record %q", line)
		}
		conds = nil
	}
	return recs, nil
}

// stripComment drops a trailing "# ..." from a control line.
func stripComment(s string) string {
	if k := strings.IndexByte(s, '#'); k >= 0 {
		return s[:k]
	}
	return s
}

// parseHashLine parses "N values hashing to <md5>".
func parseHashLine(s string) (int, string, bool) {
	f := strings.Fields(s)
	if len(f) != 5 || f[1] != "values" || f[2] != "hashing" || f[3] != "to" || len(f[4]) != 32 {
		return 0, "", false
	}
	n, err := strconv.Atoi(f[0])
	if err != nil {
		return 0, "", false
	}
	return n, f[4], true
}
