package expr

import (
	"fmt"
	"strings"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Doris's ARRAY, MAP and STRUCT functions (kernels in sql/eval/nested*.go).
// Element arguments are cast to the array's element type (or the common
// type of both), so kernels compare elements of one type.

func init() {
	for k, v := range nestedFns {
		registry[k] = v
	}
	for k, v := range nestedAliases {
		aliases[k] = v
	}
}

var nestedAliases = map[string]string{
	"array_size": "size", "cardinality": "size", "array_append": "array_pushback", "array_push_back": "array_pushback",
	"array_push_front": "array_pushfront", "array_pop_back": "array_popback", "array_pop_front": "array_popfront",
	"array_cat": "array_concat",
}

// NestedFunctions lists the registry names of the nested-type functions.
func NestedFunctions() []string {
	out := make([]string, 0, len(nestedFns))
	for k := range nestedFns {
		out = append(out, k)
	}
	return out
}

func wrongNested(fn string, args []Expr) error {
	ts := make([]string, len(args))
	for i, a := range args {
		ts[i] = strings.ToLower(a.Type().String())
	}
	return sqlerr.Doris.New(fmt.Sprintf("Can not find the compatibility function signature: %s(%s)", fn, strings.Join(ts, ", ")))
}

// arrayArg checks that args[i] is an ARRAY (a NULL literal counts as
// ARRAY<NULL>) and returns it.
func arrayArg(fn string, args []Expr, i int) (types.T, error) {
	t := args[i].Type()
	if t.Kind == types.Null {
		return types.ArrayOf(types.NullT), nil
	}
	if t.Kind != types.Array {
		return types.T{}, wrongNested(fn, args)
	}
	return t, nil
}

// arrayUnary: f(array[, extra fixed args]) returning ret(elemType).
func arrayUnary(fn string, ret func(types.T) types.T, extra ...types.T) resolver {
	return func(args []Expr) ([]types.T, types.T, error) {
		at, err := arrayArg(fn, args, 0)
		if err != nil {
			return nil, types.T{}, err
		}
		to := []types.T{at}
		for i := 1; i < len(args); i++ {
			to = append(to, extra[min(i-1, len(extra)-1)])
		}
		return to, ret(at), nil
	}
}

func same(t types.T) types.T   { return t }
func elemOf(t types.T) types.T { return t.Elem() }
func retT(r types.T) func(types.T) types.T {
	return func(types.T) types.T { return r }
}

// arrayElem: f(array, value): value and elements go to their common type.
func arrayElem(fn string, ret func(types.T) types.T) resolver {
	return func(args []Expr) ([]types.T, types.T, error) {
		at, err := arrayArg(fn, args, 0)
		if err != nil {
			return nil, types.T{}, err
		}
		if args[1].Type().IsOpaque() && args[1].Type().Kind != types.Array {
			return nil, types.T{}, wrongNested(fn, args)
		}
		et := AggregateType(at.Elem(), args[1].Type())
		if et.Kind == types.Null {
			et = types.TinyIntT
		}
		return []types.T{types.ArrayOf(et), et}, ret(types.ArrayOf(et)), nil
	}
}

// arraysCommon: f(array, array, ...) over the common element type.
func arraysCommon(fn string, ret func(types.T) types.T) resolver {
	return func(args []Expr) ([]types.T, types.T, error) {
		ts := make([]types.T, len(args))
		for i := range args {
			at, err := arrayArg(fn, args, i)
			if err != nil {
				return nil, types.T{}, err
			}
			ts[i] = at.Elem()
		}
		et := AggregateType(ts...)
		to := make([]types.T, len(args))
		for i := range to {
			to[i] = types.ArrayOf(et)
		}
		return to, ret(types.ArrayOf(et)), nil
	}
}

func arrayCtor(args []Expr) ([]types.T, types.T, error) {
	ts := make([]types.T, len(args))
	for i, a := range args {
		ts[i] = a.Type()
	}
	et := AggregateType(ts...)
	to := make([]types.T, len(args))
	for i := range to {
		to[i] = et
	}
	return to, types.ArrayOf(et), nil
}

func mapCtor(args []Expr) ([]types.T, types.T, error) {
	if len(args)%2 != 0 {
		return nil, types.T{}, sqlerr.Doris.New("map can't be odd parameters, need even parameters")
	}
	var ks, vs []types.T
	for i := 0; i < len(args); i += 2 {
		ks, vs = append(ks, args[i].Type()), append(vs, args[i+1].Type())
	}
	kt, vt := AggregateType(ks...), AggregateType(vs...)
	to := make([]types.T, len(args))
	for i := range to {
		to[i] = kt
		if i%2 == 1 {
			to[i] = vt
		}
	}
	return to, types.MapOf(kt, vt), nil
}

func structCtor(args []Expr) ([]types.T, types.T, error) {
	fs := make([]types.Field, len(args))
	for i, a := range args {
		fs[i] = types.Field{Name: fmt.Sprintf("col%d", i+1), T: a.Type()}
	}
	return keepAll(args), types.StructOf(fs), nil
}

func keepAll(args []Expr) []types.T {
	to := make([]types.T, len(args))
	for i := range to {
		to[i] = keep
	}
	return to
}

// constString reads a constant string argument.
func constString(e Expr) (string, bool) {
	c, ok := e.(*Const)
	if !ok || c.Val.Null || !c.Val.T.IsString() {
		return "", false
	}
	return c.Val.S, true
}

func namedStructCtor(args []Expr) ([]types.T, types.T, error) {
	if len(args) == 0 || len(args)%2 != 0 {
		return nil, types.T{}, sqlerr.Doris.New("named_struct requires an even number of arguments")
	}
	var fs []types.Field
	for i := 0; i < len(args); i += 2 {
		name, ok := constString(args[i])
		if !ok {
			return nil, types.T{}, sqlerr.Doris.New("named_struct only allows constant string parameter in odd position")
		}
		fs = append(fs, types.Field{Name: name, T: args[i+1].Type()})
	}
	return keepAll(args), types.StructOf(fs), nil
}

// elementAt: element_at(array, i) / element_at(map, key); subscripts a[i]
// and m['k'] are rewritten to it.
func elementAt(args []Expr) ([]types.T, types.T, error) {
	t := args[0].Type()
	switch t.Kind {
	case types.Array:
		return []types.T{t, i64}, t.Elem(), nil
	case types.Map:
		k, v := t.MapKV()
		return []types.T{t, k}, v, nil
	case types.Null:
		return []types.T{keep, keep}, types.NullT, nil
	}
	return nil, types.T{}, wrongNested("element_at", args)
}

// StructFieldIndex resolves struct_element's field argument (1-based
// position or name) to a 0-based index.
func StructFieldIndex(t types.T, e Expr) (int, bool) {
	c, ok := e.(*Const)
	if !ok || c.Val.Null {
		return 0, false
	}
	fs := t.Fields()
	if c.Val.T.IsString() {
		for i, f := range fs {
			if strings.EqualFold(f.Name, c.Val.S) {
				return i, true
			}
		}
		return 0, false
	}
	if isIntLike(c.Val.T) && c.Val.I >= 1 && int(c.Val.I) <= len(fs) {
		return int(c.Val.I) - 1, true
	}
	return 0, false
}

func structElement(args []Expr) ([]types.T, types.T, error) {
	t := args[0].Type()
	if t.Kind == types.Null {
		return keepAll(args), types.NullT, nil
	}
	if t.Kind != types.Struct {
		return nil, types.T{}, wrongNested("struct_element", args)
	}
	i, ok := StructFieldIndex(t, args[1])
	if !ok {
		return nil, types.T{}, sqlerr.Doris.New(fmt.Sprintf("the specified field name %s was not found: %s", args[1], t))
	}
	return []types.T{t, keep}, t.Fields()[i].T, nil
}

func sizeFn(args []Expr) ([]types.T, types.T, error) {
	t := args[0].Type()
	if t.Kind != types.Array && t.Kind != types.Map && t.Kind != types.Null {
		return nil, types.T{}, wrongNested("size", args)
	}
	return []types.T{keep}, i64, nil
}

func mapArg(fn string, ret func(k, v types.T) types.T, second int) resolver {
	return func(args []Expr) ([]types.T, types.T, error) {
		t := args[0].Type()
		if t.Kind == types.Null {
			return keepAll(args), ret(types.NullT, types.NullT), nil
		}
		if t.Kind != types.Map {
			return nil, types.T{}, wrongNested(fn, args)
		}
		k, v := t.MapKV()
		to := []types.T{t}
		switch second {
		case 1:
			to = append(to, k)
		case 2:
			to = append(to, v)
		}
		return to, ret(k, v), nil
	}
}

func arraySumType(at types.T) types.T {
	e := at.Elem()
	switch {
	case e.Kind == types.Decimal:
		return types.DecimalT(types.MaxDecimalPrecision, e.Scale)
	case e.Kind == types.LargeInt:
		return types.LargeIntT
	case e.IsInteger() || e.Kind == types.Boolean:
		return i64
	}
	return f64
}

func arrayMinMax(fn string) resolver {
	return func(args []Expr) ([]types.T, types.T, error) {
		at, err := arrayArg(fn, args, 0)
		if err != nil {
			return nil, types.T{}, err
		}
		if at.Elem().IsOpaque() {
			return nil, types.T{}, wrongNested(fn, args)
		}
		return []types.T{at}, at.Elem(), nil
	}
}

func arrayNumeric(fn string, ret func(types.T) types.T) resolver {
	return func(args []Expr) ([]types.T, types.T, error) {
		at, err := arrayArg(fn, args, 0)
		if err != nil {
			return nil, types.T{}, err
		}
		if e := at.Elem(); !(e.IsNumeric() || e.Kind == types.Boolean || e.Kind == types.Null) {
			return nil, types.T{}, wrongNested(fn, args)
		}
		return []types.T{at}, ret(at), nil
	}
}

func arrayWithConstant(args []Expr) ([]types.T, types.T, error) {
	et := args[1].Type()
	if et.Kind == types.Null {
		et = types.TinyIntT
	}
	return []types.T{i64, et}, types.ArrayOf(et), nil
}

var nestedFns = map[string]fnDef{
	"array":               {0, -1, arrayCtor, never},
	"map":                 {0, -1, mapCtor, never},
	"struct":              {1, -1, structCtor, never},
	"named_struct":        {2, -1, namedStructCtor, never},
	"element_at":          {2, 2, elementAt, always},
	"struct_element":      {2, 2, structElement, always},
	"size":                {1, 1, sizeFn, nil},
	"map_size":            {1, 1, mapArg("map_size", func(k, v types.T) types.T { return i64 }, 0), nil},
	"map_keys":            {1, 1, mapArg("map_keys", func(k, v types.T) types.T { return types.ArrayOf(k) }, 0), nil},
	"map_values":          {1, 1, mapArg("map_values", func(k, v types.T) types.T { return types.ArrayOf(v) }, 0), nil},
	"map_contains_key":    {2, 2, mapArg("map_contains_key", func(k, v types.T) types.T { return bl }, 1), nil},
	"map_contains_value":  {2, 2, mapArg("map_contains_value", func(k, v types.T) types.T { return bl }, 2), nil},
	"array_contains":      {2, 2, arrayElem("array_contains", retT(bl)), nil},
	"array_position":      {2, 2, arrayElem("array_position", retT(i64)), nil},
	"array_remove":        {2, 2, arrayElem("array_remove", same), nil},
	"array_pushfront":     {2, 2, arrayElem("array_pushfront", same), nil},
	"array_pushback":      {2, 2, arrayElem("array_pushback", same), nil},
	"array_distinct":      {1, 1, arrayUnary("array_distinct", same), nil},
	"array_sort":          {1, 1, arrayMinMax("array_sort").withRet(same), nil},
	"array_reverse_sort":  {1, 1, arrayMinMax("array_reverse_sort").withRet(same), nil},
	"array_compact":       {1, 1, arrayUnary("array_compact", same), nil},
	"array_popback":       {1, 1, arrayUnary("array_popback", same), nil},
	"array_popfront":      {1, 1, arrayUnary("array_popfront", same), nil},
	"array_slice":         {2, 3, arrayUnary("array_slice", same, i64), always},
	"array_join":          {2, 3, arrayUnary("array_join", retT(str), str), nil},
	"array_min":           {1, 1, arrayMinMax("array_min"), always},
	"array_max":           {1, 1, arrayMinMax("array_max"), always},
	"array_sum":           {1, 1, arrayNumeric("array_sum", arraySumType), always},
	"array_avg":           {1, 1, arrayNumeric("array_avg", retT(f64)), always},
	"array_concat":        {1, -1, arraysCommon("array_concat", same), nil},
	"array_union":         {2, 2, arraysCommon("array_union", same), nil},
	"array_intersect":     {2, 2, arraysCommon("array_intersect", same), nil},
	"array_except":        {2, 2, arraysCommon("array_except", same), nil},
	"arrays_overlap":      {2, 2, arraysCommon("arrays_overlap", retT(bl)), always},
	"array_with_constant": {2, 2, arrayWithConstant, nil},
}

// withRet replaces a resolver's result type by ret(first argument type).
func (r resolver) withRet(ret func(types.T) types.T) resolver {
	return func(args []Expr) ([]types.T, types.T, error) {
		to, _, err := r(args)
		if err != nil {
			return nil, types.T{}, err
		}
		return to, ret(to[0]), nil
	}
}
