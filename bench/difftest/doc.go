// Package difftest is a differential test of dorisgo against DuckDB, with a
// second oracle that needs no DuckDB.
//
// Inputs: a seed. Tables returns a small schema laid out in every way
// dorisgo distributes data (a colocate group, other bucket counts, hash
// keys of INT, BIGINT, VARCHAR and DECIMAL, a range-partitioned table);
// Inserts fills it with the same skewed, NULL-bearing, duplicated rows on
// both engines, whose values overlap across types (INT k meets BIGINT b,
// DOUBLE f, DECIMAL m and n; f holds -0.0 and 0.0). Generate draws queries
// as two texts, one per dialect, restricted to SQL both engines define
// alike: filters, projections, aggregates; INNER/LEFT/RIGHT/FULL joins on
// equalities of the same or mixed types, expressions, null-safe <=>, with
// extra non-equi or one-side conditions, non-equi only, OR, constant ON;
// three-table chains on mixed-type keys; aggregates, window functions and
// DISTINCT above outer joins and over derived outer joins; IN/EXISTS
// subqueries and Doris's LEFT/RIGHT SEMI/ANTI JOIN (DuckDB gets [NOT]
// EXISTS); set operations; window functions. Every query is tagged with
// its shape classes (allClasses); TestCoverage checks that the default run
// generates each one.
//
// Oracles: difftest_test.go starts a real dorisgo (via bench/engine) and an
// in-memory DuckDB, runs every query on both and compares the normalized
// rows (engine.Compare). Each query also has variants that must return the
// same rows: join hints ([shuffle], [broadcast], [bucket], [colocate],
// /*+ shuffle */, Spark's BROADCAST, SHUFFLE_REPLICATE_NL, SHUFFLE_HASH,
// MERGE) and sessions (sessionVars: bucket shuffle, join reorder, colocate
// plans, runtime filters and local shuffle off, shuffle preferred,
// parallel_pipeline_task_num 1 and 4); a third of them run, in rotation.
// Ternary logic partitioning (TLP, after SQLancer) checks dorisgo against
// itself: a query's rows must be the UNION ALL of the query WHERE p, WHERE
// NOT p and WHERE p IS NULL (aggregates re-aggregated: COUNT and SUM by
// SUM, MIN by MIN, MAX by MAX), with p mostly over the NULL-extended side
// of an outer join. -difftest.duckdb=false runs only dorisgo's self-checks.
//
// Deployments: the default run is 3 embedded backends, then a quarter of
// the queries on 1 backend and on a cluster (FE plus 3 BE processes).
// A query that kills dorisgo restarts it (the data reloaded) and the run
// goes on.
//
// Dialects: DuckDB's default NULL order differs from MySQL's, so DuckDB is
// told MySQL's order explicitly (NULLS FIRST ascending, LAST descending).
//
// Runs (from bench/; build dorisgo once and pass it to skip the build):
//
//	(cd .. && go build -o /tmp/dg-bin/dorisgo ./cmd/dorisgo)
//	go test -count=1 ./difftest/ -difftest.dorisgo=/tmp/dg-bin/dorisgo
//
// The long run (every mode, four seeds, every failure as a JSON line):
//
//	go test -count=1 -timeout 6h -run TestDifferential ./difftest/ -difftest.dorisgo=/tmp/dg-bin/dorisgo \
//	    -difftest.queries=20000 -difftest.seeds=1,2,3,4 -difftest.failures=/tmp/difftest-failures.jsonl
//
// Add -difftest.all to run every variant of every query, -difftest.modes=3be
// to run one deployment, -difftest.dump=/tmp/q to write the setup and the
// queries (with their TLP texts) as SQL for the mariadb client.
//
// TestRegressions (regress_test.go) replays the minimal repros of the
// failures found (FINDINGS.md), each against literal expected rows.
package difftest
