package bind

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

var cmpOps = map[string]string{
	sqlparser.EqualStr: "eq", sqlparser.LessThanStr: "lt", sqlparser.GreaterThanStr: "gt",
	sqlparser.LessEqualStr: "le", sqlparser.GreaterEqualStr: "ge", sqlparser.NotEqualStr: "ne",
	"<>": "ne", sqlparser.NullSafeEqualStr: "null_safe_eq",
	sqlparser.LikeStr: "like", sqlparser.NotLikeStr: "not_like",
	sqlparser.RegexpStr: "regexp",
}

var binOps = map[string]string{
	sqlparser.PlusStr: "add", sqlparser.MinusStr: "subtract", sqlparser.MultStr: "multiply",
	sqlparser.DivStr: "divide", sqlparser.IntDivStr: "int_divide", sqlparser.ModStr: "mod", "mod": "mod",
	sqlparser.BitAndStr: "bitand", sqlparser.BitOrStr: "bitor", sqlparser.BitXorStr: "bitxor",
	sqlparser.ShiftLeftStr: "shift_left", sqlparser.ShiftRightStr: "shift_right",
}

// bindExpr binds a scalar expression in scope s.
func (b *Binder) bindExpr(e sqlparser.Expr, s *scope) (expr.Expr, error) {
	if err := b.tick(); err != nil {
		return nil, err
	}
	switch n := e.(type) {
	case *sqlparser.ParenExpr:
		return b.bindExpr(n.Expr, s)
	case *sqlparser.SQLVal:
		return b.bindLiteral(n)
	case *sqlparser.NullVal:
		return expr.Lit(types.NullDatum(types.NullT)), nil
	case sqlparser.BoolVal:
		return expr.Lit(types.BoolDatum(bool(n))), nil
	case *sqlparser.ColName:
		return b.bindColName(n, s)
	case *sqlparser.AndExpr:
		return b.bindCall(s, "and", n.Left, n.Right)
	case *sqlparser.OrExpr:
		return b.bindCall(s, "or", n.Left, n.Right)
	case *sqlparser.XorExpr:
		return b.bindCall(s, "xor", n.Left, n.Right)
	case *sqlparser.NotExpr:
		return b.bindCall(s, "not", n.Expr)
	case *sqlparser.ComparisonExpr:
		return b.bindComparison(n, s)
	case *sqlparser.RangeCond:
		// x BETWEEN a AND b is (x >= a) AND (x <= b) with three-valued AND:
		// a NULL bound still gives FALSE when the other comparison fails.
		x, err := b.bindExpr(n.Left, s)
		if err != nil {
			return nil, err
		}
		lo, err := b.bindExpr(n.From, s)
		if err != nil {
			return nil, err
		}
		hi, err := b.bindExpr(n.To, s)
		if err != nil {
			return nil, err
		}
		ge, err := expr.NewCall("ge", x, lo)
		if err != nil {
			return nil, err
		}
		le, err := expr.NewCall("le", x, hi)
		if err != nil {
			return nil, err
		}
		between, err := expr.NewCall("and", ge, le)
		if err != nil || n.Operator == sqlparser.BetweenStr {
			return between, err
		}
		return expr.NewCall("not", between)
	case *sqlparser.IsExpr:
		fn := map[string]string{sqlparser.IsNullStr: "is_null", sqlparser.IsNotNullStr: "is_not_null",
			sqlparser.IsTrueStr: "is_true", sqlparser.IsFalseStr: "is_false"}
		switch n.Operator {
		case sqlparser.IsNotTrueStr:
			x, err := b.bindCall(s, "is_true", n.Expr)
			if err != nil {
				return nil, err
			}
			return expr.NewCall("not", x)
		case sqlparser.IsNotFalseStr:
			x, err := b.bindCall(s, "is_false", n.Expr)
			if err != nil {
				return nil, err
			}
			return expr.NewCall("not", x)
		}
		return b.bindCall(s, fn[n.Operator], n.Expr)
	case *sqlparser.BinaryExpr:
		if iv, ok := n.Right.(*sqlparser.IntervalExpr); ok && (n.Operator == "+" || n.Operator == "-") {
			fn := "date_add"
			if n.Operator == "-" {
				fn = "date_sub"
			}
			return b.bindInterval(fn, n.Left, iv, s)
		}
		if iv, ok := n.Left.(*sqlparser.IntervalExpr); ok && n.Operator == "+" {
			return b.bindInterval("date_add", n.Right, iv, s)
		}
		fn, ok := binOps[strings.ToLower(n.Operator)]
		if !ok {
			return nil, sqlerr.NotSupportedYet.New("operator " + n.Operator)
		}
		return b.bindCall(s, fn, n.Left, n.Right)
	case *sqlparser.UnaryExpr:
		switch strings.TrimSpace(n.Operator) {
		case "-":
			return b.bindCall(s, "negate", n.Expr)
		case "+", "binary", "_binary":
			return b.bindExpr(n.Expr, s)
		case "~":
			return b.bindCall(s, "bitnot", n.Expr)
		case "!":
			return b.bindCall(s, "not", n.Expr)
		}
		return nil, sqlerr.NotSupportedYet.New("operator " + n.Operator)
	case *sqlparser.CollateExpr:
		return b.bindExpr(n.Expr, s)
	case *sqlparser.CaseExpr:
		return b.bindCase(n, s)
	case *sqlparser.ConvertExpr:
		x, err := b.bindExpr(n.Expr, s)
		if err != nil {
			return nil, err
		}
		t, err := convertType(n.Type)
		if err != nil {
			return nil, err
		}
		return expr.NewExplicitCast(x, t), nil
	case *sqlparser.FuncExpr:
		return b.bindFunc(n, s)
	case *sqlparser.TimestampFuncExpr, *sqlparser.CharExpr:
		return b.bindLibFunc(n, s)
	case *sqlparser.SubstrExpr:
		var str expr.Expr
		var err error
		if n.Name != nil {
			str, err = b.bindColName(n.Name, s)
		} else {
			str, err = b.bindLiteral(n.StrVal)
		}
		if err != nil {
			return nil, err
		}
		args := []expr.Expr{str}
		for _, a := range []sqlparser.Expr{n.From, n.To} {
			if a == nil {
				continue
			}
			x, err := b.bindExpr(a, s)
			if err != nil {
				return nil, err
			}
			args = append(args, x)
		}
		return expr.NewCall("substring", args...)
	case *sqlparser.TrimExpr:
		fn := "trim"
		switch strings.ToLower(n.Dir) {
		case "leading", "l":
			fn = "ltrim"
		case "trailing", "r":
			fn = "rtrim"
		}
		if n.Pattern == nil {
			return b.bindCall(s, fn, n.Str)
		}
		return b.bindCall(s, fn, n.Str, n.Pattern)
	case *sqlparser.IntervalExpr:
		return nil, sqlerr.ParseError.New("INTERVAL is only allowed with date arithmetic")
	case *sqlparser.Subquery:
		return b.bindSubqueryExpr(fragment.ApplyScalar, n.Select, nil, s)
	case *sqlparser.ExistsExpr:
		return b.bindSubqueryExpr(fragment.ApplyExists, n.Subquery.Select, nil, s)
	case *sqlparser.GroupConcatExpr:
		var sep *string
		if !n.Separator.DefaultSeparator {
			v := n.Separator.SeparatorString
			sep = &v
		}
		return b.bindAggCall("group_concat", n.Distinct != "", n.Exprs, sep, n.OrderBy)
	case *sqlparser.Default:
		return nil, sqlerr.NotSupportedYet.New("DEFAULT in this position")
	case *sqlparser.ValTuple:
		return nil, sqlerr.OperandColumns.New(1)
	}
	return nil, sqlerr.NotSupportedYet.New(fmt.Sprintf("expression %s", sqlparser.String(e)))
}

