package bind

import (
	"strings"

	"github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// The session time zone reaches evaluation through the plan: clock
// functions fold here to the statement's start in the zone, and functions
// that read the zone over columns (from_unixtime, unix_timestamp) become
// their *_tz variant with the zone as a constant first argument, so
// backends need no session state. In UTC (the default) nothing changes.

// zone is the session's time_zone when it is not UTC ("" otherwise).
func (b *Binder) zone() string {
	if b.ctx.Vars == nil {
		return ""
	}
	d, err := b.ctx.Vars.System("time_zone", false)
	if err != nil || d.Null || eval.IsUTC(d.S) {
		return ""
	}
	return d.S
}

// clock folds a clock function (now(fsp) keeps fsp fractional digits) in
// a non-UTC session zone.
func (b *Binder) clock(name string, args sqlparser.SelectExprs, s *scope) (expr.Expr, bool) {
	z := b.zone()
	if z == "" || b.ctx.Now.IsZero() {
		return nil, false
	}
	fsp := 0
	if len(args) > 0 {
		ae, ok := args[0].(*sqlparser.AliasedExpr)
		if !ok {
			return nil, false
		}
		x, err := b.bindExpr(ae.Expr, s)
		c, isConst := x.(*expr.Const)
		if err != nil || !isConst || c.Val.Null || !c.Val.T.IsInteger() || c.Val.I < 0 || c.Val.I > 6 {
			return nil, false // the unfolded call reports the bad precision
		}
		fsp = int(c.Val.I)
	}
	loc, err := eval.LoadZone(z)
	if err != nil {
		return nil, false
	}
	t := b.ctx.Now.In(loc)
	y, mo, d := t.Date()
	days := types.DaysFromCivil(y, int(mo), d)
	switch name {
	case "curdate", "current_date":
		return expr.Lit(types.Datum{T: types.DateT, I: int64(days)}), true
	case "curtime", "current_time":
		return expr.Lit(types.StringDatum(t.Format("15:04:05"))), true
	}
	us := int64(days)*86400e6 + int64(t.Hour()*3600+t.Minute()*60+t.Second())*1e6 + int64(t.Nanosecond()/1000)
	return expr.Lit(types.Datum{T: types.T{Kind: types.DateTime, Scale: fsp}, I: types.TruncMicros(us, fsp)}), true
}

// zoneCall builds a call, in the zone variant when the function reads the
// session zone and the zone is not UTC.
func (b *Binder) zoneCall(name string, args []expr.Expr) (expr.Expr, error) {
	fn := expr.CanonicalName(name)
	if tz, ok := expr.ZoneFuncs[fn]; ok && len(args) > 0 {
		if z := b.zone(); z != "" {
			return expr.NewCall(tz, append([]expr.Expr{expr.Lit(types.StringDatum(z))}, args...)...)
		}
	}
	return expr.NewCall(name, args...)
}

// bindLibFunc binds the function forms vitess parses apart from FuncExpr:
// TIMESTAMPDIFF/TIMESTAMPADD(unit, a, b) and CHAR(n, ...).
func (b *Binder) bindLibFunc(e sqlparser.Expr, s *scope) (expr.Expr, error) {
	switch n := e.(type) {
	case *sqlparser.TimestampFuncExpr:
		x1, err := b.bindExpr(n.Expr1, s)
		if err != nil {
			return nil, err
		}
		x2, err := b.bindExpr(n.Expr2, s)
		if err != nil {
			return nil, err
		}
		unit := expr.Lit(types.StringDatum(strings.ToUpper(n.Unit)))
		return expr.NewCall(strings.ToLower(n.Name), unit, x1, x2)
	case *sqlparser.CharExpr:
		args := make([]expr.Expr, 0, len(n.Exprs))
		for _, se := range n.Exprs {
			ae, ok := se.(*sqlparser.AliasedExpr)
			if !ok {
				return nil, sqlerr.NotSupportedYet.New("CHAR(" + sqlparser.String(se) + ")")
			}
			x, err := b.bindExpr(ae.Expr, s)
			if err != nil {
				return nil, err
			}
			args = append(args, x)
		}
		return expr.NewCall("char", args...)
	}
	return nil, sqlerr.NotSupportedYet.New(sqlparser.String(e))
}
