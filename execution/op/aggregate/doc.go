// Package aggregate holds the operators that fold rows into groups: hash
// aggregation and its functions, GROUPING SETS (Repeat), set operations and
// DISTINCT over the group table, window functions, and the column
// statistics collector. Input: Arrow record batches. Output: Arrow record
// batches.
package aggregate
