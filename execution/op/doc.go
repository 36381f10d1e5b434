// Package op is the core of dorisgo's vectorized operators (execution
// stage): the Operator interface, the batch, key-encoding and memory
// helpers every operator family shares, and the simple row-wise operators
// (filter, project, limit, values). Input: Arrow record batches. Output:
// Arrow record batches.
//
// Operators are pull-based iterators over Arrow record batches: Next
// returns the next batch (the caller owns it and must Release it) or io.EOF.
// Nothing here works row at a time; only operators that must (a hash join's
// build side, a sort) hold more than one batch.
//
// The families live in sub-packages that import only this core, never one
// another: aggregate, join, sorting, exchange and scan. build turns a plan
// fragment's nodes (planner/fragment) into a tree of them.
package op
