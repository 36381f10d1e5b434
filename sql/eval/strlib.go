package eval

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"hash/crc32"
	"math/big"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"

	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Doris string functions beyond MySQL's core (strfn.go): regular
// expressions (RE2, as Doris), split_part, hashes and encodings.

var strLibKernels = map[string]kernel{
	"regexp_extract": reKernel(1, func(re *regexp.Regexp, r *strRow) (string, bool) {
		m := re.FindStringSubmatchIndex(r.s(0))
		g := r.i(2)
		if g < 0 || int(g) > re.NumSubexp() {
			return "", false
		}
		if m == nil || m[2*g] < 0 {
			return "", true // Doris: no match is the empty string
		}
		return r.s(0)[m[2*g]:m[2*g+1]], true
	}),
	"regexp_extract_all": reKernel(1, func(re *regexp.Regexp, r *strRow) (string, bool) {
		if re.NumSubexp() == 0 {
			return "[]", true
		}
		var b strings.Builder
		b.WriteByte('[')
		for k, m := range re.FindAllStringSubmatch(r.s(0), -1) {
			if k > 0 {
				b.WriteByte(',')
			}
			b.WriteString("'" + m[1] + "'")
		}
		b.WriteByte(']')
		return b.String(), true
	}),
	"regexp_replace": reKernel(1, func(re *regexp.Regexp, r *strRow) (string, bool) {
		return re.ReplaceAllString(r.s(0), re2Template(r.s(2))), true
	}),
	"regexp_replace_one": reKernel(1, func(re *regexp.Regexp, r *strRow) (string, bool) {
		s := r.s(0)
		m := re.FindStringSubmatchIndex(s)
		if m == nil {
			return s, true
		}
		out := re.ExpandString(nil, re2Template(r.s(2)), s, m)
		return s[:m[0]] + string(out) + s[m[1]:], true
	}),
	"split_part": strKernel(func(r *strRow) (string, bool) {
		s, sep, n := r.s(0), r.s(1), r.i(2)
		if sep == "" || n == 0 {
			return "", false
		}
		parts := strings.Split(s, sep)
		if n < 0 {
			n += int64(len(parts)) + 1
		}
		if n < 1 || n > int64(len(parts)) {
			return "", false
		}
		return parts[n-1], true
	}),
	"substring_index": strKernel(func(r *strRow) (string, bool) {
		s, d, n := r.s(0), r.s(1), r.i(2)
		if d == "" || n == 0 {
			return "", true
		}
		if n > 0 {
			i := 0
			for k := int64(0); k < n; k++ {
				j := strings.Index(s[i:], d)
				if j < 0 {
					return s, true
				}
				i += j + len(d)
			}
			return s[:i-len(d)], true
		}
		j := len(s)
		for k := int64(0); k < -n; k++ {
			i := strings.LastIndex(s[:j], d)
			if i < 0 {
				return s, true
			}
			j = i
		}
		return s[j+len(d):], true
	}),
	"starts_with": boolKernel(func(r *strRow) bool { return strings.HasPrefix(r.s(0), r.s(1)) }),
	"ends_with":   boolKernel(func(r *strRow) bool { return strings.HasSuffix(r.s(0), r.s(1)) }),
	"null_or_empty": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		return emptyTest(ev, args, true), nil
	},
	"not_null_or_empty": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		return emptyTest(ev, args, false), nil
	},
	"hex": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		if _, ok := args[0].arr.(*array.Int64); ok {
			return strKernel(func(r *strRow) (string, bool) {
				return strings.ToUpper(strconv.FormatUint(uint64(r.i(0)), 16)), true
			})(ev, c, args)
		}
		return strKernel(func(r *strRow) (string, bool) { return strings.ToUpper(hex.EncodeToString([]byte(r.s(0)))), true })(ev, c, args)
	},
	"unhex": strKernel(func(r *strRow) (string, bool) {
		s := r.s(0)
		if len(s)%2 == 1 {
			return "", true
		}
		b, err := hex.DecodeString(s)
		if err != nil {
			return "", true // Doris: invalid hex gives the empty string
		}
		return string(b), true
	}),
	"to_base64": strKernel(func(r *strRow) (string, bool) { return base64.StdEncoding.EncodeToString([]byte(r.s(0))), true }),
	"from_base64": strKernel(func(r *strRow) (string, bool) {
		b, err := base64.StdEncoding.DecodeString(r.s(0))
		return string(b), err == nil
	}),
	"sha1": strKernel(func(r *strRow) (string, bool) {
		h := sha1.Sum([]byte(r.s(0)))
		return hex.EncodeToString(h[:]), true
	}),
	"sha2": strKernel(func(r *strRow) (string, bool) {
		b := []byte(r.s(0))
		switch r.i(1) {
		case 224:
			h := sha256.Sum224(b)
			return hex.EncodeToString(h[:]), true
		case 256, 0:
			h := sha256.Sum256(b)
			return hex.EncodeToString(h[:]), true
		case 384:
			h := sha512.Sum384(b)
			return hex.EncodeToString(h[:]), true
		case 512:
			h := sha512.Sum512(b)
			return hex.EncodeToString(h[:]), true
		}
		return "", false
	}),
	"bit_length": intKernel(func(r *strRow) (int64, bool) { return int64(len(r.s(0))) * 8, true }),
	// Doris: a trailing "character" of other than one byte gives NULL; an
	// empty string gets the character.
	"append_trailing_char_if_absent": strKernel(func(r *strRow) (string, bool) {
		s, c := r.s(0), r.s(1)
		if len(c) != 1 {
			return "", false
		}
		if s == "" || s[len(s)-1] != c[0] {
			return s + c, true
		}
		return s, true
	}),
	"money_format": strKernel(func(r *strRow) (string, bool) { return moneyFormat(r.s(0)) }),
	"crc32":        intKernel(func(r *strRow) (int64, bool) { return int64(crc32.ChecksumIEEE([]byte(r.s(0)))), true }),
	"find_in_set": intKernel(func(r *strRow) (int64, bool) {
		s, list := r.s(0), r.s(1)
		if strings.Contains(s, ",") {
			return 0, true
		}
		for k, e := range strings.Split(list, ",") {
			if e == s {
				return int64(k + 1), true
			}
		}
		return 0, true
	}),
	"elt": eltKernel,
	"field": func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		buf, out := fixedBuf[int64](ev.mem, m)
		for i := 0; i < m; i++ {
			if args[0].isNull(i) {
				continue
			}
			d := types.DatumAt(args[0].arr, args[0].idx(i), c.Args[0].Type())
			for k := 1; k < len(args); k++ {
				if args[k].isNull(i) {
					continue
				}
				e := types.DatumAt(args[k].arr, args[k].idx(i), c.Args[k].Type())
				if types.Compare(d, e) == 0 {
					out[i] = int64(k)
					break
				}
			}
		}
		return ev.fixedVec(types.BigIntT, m, nil, buf, args), nil
	},
	"char": strKernel(func(r *strRow) (string, bool) {
		var b []byte
		for k := 0; k < r.n; k++ {
			v := uint32(r.i(k))
			var tmp []byte
			for v > 0 {
				tmp = append([]byte{byte(v)}, tmp...)
				v >>= 8
			}
			b = append(b, tmp...)
		}
		if !utf8.Valid(b) {
			return "", false // Doris: CHAR(... USING utf8) of invalid bytes is NULL
		}
		return string(b), true
	}),
}

