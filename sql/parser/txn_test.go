package parser

import (
	"testing"

	"github.com/dolthub/vitess/go/vt/sqlparser"
)

func TestTxnStatements(t *testing.T) {
	for _, tc := range []struct {
		sql         string
		op          TxnOp
		label       string
		unsupported string
	}{
		{"BEGIN", TxnBegin, "", ""},
		{"begin work", TxnBegin, "", ""},
		{"BEGIN WITH LABEL load_1", TxnBegin, "load_1", ""},
		{"BEGIN WITH LABEL `a-b`", TxnBegin, "a-b", ""},
		{"START TRANSACTION", TxnBegin, "", ""},
		{"START TRANSACTION READ ONLY", TxnBegin, "", "START TRANSACTION READ ONLY"},
		{"COMMIT", TxnCommit, "", ""},
		{"COMMIT WORK", TxnCommit, "", ""},
		{"COMMIT AND CHAIN", TxnCommit, "", "COMMIT AND CHAIN"},
		{"ROLLBACK", TxnRollback, "", ""},
		{"ROLLBACK TO SAVEPOINT s", TxnRollback, "", "ROLLBACK TO SAVEPOINT s"},
		{"SAVEPOINT s", TxnBegin, "", "SAVEPOINT s"},
	} {
		st, err := ParseOne(tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		x, ok := st.(*TxnStmt)
		if !ok {
			t.Errorf("%s: %T, want *TxnStmt", tc.sql, st)
			continue
		}
		if x.Unsupported != tc.unsupported || x.Unsupported == "" && (x.Op != tc.op || x.Label != tc.label) {
			t.Errorf("%s: %+v, want op %d label %q unsupported %q", tc.sql, x, tc.op, tc.label, tc.unsupported)
		}
	}
	for _, bad := range []string{"BEGIN WITH", "BEGIN WITH LABEL", "START", "COMMIT 5"} {
		if st, err := ParseOne(bad); err == nil {
			if x, ok := st.(*TxnStmt); !ok || x.Unsupported == "" {
				t.Errorf("%s: parsed as %#v, want a syntax error", bad, st)
			}
		}
	}
}

// INSERT … WITH LABEL: the label is taken off and the rest parsed as usual.
func TestInsertWithLabel(t *testing.T) {
	for _, tc := range []struct{ sql, label, table string }{
		{"INSERT INTO t WITH LABEL l1 VALUES (1)", "l1", "t"},
		{"INSERT INTO db.t WITH LABEL `x y` (a, b) SELECT 1, 2", "x y", "t"},
		{"INSERT INTO t PARTITION (p1) WITH LABEL l2 SELECT * FROM s", "l2", "t"},
		{"INSERT INTO t (a) WITH cte AS (SELECT 1) SELECT * FROM cte", "", "t"},
		{"INSERT INTO t VALUES ('WITH LABEL x')", "", "t"},
	} {
		st, err := ParseOne(tc.sql)
		if err != nil {
			t.Errorf("%s: %v", tc.sql, err)
			continue
		}
		v := st.(*Vitess)
		ins, ok := v.AST.(*sqlparser.Insert)
		if !ok || v.Label != tc.label || ins.Table.Name.String() != tc.table {
			t.Errorf("%s: label %q table %v, want %q %q", tc.sql, v.Label, ins, tc.label, tc.table)
		}
	}
}
