// Package gen generates the SSB and TPC-H tables as '|'-separated CSV (dbgen's
// layout without the trailing separator), deterministically from a seed.
//
// Input: a scale factor, a seed and an output directory. Output: one file per
// table. Every table is cut into fixed-size chunks, each with its own RNG
// seeded from (seed, table, chunk), so the bytes do not depend on how many
// goroutines generate them; chunks are written back in order.
package gen
