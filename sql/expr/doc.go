// Package expr is layer 1: bound, typed, serializable scalar expressions.
//
// Input: the binder (planner/bind) builds trees with the constructors here
// (NewCall, NewCast, NewCase, Lit, ColRef). NewCall resolves a function in
// the registry, applies MySQL's implicit conversions by inserting Cast nodes
// and fixes the result type and nullability, so evaluation (sql/eval) never
// has to guess a type. Output: immutable trees that print in Doris EXPLAIN
// style (String) and travel to backends as JSON (Marshal/Unmarshal).
package expr
