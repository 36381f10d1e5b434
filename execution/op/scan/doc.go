// Package scan holds the operators at a tree's ends: the OLAP scan over
// tablet storage and table functions as sources, and the table sink (with
// its row routing to tablets) as the end that writes. Input: storage or
// Arrow record batches. Output: Arrow record batches or tablet writes.
package scan
