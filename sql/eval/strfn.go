package eval

import (
	"crypto/md5"
	"encoding/hex"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dorisgo/dorisgo/sql/expr"
)

// String functions work on UTF-8 characters where MySQL does (positions,
// lengths in CHAR_LENGTH, SUBSTRING, LEFT, ...) and on bytes for LENGTH.

var stringKernels = map[string]kernel{
	"concat": strKernel(func(r *strRow) (string, bool) {
		var b strings.Builder
		for k := range r.n {
			b.WriteString(r.s(k))
		}
		return b.String(), true
	}),
	"concat_ws": concatWsKernel,
	"lower":     strKernel(func(r *strRow) (string, bool) { return strings.ToLower(r.s(0)), true }),
	"upper":     strKernel(func(r *strRow) (string, bool) { return strings.ToUpper(r.s(0)), true }),
	"reverse": strKernel(func(r *strRow) (string, bool) {
		rs := []rune(r.s(0))
		for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
			rs[i], rs[j] = rs[j], rs[i]
		}
		return string(rs), true
	}),
	"substring": strKernel(func(r *strRow) (string, bool) {
		s := r.s(0)
		pos := r.i(1)
		n := utf8.RuneCountInString(s)
		ln := int64(n)
		if r.n == 3 {
			ln = r.i(2)
		}
		if pos == 0 || ln <= 0 {
			return "", true
		}
		if pos < 0 {
			pos += int64(n) + 1
			if pos < 1 {
				return "", true
			}
		}
		return runeSlice(s, pos-1, ln), true
	}),
	"left": strKernel(func(r *strRow) (string, bool) { return runeSlice(r.s(0), 0, r.i(1)), true }),
	"right": strKernel(func(r *strRow) (string, bool) {
		s := r.s(0)
		n, k := int64(utf8.RuneCountInString(s)), r.i(1)
		if k <= 0 {
			return "", true
		}
		if k > n {
			k = n
		}
		return runeSlice(s, n-k, k), true
	}),
	"trim": strKernel(func(r *strRow) (string, bool) {
		if r.n == 2 {
			return trimAll(trimAllRight(r.s(0), r.s(1)), r.s(1)), true
		}
		return strings.Trim(r.s(0), " "), true
	}),
	"ltrim": strKernel(func(r *strRow) (string, bool) {
		if r.n == 2 {
			return trimAll(r.s(0), r.s(1)), true
		}
		return strings.TrimLeft(r.s(0), " "), true
	}),
	"rtrim": strKernel(func(r *strRow) (string, bool) {
		if r.n == 2 {
			return trimAllRight(r.s(0), r.s(1)), true
		}
		return strings.TrimRight(r.s(0), " "), true
	}),
	"replace": strKernel(func(r *strRow) (string, bool) {
		if r.s(1) == "" {
			return r.s(0), true
		}
		return strings.ReplaceAll(r.s(0), r.s(1), r.s(2)), true
	}),
	"lpad": strKernel(func(r *strRow) (string, bool) { return pad(r.s(0), r.i(1), r.s(2), true) }),
	"rpad": strKernel(func(r *strRow) (string, bool) { return pad(r.s(0), r.i(1), r.s(2), false) }),
	"repeat": strKernel(func(r *strRow) (string, bool) {
		k := r.i(1)
		if k <= 0 {
			return "", true
		}
		if int64(len(r.s(0)))*k > 1<<24 {
			return "", false
		}
		return strings.Repeat(r.s(0), int(k)), true
	}),
	"space": strKernel(func(r *strRow) (string, bool) {
		k := r.i(0)
		if k <= 0 {
			return "", true
		}
		if k > 1<<24 {
			return "", false
		}
		return strings.Repeat(" ", int(k)), true
	}),
	"md5": strKernel(func(r *strRow) (string, bool) {
		h := md5.Sum([]byte(r.s(0)))
		return hex.EncodeToString(h[:]), true
	}),
	"length":      intKernel(func(r *strRow) (int64, bool) { return int64(len(r.s(0))), true }),
	"char_length": intKernel(func(r *strRow) (int64, bool) { return int64(utf8.RuneCountInString(r.s(0))), true }),
	"ascii": intKernel(func(r *strRow) (int64, bool) {
		if s := r.s(0); s != "" {
			return int64(s[0]), true
		}
		return 0, true
	}),
	"strcmp": intKernel(func(r *strRow) (int64, bool) { return int64(strings.Compare(r.s(0), r.s(1))), true }),
	"instr":  intKernel(func(r *strRow) (int64, bool) { return locate(r.s(1), r.s(0), 1), true }),
	"locate": intKernel(func(r *strRow) (int64, bool) {
		pos := int64(1)
		if r.n == 3 {
			pos = r.i(2)
		}
		return locate(r.s(0), r.s(1), pos), true
	}),
}

