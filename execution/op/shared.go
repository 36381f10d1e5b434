package op

import (
	"fmt"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/dorisgo/dorisgo/sql/eval"
	"github.com/dorisgo/dorisgo/sql/expr"
)

// SharedExprs evaluates a list of expressions over one input, computing a
// subexpression that occurs more than once in the list once per batch
// (common subexpression elimination): TPC-H Q1's aggregates read
// l_extendedprice * (1 - l_discount) twice. The shared values are evaluated
// in order, each over the input's columns and those before it, and the
// expressions read them as extra columns after the input's.
type SharedExprs struct {
	width  int         // input columns
	common []expr.Expr // common[i] over input ++ common[:i]
	exprs  []expr.Expr // over input ++ common
}

// NewSharedExprs plans exprs, which read an input of width columns.
// Subexpressions under CASE, IF-like functions and AND/OR are not shared:
// they may be evaluated only for some rows, and evaluating them for all
// could add warnings. Nor are volatile ones (rand, uuid).
func NewSharedExprs(exprs []expr.Expr, width int) *SharedExprs {
	s := &SharedExprs{width: width, exprs: exprs}
	nodes := 0
	for _, e := range exprs {
		expr.Walk(e, func(expr.Expr) bool { nodes++; return nodes <= maxSharedNodes })
	}
	if nodes > maxSharedNodes {
		// Each subexpression is keyed by its encoding, which holds its
		// children's: quadratic in the depth of a deep chain.
		return s
	}
	count := map[string]int{}
	keys := map[expr.Expr]string{}
	var visit func(e expr.Expr)
	visit = func(e expr.Expr) {
		switch x := e.(type) {
		case *expr.Call:
			if !shareable(x) || expr.Volatile(x) {
				return
			}
		case *expr.Cast:
		default:
			return // columns, constants, CASE
		}
		k, err := expr.AppendBinary(nil, e)
		if err != nil {
			return
		}
		keys[e] = string(k)
		count[string(k)]++
		for _, c := range e.Children() {
			visit(c)
		}
	}
	for _, e := range exprs {
		visit(e)
	}
	// Shorter encodings first: a subexpression before anything holding it.
	var cands []string
	for k, n := range count {
		if n > 1 {
			cands = append(cands, k)
		}
	}
	if len(cands) == 0 {
		return s
	}
	slices.SortFunc(cands, func(a, b string) int {
		if len(a) != len(b) {
			return len(a) - len(b)
		}
		return strings.Compare(a, b)
	})
	first := map[string]expr.Expr{} // an occurrence of each candidate
	for e, k := range keys {
		if _, ok := first[k]; !ok && count[k] > 1 {
			first[k] = e
		}
	}
	col := map[string]*expr.ColRef{}
	replace := func(e expr.Expr, self string) expr.Expr {
		// Top down: the outermost shared subexpression is replaced, what
		// it holds then is not visited.
		take := map[expr.Expr]*expr.ColRef{}
		var mark func(x expr.Expr)
		mark = func(x expr.Expr) {
			if k, ok := keys[x]; ok && k != self {
				if c := col[k]; c != nil {
					take[x] = c
					return
				}
			}
			for _, ch := range x.Children() {
				mark(ch)
			}
		}
		mark(e)
		if len(take) == 0 {
			return e
		}
		out, err := expr.Rewrite(e, func(x expr.Expr) (expr.Expr, error) {
			if c := take[x]; c != nil {
				return c, nil
			}
			return x, nil
		})
		if err != nil {
			return e
		}
		return out
	}
	for _, k := range cands {
		e := first[k]
		s.common = append(s.common, replace(e, k))
		col[k] = &expr.ColRef{Index: width + len(s.common) - 1, Name: fmt.Sprintf("shared%d", len(s.common)-1), T: e.Type(), Null: e.Nullable()}
	}
	s.exprs = make([]expr.Expr, len(exprs))
	for i, e := range exprs {
		s.exprs[i] = replace(e, "")
	}
	return s
}

// maxSharedNodes bounds the expressions NewSharedExprs looks into.
const maxSharedNodes = 512

// shareable: the call evaluates every argument for every row and gives
// the same value each time.
func shareable(c *expr.Call) bool {
	switch c.Fn {
	case "and", "or", "if", "ifnull", "nullif", "coalesce", "nvl":
		return false
	}
	return true
}

// Shared is how many subexpressions are computed once for all.
func (s *SharedExprs) Shared() int { return len(s.common) }

// Eval evaluates the expressions over rec (the caller releases the result).
func (s *SharedExprs) Eval(env *Env, rec arrow.Record) ([]arrow.Array, error) {
	if len(s.common) == 0 {
		return EvalCols(env, s.exprs, rec)
	}
	cols := append(make([]arrow.Array, 0, s.width+len(s.common)), rec.Columns()[:s.width]...)
	fields := append(make([]arrow.Field, 0, cap(cols)), rec.Schema().Fields()[:s.width]...)
	rows := rec.NumRows()
	var made []arrow.Array
	defer func() { ReleaseAll(made) }()
	with := func() arrow.Record { return array.NewRecord(arrow.NewSchema(fields, nil), cols, rows) }
	for i, c := range s.common {
		ext := with()
		a, err := eval.Eval(env.Eval, c, ext, env.Mem)
		ext.Release()
		if err != nil {
			return nil, err
		}
		made = append(made, a)
		cols = append(cols, a)
		fields = append(fields, arrow.Field{Name: fmt.Sprintf("shared%d", i), Type: a.DataType(), Nullable: true})
	}
	ext := with()
	defer ext.Release()
	return EvalCols(env, s.exprs, ext)
}
