package parser

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/sql/hint"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// Hints are the Doris and Spark hints of one statement.
type Hints struct {
	// Join holds `JOIN [shuffle] t` / `JOIN /*+ shuffle */ t` hints, keyed by
	// the join they follow.
	Join map[*sqlparser.JoinTableExpr]hint.Join
	// SetVars are SELECT /*+ SET_VAR(k = v, ...) */ assignments, in order.
	SetVars []SetVar
	// Spark are SELECT /*+ BROADCAST(t) ... */ hints, in order.
	Spark []hint.Spark
	// MaxExecutionMs is MySQL's MAX_EXECUTION_TIME(ms) (0: none): the
	// statement's timeout.
	MaxExecutionMs int64
	// Ignored are the other statement hints as written ("NO_INDEX_MERGE(t1)",
	// "LEADING(a b)"): MySQL's and Doris's optimizer hints that mean
	// nothing to dorisgo are accepted and not applied, and the statement
	// warns about each.
	Ignored []string
}

// sparkNames maps every accepted spelling (upper-case) to its family.
var sparkNames = map[string]hint.SparkKind{
	"BROADCAST": hint.SparkBroadcast, "BROADCASTJOIN": hint.SparkBroadcast, "MAPJOIN": hint.SparkBroadcast,
	"SHUFFLE_HASH": hint.SparkShuffleHash,
	"MERGE":        hint.SparkMerge, "SHUFFLE_MERGE": hint.SparkMerge, "MERGEJOIN": hint.SparkMerge,
	"SHUFFLE_REPLICATE_NL": hint.SparkShuffleReplicateNL,
}

// SetVar is one SET_VAR assignment; Value is the literal without quotes.
type SetVar struct {
	Name  string
	Value string
}

// hintScan is the result of the text pre-scan: the statement hints plus the
// join hints keyed by the ordinal of the JOIN keyword they followed.
type hintScan struct {
	*Hints
	byJoin  map[int]hint.Join
	nJoins  int
	anyName string // the first join hint's name, for a mismatch error
	// semi are the LEFT|RIGHT SEMI|ANTI joins by JOIN ordinal (semijoin.go).
	semi map[int]semiJoin
	text string // the statement as written, for syntax errors
}

// selectOptions may sit between SELECT and a STRAIGHT_JOIN that is a select
// option rather than a join.
var selectOptions = map[string]bool{"SELECT": true, "ALL": true, "DISTINCT": true, "DISTINCTROW": true, "HIGH_PRIORITY": true}

// statementHintAfter lists the keywords a statement-level /*+ */ may follow.
var statementHintAfter = map[string]bool{"SELECT": true, "INSERT": true, "UPDATE": true, "DELETE": true, "REPLACE": true}

func invalidHint(name string) error {
	return sqlerr.ParseError.New("Invalid join hint: " + name)
}

