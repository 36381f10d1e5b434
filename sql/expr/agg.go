package expr

import (
	"strings"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// aggSpec is what the planner needs to know of an aggregate function:
// how many arguments it takes, which trailing ones must be constants
// (percentile's p, topn's n: they are read once, from the first row), and
// whether it has a partial state to split it across an exchange.
type aggSpec struct {
	minArgs, maxArgs int // maxArgs < 0: unbounded
	constFrom        int // arguments from this index on are constants; 0: none
	split            bool
}

// aggSpecs lists the aggregate functions by canonical name (AggCanonical).
// GROUP_CONCAT keeps one phase: its merge would not keep Doris's order.
// INTERSECT_COUNT keeps one phase: its partial state would need the filter
// column's type, which a call does not carry (AggCall.ArgType is the first
// argument's). MAX_BY/MIN_BY encode their datums with their types instead.
var aggSpecs = map[string]aggSpec{
	"count": {0, -1, 0, true}, "sum": {1, 1, 0, true}, "avg": {1, 1, 0, true},
	"min": {1, 1, 0, true}, "max": {1, 1, 0, true}, "any_value": {1, 1, 0, true},
	"group_concat": {1, -1, 0, false},

	"stddev_pop": {1, 1, 0, true}, "stddev_samp": {1, 1, 0, true},
	"var_pop": {1, 1, 0, true}, "var_samp": {1, 1, 0, true},
	"corr": {2, 2, 0, true}, "covar_pop": {2, 2, 0, true}, "covar_samp": {2, 2, 0, true},

	"percentile": {2, 2, 1, true}, "percentile_approx": {2, 3, 1, true}, "median": {1, 1, 0, true},
	"ndv": {1, 1, 0, true},

	"bitmap_union": {1, 1, 0, true}, "bitmap_union_count": {1, 1, 0, true},
	"bitmap_intersect": {1, 1, 0, true}, "group_bitmap_xor": {1, 1, 0, true},
	"bitmap_union_int": {1, 1, 0, true}, "intersect_count": {3, -1, 2, false},
	"hll_union_agg": {1, 1, 0, true}, "hll_union": {1, 1, 0, true},

	"group_bit_and": {1, 1, 0, true}, "group_bit_or": {1, 1, 0, true}, "group_bit_xor": {1, 1, 0, true},
	"max_by": {2, 2, 0, true}, "min_by": {2, 2, 0, true},

	"topn": {2, 3, 1, true}, "collect_list": {1, 1, 0, true}, "collect_set": {1, 1, 0, true},
	"count_by_enum": {1, -1, 0, true}, "histogram": {1, 2, 1, true},
}

// aggAliases are Doris's other names of the functions above.
var aggAliases = map[string]string{
	"std": "stddev_pop", "stddev": "stddev_pop",
	"variance": "var_pop", "variance_pop": "var_pop", "variance_samp": "var_samp",
	"covar":                 "covar_pop",
	"approx_count_distinct": "ndv",
	"hll_raw_agg":           "hll_union",
	"any":                   "any_value",
	"array_agg":             "collect_list",
	"hist":                  "histogram",
}

// AggFuncs are the aggregate function names the engine computes (canonical
// names and aliases).
var AggFuncs = func() map[string]bool {
	m := map[string]bool{}
	for n := range aggSpecs {
		m[n] = true
	}
	for n := range aggAliases {
		m[n] = true
	}
	return m
}()

// AggCanonical maps an aggregate's alias to the name the engine computes
// it by (STD → stddev_pop); other names are returned lower-cased.
func AggCanonical(fn string) string {
	fn = strings.ToLower(fn)
	if c, ok := aggAliases[fn]; ok {
		return c
	}
	return fn
}

// AggArity checks fn's argument count; it answers 1582 (wrong parameter
// count) as Doris does.
func AggArity(fn string, n int) error {
	s, ok := aggSpecs[AggCanonical(fn)]
	if !ok {
		return sqlerr.WrongArguments.New(fn)
	}
	if n < s.minArgs || s.maxArgs >= 0 && n > s.maxArgs {
		return sqlerr.WrongParamCount.New(fn)
	}
	return nil
}

// AggConstArg reports whether fn's argument i must be a constant.
func AggConstArg(fn string, i int) bool {
	s := aggSpecs[AggCanonical(fn)]
	return s.constFrom > 0 && i >= s.constFrom
}

// AggSplittable reports whether fn (not DISTINCT) has a partial state, so
// that it runs update-serialize below an exchange and merge-finalize above.
func AggSplittable(fn string) bool { return aggSpecs[AggCanonical(fn)].split }

// AggResultType is the SQL type of fn(arg, ...) where arg is the first
// argument's type (Doris rules): COUNT → BIGINT; SUM of integers → BIGINT,
// of LARGEINT → LARGEINT, of DECIMAL(p,s) → DECIMAL(38,s), of
// FLOAT/DOUBLE/strings → DOUBLE; AVG of DECIMAL(p,s) → DECIMAL(38,max(s,4)),
// of other numbers → DOUBLE; MIN/MAX/ANY_VALUE/MAX_BY/MIN_BY/GROUP_BIT_* →
// arg; GROUP_CONCAT, TOPN, COLLECT_*, COUNT_BY_ENUM → STRING; the statistics and
// percentiles → DOUBLE; NDV and the *_count / hll_union_agg → BIGINT;
// bitmap and HLL unions → BITMAP / HLL.
func AggResultType(fn string, arg types.T) (types.T, error) {
	switch AggCanonical(fn) {
	case "count", "ndv":
		return types.BigIntT, nil
	case "bitmap_union_count", "intersect_count":
		if arg.Kind == types.Bitmap || arg.Kind == types.Null {
			return types.BigIntT, nil
		}
	case "bitmap_union_int":
		if arg.IsInteger() || arg.Kind == types.Null {
			return types.BigIntT, nil
		}
	case "hll_union_agg":
		if arg.Kind == types.HLL || arg.Kind == types.Null {
			return types.BigIntT, nil
		}
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
	case "min", "max", "max_by", "min_by":
		if !arg.IsOpaque() { // Doris orders none of them
			return arg, nil
		}
	case "any_value":
		return arg, nil
	case "collect_list", "collect_set":
		if !arg.IsObject() {
			return types.ArrayOf(arg), nil
		}
	case "group_concat", "topn", "count_by_enum":
		return types.StringT, nil
	case "histogram":
		if !arg.IsOpaque() {
			return types.StringT, nil
		}
	case "stddev_pop", "stddev_samp", "var_pop", "var_samp", "corr", "covar_pop", "covar_samp",
		"percentile", "percentile_approx", "median":
		if arg.IsNumeric() || arg.Kind == types.Boolean || arg.Kind == types.Null || arg.IsString() {
			return types.DoubleT, nil
		}
	case "bitmap_union", "bitmap_intersect", "group_bitmap_xor":
		if arg.Kind == types.Bitmap || arg.Kind == types.Null {
			return types.BitmapT, nil
		}
	case "hll_union":
		if arg.Kind == types.HLL || arg.Kind == types.Null {
			return types.HLLT, nil
		}
	case "group_bit_and", "group_bit_or", "group_bit_xor":
		if arg.IsInteger() && arg.Kind != types.LargeInt || arg.Kind == types.Boolean {
			return arg, nil
		}
		if arg.Kind == types.Null {
			return types.BigIntT, nil
		}
	}
	return types.T{}, sqlerr.WrongArguments.New(fn)
}

// AggStateTypes lists the partial-state columns fn(arg) sends from an
// update-serialize phase to a merge phase: AVG has two (sum, count), the
// one-variable statistics three (count, mean, M2: Welford's state, merged
// with Chan's formula), CORR and COVAR six (count, both means, co-moment,
// both M2s), the sketches (ndv's HLL, the bitmaps, percentile's values,
// percentile_approx's t-digest, topn's counts, collect_*'s values,
// max_by/min_by's pair, count_by_enum's counts) one serialized STRING; every other function one column of its result type.
// DISTINCT aggregates have no partial state; they are planned in one phase.
func AggStateTypes(fn string, arg types.T, distinct bool) ([]types.T, error) {
	if distinct {
		return nil, sqlerr.NotSupportedYet.New("a partial state for " + strings.ToUpper(fn) + "(DISTINCT)")
	}
	c := AggCanonical(fn)
	if !aggSpecs[c].split {
		return nil, sqlerr.NotSupportedYet.New("a partial state for " + strings.ToUpper(fn))
	}
	t, err := AggResultType(c, arg)
	if err != nil {
		return nil, err
	}
	switch c {
	case "avg":
		s, err := AggResultType("sum", arg)
		if err != nil {
			return nil, err
		}
		return []types.T{s, types.BigIntT}, nil
	case "stddev_pop", "stddev_samp", "var_pop", "var_samp":
		return []types.T{types.BigIntT, types.DoubleT, types.DoubleT}, nil
	case "corr", "covar_pop", "covar_samp":
		return []types.T{types.BigIntT, types.DoubleT, types.DoubleT, types.DoubleT, types.DoubleT, types.DoubleT}, nil
	case "percentile", "percentile_approx", "median", "ndv", "bitmap_union", "bitmap_union_count",
		"bitmap_intersect", "group_bitmap_xor", "bitmap_union_int", "hll_union_agg", "hll_union",
		"topn", "collect_list", "collect_set", "max_by", "min_by", "count_by_enum", "histogram":
		return []types.T{types.StringT}, nil
	}
	return []types.T{t}, nil
}
