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
//
// Kernels by family: MySQL's core in arith, compare, cond, mathfn, strfn
// and datefn; the Doris library in strlib (regexp, split_part, hashes),
// urlfn, jsonfn (JSON as text, paths through gjson), datelib (date_trunc,
// unit arithmetic, MySQL week numbering, time zones) and mathlib. Time
// zones come from the embedded tz database (tz.go); the session zone
// reaches a kernel as a constant argument the binder adds (from_unixtime_tz,
// unix_timestamp_tz), never through state on the backend.
package eval