// extractHints finds the Doris hints in text, returning text with them (and
// the byte ranges in blank) overwritten by spaces, so offsets are unchanged.
func extractHints(text string, toks []token, blank [][2]int) (string, *hintScan, error) {
	b := []byte(text)
	wipe := func(from, to int) {
		for i := from; i < to; i++ {
			if b[i] != '\n' {
				b[i] = ' '
			}
		}
	}
	skipTo := 0
	for _, r := range blank {
		wipe(r[0], r[1])
		skipTo = max(skipTo, r[1])
	}
	hs := &hintScan{Hints: &Hints{}, byJoin: map[int]hint.Join{}, semi: map[int]semiJoin{}, text: text}
	prev := ""
	var pendingSemi *semiJoin // a SEMI/ANTI word waiting for its JOIN
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		if t.pos < skipTo || t.kind == tkEOF {
			continue
		}
		if kind, ok := semiWord(toks, i, prev); ok {
			pendingSemi = &semiJoin{join: kind, pos: t.pos}
			wipe(t.pos, t.end)
			prev = t.upper()
			continue
		}
		switch {
		case t.is("JOIN") || (t.is("STRAIGHT_JOIN") && !selectOptions[prev]):
			ord := hs.nJoins
			hs.nJoins++
			if pendingSemi != nil {
				hs.semi[ord] = *pendingSemi
				pendingSemi = nil
			}
			j := i + 1
			for ; j < len(toks); j++ {
				n := toks[j]
				var names []string
				switch {
				case n.isHint():
					names = hintWords(n)
					wipe(n.pos, n.end)
				case n.isP("[") && j+2 < len(toks) && toks[j+1].kind == tkIdent && toks[j+2].isP("]"):
					names = []string{toks[j+1].val}
					wipe(n.pos, toks[j+2].end)
					j += 2
				case n.kind == tkComment:
					continue
				}
				if names == nil {
					break
				}
				for _, name := range names {
					if err := hs.addJoinHint(ord, name); err != nil {
						return "", nil, err
					}
				}
			}
			i = j - 1
		case t.isP("["):
			// A join hint away from its JOIN is an error; any other
			// [x] is an array literal ([NULL], [col]).
			if n := toks[i+1]; n.kind == tkIdent && i+2 < len(toks) && toks[i+2].isP("]") {
				if _, known := hint.JoinKindNamed(n.val); known {
					return "", nil, invalidHint(n.val)
				}
			}
		case t.isHint():
			if !statementHintAfter[prev] {
				if w := hintWords(t); len(w) > 0 {
					return "", nil, invalidHint(w[0])
				}
			}
			if err := hs.statementHints(text, t); err != nil {
				return "", nil, err
			}
			wipe(t.pos, t.end)
		}
		if t.kind != tkComment {
			prev = t.upper()
		}
	}
	return string(b), hs, nil
}

// hintWords lists the words of a /*+ */ comment ("shuffle" or "BROADCAST"
// of "BROADCAST(t)"); a non-word makes the whole comment one bogus name.
func hintWords(t token) []string {
	body := hintBody(t)
	var out []string
	for _, w := range significant(lex(body)) {
		switch {
		case w.kind == tkEOF, w.isP(","):
		case w.kind == tkIdent:
			out = append(out, w.val)
		default:
			return append(out, strings.TrimSpace(body))
		}
	}
	return out
}

func hintBody(t token) string {
	body := strings.TrimPrefix(t.val, "/*+")
	if !t.unterminated {
		body = strings.TrimSuffix(body, "*/")
	}
	return body
}

func (hs *hintScan) addJoinHint(ord int, name string) error {
	kind, ok := hint.JoinKindNamed(name)
	if _, dup := hs.byJoin[ord]; dup || !ok {
		return invalidHint(name)
	}
	if hs.anyName == "" {
		hs.anyName = name
	}
	hs.byJoin[ord] = hint.Join{Kind: kind, Text: "[" + kind.String() + "]"}
	return nil
}

