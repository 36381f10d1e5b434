package server_test

import "testing"

// SET GLOBAL is persisted, as in Doris: a restarted frontend keeps it,
// and a new session starts from it.
func TestE2ESetGlobalSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	db := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, db, "SET GLOBAL query_timeout = 123")
	mustExec(t, db, "SET GLOBAL enable_bucket_shuffle_join = false")
	db.Close()
	s.Close()
	s = startServer(t, dir)
	defer s.Close()
	db = openDB(t, s.MySQLAddr(), "", true)
	got := queryStrings(t, db, "SELECT @@global.query_timeout, @@query_timeout, @@enable_bucket_shuffle_join")
	if got[0][0] != "123" || got[0][1] != "123" || got[0][2] != "false" {
		t.Fatalf("after a restart: %v, want 123 123 false", got)
	}
}
