// Package difftest is a differential test of dorisgo against DuckDB.
//
// Inputs: a seed. Tables returns a small schema laid out in every way
// dorisgo distributes data (a colocate group, other bucket counts, hash
// keys of INT, BIGINT, VARCHAR and DECIMAL, a range-partitioned table);
// Inserts fills it with the same skewed, NULL-bearing, duplicated rows on
// both engines; Generate draws queries (filters, projections, aggregates,
// joins of every kind with and without hints, semi/anti joins, set
// operations, window functions) as two texts, one per dialect, restricted
// to SQL both engines define alike.
//
// Output: difftest_test.go starts a real dorisgo (FE + 3 backends, via
// bench/engine) and an in-memory DuckDB, runs every query (and every hinted
// variant, and the join queries again in a session with bucket shuffle
// disabled) on both and compares the normalized rows (engine.Compare).
//
// Dialects: DuckDB's default NULL order differs from MySQL's, so DuckDB is
// told MySQL's order explicitly (NULLS FIRST ascending, LAST descending).
package difftest
