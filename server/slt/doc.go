// Package slt runs sqllogictest scripts (SQLite's public-domain corpus
// format) against a MySQL-protocol server through database/sql.
//
// Stage: test harness, outside the query path. Input: .test files (parsed by
// Parse into Records) and a *sql.DB connected to dorisgo. Output: a Result
// per file with pass/fail/skip counts and one Failure per failing record.
//
// Each file runs on one pinned connection in a fresh database
// (slt_<n>, dropped afterwards), as engine "mysql" for skipif/onlyif.
// Values are formatted the way the reference runner does (see format.go) so
// that expected results and "N values hashing to <md5>" lines compare
// byte for byte. known.go holds the known-failures list used by the test
// suite so that the list of failing records can only shrink.
package slt
