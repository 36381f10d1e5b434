package expr

import (
	"context"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow/decimal128"

	"github.com/dorisgo/dorisgo/sql/types"
)

// Expr is a bound scalar expression. The set of node types is closed.
type Expr interface {
	Type() types.T
	Nullable() bool
	String() string
	Children() []Expr
	expr()
}

// Context carries per-query values that functions read at evaluation time.
type Context struct {
	// Now is the query start time; NOW() and CURRENT_DATE() read it so that
	// every row and every backend sees the same instant.
	Now time.Time
	// Params are the values of the enclosing rows of correlated
	// subqueries, by parameter number.
	Params map[int]types.Datum
	// Sets keeps the value sets of long IN lists of constants once per
	// query (nil: evaluation builds them per batch).
	Sets *InSets
	// Ctx is the query's (nil: never done): evaluation stops with its
	// error before the next function call of a batch once it is done.
	Ctx context.Context
	// Warn collects the statement's warnings (an explicit CAST that gave
	// NULL); nil drops them.
	Warn *Warnings
}

// Err is Ctx's error (nil for a nil Context or Ctx).
func (c *Context) Err() error {
	if c == nil || c.Ctx == nil {
		return nil
	}
	return c.Ctx.Err()
}

// ColRef reads column Index of the input record.
type ColRef struct {
	Index       int
	Table, Name string // for printing only
	T           types.T
	Null        bool
}

// Const is a literal value.
type Const struct{ Val types.Datum }

// Call applies a registry function (operators included) to Args.
type Call struct {
	Fn   string // registry name, lower-case
	Args []Expr
	T    types.T
	Null bool
}

// Cast converts Arg to To. An implicit conversion (the typing rules'
// casts in comparisons and arithmetic) has MySQL's lenient semantics:
// numeric prefixes of strings ('12x' is 12), saturation out of range. An
// Explicit one, the SQL CAST/CONVERT, has Doris's: a value that does not
// convert (an invalid string, a number out of the target's range) is NULL,
// with a warning.
type Cast struct {
	Arg      Expr
	To       types.T
	Explicit bool
}

// Case is CASE [Operand] WHEN ... THEN ... [ELSE ...] END.
type Case struct {
	Operand Expr // nil for a searched CASE
	Whens   []When
	Else    Expr // may be nil (ELSE NULL)
	T       types.T
}

// When is one WHEN arm.
type When struct{ Cond, Then Expr }

// Param is a prepared-statement placeholder; Bind replaces it by a Const.
type Param struct {
	Index int
	T     types.T
}

func (*ColRef) expr() {}
func (*Const) expr()  {}
func (*Call) expr()   {}
func (*Cast) expr()   {}
func (*Case) expr()   {}
func (*Param) expr()  {}

func (c *ColRef) Type() types.T    { return c.T }
func (c *ColRef) Nullable() bool   { return c.Null }
func (c *ColRef) Children() []Expr { return nil }
func (c *ColRef) String() string {
	if c.Table != "" {
		return "`" + c.Table + "`.`" + c.Name + "`"
	}
	return "`" + c.Name + "`"
}

func (c *Const) Type() types.T    { return c.Val.T }
func (c *Const) Nullable() bool   { return c.Val.Null }
func (c *Const) Children() []Expr { return nil }
func (c *Const) String() string {
	d := c.Val
	if d.Null {
		return "NULL"
	}
	switch {
	case d.T.IsString(), d.T.IsTemporal():
		return quote(d.String())
	case d.T.Kind == types.Boolean:
		if d.I != 0 {
			return "TRUE"
		}
		return "FALSE"
	}
	return d.String()
}

func quote(s string) string {
	return "'" + quoteEscaper.Replace(s) + "'"
}