// strRow gives a row function typed access to its arguments.
type strRow struct {
	args []vec
	ss   []*array.String
	is   [][]int64
	row  int
	n    int
}

func newStrRow(args []vec) *strRow {
	r := &strRow{args: args, n: len(args), ss: make([]*array.String, len(args)), is: make([][]int64, len(args))}
	for k, a := range args {
		switch x := a.arr.(type) {
		case *array.String:
			r.ss[k] = x
		case *array.Int64:
			r.is[k] = x.Int64Values()
		}
	}
	return r
}

func (r *strRow) s(k int) string { return r.ss[k].Value(r.args[k].idx(r.row)) }
func (r *strRow) i(k int) int64  { return r.is[k][r.args[k].idx(r.row)] }

func (r *strRow) null(i int) bool {
	for _, a := range r.args {
		if a.isNull(i) {
			return true
		}
	}
	return false
}

// strKernel lifts a row function returning a string (ok=false: NULL).
func strKernel(f func(r *strRow) (string, bool)) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		b := array.NewStringBuilder(ev.mem)
		defer b.Release()
		b.Reserve(m)
		r := newStrRow(args)
		for i := 0; i < m; i++ {
			r.row = i
			if r.null(i) {
				b.AppendNull()
				continue
			}
			s, ok := f(r)
			if !ok {
				b.AppendNull()
				continue
			}
			b.Append(s)
		}
		return builderVec(b, args), nil
	}
}

// intKernel lifts a row function returning BIGINT.
func intKernel(f func(r *strRow) (int64, bool)) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		b := array.NewInt64Builder(ev.mem)
		defer b.Release()
		b.Reserve(m)
		r := newStrRow(args)
		for i := 0; i < m; i++ {
			r.row = i
			if r.null(i) {
				b.AppendNull()
				continue
			}
			v, ok := f(r)
			if !ok {
				b.AppendNull()
				continue
			}
			b.Append(v)
		}
		return builderVec(b, args), nil
	}
}

// concat_ws skips NULL arguments; only a NULL separator makes it NULL.
func concatWsKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	b := array.NewStringBuilder(ev.mem)
	defer b.Release()
	r := newStrRow(args)
	var sb strings.Builder
	for i := 0; i < m; i++ {
		r.row = i
		if args[0].isNull(i) {
			b.AppendNull()
			continue
		}
		sep := r.s(0)
		sb.Reset()
		first := true
		for k := 1; k < len(args); k++ {
			if args[k].isNull(i) {
				continue
			}
			if !first {
				sb.WriteString(sep)
			}
			first = false
			sb.WriteString(r.s(k))
		}
		b.Append(sb.String())
	}
	return builderVec(b, args), nil
}

// runeSlice returns up to n characters of s starting at character start.
func runeSlice(s string, start, n int64) string {
	if n <= 0 || start < 0 {
		return ""
	}
	i, c := 0, int64(0)
	for c < start && i < len(s) {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
		c++
	}
	j := i
	for c = 0; c < n && j < len(s); c++ {
		_, w := utf8.DecodeRuneInString(s[j:])
		j += w
	}
	return s[i:j]
}

func trimAll(s, cut string) string {
	if cut == "" {
		return s
	}
	for strings.HasPrefix(s, cut) {
		s = s[len(cut):]
	}
	return s
}

func trimAllRight(s, cut string) string {
	if cut == "" {
		return s
	}
	for strings.HasSuffix(s, cut) {
		s = s[:len(s)-len(cut)]
	}
	return s
}

// pad implements LPAD/RPAD: the result is exactly n characters (NULL for
// a negative n, as MySQL and Doris).
func pad(s string, n int64, p string, left bool) (string, bool) {
	if n < 0 || n > 1<<24 {
		return "", false
	}
	l := int64(utf8.RuneCountInString(s))
	if n <= l {
		return runeSlice(s, 0, n), true
	}
	if p == "" {
		return "", true // Doris: an empty pad gives the empty string
	}
	need := n - l
	pr := []rune(p)
	fill := make([]rune, 0, need)
	for int64(len(fill)) < need {
		fill = append(fill, pr[len(fill)%len(pr)])
	}
	if left {
		return string(fill) + s, true
	}
	return s + string(fill), true
}

// locate is the 1-based character position of sub in s at or after
// character pos, 0 when absent.
func locate(sub, s string, pos int64) int64 {
	if pos < 1 {
		return 0
	}
	n := int64(utf8.RuneCountInString(s))
	if pos > n+1 {
		return 0
	}
	rest := runeSlice(s, pos-1, n)
	if sub == "" {
		return pos
	}
	j := strings.Index(rest, sub)
	if j < 0 {
		return 0
	}
	return pos + int64(utf8.RuneCountInString(rest[:j]))
}
