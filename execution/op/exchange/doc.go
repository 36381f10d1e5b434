// Package exchange holds what moves batches between operator trees: the
// inbox and outlets of a fragment exchange, the local exchange between
// pipeline tasks, and the merge of sorted streams. Input and output: Arrow
// record batches.
package exchange
