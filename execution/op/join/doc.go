// Package join holds the join operators: hash join (with its spilling
// grace mode and a build side shared by pipeline tasks), sort-merge join,
// nested-loop join, and the runtime filters a hash join publishes to scans.
// Input: two streams of Arrow record batches. Output: Arrow record batches.
package join