func (b *Binder) bindCall(s *scope, fn string, args ...sqlparser.Expr) (expr.Expr, error) {
	xs := make([]expr.Expr, len(args))
	for i, a := range args {
		x, err := b.bindExpr(a, s)
		if err != nil {
			return nil, err
		}
		xs[i] = x
	}
	return expr.NewCall(fn, xs...)
}

func (b *Binder) bindComparison(n *sqlparser.ComparisonExpr, s *scope) (expr.Expr, error) {
	op := strings.ToLower(n.Operator)
	switch op {
	case sqlparser.InStr, sqlparser.NotInStr:
		if sq, ok := n.Right.(*sqlparser.Subquery); ok {
			probe, err := b.bindExpr(n.Left, s)
			if err != nil {
				return nil, err
			}
			x, err := b.bindSubqueryExpr(fragment.ApplyIn, sq.Select, probe, s)
			if err != nil || op == sqlparser.InStr {
				return x, err
			}
			return expr.NewCall("not", x)
		}
		tuple, ok := n.Right.(sqlparser.ValTuple)
		if !ok {
			return nil, sqlerr.NotSupportedYet.New("IN (" + sqlparser.String(n.Right) + ")")
		}
		args := []sqlparser.Expr{n.Left}
		args = append(args, tuple...)
		fn := "in"
		if op == sqlparser.NotInStr {
			fn = "not_in"
		}
		return b.bindCall(s, fn, args...)
	case sqlparser.NotRegexpStr:
		x, err := b.bindCall(s, "regexp", n.Left, n.Right)
		if err != nil {
			return nil, err
		}
		return expr.NewCall("not", x)
	}
	fn, ok := cmpOps[op]
	if !ok {
		return nil, sqlerr.NotSupportedYet.New("operator " + n.Operator)
	}
	if n.Escape != nil && (fn == "like" || fn == "not_like") {
		return b.bindCall(s, fn, n.Left, n.Right, n.Escape)
	}
	return b.bindCall(s, fn, n.Left, n.Right)
}

