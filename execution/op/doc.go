// Package op holds the vectorized operators of dorisgo's execution stage.
// Input: a plan fragment's nodes (planner/fragment), built into a tree of
// Operators by Build. Output: a stream of Arrow record batches.
//
// Operators are pull-based iterators over Arrow record batches: Next
// returns the next batch (the caller owns it and must Release it) or io.EOF.
// Nothing here works row at a time; only operators that must (a hash join's
// build side, a sort) hold more than one batch.
package op
