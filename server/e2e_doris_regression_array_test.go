package server_test

// Array function cases ported from Apache Doris's regression suites
// query_p0/sql_functions/array_functions (Apache License 2.0; see each
// .out's header for the suite path and commit), run as the suites in
// e2e_doris_regression_functions_test.go are (runFuncCases).

import "testing"

// test_array_avg_integer_sum.groovy: array_avg sums integers exactly (as
// avg does), so BIGINT and LARGEINT extremes cancel out, over literals and
// over ARRAY<BIGINT> / ARRAY<LARGEINT> columns with NULL elements, empty
// arrays and NULL arrays.
//
// Adapted, and why:
//   - same_as_avg_bigint / same_as_avg_largeint (2 cases) are not run: they
//     read the arrays through LATERAL VIEW explode, which dorisgo refuses
//     (1235).
func TestE2EDorisRegressionArrayAvgIntegerSum(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE d")
	db := openDB(t, s.MySQLAddr(), "d", true)
	const noExplode = "LATERAL VIEW explode is not supported (1235)"
	execAll(t, db,
		`DROP TABLE IF EXISTS test_array_avg_integer_sum`,
		`CREATE TABLE test_array_avg_integer_sum (
            id INT,
            b ARRAY<BIGINT>,
            l ARRAY<LARGEINT>
        ) DUPLICATE KEY(id)
        DISTRIBUTED BY HASH(id) BUCKETS 1
        PROPERTIES ("replication_num" = "1")`,
		`INSERT INTO test_array_avg_integer_sum VALUES
            (1, array(9223372036854775807, 1, -9223372036854775807),
                array(170141183460469231731687303715884105727, 1,
                      -170141183460469231731687303715884105727)),
            (2, array(9223372036854775807, NULL, 1, -9223372036854775807),
                array(170141183460469231731687303715884105727, NULL, 1,
                      -170141183460469231731687303715884105727)),
            (3, array(1, 2, 3), array(1, 2, 4)),
            (4, array(), array()),
            (5, NULL, NULL)`)
	runFuncCases(t, db, readDorisOut(t, "test_array_avg_integer_sum.out"), []funcCase{
		{"const", `SELECT array_avg(array(9223372036854775807, 1, -9223372036854775807)),
               array_avg(array(170141183460469231731687303715884105727, 1,
                               -170141183460469231731687303715884105727))`, false, ""},
		{"column", `SELECT id, array_avg(b), array_avg(l) FROM test_array_avg_integer_sum`, false, ""},
		{"same_as_avg_bigint", `SELECT id, avg(x) FROM test_array_avg_integer_sum LATERAL VIEW explode(b) t AS x GROUP BY id`, false, noExplode},
		{"same_as_avg_largeint", `SELECT id, avg(x) FROM test_array_avg_integer_sum LATERAL VIEW explode(l) t AS x GROUP BY id`, false, noExplode},
	})
	// The refusal the skipped cases meet is the clear one.
	_, err := queryStringsErr(db, `SELECT id, avg(x) FROM test_array_avg_integer_sum LATERAL VIEW explode(b) t AS x GROUP BY id`)
	wantCode(t, err, 1235, "LATERAL VIEW explode")
}

// test_element_at_null_container.groovy: element_at of a bare NULL
// container (no array/map type) is NULL, for an integer index, a string
// key, a NULL index and per row of numbers().
//
// Adapted, and why:
//   - set debug_skip_fold_constant = true/false is dropped (a Doris planner
//     debug knob); the folded and the row-wise paths are both exercised by
//     the constant and the numbers() cases.
func TestE2EDorisRegressionElementAtNullContainer(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", true)
	runFuncCases(t, db, readDorisOut(t, "test_element_at_null_container.out"), []funcCase{
		{"null_container_int_index", "select element_at(NULL, 1)", false, ""},
		{"null_container_string_key", "select element_at(NULL, 'k')", false, ""},
		{"null_container_null_index", "select element_at(NULL, NULL)", false, ""},
		{"null_container_from_rows", "select element_at(NULL, number) from numbers('number' = '3') order by number", false, ""},
		{"null_container_folded", "select element_at(NULL, 1)", false, ""},
	})
}
