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
// suite so that the list of failing records can only shrink: a file's
// subtest fails on a failure not listed and on a listed record of that file
// that ran and passed (a stale entry); records left out by the budget are
// neither. Entries of files not in baseline.list fail the test whatever
// set runs.
//
// Test entry (slt_test.go): go test ./server/slt -run TestSLT [flags]
//
//	-slt.set=short|all|quick|none   files from testdata/baseline.list (env SLT_SET);
//	                                default short (select1-5, evidence, index/view, index/delete but 1000), quick under -race/-short;
//	-slt.set=index/,random/groupby  or comma-separated path prefixes, to run the corpus in parts
//	-slt.file=test/select1.test     one file
//	-slt.v                          log every failure
//	-slt.timeout=5s -slt.budget=2m  per record / per file (records past the budget are not run)
//	-update-known                   rewrite the entries of the files that ran in
//	                                testdata/known_failures.txt (reasons of entries that
//	                                still fail are kept)
package slt
