// Package eval is the vectorized evaluator of sql/expr trees with MySQL
// semantics, used by execution operators (filter, project, join residuals,
// aggregate inputs).
//
// Input: a bound expr.Expr whose column references index into an Arrow
// record, plus an expr.Context (query start time). Output: one Arrow array
// per expression, of the expression's types.T physical type, or a selection
// (EvalPredicate) that Filter applies to a record. Kernels run column at a
// time over typed slices; constants stay one-row "scalar" arrays that the
// loops broadcast instead of being expanded to the batch length.
package eval
