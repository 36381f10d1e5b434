package server_test

import "testing"

// delete_p0/test_delete_using.groovy (Apache License 2.0; see the .out's
// header): DELETE ... USING a join on a UNIQUE KEY table (merge-on-write,
// Doris 2.1's default), which Doris runs as a load of delete-sign rows.
//
// Adapted, and why:
//   - DOUBLE values print as MySQL does (2), Doris's .out as Java does
//     (2.0): the test casts c3 to DECIMAL(10,1) to compare the same text.
//   - The suite's second DELETE (the target with an alias, DELETE FROM t
//     t1a USING ...) has no result in the .out: its rows are checked here.
func TestE2EDorisRegressionDeleteUsing(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE regression_delete_using")
	db := openDB(t, s.MySQLAddr(), "regression_delete_using", true)
	out := readDorisOut(t, "test_delete_using.out")
	execAll(t, db,
		"create table test_delete_unique_1 (id int, c1 bigint, c2 string, c3 double, c4 date) unique key (id) distributed by hash(id) properties('replication_num'='1')",
		"create table test_delete_unique_2 (id int, c1 bigint, c2 string, c3 double, c4 date) unique key (id) distributed by hash(id) properties('replication_num'='1')",
		"create table test_delete_unique_3 (id int) distributed by hash (id) properties('replication_num'='1')",
		"create table test_delete_unique_4 (id int) distributed by hash (id) properties('replication_num'='1')",
		"insert into test_delete_unique_1 values(1, 1, '1', 1.0, '2000-01-01'),(2, 2, '2', 2.0, '2000-01-02'),(3, 3, '3', 3.0, '2000-01-03')",
		"insert into test_delete_unique_2 values(1, 10, '10', 10.0, '2000-01-10'),(2, 20, '20', 20.0, '2000-01-20'),(3, 30, '30', 30.0, '2000-01-30'),(4, 4, '4', 4.0, '2000-01-04'),(5, 5, '5', 5.0, '2000-01-05')",
		"insert into test_delete_unique_3 values(1), (4), (5)",
		"insert into test_delete_unique_4 values(2), (4), (5)",
		"DELETE FROM test_delete_unique_1 USING test_delete_unique_2 inner join test_delete_unique_3 on test_delete_unique_2.id = test_delete_unique_3.id where test_delete_unique_1.id = test_delete_unique_2.id")
	runDorisCases(t, db, out, []dorisCase{{name: "complex_delete",
		query: "select id, c1, c2, cast(c3 as decimal(10,1)), c4 from test_delete_unique_1 order by id"}})
	mustExec(t, db, "DELETE FROM test_delete_unique_1 t1a USING test_delete_unique_2 inner join test_delete_unique_4 on test_delete_unique_2.id = test_delete_unique_4.id where t1a.id = test_delete_unique_2.id")
	wantJoined(t, queryStrings(t, db, "select id, c2 from test_delete_unique_1 order by id"), "3,3")
}