// eltKernel: ELT(n, s1, s2, ...) is sn, NULL when n is out of range.
func eltKernel(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
	m := ev.rows(args)
	b := array.NewStringBuilder(ev.mem)
	defer b.Release()
	r := newStrRow(args)
	for i := 0; i < m; i++ {
		r.row = i
		if args[0].isNull(i) {
			b.AppendNull()
			continue
		}
		n := r.i(0)
		if n < 1 || n >= int64(len(args)) || args[n].isNull(i) {
			b.AppendNull()
			continue
		}
		b.Append(r.s(int(n)))
	}
	return builderVec(b, args), nil
}

// emptyTest: null_or_empty / not_null_or_empty never return NULL.
func emptyTest(ev *evaluator, args []vec, want bool) vec {
	m := ev.rows(args)
	buf, out := boolBuf(ev.mem, m)
	ss, _ := args[0].arr.(*array.String)
	for i := 0; i < m; i++ {
		empty := args[0].isNull(i) || ss == nil || ss.Value(args[0].idx(i)) == ""
		if empty == want {
			bitutil.SetBit(out, i)
		}
	}
	return ev.fixedVec(types.BoolT, m, nil, buf, args)
}

// boolKernel lifts a row predicate over strings.
func boolKernel(f func(r *strRow) bool) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		m := ev.rows(args)
		buf, out := boolBuf(ev.mem, m)
		valid := ev.validity(m, args...)
		var vb []byte
		if valid != nil {
			vb = valid.Bytes()
		}
		r := newStrRow(args)
		for i := 0; i < m; i++ {
			r.row = i
			if validAt(vb, i) && f(r) {
				bitutil.SetBit(out, i)
			}
		}
		return ev.fixedVec(types.BoolT, m, valid, buf, args), nil
	}
}

// reKernel compiles argument pat once when it is a constant (per row
// otherwise, with a one-entry cache); an invalid pattern gives NULL, as
// Doris does for patterns RE2 refuses.
func reKernel(pat int, f func(re *regexp.Regexp, r *strRow) (string, bool)) kernel {
	return func(ev *evaluator, c *expr.Call, args []vec) (vec, error) {
		var last string
		var re *regexp.Regexp
		var bad bool
		return strKernel(func(r *strRow) (string, bool) {
			p := r.s(pat)
			if re == nil && !bad || p != last {
				last = p
				var err error
				re, err = regexp.Compile(p)
				bad = err != nil
			}
			if bad {
				return "", false
			}
			return f(re, r)
		})(ev, c, args)
	}
}

// re2Template turns an RE2 rewrite string (\1 backreferences, as Doris
// takes) into Go's Expand template ($ is literal).
func re2Template(s string) string {
	if !strings.ContainsAny(s, `\$`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '$':
			b.WriteString("$$")
		case s[i] == '\\' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			b.WriteString("${" + string(s[i+1]) + "}")
			i++
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '\\':
			b.WriteByte('\\')
			i++
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// moneyFormat renders a number with two decimals, rounded half away from
// zero, and a comma between each group of three integer digits (Doris's
// money_format: 1123.456 is 1,123.46).
func moneyFormat(s string) (string, bool) {
	var q big.Rat
	if _, ok := q.SetString(strings.TrimSpace(s)); !ok {
		return "", false
	}
	neg := q.Sign() < 0
	q.Abs(&q)
	q.Mul(&q, big.NewRat(100, 1))
	n, rem := new(big.Int).QuoRem(q.Num(), q.Denom(), new(big.Int))
	if new(big.Int).Mul(rem, big.NewInt(2)).Cmp(q.Denom()) >= 0 {
		n.Add(n, big.NewInt(1))
	}
	d := n.String()
	for len(d) < 3 {
		d = "0" + d
	}
	ip, fp := d[:len(d)-2], d[len(d)-2:]
	var b strings.Builder
	if neg && n.Sign() != 0 {
		b.WriteByte('-')
	}
	for k, ch := range ip {
		if k > 0 && (len(ip)-k)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String() + "." + fp, true
}
