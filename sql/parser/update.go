package parser

// updateFrom rewrites Doris's UPDATE t [AS a] SET … FROM <tables> [WHERE …]
// into MySQL's multi-table form UPDATE t [AS a], <tables> SET … [WHERE …],
// which vitess parses and which means the same (the target joined with the
// FROM items, filtered by WHERE). ok is false when the statement has no
// FROM at the top level after SET.
func updateFrom(text string, sig []token) (string, bool) {
	depth, set, from, end := 0, -1, -1, len(text)
	for i := 1; i < len(sig) && sig[i].kind != tkEOF; i++ {
		t := sig[i]
		switch {
		case t.isP("("):
			depth++
		case t.isP(")"):
			depth--
		case depth != 0:
		case set < 0 && t.is("SET"):
			set = i
		case set >= 0 && from < 0 && t.is("FROM"):
			from = i
		case from >= 0 && (t.is("WHERE") || t.is("ORDER") || t.is("LIMIT")):
			end = t.pos
			i = len(sig)
		}
	}
	if set < 0 || from < 0 {
		return "", false
	}
	s, f := sig[set].pos, sig[from]
	return text[:s] + ", " + text[f.end:end] + " " + text[s:f.pos] + text[end:], true
}
