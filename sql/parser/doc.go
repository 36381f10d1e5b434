// Package parser is the first stage of the SQL pipeline: text in, typed
// statements out.
//
//	server (SQL text) → parser.Parse → []Statement → planner/bind
//
// Input is one or more ';'-separated statements in the MySQL dialect plus
// the Doris extensions of spec/INTERFACE.md. Output is a sealed Statement:
//
//   - *Vitess: a query or DML statement dolthub/vitess parses (SELECT and
//     set operations, INSERT, UPDATE, DELETE; Kind says which) for
//     planner/bind to bind, with the Doris join hints (`JOIN [shuffle] t`,
//     `JOIN /*+ broadcast */ t`), SET_VAR and Spark hints removed from the
//     text before vitess sees it and returned in Hints, join hints keyed by
//     the *sqlparser.JoinTableExpr they belong to. Doris's LEFT|RIGHT
//     SEMI|ANTI JOIN reach vitess with SEMI/ANTI blanked, as LEFT or RIGHT
//     JOIN, and come back with JoinTableExpr.Join set to LeftSemiJoinStr
//     and friends (semijoin.go). GROUP BY ... WITH ROLLUP,
//     CUBE(...) and GROUPING SETS (...) reach vitess rewritten as the calls
//     ROLLUP(...), `CUBE`(...) and GROUPING_SETS(...) (rollup.go).
//   - the other statements vitess parses that the server runs, read out of
//     the vitess tree (classify.go): Use, Set, Show, Prepare, Execute,
//     Deallocate, Kill, DatabaseDDL, DDL (DROP TABLE/VIEW, TRUNCATE, ...)
//     and AlterIndexes; expressions the binder evaluates for them are
//     opaque *Expr values. refs.go reads the tables a *Vitess reads and
//     writes (for the privilege checks), its placeholders and variables.
//   - Doris statements parsed by hand (vitess cannot): CREATE TABLE with
//     keys/partitions/DISTRIBUTED BY/PROPERTIES, ALTER TABLE ... SET (...),
//     ALTER SYSTEM ... BACKEND, SHOW BACKENDS/TABLETS/PARTITIONS/PROC/CREATE
//     TABLE, EXPLAIN [VERBOSE|ANALYZE|(TYPE DISTRIBUTED)], CREATE/DROP USER,
//     SET PASSWORD, GRANT/REVOKE of privileges and roles, CREATE/DROP ROLE,
//     SHOW [ALL] GRANTS, SHOW ROLES (grant.go), the statistics statements
//     ANALYZE TABLE, SHOW COLUMN/TABLE STATS, SHOW ANALYZE and DROP STATS
//     (stats.go), and ADMIN ... (kept as text).
//
// Hints are blanked (overwritten with spaces), never cut out, so every
// offset vitess reports is an offset into the user's text and syntax errors
// quote it as MySQL does (error 1064, "... near '<text>' at line n").
// Only this package and planner/bind import vitess (layers_test.go).
package parser
