// Package sorting holds the ORDER BY operators: a full Sort and a TopN.
// Input: Arrow record batches. Output: the same rows in key order.
package sorting