func (b *Binder) bindInterval(fn string, date sqlparser.Expr, iv *sqlparser.IntervalExpr, s *scope) (expr.Expr, error) {
	d, err := b.bindExpr(date, s)
	if err != nil {
		return nil, err
	}
	n, err := b.bindExpr(iv.Expr, s)
	if err != nil {
		return nil, err
	}
	return expr.NewCall(fn, d, n, expr.Lit(types.StringDatum(strings.ToUpper(iv.Unit))))
}

func (b *Binder) bindCase(n *sqlparser.CaseExpr, s *scope) (expr.Expr, error) {
	var operand, els expr.Expr
	var err error
	if n.Expr != nil {
		if operand, err = b.bindExpr(n.Expr, s); err != nil {
			return nil, err
		}
	}
	whens := make([]expr.When, len(n.Whens))
	for i, w := range n.Whens {
		c, err := b.bindExpr(w.Cond, s)
		if err != nil {
			return nil, err
		}
		v, err := b.bindExpr(w.Val, s)
		if err != nil {
			return nil, err
		}
		whens[i] = expr.When{Cond: c, Then: v}
	}
	if n.Else != nil {
		if els, err = b.bindExpr(n.Else, s); err != nil {
			return nil, err
		}
	}
	return expr.NewCase(operand, whens, els)
}

