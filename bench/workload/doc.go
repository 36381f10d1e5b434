// Package workload holds the SSB and TPC-H schemas (rendered for dorisgo,
// DuckDB and go-mysql-server) and their queries, written once in the SQL
// that all three engines accept (string date literals, year(), substring(s,
// p, n), CTEs instead of views).
package workload
