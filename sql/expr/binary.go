package expr

import (
	"encoding/binary"
	"math"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// The binary form of an expression, for the plan fragments the FE sends
// to the backends (execution/rpc/plancodec.go says why binary): its nodes
// in post-order, each a tag byte and its fields as varints and
// length-prefixed strings, a node's children being the nodes decoded just
// before it. The decoder keeps a stack instead of recursing, so there is
// no depth limit (a chain of thousands of operators, a CASE of thousands
// of arms); values travel as they are held (decimals as their 128 bits,
// floats as their bits, ±Inf and NaN included), so round trips are exact
// without Datum.Prepare's text.
const (
	binNil byte = iota // a nil child (a CASE without operand or ELSE)
	binCol
	binConst
	binParam
	binCall
	binCast
	binCase
)

// Datum flag bits: which value fields follow.
const (
	datNull byte = 1 << iota
	datI
	datF
	datS
	datDec
	datDecS // serialization mirrors, kept for an exact round trip
	datFS
)

// AppendBinary appends e's binary form to b.
func AppendBinary(b []byte, e Expr) ([]byte, error) {
	switch x := e.(type) {
	case nil:
		return append(b, binNil), nil
	case *ColRef:
		b = append(b, binCol)
		b = binary.AppendVarint(b, int64(x.Index))
		b = appendStr(appendStr(b, x.Table), x.Name)
		return appendBool(appendType(b, x.T), x.Null), nil
	case *Const:
		return AppendDatum(append(b, binConst), &x.Val), nil
	case *Param:
		b = binary.AppendVarint(append(b, binParam), int64(x.Index))
		return appendType(b, x.T), nil
	case *Call:
		var err error
		for _, a := range x.Args {
			if b, err = AppendBinary(b, a); err != nil {
				return nil, err
			}
		}
		b = appendStr(append(b, binCall), x.Fn)
		b = appendBool(appendType(b, x.T), x.Null)
		n := uint64(len(x.Args)) + 1 // 0: nil Args, told apart from none
		if x.Args == nil {
			n = 0
		}
		return binary.AppendUvarint(b, n), nil
	case *Cast:
		b, err := AppendBinary(b, x.Arg)
		if err != nil {
			return nil, err
		}
		return appendBool(appendType(append(b, binCast), x.To), x.Explicit), nil
	case *Case:
		b, err := AppendBinary(b, x.Operand)
		if err != nil {
			return nil, err
		}
		if b, err = AppendBinary(b, x.Else); err != nil {
			return nil, err
		}
		for _, w := range x.Whens {
			if b, err = AppendBinary(b, w.Cond); err != nil {
				return nil, err
			}
			if b, err = AppendBinary(b, w.Then); err != nil {
				return nil, err
			}
		}
		b = appendType(append(b, binCase), x.T)
		return binary.AppendUvarint(b, uint64(len(x.Whens))), nil
	}
	return nil, sqlerr.Assertf("expr: cannot encode %T", e)
}

// DecodeBinary decodes an expression written by AppendBinary; b holds
// exactly one expression.
func DecodeBinary(b []byte) (Expr, error) {
	r := binReader{b: b}
	var stack []Expr
	pop := func(n int) ([]Expr, bool) {
		if n < 0 || n > len(stack) {
			return nil, false
		}
		out := stack[len(stack)-n:]
		stack = stack[:len(stack)-n]
		return out, true
	}
	for len(r.b) > 0 && r.err == nil {
		tag := r.byte()
		var e Expr
		switch tag {
		case binNil:
		case binCol:
			c := &ColRef{Index: int(r.varint())}
			c.Table, c.Name = r.str(), r.str()
			c.T, c.Null = r.typ(), r.bool()
			e = c
		case binConst:
			e = &Const{Val: r.datum()}
		case binParam:
			e = &Param{Index: int(r.varint()), T: r.typ()}
		case binCall:
			c := &Call{Fn: r.str(), T: r.typ(), Null: r.bool()}
			n := r.count() - 1
			args, ok := pop(max(n, 0))
			if !ok {
				return nil, sqlerr.Assertf("expr: decode: call %s lacks arguments", c.Fn)
			}
			if n >= 0 {
				c.Args = append(make([]Expr, 0, n), args...)
			}
			e = c
		case binCast:
			c := &Cast{To: r.typ(), Explicit: r.bool()}
			arg, ok := pop(1)
			if !ok {
				return nil, sqlerr.Assertf("expr: decode: cast lacks its argument")
			}
			c.Arg = arg[0]
			e = c
		case binCase:
			c := &Case{T: r.typ()}
			n := r.count()
			kids, ok := pop(2 + 2*n)
			if !ok {
				return nil, sqlerr.Assertf("expr: decode: CASE lacks its arms")
			}
			c.Operand, c.Else = kids[0], kids[1]
			if n > 0 {
				c.Whens = make([]When, n)
				for i := range c.Whens {
					c.Whens[i] = When{Cond: kids[2+2*i], Then: kids[3+2*i]}
				}
			}
			e = c
		default:
			return nil, sqlerr.Assertf("expr: decode: unknown node tag %d", tag)
		}
		stack = append(stack, e)
	}
	if r.err != nil {
		return nil, r.err
	}
	if len(stack) != 1 {
		return nil, sqlerr.Assertf("expr: decode: %d expressions, want one", len(stack))
	}
	return stack[0], nil
}

func appendStr(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendType(b []byte, t types.T) []byte {
	b = append(b, byte(t.Kind))
	b = binary.AppendVarint(b, int64(t.Precision))
	b = binary.AppendVarint(b, int64(t.Scale))
	b = binary.AppendVarint(b, int64(t.Length))
	return appendStr(b, t.Sub)
}

// AppendDatum appends a value's binary form to b (every field exact).
func AppendDatum(b []byte, d *types.Datum) []byte {
	b = appendType(b, d.T)
	var f byte
	if d.Null {
		f |= datNull
	}
	if d.I != 0 {
		f |= datI
	}
	if math.Float64bits(d.F) != 0 { // -0 and NaN included
		f |= datF
	}
	if d.S != "" {
		f |= datS
	}
	if d.Dec != (decimal128.Num{}) {
		f |= datDec
	}
	if d.DecS != "" {
		f |= datDecS
	}
	if d.FS != "" {
		f |= datFS
	}
	b = append(b, f)
	if f&datI != 0 {
		b = binary.AppendVarint(b, d.I)
	}
	if f&datF != 0 {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(d.F))
	}
	if f&datS != 0 {
		b = appendStr(b, d.S)
	}
	if f&datDec != 0 {
		b = binary.AppendVarint(b, d.Dec.HighBits())
		b = binary.AppendUvarint(b, d.Dec.LowBits())
	}
	if f&datDecS != 0 {
		b = appendStr(b, d.DecS)
	}
	if f&datFS != 0 {
		b = appendStr(b, d.FS)
	}
	return b
}

// DecodeDatum decodes a value written by AppendDatum; b holds exactly one.
func DecodeDatum(b []byte) (types.Datum, error) {
	r := binReader{b: b}
	d := r.datum()
	if r.err == nil && len(r.b) > 0 {
		r.err = sqlerr.Assertf("expr: decode: %d bytes after a value", len(r.b))
	}
	return d, r.err
}

// binReader reads AppendBinary's fields; the first malformed one sets err
// and every later read returns zero.
type binReader struct {
	b   []byte
	err error
}

func (r *binReader) fail() {
	if r.err == nil {
		r.err = sqlerr.Assertf("expr: decode: truncated expression")
	}
	r.b = nil
}

func (r *binReader) byte() byte {
	if len(r.b) == 0 {
		r.fail()
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *binReader) bool() bool { return r.byte() != 0 }

func (r *binReader) varint() int64 {
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *binReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

// count is a child count (the stack bounds it; this keeps it an int).
func (r *binReader) count() int {
	v := r.uvarint()
	if v > math.MaxInt32 {
		r.fail()
		return 0
	}
	return int(v)
}

func (r *binReader) str() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.fail()
		return ""
	}
	s := string(r.b[:n])
	r.b = r.b[n:]
	return s
}

func (r *binReader) typ() types.T {
	return types.T{Kind: types.Kind(r.byte()), Precision: int(r.varint()), Scale: int(r.varint()),
		Length: int(r.varint()), Sub: r.str()}
}

func (r *binReader) datum() types.Datum {
	d := types.Datum{T: r.typ()}
	f := r.byte()
	d.Null = f&datNull != 0
	if f&datI != 0 {
		d.I = r.varint()
	}
	if f&datF != 0 {
		if len(r.b) < 8 {
			r.fail()
			return d
		}
		d.F = math.Float64frombits(binary.LittleEndian.Uint64(r.b))
		r.b = r.b[8:]
	}
	if f&datS != 0 {
		d.S = r.str()
	}
	if f&datDec != 0 {
		hi := r.varint()
		d.Dec = decimal128.New(hi, r.uvarint())
	}
	if f&datDecS != 0 {
		d.DecS = r.str()
	}
	if f&datFS != 0 {
		d.FS = r.str()
	}
	return d
}