func (b *Binder) bindFunc(n *sqlparser.FuncExpr, s *scope) (expr.Expr, error) {
	name := n.Name.Lowered()
	if n.Over != nil {
		return b.bindWindowCall(n, s)
	}
	if isAggName(name) {
		return b.bindAggCall(name, n.Distinct, n.Exprs, nil, nil)
	}
	if t, ok := parser.CastFnType(name); ok && len(n.Exprs) == 1 {
		// CAST(x AS INT) and the other integer targets vitess lacks.
		if a, isA := n.Exprs[0].(*sqlparser.AliasedExpr); isA {
			x, err := b.bindExpr(a.Expr, s)
			if err != nil {
				return nil, err
			}
			return expr.NewExplicitCast(x, t), nil
		}
	}
	if name == parser.CastNestedFn && len(n.Exprs) == 2 {
		return b.bindCastNested(n, s)
	}
	switch name {
	case "grouping", "grouping_id":
		return b.bindGroupingFunc(n, name)
	case "database", "schema":
		if b.ctx.DB == "" {
			return expr.Lit(types.NullDatum(types.VarcharT(64))), nil
		}
		return expr.Lit(types.StringDatum(b.ctx.DB)), nil
	case "version":
		return expr.Lit(types.StringDatum(b.ctx.Version)), nil
	case "user", "current_user", "session_user", "system_user":
		return expr.Lit(types.StringDatum(b.ctx.User + "@%")), nil
	case "connection_id":
		return expr.Lit(types.IntDatum(int64(b.ctx.ConnID))), nil
	case "last_query_id":
		if b.ctx.LastQueryID == "" {
			return expr.Lit(types.NullDatum(types.VarcharT(64))), nil
		}
		return expr.Lit(types.StringDatum(b.ctx.LastQueryID)), nil
	case "now", "current_timestamp", "localtime", "localtimestamp", "sysdate", "curdate", "current_date", "curtime", "current_time":
		if c, ok := b.clock(name, n.Exprs, s); ok {
			return c, nil
		}
	case "last_insert_id", "found_rows", "row_count":
		return expr.Lit(types.IntDatum(0)), nil
	}
	args := make([]expr.Expr, 0, len(n.Exprs))
	for _, se := range n.Exprs {
		ae, ok := se.(*sqlparser.AliasedExpr)
		if !ok {
			return nil, sqlerr.ParseError.New(fmt.Sprintf("You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near '*' in %s()", name))
		}
		if iv, ok := ae.Expr.(*sqlparser.IntervalExpr); ok {
			// DATE_ADD(d, INTERVAL n unit): the unit travels as a constant.
			x, err := b.bindExpr(iv.Expr, s)
			if err != nil {
				return nil, err
			}
			args = append(args, x, expr.Lit(types.StringDatum(strings.ToUpper(iv.Unit))))
			continue
		}
		x, err := b.bindExpr(ae.Expr, s)
		if err != nil {
			return nil, err
		}
		args = append(args, x)
	}
	return b.zoneCall(name, args)
}

func (b *Binder) bindColName(n *sqlparser.ColName, s *scope) (expr.Expr, error) {
	name := n.Name.String()
	if strings.HasPrefix(name, "@@") {
		v := strings.TrimPrefix(name, "@@")
		global := false
		switch {
		case strings.HasPrefix(strings.ToLower(v), "global."):
			global, v = true, v[len("global."):]
		case strings.HasPrefix(strings.ToLower(v), "session."):
			v = v[len("session."):]
		case strings.HasPrefix(strings.ToLower(v), "local."):
			v = v[len("local."):]
		}
		d, err := b.ctx.Vars.System(strings.ToLower(v), global)
		if err != nil {
			return nil, err
		}
		return expr.Lit(d), nil
	}
	if strings.HasPrefix(name, "@") {
		return expr.Lit(b.ctx.Vars.User(strings.ToLower(strings.TrimPrefix(name, "@")))), nil
	}
	if s == nil {
		return nil, sqlerr.BadField.New(name, "field list")
	}
	if x, ok := b.having.alias(b, s, n); ok {
		return x, nil
	}
	c, err := s.lookup(n.Qualifier.Name.String(), name)
	if err != nil {
		return nil, err
	}
	return c.Ref(), nil
}

// bindLiteral types a literal as MySQL does: integers BIGINT (DECIMAL past
// its range), exact decimals DECIMAL(p,s), exponent forms DOUBLE, strings VARCHAR.
func (b *Binder) bindLiteral(v *sqlparser.SQLVal) (expr.Expr, error) {
	s := string(v.Val)
	switch v.Type {
	case sqlparser.StrVal:
		return expr.Lit(types.StringDatum(s)), nil
	case sqlparser.IntVal:
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return expr.Lit(types.IntDatum(i)), nil
		}
		// Past BIGINT: a 39-digit integer within ±(2^127-1) is a LARGEINT.
		if n, ok, fits := types.ParseDecimal(s, types.LargeIntPrecision, 0); ok && fits && len(strings.TrimLeft(s, "+-0")) > types.MaxDecimalPrecision {
			return expr.Lit(types.Datum{T: types.LargeIntT, Dec: n}), nil
		}
		return decimalLiteral(s)
	case sqlparser.FloatVal:
		if strings.ContainsAny(s, "eE") {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, sqlerr.ParseError.New("bad number " + s)
			}
			return expr.Lit(types.FloatDatum(f)), nil
		}
		return decimalLiteral(s)
	case sqlparser.HexVal:
		bs, err := hexBytes(s)
		if err != nil {
			return nil, err
		}
		return expr.Lit(types.StringDatum(string(bs))), nil
	case sqlparser.HexNum:
		u, err := strconv.ParseUint(strings.TrimPrefix(strings.ToLower(s), "0x"), 16, 64)
		if err != nil {
			return nil, sqlerr.ParseError.New("bad hex number " + s)
		}
		return expr.Lit(types.IntDatum(int64(u))), nil
	case sqlparser.BitVal:
		u, err := strconv.ParseUint(s, 2, 64)
		if err != nil {
			return nil, sqlerr.ParseError.New("bad bit value " + s)
		}
		return expr.Lit(types.IntDatum(int64(u))), nil
	case sqlparser.ValArg:
		idx := b.paramIndex(s)
		if b.ctx.Params != nil {
			if idx >= len(b.ctx.Params) {
				return nil, sqlerr.WrongArguments.New("mysqld_stmt_execute")
			}
			return expr.Lit(b.ctx.Params[idx]), nil
		}
		return &expr.Param{Index: idx, T: types.NullT}, nil
	}
	return nil, sqlerr.NotSupportedYet.New("literal " + s)
}

