// Package optest holds the helpers the operator packages' tests share:
// sources of prepared batches, row formatting and comparison, a checked
// allocator. Tests only.
package optest
