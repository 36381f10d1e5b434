package expr

import "github.com/dorisgo/dorisgo/sql/types"

// MySQL typing rules: which type an operator computes in, and which type a
// set of branches (CASE, IF, COALESCE, UNION) aggregates to.

// DivPrecisionIncrement is MySQL's div_precision_increment default: the
// scale a decimal division adds to its dividend's scale.
const DivPrecisionIncrement = 4

// MaxDecimalScale caps result scales of multiplication and division.
const MaxDecimalScale = 30

// DecimalDigits is t's precision and scale when used as a DECIMAL operand:
// integers are DECIMAL(n,0) with n digits enough for their range.
func DecimalDigits(t types.T) (p, s int) {
	switch t.Kind {
	case types.Boolean:
		return 1, 0
	case types.TinyInt:
		return 3, 0
	case types.SmallInt:
		return 5, 0
	case types.Int:
		return 10, 0
	case types.BigInt:
		return 19, 0
	case types.LargeInt:
		return 38, 0
	case types.Decimal:
		return t.Precision, t.Scale
	}
	return 38, 0
}

func isIntLike(t types.T) bool { return t.IsInteger() || t.Kind == types.Boolean }
func isExact(t types.T) bool   { return isIntLike(t) || t.Kind == types.Decimal }

func minInt(a, b int) int {
	if a < b {
		return a
	}
	return b
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// decimalT builds a DECIMAL with the precision capped at 38 and never below
// the scale + 1.
func decimalT(p, s int) types.T {
	s = minInt(s, types.MaxDecimalPrecision)
	p = minInt(p, types.MaxDecimalPrecision)
	if p < s {
		p = s
	}
	if p == 0 {
		p = 1
	}
	return types.DecimalT(p, s)
}

// ArithType is the type binary arithmetic fn ("add", "subtract",
// "multiply", "divide", "mod") computes in and returns, given operand types
// a and b. Operands are cast to it (for "divide", to the operand decimal type
// returned as second value; see ArithOperandType).
func ArithType(fn string, a, b types.T) types.T {
	if a.Kind == types.Null {
		a = b
	}
	if b.Kind == types.Null {
		b = a
	}
	if a.Kind == types.Null {
		a, b = types.BigIntT, types.BigIntT
	}
	if !isExact(a) || !isExact(b) {
		return types.DoubleT // float, string or temporal operand
	}
	if fn != "divide" && isIntLike(a) && isIntLike(b) {
		if a.Kind == types.LargeInt || b.Kind == types.LargeInt {
			return types.LargeIntT
		}
		return types.BigIntT
	}
	p1, s1 := DecimalDigits(a)
	p2, s2 := DecimalDigits(b)
	switch fn {
	case "add", "subtract":
		s := maxInt(s1, s2)
		return decimalT(maxInt(p1-s1, p2-s2)+s+1, s)
	case "multiply":
		return decimalT(p1+p2, minInt(s1+s2, MaxDecimalScale))
	case "divide":
		s := minInt(s1+DivPrecisionIncrement, MaxDecimalScale)
		return decimalT(p1+s2+DivPrecisionIncrement, s)
	default: // mod
		s := maxInt(s1, s2)
		return decimalT(maxInt(p1-s1, p2-s2)+s, s)
	}
}

// CompareType is the type two values are compared in (MySQL's rules for
// comparison operators, IN and BETWEEN).
func CompareType(a, b types.T) types.T {
	if a.Kind == types.Null {
		a = b
	}
	if b.Kind == types.Null {
		b = a
	}
	switch {
	case a.Kind == types.Null:
		return types.BigIntT
	case a.IsString() && b.IsString():
		return types.StringT
	case a.IsTemporal() && b.IsTemporal():
		if a.Kind == b.Kind && a.Kind == types.Date {
			return types.DateT
		}
		return types.T{Kind: types.DateTime, Scale: maxInt(a.Scale, b.Scale)}
	case a.IsTemporal() && b.IsString():
		return a
	case b.IsTemporal() && a.IsString():
		return b
	case isIntLike(a) && isIntLike(b):
		if a.Kind == types.LargeInt || b.Kind == types.LargeInt {
			return types.LargeIntT
		}
		return types.BigIntT
	case isExact(a) && isExact(b):
		p1, s1 := DecimalDigits(a)
		p2, s2 := DecimalDigits(b)
		s := maxInt(s1, s2)
		return decimalT(maxInt(p1-s1, p2-s2)+s, s)
	}
	return types.DoubleT
}

// AggregateType is the result type of expressions whose value is one of
// ts (CASE branches, IF, IFNULL, COALESCE, GREATEST/LEAST): MySQL's
// Item_func::aggregate_type. NULL-typed members are ignored.
func AggregateType(ts ...types.T) types.T {
	res := types.NullT
	for _, t := range ts {
		if t.Kind == types.Null {
			continue
		}
		if res.Kind == types.Null {
			res = t
			continue
		}
		res = aggregate2(res, t)
	}
	return res
}

func aggregate2(a, b types.T) types.T {
	switch {
	case a.IsNested() && a.Kind == b.Kind:
		return aggregateNested(a, b)
	case a.IsString() && b.IsString():
		if a.Kind == types.String || b.Kind == types.String || a.Length == 0 || b.Length == 0 {
			return types.StringT
		}
		return types.VarcharT(maxInt(a.Length, b.Length))
	case a.IsString() || b.IsString():
		return types.StringT
	case a.Kind == b.Kind && a.Kind != types.Decimal:
		if a.Kind == types.DateTime {
			return types.T{Kind: types.DateTime, Scale: maxInt(a.Scale, b.Scale)}
		}
		return a
	case a.IsTemporal() && b.IsTemporal():
		return types.T{Kind: types.DateTime, Scale: maxInt(a.Scale, b.Scale)}
	case a.IsTemporal() || b.IsTemporal():
		return types.StringT
	case isIntLike(a) && isIntLike(b):
		if a.Kind == types.Boolean {
			return b
		}
		if b.Kind == types.Boolean {
			return a
		}
		if a.Kind > b.Kind {
			return a
		}
		return b
	case isExact(a) && isExact(b):
		p1, s1 := DecimalDigits(a)
		p2, s2 := DecimalDigits(b)
		s := maxInt(s1, s2)
		return decimalT(maxInt(p1-s1, p2-s2)+s, s)
	case a.Kind == types.Float && b.Kind == types.Float:
		return types.FloatT
	}
	return types.DoubleT
}

// aggregateNested is the common type of two ARRAYs (MAPs, STRUCTs of as
// many fields): element by element.
func aggregateNested(a, b types.T) types.T {
	switch a.Kind {
	case types.Array:
		return types.ArrayOf(AggregateType(a.Elem(), b.Elem()))
	case types.Map:
		ak, av := a.MapKV()
		bk, bv := b.MapKV()
		return types.MapOf(AggregateType(ak, bk), AggregateType(av, bv))
	}
	af, bf := a.Fields(), b.Fields()
	if len(af) != len(bf) {
		return a
	}
	fs := make([]types.Field, len(af))
	for i := range af {
		fs[i] = types.Field{Name: af[i].Name, T: AggregateType(af[i].T, bf[i].T)}
	}
	return types.StructOf(fs)
}