// statementHints parses "SET_VAR(k = v, ...) BROADCAST(t1, t2) ..." from a
// statement-level hint comment.
func (hs *hintScan) statementHints(text string, t token) error {
	base := t.pos + 3
	toks := significant(lex(hintBody(t)))
	for i := range toks {
		toks[i].pos += base
		toks[i].end += base
	}
	c := &cursor{src: text, toks: toks}
	for c.err == nil && c.peek().kind != tkEOF {
		if c.acceptP(",") {
			continue
		}
		nt := c.peek()
		if nt.kind != tkIdent {
			return invalidHint(nt.val)
		}
		c.next()
		name := strings.ToUpper(nt.val)
		if name == "SET_VAR" {
			c.expectP("(")
			for c.err == nil && !c.acceptP(")") {
				k := c.ident()
				c.expectP("=")
				hs.SetVars = append(hs.SetVars, SetVar{Name: k, Value: c.literal()})
				if !c.acceptP(",") {
					c.expectP(")")
					break
				}
			}
			continue
		}
		if name == "MAX_EXECUTION_TIME" && c.peek().isP("(") && c.peekAt(1).kind == tkNumber && c.peekAt(2).isP(")") {
			c.next()
			if ms, err := strconv.ParseInt(c.next().val, 10, 64); err == nil && ms > 0 {
				hs.MaxExecutionMs = ms
			} else {
				hs.Ignored = append(hs.Ignored, text[nt.pos:c.peek().end])
			}
			c.next()
			continue
		}
		kind, ok := sparkNames[name]
		if !ok {
			// Any other hint, with its arguments: accepted and ignored.
			end := nt.end
			if c.peek().isP("(") {
				c.skipBalanced()
				if c.err != nil {
					return invalidHint(nt.val)
				}
				end = c.toks[c.i-1].end
			}
			hs.Ignored = append(hs.Ignored, text[nt.pos:end])
			continue
		}
		h := hint.Spark{Kind: kind, Name: name}
		if c.acceptP("(") {
			for c.err == nil && !c.acceptP(")") {
				tbl := c.ident()
				for c.acceptP(".") {
					tbl += "." + c.ident()
				}
				h.Tables = append(h.Tables, tbl)
				if !c.acceptP(",") {
					c.expectP(")")
					break
				}
			}
		}
		hs.Spark = append(hs.Spark, h)
	}
	return c.err
}

// attach maps the n-th hinted JOIN keyword to the n-th join of ast in
// source order, and marks the semi and anti joins.
func (hs *hintScan) attach(ast sqlparser.Statement) error {
	if len(hs.byJoin) == 0 && len(hs.semi) == 0 {
		return nil
	}
	joins := sourceOrderJoins(ast)
	if len(joins) != hs.nJoins {
		if len(hs.byJoin) == 0 {
			return hs.attachSemi(nil)
		}
		return invalidHint(hs.anyName)
	}
	if err := hs.attachSemi(joins); err != nil {
		return err
	}
	if len(hs.byJoin) == 0 {
		return nil
	}
	hs.Join = make(map[*sqlparser.JoinTableExpr]hint.Join, len(hs.byJoin))
	for ord, h := range hs.byJoin {
		hs.Join[joins[ord]] = h
	}
	return nil
}

// sourceOrderJoins lists the joins of n in the order their JOIN keywords
// appear in the text: a join comes after everything in its left input and
// before its right input and condition, and clauses are visited in written
// order (vitess's own Walk visits a join before its left input and a WITH
// after the body).
func sourceOrderJoins(n sqlparser.SQLNode) []*sqlparser.JoinTableExpr {
	var out []*sqlparser.JoinTableExpr
	var visit sqlparser.Visit
	walk := func(nodes ...sqlparser.SQLNode) {
		for _, n := range nodes {
			if n == nil {
				continue
			}
			if v := reflect.ValueOf(n); (v.Kind() == reflect.Pointer || v.Kind() == reflect.Slice) && v.IsNil() {
				continue
			}
			_ = sqlparser.Walk(visit, n)
		}
	}
	visit = func(node sqlparser.SQLNode) (bool, error) {
		switch n := node.(type) {
		case *sqlparser.JoinTableExpr:
			walk(n.LeftExpr)
			out = append(out, n)
			walk(n.RightExpr, n.Condition)
		case *sqlparser.Select:
			walk(n.With, n.SelectExprs, n.From, n.Where, n.GroupBy, n.Having, n.Window, n.OrderBy, n.Limit)
		case *sqlparser.SetOp:
			walk(n.With, n.Left, n.Right, n.OrderBy, n.Limit)
		case *sqlparser.Insert:
			walk(n.With, n.Table, n.Columns, n.Rows, n.OnDup)
		case *sqlparser.Update:
			walk(n.With, n.TableExprs, n.Exprs, n.Where, n.OrderBy, n.Limit)
		case *sqlparser.Delete:
			walk(n.With, n.Targets, n.TableExprs, n.Where, n.OrderBy, n.Limit)
		default:
			return true, nil
		}
		return false, nil
	}
	walk(n)
	return out
}
