package parser

import (
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

// Doris's semi and anti joins, which vitess does not parse:
//
//	a LEFT SEMI JOIN [shuffle] b ON a.k = b.k  → JoinTableExpr{Join: LeftSemiJoinStr}
//
// The hint pre-scan (extractHints) blanks the SEMI or ANTI word, so vitess
// parses a LEFT or RIGHT JOIN, which has the same shape (ON or USING
// required), and attach then sets that join's Join to the Doris kind. The
// binder reads these strings as it reads vitess's own JoinTableExpr.Join
// values.
const (
	LeftSemiJoinStr  = "left semi join"
	LeftAntiJoinStr  = "left anti join"
	RightSemiJoinStr = "right semi join"
	RightAntiJoinStr = "right anti join"
)

// semiJoin is one SEMI/ANTI word found by the pre-scan.
type semiJoin struct {
	join string // LeftSemiJoinStr, ...
	pos  int    // offset of the SEMI/ANTI word, for a syntax error
}

// semiWord reports whether toks[i] is the SEMI or ANTI of "LEFT|RIGHT
// SEMI|ANTI JOIN" (prev is the word before it) and returns its join kind.
func semiWord(toks []token, i int, prev string) (string, bool) {
	t := toks[i]
	if !(t.is("SEMI") || t.is("ANTI")) || (prev != "LEFT" && prev != "RIGHT") {
		return "", false
	}
	for _, n := range toks[i+1:] {
		if n.kind == tkComment {
			continue
		}
		if !n.is("JOIN") {
			return "", false
		}
		return strings.ToLower(prev + " " + t.val + " join"), true
	}
	return "", false
}

// attachSemi gives the n-th JOIN keyword's join its semi or anti kind;
// vitess must have parsed it as the LEFT or RIGHT JOIN the blanked text
// reads as (NATURAL LEFT SEMI JOIN, for one, is not Doris syntax). The
// first misfit in the text is the syntax error.
func (hs *hintScan) attachSemi(joins []*sqlparser.JoinTableExpr) error {
	for ord := 0; ord < hs.nJoins; ord++ {
		s, ok := hs.semi[ord]
		if !ok {
			continue
		}
		if ord >= len(joins) {
			return syntaxError(hs.text, s.pos)
		}
		j := joins[ord]
		want := sqlparser.LeftJoinStr
		if strings.HasPrefix(s.join, "right") {
			want = sqlparser.RightJoinStr
		}
		if j.Join != want {
			return syntaxError(hs.text, s.pos)
		}
		j.Join = s.join
	}
	return nil
}
