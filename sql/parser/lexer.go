package parser

import "strings"

// tokKind classifies the tokens of our own small lexer. vitess has its own
// tokenizer, but it is not exported in a form that keeps byte offsets for
// comments and quotes, which statement splitting, hint extraction and the
// Doris DDL parser all need.
type tokKind uint8

const (
	tkEOF         tokKind = iota
	tkIdent               // unquoted word, keywords included
	tkQuotedIdent         // `name`
	tkString              // 'x' or "x"
	tkNumber              // 12, 1.5, 1e3, 0x1F
	tkPunct               // operators and punctuation
	tkComment             // -- x, # x, /* x */ (val is the raw text)
)

// token is one lexeme: [pos, end) in the source, val its value (strings and
// quoted identifiers unescaped, comments raw, everything else as written).
type token struct {
	kind     tokKind
	pos, end int
	val      string
	// unterminated marks a string, quoted identifier or block comment that
	// ran to the end of the input.
	unterminated bool
}

// is reports an unquoted keyword, case-insensitively.
func (t token) is(kw string) bool { return t.kind == tkIdent && strings.EqualFold(t.val, kw) }

// isP reports a punctuation token.
func (t token) isP(p string) bool { return t.kind == tkPunct && t.val == p }

// upper is the upper-cased value of an unquoted word ("" otherwise).
func (t token) upper() string {
	if t.kind != tkIdent {
		return ""
	}
	return strings.ToUpper(t.val)
}

// isHint reports a /*+ ... */ optimizer-hint comment.
func (t token) isHint() bool { return t.kind == tkComment && strings.HasPrefix(t.val, "/*+") }

// isExecutable reports a /*! ... */ MySQL conditional comment, which MySQL
// (and vitess) executes as SQL, so it makes a statement non-empty.
func (t token) isExecutable() bool { return t.kind == tkComment && strings.HasPrefix(t.val, "/*!") }

var multiPunct = []string{"<=>", "->>", "<=", ">=", "<>", "!=", ":=", "||", "&&", "<<", ">>", "->", "@@"}

// lex splits s into tokens, comments included, ending with a tkEOF token.
// It never fails: unterminated literals run to the end and are flagged.
func lex(s string) []token {
	var toks []token
	i := 0
	for i < len(s) {
		c := s[i]
		start := i
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '#' || (c == '-' && i+1 < len(s) && s[i+1] == '-' && (i+2 == len(s) || s[i+2] <= ' ')):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			toks = append(toks, token{kind: tkComment, pos: start, end: i, val: s[start:i]})
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			j := strings.Index(s[i+2:], "*/")
			t := token{kind: tkComment, pos: start}
			if j < 0 {
				i = len(s)
				t.unterminated = true
			} else {
				i += 2 + j + 2
			}
			t.end, t.val = i, s[start:i]
			toks = append(toks, t)
		case c == '\'' || c == '"' || c == '`':
			val, n, ok := scanQuoted(s[i:], c)
			i += n
			kind := tkString
			if c == '`' {
				kind = tkQuotedIdent
			}
			toks = append(toks, token{kind: kind, pos: start, end: i, val: val, unterminated: !ok})
		case isDigit(c) || (c == '.' && i+1 < len(s) && isDigit(s[i+1])):
			i = scanNumber(s, i)
			if i < len(s) && isIdentByte(s[i]) && !isDigit(s[i]) {
				// MySQL allows identifiers that start with digits (1abc).
				for i < len(s) && isIdentByte(s[i]) {
					i++
				}
				toks = append(toks, token{kind: tkIdent, pos: start, end: i, val: s[start:i]})
				continue
			}
			toks = append(toks, token{kind: tkNumber, pos: start, end: i, val: s[start:i]})
		case isIdentByte(c):
			for i < len(s) && isIdentByte(s[i]) {
				i++
			}
			toks = append(toks, token{kind: tkIdent, pos: start, end: i, val: s[start:i]})
		default:
			n := 1
			for _, p := range multiPunct {
				if strings.HasPrefix(s[i:], p) {
					n = len(p)
					break
				}
			}
			i += n
			toks = append(toks, token{kind: tkPunct, pos: start, end: i, val: s[start:i]})
		}
	}
	return append(toks, token{kind: tkEOF, pos: len(s), end: len(s)})
}

// scanQuoted reads a quoted literal starting at s[0] == q. Backslash escapes
// apply to strings (MySQL's default sql_mode); a doubled quote is a quote.
func scanQuoted(s string, q byte) (val string, n int, ok bool) {
	var b strings.Builder
	i := 1
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\\' && q != '`' && i+1 < len(s):
			b.WriteByte(unescape(s[i+1]))
			i += 2
		case c == q && i+1 < len(s) && s[i+1] == q:
			b.WriteByte(q)
			i += 2
		case c == q:
			return b.String(), i + 1, true
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), len(s), false
}

func unescape(c byte) byte {
	switch c {
	case 'n':
		return '\n'
	case 't':
		return '\t'
	case 'r':
		return '\r'
	case '0':
		return 0
	case 'b':
		return '\b'
	case 'Z':
		return 26
	}
	return c
}

func scanNumber(s string, i int) int {
	if s[i] == '0' && i+1 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X' || s[i+1] == 'b' || s[i+1] == 'B') {
		i += 2
		for i < len(s) && isHexDigit(s[i]) {
			i++
		}
		return i
	}
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && isDigit(s[j]) {
			i = j
			for i < len(s) && isDigit(s[i]) {
				i++
			}
		}
	}
	return i
}

func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isHexDigit(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f') }
func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z') || c >= 0x80
}

// significant drops comments except executable /*! */ ones.
func significant(toks []token) []token {
	out := make([]token, 0, len(toks))
	for _, t := range toks {
		if t.kind != tkComment {
			out = append(out, t)
		}
	}
	return out
}

// Split returns the statement texts Parse would parse: s cut at each ';'
// outside strings, quoted identifiers and comments, trimmed, with empty
// (blank or comment-only) statements dropped.
func Split(s string) []string {
	var out []string
	start, nonEmpty := 0, false
	for _, t := range lex(s) {
		switch {
		case t.kind == tkEOF || t.isP(";"):
			if nonEmpty {
				out = append(out, strings.TrimSpace(s[start:t.pos]))
			}
			start, nonEmpty = t.end, false
		case t.kind != tkComment || t.isExecutable():
			nonEmpty = true
		}
	}
	return out
}
