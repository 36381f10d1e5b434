// Package explain prints a distributed plan. Each operator explains itself
// through one Writer (its label and attribute lines, verbose-only lines via
// VAttr); one printer draws fragments, sinks and Doris `|` rails at every
// level (DORIS-PLANNING.md §3), so plain and VERBOSE output share one code
// path. Input: Fragments whose nodes implement Node (planner/physical builds
// them from the plan that would run). Output: lines, one per result row of
// EXPLAIN. Trino draws EXPLAIN (TYPE DISTRIBUTED) (§4) from TrinoFragments
// with its own box-drawing rails.
package explain
