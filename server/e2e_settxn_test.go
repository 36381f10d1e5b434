package server_test

import (
	"context"
	"testing"
)

// TestE2ESetTransaction: SET … TRANSACTION ISOLATION LEVEL is kept where
// clients read it (session and global), without a scope changes no
// variable (MySQL: the next transaction only), and READ ONLY, which would
// have to refuse writes, is refused by name.
func TestE2ESetTransaction(t *testing.T) {
	s := newServer(t)
	db := openDB(t, s.MySQLAddr(), "", false)
	c, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	read := func() (string, string) {
		var a, b string
		if err := c.QueryRowContext(context.Background(), "SELECT @@transaction_isolation, @@tx_isolation").Scan(&a, &b); err != nil {
			t.Fatal(err)
		}
		return a, b
	}
	mustExec(t, c, "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
	if a, b := read(); a != "REPEATABLE-READ" || b != "REPEATABLE-READ" {
		t.Errorf("after SET TRANSACTION without scope: %s %s, want the default", a, b)
	}
	mustExec(t, c, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED")
	if a, b := read(); a != "READ-COMMITTED" || b != "READ-COMMITTED" {
		t.Errorf("after SET SESSION TRANSACTION: %s %s", a, b)
	}
	mustExec(t, c, "SET GLOBAL TRANSACTION ISOLATION LEVEL READ UNCOMMITTED")
	var g string
	if err := db.QueryRow("SELECT @@global.transaction_isolation").Scan(&g); err != nil || g != "READ-UNCOMMITTED" {
		t.Errorf("global level = %q, %v", g, err)
	}
	mustExec(t, c, "SET TRANSACTION READ WRITE")
	_, err = c.ExecContext(context.Background(), "SET SESSION TRANSACTION READ ONLY")
	if errCode(err) != 1235 {
		t.Errorf("READ ONLY: %v, want 1235", err)
	}
	// SET GLOBAL sets this session's value too, as every SET GLOBAL here.
	if a, _ := read(); a != "READ-UNCOMMITTED" {
		t.Errorf("the connection lost its level after the refusal: %s", a)
	}
}