// paramIndex maps vitess's ":v1" placeholder names to 0-based indexes.
func (b *Binder) paramIndex(name string) int {
	n := strings.TrimLeft(name, ":v")
	i, err := strconv.Atoi(n)
	if err != nil || i < 1 {
		return 0
	}
	return i - 1
}

func decimalLiteral(s string) (expr.Expr, error) {
	digits := strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+"), "0")
	scale := 0
	if i := strings.IndexByte(digits, '.'); i >= 0 {
		scale = len(digits) - i - 1
		digits = digits[:i] + digits[i+1:]
	}
	prec := len(digits)
	if prec < scale+1 {
		prec = scale + 1
	}
	if prec > types.MaxDecimalPrecision {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, sqlerr.ParseError.New("bad number " + s)
		}
		return expr.Lit(types.FloatDatum(f)), nil
	}
	n, ok, fits := types.ParseDecimal(s, prec, scale)
	if !ok || !fits {
		return nil, sqlerr.ParseError.New("bad number " + s)
	}
	return expr.Lit(types.DecimalDatum(n, prec, scale)), nil
}

func hexBytes(s string) ([]byte, error) {
	if len(s)%2 == 1 {
		s = "0" + s
	}
	out := make([]byte, len(s)/2)
	for i := range out {
		v, err := strconv.ParseUint(s[2*i:2*i+2], 16, 8)
		if err != nil {
			return nil, sqlerr.ParseError.New("bad hex literal " + s)
		}
		out[i] = byte(v)
	}
	return out, nil
}

// convertType maps CAST/CONVERT target types.
func convertType(ct *sqlparser.ConvertType) (types.T, error) {
	atoi := func(v *sqlparser.SQLVal, def int) int {
		if v == nil {
			return def
		}
		i, err := strconv.Atoi(string(v.Val))
		if err != nil {
			return def
		}
		return i
	}
	switch strings.ToLower(ct.Type) {
	case "signed", "signed integer", "integer", "int", "bigint":
		return types.BigIntT, nil
	case "unsigned", "unsigned integer":
		return types.LargeIntT, nil
	case "decimal", "numeric":
		p, s := atoi(ct.Length, 10), atoi(ct.Scale, 0)
		if p > types.MaxDecimalPrecision || s > p {
			return types.T{}, sqlerr.ParseError.New(fmt.Sprintf("Too big precision %d specified. Maximum is 38.", p))
		}
		return types.DecimalT(p, s), nil
	case "json", "jsonb":
		return types.JSONT, nil
	case "char", "nchar", "varchar", "binary", "text", "string":
		if ct.Length != nil {
			return types.VarcharT(atoi(ct.Length, 0)), nil
		}
		return types.StringT, nil
	case "date":
		return types.DateT, nil
	case "datetime", "timestamp":
		return types.T{Kind: types.DateTime, Scale: atoi(ct.Length, 0)}, nil
	case "double", "real", "double precision":
		return types.DoubleT, nil
	case "float":
		return types.FloatT, nil
	case "time":
		return types.StringT, nil
	}
	return types.T{}, sqlerr.NotSupportedYet.New("CAST to " + ct.Type)
}
