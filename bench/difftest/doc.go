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
// Functions (funcs.go): every scalar and aggregate function of dorisgo's
// registry (sql/expr: registry.go, library.go, objfn.go, agg.go) that
// DuckDB defines alike is called inside the generated expressions, with
// columns, nested expressions, constants and NULL as arguments, and
// funcQuery calls them in turn so that a default run calls every one.
// Where DuckDB spells a function differently or differs in an edge the
// call maps it (percentile → quantile_cont, stddev → stddev_pop, MySQL's
// one-argument LOG → ln, GREATEST's NULL, DAYOFWEEK's base, WEEK(d, 3) →
// week, TIMESTAMPDIFF → date_sub, corr's 0 where DuckDB has NaN, …).
// Statistics are doubles, compared within the tolerance and never ordered
// on; ndv/approx_count_distinct and percentile_approx are approximate:
// the query checks them against the exact answer (within 2 + 5%, within
// [MIN, MAX]) and compares the verdict. TestFunctionTable reads the
// registry's source and fails on a function in neither list below (or in
// funcs.go's tables and not here), and on a covered one the default run
// does not generate.
//
// Generated (syntax: through the operator or keyword the base generator
// writes):
//
//	syntax: %, abs, add, and, avg, between, coalesce, concat, count, datediff, day, div, divide, eq,
//	    ge, gt, in, is_not_null, is_null, last_day, le, left, length, like, lower, lpad, lt, max,
//	    min, mod, month, multiply, ne, negate, not, not_in, not_like, null_safe_eq, nullif, or,
//	    quarter, replace, reverse, right, substring, subtract, sum, trim, upper, year
//	scalar: acos, adddate, ascii, asin, atan, atan2, bin, bitand, bitnot, bitor, bitxor, cbrt, ceil,
//	    ceiling, char, char_length, character_length, concat_ws, cos, cot, curdate, current_date,
//	    date, date_add, date_format, date_sub, date_trunc, dayname, dayofmonth, dayofweek, dayofyear,
//	    days_add, days_diff, days_sub, degrees, e, elt, ends_with, exp, field, find_in_set, floor,
//	    fmod, from_base64, from_days, from_unixtime, get_json_bigint, get_json_double, get_json_int,
//	    get_json_string, greatest, hex, hour, hours_add, hours_diff, hours_sub, if, ifnull, instr,
//	    int_divide, is_false, is_true, json_array, json_contains, json_exists_path, json_extract,
//	    json_extract_string, json_length, json_object, json_quote, json_unquote, json_valid, lcase,
//	    least, ln, locate, log, log10, log2, ltrim, makedate, md5, microsecond, mid, minute,
//	    minutes_add, minutes_diff, minutes_sub, mod, monthname, months_add, months_diff, months_sub,
//	    negative, next_day, not_null_or_empty, null_or_empty, nullif, nvl, pi, pmod, positive, pow,
//	    power, radians, regexp, regexp_extract, regexp_replace, regexp_replace_one, repeat, round,
//	    rpad, rtrim, second, seconds_add, seconds_diff, seconds_sub, sha, sha1, sha2, shift_left,
//	    shift_right, sign, sin, space, split_part, sqrt, starts_with, str_to_date, strcmp, subdate,
//	    substr, tan, timestampadd, timestampdiff, to_base64, to_date, to_days, to_monday, trim,
//	    truncate, ucase, unhex, unix_timestamp, week, weekday, weekofyear, weeks_add, weeks_diff,
//	    weeks_sub, xor, years_add, years_diff, years_sub, yearweek
//	aggregate: approx_count_distinct, corr, covar, covar_pop, covar_samp, group_bit_and,
//	    group_bit_or, group_bit_xor, group_concat, max_by, median, min_by, ndv, percentile,
//	    percentile_approx, std, stddev, stddev_pop, stddev_samp, var_pop, var_samp, variance,
//	    variance_pop, variance_samp
//
// Left out, with the reason:
//
//   - BITMAP: no DuckDB counterpart: bitmap_and, bitmap_and_count, bitmap_contains, bitmap_count,
//     bitmap_empty, bitmap_from_string, bitmap_hash, bitmap_intersect, bitmap_max, bitmap_min,
//     bitmap_not, bitmap_or, bitmap_or_count, bitmap_to_string, bitmap_union, bitmap_union_count,
//     bitmap_union_int, bitmap_xor, group_bitmap_xor, intersect_count, to_bitmap
//   - Doris renders the matches as text ['a','b']; DuckDB returns a LIST: regexp_extract_all
//   - Doris's JSON-looking text: count_by_enum
//   - Doris's JSON-looking text of the counts; ties ordered arbitrarily: topn
//   - Doris's period origin (0001-01-01) differs from DuckDB's time_bucket origin: date_ceil,
//     date_floor
//   - HLL: no DuckDB counterpart: hll_cardinality, hll_empty, hll_hash, hll_raw_agg, hll_union,
//     hll_union_agg
//   - MySQL's JSON text rendering (spaces) differs from DuckDB's: json_keys
//   - a TIME text; DuckDB returns an INTERVAL: timediff
//   - an ARRAY in an undefined order: array_agg, collect_list, collect_set
//   - Doris's JSON text of equi-height buckets (checked by the server's golden file): histogram,
//     and its alias hist
//   - ARRAY/MAP/STRUCT: the generator has no nested values; checked by
//     server/testdata/functions/nested.test and the ported Doris array suite: array,
//     array_append, array_avg, array_cat, array_compact, array_concat, array_contains,
//     array_distinct, array_except, array_intersect, array_join, array_max, array_min,
//     array_pop_back, array_pop_front, array_popback, array_popfront, array_position,
//     array_push_back, array_push_front, array_pushback, array_pushfront, array_remove,
//     array_reverse_sort, array_size, array_slice, array_sort, array_sum, array_union,
//     array_with_constant, arrays_overlap, cardinality, element_at, map, map_contains_key,
//     map_contains_value, map_keys, map_size, map_values, named_struct, size, struct,
//     struct_element
//   - needs DuckDB's ICU time zones; zone semantics checked by the server's tests: convert_tz
//   - no DuckDB counterpart: crc32, oct, substring_index
//   - Doris-only or Doris's spellings, checked by the ported Doris suite test_string_function or
//     generated under their other name: append_trailing_char_if_absent, bit_length,
//     is_not_null_pred, is_null_pred, money_format, strleft, strright
//   - no DuckDB counterpart (URL functions): domain, domain_without_www, extract_url_parameter,
//     parse_url, protocol
//   - no DuckDB counterpart (base conversion): conv
//   - nondeterministic: current_time, current_timestamp, curtime, localtime, localtimestamp, rand,
//     random, sysdate, utc_timestamp
//   - nondeterministic (the current time): now
//   - nondeterministic: any row of the group: any, any_value
//   - type names differ (MySQL INTEGER/STRING, DuckDB BIGINT/VARCHAR): json_type
//
// Writes (dml.go, run_dml_test.go): four more tables, tm (DUPLICATE,
// hashed on k), tn (DUPLICATE, range-partitioned on d), tu (UNIQUE KEY
// id) and tw (UNIQUE KEY id, k; DuckDB: the same PRIMARY KEY), each
// loaded with 120 rows and then changed by a seeded sequence of
// statements: DELETE … WHERE <generated condition> on the DUPLICATE ones
// (Doris's delete predicates: any deterministic condition), UPDATE … SET
// <value columns> = <expressions over the old row> WHERE <condition> and
// DELETE on key columns (=, IN, BETWEEN, ranges, NOT IN) on the UNIQUE
// ones, and INSERTs in between (on UNIQUE tables replacing keys already
// there; DuckDB: INSERT OR REPLACE). After each statement the table's
// contents and two generated queries over it (a select, an aggregate, a
// join with ta) must agree. A failure stops that table and prints its
// minimal reproduction: the steps and first rows are dropped greedily,
// replaying on fresh copies of the table on both engines, while the
// engines still disagree (at most 40 replays), leaving the DDL, the rows,
// the statements and the query.
//
// Views (view.go): five views over an aggregate, a join, a joined
// aggregate, expressions and a UNION ALL, created on both engines, then
// queries reading them: alone, aggregated, joined with tables (with every
// join hint and session), joined with each other and in IN subqueries.
//
// Oracles: difftest_test.go starts a real dorisgo (via bench/engine) and an
// in-memory DuckDB, runs every query on both and compares the normalized
// rows (engine.Compare). Each query also has variants that must return the
// same rows: join hints ([shuffle], [broadcast], [bucket], [colocate],
// /*+ shuffle */, Spark's BROADCAST, SHUFFLE_REPLICATE_NL, SHUFFLE_HASH,
// MERGE) and sessions (sessionVars: bucket shuffle, join reorder, colocate
// plans, runtime filters and local shuffle off, shuffle preferred,
// adaptive joins off, a broadcast row limit of 40 that plans more shuffles
// and settles them both ways at run time, parallel_pipeline_task_num 1 and
// 4); a third of them run, in rotation.
// Ternary logic partitioning (TLP, after SQLancer) checks dorisgo against
// itself: a query's rows must be the UNION ALL of the query WHERE p, WHERE
// NOT p and WHERE p IS NULL (aggregates re-aggregated: COUNT and SUM by
// SUM, MIN by MIN, MAX by MAX), with p mostly over the NULL-extended side
// of an outer join. -difftest.duckdb=false runs only dorisgo's self-checks.
//
// Deployments: the default run is 3 embedded backends, then a quarter of
// the queries on 1 backend and on a cluster (FE plus 3 BE processes).
// The cluster's tables are analyzed after the load (ANALYZE TABLE … WITH
// SYNC), so its plans come from statistics (join order from NDVs, bushy
// joins, selectivities), the others' from the default estimates.
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
// -difftest.mutations (steps per mutated table, default 30) and
// -difftest.viewqueries (default 150) size the write path and view phases;
// the 1be and cluster modes run a quarter of them too.
//
// Add -difftest.all to run every variant of every query, -difftest.modes=3be
// to run one deployment, -difftest.dump=/tmp/q to write the setup and the
// queries (with their TLP texts, the mutation scripts and the views) as SQL
// for the mariadb client.
//
// TestRegressions (regress_test.go) replays the minimal repros of the
// failures found (FINDINGS.md), each against literal expected rows.
package difftest
