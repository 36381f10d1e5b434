package expr

import (
	"strings"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// AggFuncs are the aggregate function names the engine computes.
var AggFuncs = map[string]bool{
	"count": true, "sum": true, "avg": true, "min": true, "max": true,
	"group_concat": true, "any_value": true,
}

// AggResultType is the SQL type of fn(arg) (Doris rules): COUNT → BIGINT;
// SUM of integers → BIGINT, of LARGEINT → LARGEINT, of DECIMAL(p,s) →
// DECIMAL(38,s), of FLOAT/DOUBLE/strings → DOUBLE; AVG of DECIMAL(p,s) →
// DECIMAL(38,max(s,4)), of other numbers → DOUBLE; MIN/MAX/ANY_VALUE →
// arg; GROUP_CONCAT → STRING.
func AggResultType(fn string, arg types.T) (types.T, error) {
	switch strings.ToLower(fn) {
	case "count":
		return types.BigIntT, nil
	case "sum":
		switch {
		case arg.Kind == types.Boolean || arg.Kind >= types.TinyInt && arg.Kind <= types.BigInt || arg.Kind == types.Null:
			return types.BigIntT, nil
		case arg.Kind == types.LargeInt:
			return types.LargeIntT, nil
		case arg.Kind == types.Decimal:
			return types.DecimalT(types.MaxDecimalPrecision, arg.Scale), nil
		case arg.IsFloat(), arg.IsString(), arg.IsTemporal():
			return types.DoubleT, nil
		}
	case "avg":
		switch {
		case arg.Kind == types.Decimal:
			return types.DecimalT(types.MaxDecimalPrecision, max(arg.Scale, 4)), nil
		case arg.IsNumeric(), arg.IsString(), arg.Kind == types.Boolean, arg.Kind == types.Null, arg.IsTemporal():
			return types.DoubleT, nil
		}
	case "min", "max", "any_value":
		return arg, nil
	case "group_concat":
		return types.StringT, nil
	}
	return types.T{}, sqlerr.WrongArguments.New(fn)
}

// AggStateTypes lists the partial-state columns fn(arg) sends from an
// update-serialize phase to a merge phase: AVG has two (sum, count), every
// other function one. DISTINCT aggregates have no partial state; they are
// planned in one phase.
func AggStateTypes(fn string, arg types.T, distinct bool) ([]types.T, error) {
	if distinct {
		return nil, sqlerr.NotSupportedYet.New("a partial state for " + strings.ToUpper(fn) + "(DISTINCT)")
	}
	switch strings.ToLower(fn) {
	case "avg":
		s, err := AggResultType("sum", arg)
		if err != nil {
			return nil, err
		}
		return []types.T{s, types.BigIntT}, nil
	case "count", "sum", "min", "max", "any_value", "group_concat":
		t, err := AggResultType(fn, arg)
		if err != nil {
			return nil, err
		}
		return []types.T{t}, nil
	}
	return nil, sqlerr.WrongArguments.New(fn)
}