// quoteEscaper escapes a string inside single quotes (built once: a
// Replacer builds its tables on first use).
var quoteEscaper = strings.NewReplacer(`\`, `\\`, `'`, `\'`)

func (c *Call) Type() types.T    { return c.T }
func (c *Call) Nullable() bool   { return c.Null }
func (c *Call) Children() []Expr { return c.Args }
func (c *Call) String() string   { return callString(c) }

func (c *Cast) Type() types.T    { return c.To }
func (c *Cast) Children() []Expr { return []Expr{c.Arg} }
func (c *Cast) String() string {
	return "CAST(" + c.Arg.String() + " AS " + c.To.String() + ")"
}

// Nullable: a cast is NULL for NULL input, and also when a string does not
// parse as a date; an explicit cast whenever it can fail (CastMayFail).
func (c *Cast) Nullable() bool {
	if c.Arg.Nullable() {
		return true
	}
	if c.Explicit {
		return CastMayFail(c.Arg.Type(), c.To)
	}
	return c.To.IsTemporal() && !c.Arg.Type().IsTemporal()
}

// CastMayFail reports whether an explicit cast from → to can turn a value
// into NULL: a string into anything but a string, a number into a narrower
// integer or decimal, a number into a date.
func CastMayFail(from, to types.T) bool {
	switch {
	case to.IsString(), from.Kind == types.Null:
		return false
	case from.IsString(), to.IsTemporal() && !from.IsTemporal():
		return true
	case to.Kind == types.Boolean, to.IsFloat():
		return false
	case to.IsTemporal():
		return false
	case to.IsInteger() && to.Kind != types.LargeInt:
		if from.Kind == types.Boolean {
			return false
		}
		if from.IsInteger() && from.Kind != types.LargeInt {
			lo, hi := intBounds(to.Kind)
			flo, fhi := intBounds(from.Kind)
			return flo < lo || fhi > hi
		}
		if from.Kind == types.Decimal {
			return from.Precision-from.Scale >= intDigits(to.Kind)
		}
		return true
	case to.Kind == types.LargeInt:
		return from.IsFloat()
	case to.Kind == types.Decimal:
		switch {
		case from.Kind == types.Boolean:
			return to.Precision-to.Scale < 1
		case from.IsInteger() && from.Kind != types.LargeInt:
			return to.Precision-to.Scale < intDigits(from.Kind)
		case from.Kind == types.Decimal:
			return to.Precision-to.Scale < from.Precision-from.Scale
		}
		return true
	}
	return true
}

// intDigits is the number of decimal digits of an integer kind's range.
func intDigits(k types.Kind) int {
	switch k {
	case types.TinyInt:
		return 3
	case types.SmallInt:
		return 5
	case types.Int:
		return 10
	}
	return 19
}

func (c *Case) Type() types.T { return c.T }
func (c *Case) Nullable() bool {
	if c.Else == nil || c.Else.Nullable() {
		return true
	}
	for _, w := range c.Whens {
		if w.Then.Nullable() {
			return true
		}
	}
	return false
}
func (c *Case) Children() []Expr {
	var out []Expr
	if c.Operand != nil {
		out = append(out, c.Operand)
	}
	for _, w := range c.Whens {
		out = append(out, w.Cond, w.Then)
	}
	if c.Else != nil {
		out = append(out, c.Else)
	}
	return out
}
func (c *Case) String() string {
	var b strings.Builder
	b.WriteString("CASE")
	if c.Operand != nil {
		b.WriteString(" " + c.Operand.String())
	}
	for _, w := range c.Whens {
		b.WriteString(" WHEN " + w.Cond.String() + " THEN " + w.Then.String())
	}
	if c.Else != nil {
		b.WriteString(" ELSE " + c.Else.String())
	}
	b.WriteString(" END")
	return b.String()
}

func (p *Param) Type() types.T    { return p.T }
func (p *Param) Nullable() bool   { return true }
func (p *Param) Children() []Expr { return nil }
func (p *Param) String() string   { return "?" + strconv.Itoa(p.Index) }

// Lit wraps a datum as a constant.
func Lit(d types.Datum) *Const { return &Const{Val: d} }

// NewCast converts e to type to. A cast to e's own type (same family, and
// same precision for decimals) is elided; a NULL literal becomes a typed NULL.
func NewCast(e Expr, to types.T) Expr {
	from := e.Type()
	if from == to {
		return e
	}
	if c, ok := e.(*Const); ok && c.Val.Null {
		return Lit(types.NullDatum(to))
	}
	if from.IsString() && to.IsString() && (to.Length == 0 || (from.Length > 0 && from.Length <= to.Length)) {
		return e
	}
	return &Cast{Arg: e, To: to}
}

// NewExplicitCast is the SQL CAST(e AS to): NewCast with Doris's semantics
// (a value that does not convert is NULL). A cast to e's own type is
// still elided.
func NewExplicitCast(e Expr, to types.T) Expr {
	x := NewCast(e, to)
	if c, ok := x.(*Cast); ok && c.Arg == e {
		return &Cast{Arg: e, To: to, Explicit: true}
	}
	return x
}

// implicitCast is NewCast for conversions the typing rules insert: string
// targets keep the source's own string type.
func implicitCast(e Expr, to types.T) Expr {
	from := e.Type()
	if c, ok := e.(*Const); ok && !c.Val.Null && isIntLike(from) {
		if d, ok := convertIntConst(c.Val.I, to); ok {
			return Lit(d)
		}
	}
	if from.SameFamily(to) && from.Kind != types.Decimal {
		return e
	}
	if from.Kind == types.DateTime && to.Kind == types.DateTime {
		return e // kernels take any DATETIME(p); only explicit casts and sinks round
	}
	if from.Kind == types.Decimal && to.Kind == types.Decimal && from.Scale == to.Scale && from.Precision <= to.Precision {
		return e // kernels read the scale from the array; wider precision is free
	}
	return NewCast(e, to)
}

// IsConst reports whether e references no column and no parameter, so it can
// be folded before execution. NOW()-style functions are constant per query.
func IsConst(e Expr) bool {
	ok := true
	Walk(e, func(x Expr) bool {
		switch x.(type) {
		case *ColRef, *Param:
			ok = false
		}
		return ok
	})
	return ok
}

// Walk visits e in pre-order; fn returning false skips the children.
func Walk(e Expr, fn func(Expr) bool) {
	if e == nil || !fn(e) {
		return
	}
	for _, c := range e.Children() {
		Walk(c, fn)
	}
}

// Rewrite rebuilds e bottom-up, applying fn to every node after its children
// have been rewritten. Nodes are never mutated: changed parents are copied.
func Rewrite(e Expr, fn func(Expr) (Expr, error)) (Expr, error) {
	if e == nil {
		return nil, nil
	}
	var err error
	rw := func(x Expr) Expr {
		if err != nil || x == nil {
			return x
		}
		var y Expr
		y, err = Rewrite(x, fn)
		return y
	}
	switch n := e.(type) {
	case *Call:
		args := make([]Expr, len(n.Args))
		changed := false
		for i, a := range n.Args {
			args[i] = rw(a)
			changed = changed || args[i] != a
		}
		if err != nil {
			return nil, err
		}
		if changed {
			c := *n
			c.Args = args
			e = &c
		}
	case *Cast:
		a := rw(n.Arg)
		if err != nil {
			return nil, err
		}
		if a != n.Arg {
			e = &Cast{Arg: a, To: n.To, Explicit: n.Explicit}
		}
	case *Case:
		c := &Case{Operand: rw(n.Operand), Else: rw(n.Else), T: n.T, Whens: make([]When, len(n.Whens))}
		changed := c.Operand != n.Operand || c.Else != n.Else
		for i, w := range n.Whens {
			c.Whens[i] = When{Cond: rw(w.Cond), Then: rw(w.Then)}
			changed = changed || c.Whens[i] != w
		}
		if err != nil {
			return nil, err
		}
		if changed {
			e = c
		}
	}
	return fn(e)
}

// Bind replaces every Param by its argument. A value whose type differs
// from the type the planner assumed is cast to that type, so the typing of
// parent nodes stays valid.
func Bind(e Expr, args []types.Datum) (Expr, error) {
	return Rewrite(e, func(x Expr) (Expr, error) {
		p, ok := x.(*Param)
		if !ok {
			return x, nil
		}
		if p.Index < 0 || p.Index >= len(args) {
			return nil, sqlerrWrongArgs("EXECUTE")
		}
		d := args[p.Index]
		if p.T.Kind == types.Null || d.T.SameFamily(p.T) {
			return Lit(d), nil
		}
		return NewCast(Lit(d), p.T), nil
	})
}

// convertIntConst retypes an integer literal without a Cast node when the
// value is exactly representable in to (integers and decimals).
func convertIntConst(v int64, to types.T) (types.Datum, bool) {
	switch {
	case to.IsInteger() && to.Kind != types.LargeInt:
		lo, hi := intBounds(to.Kind)
		if v < lo || v > hi {
			return types.Datum{}, false
		}
		return types.Datum{T: to, I: v}, true
	case to.Kind == types.Decimal:
		n := decimal128.FromI64(v)
		for i := 0; i < to.Scale; i++ {
			n = n.Mul(decimal128.FromI64(10))
		}
		if to.Precision <= 0 || to.Precision > types.MaxDecimalPrecision || !n.FitsInPrecision(int32(to.Precision)) || to.Scale > 18 {
			return types.Datum{}, false
		}
		return types.Datum{T: to, Dec: n}, true
	}
	return types.Datum{}, false
}

func intBounds(k types.Kind) (int64, int64) {
	switch k {
	case types.TinyInt:
		return math.MinInt8, math.MaxInt8
	case types.SmallInt:
		return math.MinInt16, math.MaxInt16
	case types.Int:
		return math.MinInt32, math.MaxInt32
	}
	return math.MinInt64, math.MaxInt64
}

// Volatile reports whether e calls a function giving a new value per call
// (rand, uuid): two equal-looking calls are not the same value, so such an
// expression is neither shared, copied nor matched by its text.
func Volatile(e Expr) bool {
	found := false
	Walk(e, func(x Expr) bool {
		if c, ok := x.(*Call); ok && (c.Fn == "rand" || strings.HasPrefix(c.Fn, "uuid")) {
			found = true
		}
		return !found
	})
	return found
}
