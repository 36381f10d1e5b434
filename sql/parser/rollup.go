package parser

import "slices"

// vitess rejects MySQL's "GROUP BY a, b WITH ROLLUP" but accepts the
// equivalent "GROUP BY ROLLUP(a, b)", so the text is rewritten. The
// rewrite inserts "ROLLUP(" before the first grouping expression and
// overwrites "WITH ROLLUP" with ")" and spaces; insertions records where,
// so error offsets can be mapped back to the user's text.

const rollupOpen = "ROLLUP("

// rewriteRollup returns s with every GROUP BY ... WITH ROLLUP rewritten and
// the offsets (in s) where rollupOpen was inserted, ascending.
func rewriteRollup(s string) (string, []int) {
	toks := significant(lex(s))
	var at []int
	b := []byte(s)
	for i := 0; i+1 < len(toks); i++ {
		if !toks[i].is("WITH") || !toks[i+1].is("ROLLUP") {
			continue
		}
		// Find this level's GROUP BY: walk back skipping parenthesised groups.
		depth := 0
		for j := i - 1; j > 0; j-- {
			t := toks[j]
			if t.isP(")") {
				depth++
			} else if t.isP("(") {
				depth--
				if depth < 0 {
					break
				}
			} else if depth == 0 && t.is("BY") && toks[j-1].is("GROUP") {
				if j+1 == i {
					break
				}
				at = append(at, toks[j+1].pos)
				for k := toks[i].pos; k < toks[i+1].end; k++ {
					b[k] = ' '
				}
				b[toks[i].pos] = ')'
				break
			}
		}
	}
	if len(at) == 0 {
		return s, nil
	}
	out := make([]byte, 0, len(b)+len(at)*len(rollupOpen))
	prev := 0
	slices.Sort(at) // an inner query's WITH ROLLUP may come first
	for _, p := range at {
		out = append(out, b[prev:p]...)
		out = append(out, rollupOpen...)
		prev = p
	}
	out = append(out, b[prev:]...)
	return string(out), at
}

// mapBack converts an offset in the rewritten text to one in the original.
func mapBack(pos int, at []int) int {
	shift := 0
	for _, p := range at {
		ins := p + shift
		if pos < ins {
			break
		}
		if pos < ins+len(rollupOpen) {
			return p
		}
		shift += len(rollupOpen)
	}
	return pos - shift
}
