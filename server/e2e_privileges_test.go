package server_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/dorisgo/dorisgo/server"
)

// Doris's privilege model end to end: accounts with different grants run
// every statement kind and call every HTTP endpoint, and each gets the
// MySQL code (with Doris's message) or the HTTP status its grants call for
// — on a fresh server, after a restart and after kill -9.

// privSetup is run once by root: databases, tables, and one account per
// kind of grant. Every account's password is "pw".
var privSetup = []string{
	"CREATE DATABASE pdb",
	"CREATE DATABASE pdb2",
	`CREATE TABLE pdb.t (id INT NOT NULL, v INT) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ("replication_num" = "1")`,
	`CREATE TABLE pdb.t2 (id INT NOT NULL, v INT) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ("replication_num" = "1")`,
	`CREATE TABLE pdb.scratch (id INT NOT NULL, v INT) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ("replication_num" = "1")`,
	`CREATE TABLE pdb.cg (id INT NOT NULL, v INT) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ("replication_num" = "1", "colocate_with" = "g")`,
	`CREATE TABLE pdb2.x (id INT NOT NULL, v INT) DISTRIBUTED BY HASH(id) BUCKETS 2 PROPERTIES ("replication_num" = "1")`,
	"INSERT INTO pdb.t VALUES (1, 1), (2, 2)",
	"INSERT INTO pdb.t2 VALUES (3, 3)",
	"INSERT INTO pdb2.x VALUES (4, 4)",
	"CREATE USER 'u0'@'%' IDENTIFIED BY 'pw'", // no grants at all
	"CREATE USER 'sel'@'%' IDENTIFIED BY 'pw'",
	"GRANT SELECT_PRIV ON pdb.t TO 'sel'@'%'",
	"CREATE USER 'dbsel'@'%' IDENTIFIED BY 'pw'",
	"GRANT SELECT_PRIV ON pdb.* TO 'dbsel'",
	"CREATE USER 'loader'@'%' IDENTIFIED BY 'pw'",
	"GRANT LOAD_PRIV ON pdb.t TO 'loader'@'%'",
	"GRANT LOAD_PRIV ON internal.pdb.scratch TO 'loader'@'%'",
	"CREATE USER 'ddl'@'%' IDENTIFIED BY 'pw'",
	"GRANT CREATE_PRIV, DROP_PRIV, ALTER_PRIV ON pdb.* TO 'ddl'@'%'",
	"GRANT CREATE_PRIV ON newdb.* TO 'ddl'@'%'",
	"CREATE USER 'grantor'@'%' IDENTIFIED BY 'pw'",
	"GRANT GRANT_PRIV ON *.* TO 'grantor'@'%'",
	"CREATE USER 'dbgrant'@'%' IDENTIFIED BY 'pw'",
	"GRANT GRANT_PRIV ON pdb.* TO 'dbgrant'@'%'",
	"CREATE USER 'target'@'%' IDENTIFIED BY 'pw'",
	"CREATE USER 'adm'@'%' IDENTIFIED BY 'pw'",
	"GRANT 'admin' TO 'adm'@'%'",
	"CREATE USER 'node'@'%' IDENTIFIED BY 'pw'",
	"GRANT NODE_PRIV ON *.* TO 'node'@'%'",
	"CREATE ROLE reader COMMENT 'reads pdb'",
	"GRANT SELECT_PRIV ON pdb.* TO ROLE 'reader'",
	"CREATE USER 'rd'@'%' IDENTIFIED BY 'pw' DEFAULT ROLE 'reader'",
	// Two accounts named lh: the client (127.0.0.1) logs in as the more
	// specific one, and holds its grants only.
	"CREATE USER 'lh'@'%' IDENTIFIED BY 'pw'",
	"CREATE USER 'lh'@'127.0.0.1' IDENTIFIED BY 'pw'",
	"GRANT SELECT_PRIV ON pdb.t TO 'lh'@'127.0.0.1'",
	"GRANT SELECT_PRIV ON pdb.t2 TO 'lh'@'%'",
	// A view over t2, and an account that may read the view only.
	"CREATE VIEW pdb.v AS SELECT id, v FROM pdb.t2",
	"CREATE USER 'vsel'@'%' IDENTIFIED BY 'pw'",
	"GRANT SELECT_PRIV ON pdb.v TO 'vsel'@'%'",
}

// privCase is one statement run by user: code 0 means it succeeds; msg,
// if set, must be part of the error.
type privCase struct {
	user, stmt string
	code       uint16
	msg        string
}

// privCases can run any number of times in a row (whatever one creates, a
// later one drops), so the same table is checked again after a restart.
var privCases = []privCase{
	// An account without grants may log in and compute, nothing else.
	{"u0", "SELECT 1 + 1", 0, ""},
	{"u0", "SET query_timeout = 100", 0, ""},
	{"u0", "SELECT * FROM pdb.t", 1142, "SELECT command denied to user 'u0'@'%' for table 'pdb.t'"},
	{"u0", "SELECT * FROM pdb.nosuch", 1142, "for table 'pdb.nosuch'"}, // no hint whether it exists
	{"u0", "SELECT nocol FROM pdb.t", 1142, ""},                        // nor its columns
	{"u0", "EXPLAIN SELECT * FROM pdb.t", 1142, ""},
	{"u0", "EXPLAIN VERBOSE SELECT count(*) FROM pdb.t JOIN pdb.t2 ON t.id = t2.id", 1142, ""},
	{"u0", "WITH c AS (SELECT * FROM pdb.t) SELECT * FROM c", 1142, ""},
	{"u0", "SELECT * FROM (SELECT id FROM pdb.t) d", 1142, ""},
	{"u0", "SELECT 1 FROM dual WHERE EXISTS (SELECT 1 FROM pdb.t)", 1142, ""},
	{"u0", "SELECT 1 UNION ALL SELECT id FROM pdb.t", 1142, ""},
	{"u0", "SELECT * FROM information_schema.tables", 0, ""},
	{"u0", "INSERT INTO pdb.t VALUES (9, 9)", 1142, "LOAD command denied to user 'u0'@'%' for table 'pdb.t'"},
	{"u0", "DELETE FROM pdb.t WHERE id = 999", 1142, "LOAD command denied to user 'u0'@'%' for table 'pdb.t'"},
	{"u0", "DELETE FROM pdb.nosuch WHERE nocol = 1", 1142, "for table 'pdb.nosuch'"},
	{"u0", "SHOW DELETE FROM pdb", 0, ""}, // lists only what the account may load
	{"u0", "CREATE DATABASE nodb", 1044, "Access denied for user 'u0'@'%' to database 'nodb'"},
	{"u0", "DROP DATABASE pdb", 1044, ""},
	{"u0", `CREATE TABLE pdb.c (id INT) DISTRIBUTED BY HASH(id) BUCKETS 1`, 1142, "CREATE command denied"},
	{"u0", "DROP TABLE pdb.t", 1142, "DROP command denied"},
	{"u0", "TRUNCATE TABLE pdb.t", 1142, ""},
	{"u0", `ALTER TABLE pdb.cg SET ("colocate_with" = "g")`, 1142, "ALTER command denied"},
	{"u0", "CREATE INDEX i ON pdb.t (v)", 1142, ""},
	{"u0", "USE pdb", 1044, "to database 'pdb'"},
	{"u0", "SHOW TABLES FROM pdb", 1044, ""},
	{"u0", "SHOW TABLE STATUS FROM pdb", 1044, ""},
	{"u0", "SHOW CREATE DATABASE pdb", 1044, ""},
	{"u0", "SHOW CREATE TABLE pdb.t", 1142, ""},
	{"u0", "DESC pdb.t", 1142, ""},
	{"u0", "SHOW PARTITIONS FROM pdb.t", 1142, ""},
	{"u0", "SHOW TABLETS FROM pdb.t", 1227, "(ADMIN)"},
	{"u0", "SHOW BACKENDS", 1227, ""},
	{"u0", "SHOW PROC '/backends'", 1227, ""},
	{"u0", `ALTER SYSTEM ADD BACKEND "127.0.0.1:1"`, 1227, "Access denied; you need (at least one of) the (NODE) privilege(s) for this operation"},
	{"u0", `ALTER SYSTEM DECOMMISSION BACKEND "127.0.0.1:1"`, 1227, ""},
	{"u0", `ADMIN SET FRONTEND CONFIG ("qe_slow_log_ms" = "1")`, 1227, "(ADMIN)"},
	{"u0", "SET GLOBAL query_timeout = 100", 1227, "(ADMIN)"},
	{"u0", "SET @@global.query_timeout = 100", 1227, ""},
	{"u0", "CREATE USER 'x1'@'%'", 1227, "(GRANT)"},
	{"u0", "DROP USER 'target'@'%'", 1227, ""},
	{"u0", "SET PASSWORD FOR 'root'@'%' = 'x'", 1105, "Can not set password for root user"},
	{"u0", "SET PASSWORD FOR 'target'@'%' = 'x'", 1227, ""},
	{"u0", "SET PASSWORD = 'pw'", 0, ""}, // one's own
	{"u0", "GRANT SELECT_PRIV ON pdb.* TO 'u0'@'%'", 1227, ""},
	{"u0", "GRANT 'reader' TO 'u0'@'%'", 1227, ""},
	{"u0", "CREATE ROLE r2", 1227, ""},
	{"u0", "DROP ROLE reader", 1227, ""},
	{"u0", "SHOW GRANTS", 0, ""},
	{"u0", "SHOW GRANTS FOR 'u0'@'%'", 0, ""},
	{"u0", "SHOW GRANTS FOR 'root'@'%'", 1227, ""},
	{"u0", "SHOW ALL GRANTS", 1227, ""},
	{"u0", "SHOW ROLES", 1227, ""},

	// A table grant: that table only, and its database becomes visible.
	{"sel", "SELECT * FROM pdb.t", 0, ""},
	{"sel", "SELECT * FROM pdb.t2", 1142, "for table 'pdb.t2'"},
	{"sel", "SELECT * FROM pdb.t JOIN pdb.t2 ON t.id = t2.id", 1142, "pdb.t2"},
	{"sel", "SELECT id FROM pdb.t WHERE id IN (SELECT id FROM pdb.t2)", 1142, ""},
	{"sel", "EXPLAIN SELECT * FROM pdb.t", 0, ""},
	{"sel", "INSERT INTO pdb.t VALUES (10, 10)", 1142, "LOAD"},
	{"sel", "DELETE FROM pdb.t WHERE id = 999", 1142, "LOAD command denied to user 'sel'@'%' for table 'pdb.t'"},
	{"sel", "USE pdb", 0, ""},
	{"sel", "SELECT * FROM t", 0, ""}, // the current database's
	{"sel", "SELECT * FROM t2", 1142, "for table 'pdb.t2'"},
	{"sel", "WITH t2 AS (SELECT 1 AS id) SELECT * FROM t2", 0, ""}, // a CTE, not the table
	// A CTE named like a table does not hide the table elsewhere in the statement.
	{"sel", "SELECT * FROM (WITH t2 AS (SELECT 1 AS id) SELECT * FROM t2) a, t2", 1142, "for table 'pdb.t2'"},
	{"sel", "SHOW TABLES FROM pdb", 0, ""},
	{"sel", "DESC pdb.t", 0, ""},
	{"sel", "DESC pdb.t2", 1142, ""},
	{"sel", "SHOW CREATE TABLE pdb.t", 0, ""},
	{"sel", "SELECT * FROM pdb2.x", 1142, ""},
	{"sel", "USE pdb2", 1044, ""},

	// A database grant covers its tables, existing or not.
	{"dbsel", "SELECT * FROM pdb.t2", 0, ""},
	{"dbsel", "SELECT * FROM pdb.nosuch", 1146, ""},
	{"dbsel", "SELECT * FROM pdb2.x", 1142, ""},
	{"dbsel", "INSERT INTO pdb2.x SELECT * FROM pdb.t", 1142, "LOAD command denied to user 'dbsel'@'%' for table 'pdb2.x'"},

	// LOAD_PRIV: INSERT, DELETE and TRUNCATE (Doris's rule), not reading.
	{"loader", "INSERT INTO pdb.t VALUES (100, 1)", 0, ""},
	{"loader", "DELETE FROM pdb.t WHERE id = 999", 0, ""},
	{"loader", "DELETE FROM pdb.t2 WHERE id = 999", 1142, "LOAD command denied to user 'loader'@'%' for table 'pdb.t2'"},
	{"loader", "SHOW DELETE FROM pdb", 0, ""},
	{"loader", "INSERT INTO pdb.t SELECT * FROM pdb.t2", 1142, "SELECT command denied to user 'loader'@'%' for table 'pdb.t2'"},
	{"loader", "SELECT * FROM pdb.t", 1142, ""},
	{"loader", "TRUNCATE TABLE pdb.scratch", 0, ""},
	{"loader", "TRUNCATE TABLE pdb.t2", 1142, ""},
	{"loader", "DROP TABLE pdb.t", 1142, ""},

	// CREATE/DROP/ALTER on a database.
	{"ddl", `CREATE TABLE pdb.c1 (id INT) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("replication_num" = "1")`, 0, ""},
	{"ddl", "CREATE INDEX i ON pdb.c1 (id)", 0, ""},
	{"ddl", `ALTER TABLE pdb.cg SET ("colocate_with" = "g")`, 0, ""},
	{"ddl", "SELECT * FROM pdb.c1", 1142, ""},
	{"ddl", "DROP TABLE pdb.c1", 0, ""},
	{"ddl", `CREATE TABLE pdb2.c1 (id INT) DISTRIBUTED BY HASH(id) BUCKETS 1`, 1142, ""},
	{"ddl", "CREATE DATABASE newdb", 0, ""},
	{"ddl", "DROP DATABASE newdb", 1044, ""},
	{"ddl", "DROP DATABASE pdb2", 1044, ""},
	{"root", "DROP DATABASE newdb", 0, ""},
	{"ddl", "SHOW TABLES FROM pdb", 0, ""},

	// GRANT_PRIV on *.*: accounts, roles and grants, but no data.
	{"grantor", "CREATE USER 'made'@'%' IDENTIFIED BY 'pw'", 0, ""},
	{"grantor", "GRANT SELECT_PRIV ON pdb.* TO 'made'@'%'", 0, ""},
	{"made", "SELECT * FROM pdb.t2", 0, ""},
	{"grantor", "REVOKE SELECT_PRIV ON pdb.* FROM 'made'@'%'", 0, ""},
	{"made", "SELECT * FROM pdb.t2", 1142, ""},
	{"grantor", "REVOKE SELECT_PRIV ON pdb.* FROM 'made'@'%'", 1141, "There is no such grant defined for user 'made' on host '%'"},
	{"grantor", "SHOW GRANTS FOR 'made'@'%'", 0, ""},
	{"grantor", "SHOW ALL GRANTS", 0, ""},
	{"grantor", "CREATE ROLE r9", 0, ""},
	{"grantor", "GRANT LOAD_PRIV ON pdb.* TO ROLE 'r9'", 0, ""},
	{"grantor", "GRANT 'r9' TO 'made'@'%'", 0, ""},
	{"made", "INSERT INTO pdb.scratch VALUES (1, 1)", 0, ""},
	{"grantor", "SHOW ROLES", 0, ""},
	{"grantor", "REVOKE 'r9' FROM 'made'@'%'", 0, ""},
	{"made", "INSERT INTO pdb.scratch VALUES (1, 1)", 1142, ""},
	{"grantor", "DROP ROLE r9", 0, ""},
	{"grantor", "GRANT NODE_PRIV ON *.* TO 'made'@'%'", 1105, "Only user with NODE_PRIV"},
	{"grantor", "GRANT ADMIN_PRIV ON pdb.* TO 'made'@'%'", 1105, "ADMIN_PRIV and NODE_PRIV can only be granted"},
	{"grantor", "GRANT USAGE_PRIV ON pdb.* TO 'made'@'%'", 1105, "USAGE_PRIV"},
	{"grantor", "GRANT FLY_PRIV ON pdb.* TO 'made'@'%'", 1105, "Unknown privilege type"},
	{"grantor", "GRANT 'operator' TO 'made'@'%'", 1105, "Can not grant role: operator"},
	{"grantor", "GRANT SELECT_PRIV ON *.* TO ROLE 'admin'", 1105, "Can not grant/revoke to/from role: admin"},
	{"grantor", "GRANT SELECT_PRIV ON pdb.* TO 'ghost'@'%'", 1105, "does not exist"},
	{"grantor", "SET PASSWORD FOR 'made'@'%' = 'pw2'", 0, ""},
	{"grantor", "SET PASSWORD FOR 'root'@'%' = 'x'", 1105, "Can not set password for root user"},
	{"grantor", "DROP USER 'made'@'%'", 0, ""},
	{"grantor", "DROP USER 'root'@'%'", 1105, "built in"},
	{"grantor", "SELECT * FROM pdb.t", 1142, ""},
	{"grantor", "SET GLOBAL query_timeout = 100", 1227, ""},

	// GRANT_PRIV on one database: grants on it, to accounts only.
	{"dbgrant", "GRANT SELECT_PRIV ON pdb.t TO 'target'@'%'", 0, ""},
	{"target", "SELECT * FROM pdb.t", 0, ""},
	{"dbgrant", "REVOKE SELECT_PRIV ON pdb.t FROM 'target'@'%'", 0, ""},
	{"target", "SELECT * FROM pdb.t", 1142, ""},
	{"dbgrant", "GRANT SELECT_PRIV ON pdb2.* TO 'target'@'%'", 1227, "(GRANT)"},
	{"dbgrant", "GRANT SELECT_PRIV ON *.* TO 'target'@'%'", 1227, ""},
	{"dbgrant", "GRANT SELECT_PRIV ON pdb.* TO ROLE 'reader'", 1227, ""},
	{"dbgrant", "CREATE USER 'x2'@'%'", 1227, ""},

	// ADMIN_PRIV (the admin role, and the built-in admin account): all
	// but the nodes.
	{"adm", "SELECT * FROM pdb2.x", 0, ""},
	{"adm", "SET GLOBAL query_timeout = 900", 0, ""},
	{"adm", "SHOW BACKENDS", 0, ""},
	{"adm", "SHOW PROC '/backends'", 0, ""},
	{"adm", "SHOW TABLETS FROM pdb.t", 0, ""},
	{"adm", "SHOW ALL GRANTS", 0, ""},
	{"adm", `ALTER SYSTEM ADD BACKEND "127.0.0.1:1"`, 1227, "(NODE)"},
	{"adm", `ADMIN SET FRONTEND CONFIG ("qe_slow_log_ms" = "1")`, 1235, ""}, // allowed, not implemented
	{"adm", "CREATE USER 'am'@'%'", 0, ""},
	{"adm", "DROP USER 'am'@'%'", 0, ""},
	{"adm", "GRANT NODE_PRIV ON *.* TO 'target'@'%'", 1105, "Only user with NODE_PRIV"},
	{"admin", "SELECT * FROM pdb2.x", 0, ""},
	{"admin", `ALTER SYSTEM ADD BACKEND "127.0.0.1:1"`, 1227, ""},
	{"admin", "DROP USER 'admin'@'%'", 1105, "built in"},

	// NODE_PRIV: the nodes, no data.
	{"node", `ALTER SYSTEM ADD BACKEND "127.0.0.1:1"`, 0, ""},
	{"node", `ALTER SYSTEM DROP BACKEND "127.0.0.1:1"`, 0, ""},
	{"node", "SHOW BACKENDS", 0, ""},
	{"node", "SELECT * FROM pdb.t", 1142, ""},
	{"node", "SET GLOBAL query_timeout = 900", 1227, ""},

	// A role's grants, held through DEFAULT ROLE.
	{"rd", "SELECT * FROM pdb.t2", 0, ""},
	{"rd", "SELECT * FROM pdb2.x", 1142, ""},
	{"rd", "USE pdb", 0, ""},

	// The account logged in as is the most specific match for the client.
	{"lh", "SELECT * FROM pdb.t", 0, ""},
	{"lh", "SELECT * FROM pdb.t2", 1142, "SELECT command denied to user 'lh'@'127.0.0.1' for table 'pdb.t2'"},

	// Views (Doris's rules): reading one takes SELECT on the view, not on
	// its tables; CREATE VIEW takes CREATE and SELECT on what it reads,
	// ALTER VIEW ALTER, DROP VIEW DROP.
	{"vsel", "SELECT * FROM pdb.v", 0, ""},
	{"vsel", "SELECT count(*) FROM pdb.v a JOIN pdb.v b ON a.id = b.id WHERE a.id IN (SELECT id FROM pdb.v)", 0, ""},
	{"vsel", "EXPLAIN SELECT * FROM pdb.v", 0, ""},
	{"vsel", "SHOW CREATE VIEW pdb.v", 0, ""},
	{"vsel", "DESC pdb.v", 0, ""},
	{"vsel", "SELECT * FROM pdb.t2", 1142, "SELECT command denied to user 'vsel'@'%' for table 'pdb.t2'"},
	{"vsel", "SELECT * FROM pdb.v JOIN pdb.t2 ON v.id = t2.id", 1142, "for table 'pdb.t2'"},
	{"vsel", "INSERT INTO pdb.v VALUES (1, 1)", 1142, "LOAD command denied to user 'vsel'@'%' for table 'pdb.v'"},
	{"vsel", "DROP VIEW pdb.v", 1142, "DROP command denied to user 'vsel'@'%' for table 'pdb.v'"},
	{"vsel", "CREATE VIEW pdb.v9 AS SELECT * FROM pdb.v", 1142, "CREATE command denied to user 'vsel'@'%' for table 'pdb.v9'"},
	{"vsel", "ALTER VIEW pdb.v AS SELECT 1 AS id, 2 AS v", 1142, "ALTER command denied"},
	{"sel", "SELECT * FROM pdb.v", 1142, "SELECT command denied to user 'sel'@'%' for table 'pdb.v'"},
	{"loader", "SELECT * FROM pdb.v", 1142, ""},
	{"dbsel", "SELECT * FROM pdb.v", 0, ""},
	{"dbsel", "CREATE VIEW pdb.v9 AS SELECT 1 AS one", 1142, "CREATE command denied"},
	{"u0", "CREATE VIEW pdb.v9 AS SELECT 1 AS one", 1142, "CREATE command denied to user 'u0'@'%' for table 'pdb.v9'"},
	{"u0", "DROP VIEW pdb.v", 1142, "DROP command denied"},
	{"u0", "DROP VIEW IF EXISTS pdb.nosuch", 1142, "DROP command denied"},
	{"u0", "SHOW CREATE VIEW pdb.v", 1142, ""},
	{"u0", "SELECT * FROM pdb.v", 1142, "for table 'pdb.v'"},
	{"ddl", "CREATE VIEW pdb.dv AS SELECT 1 AS one", 0, ""},
	{"ddl", "CREATE VIEW pdb.dv2 AS SELECT id FROM pdb.t", 1142, "SELECT command denied to user 'ddl'@'%' for table 'pdb.t'"},
	{"ddl", "CREATE VIEW pdb.dv2 AS SELECT id FROM pdb.v", 1142, "for table 'pdb.v'"},
	{"ddl", "ALTER VIEW pdb.dv AS SELECT 2 AS two", 0, ""},
	{"ddl", "SELECT * FROM pdb.dv", 1142, "for table 'pdb.dv'"},
	{"ddl", "DROP VIEW pdb.dv", 0, ""},
	{"ddl", "CREATE VIEW pdb2.dv AS SELECT 1 AS one", 1142, "CREATE command denied"},
	{"root", "INSERT INTO pdb.v VALUES (1, 1)", 1471, "The target table v of the VIEW is not insertable-into"},
	{"root", "DROP TABLE pdb.v", 1347, "'pdb.v' is not TABLE"},

	// root: everything.
	{"root", "SELECT * FROM pdb.t JOIN pdb2.x ON t.id = x.id", 0, ""},
	{"root", "SET GLOBAL query_timeout = 900", 0, ""},
	{"root", "GRANT NODE_PRIV ON *.* TO 'target'@'%'", 0, ""},
	{"root", "REVOKE NODE_PRIV ON *.* FROM 'target'@'%'", 0, ""},
	{"root", "REVOKE 'operator' FROM 'root'@'%'", 1105, "built in"},
}

// userConns keeps one pinned connection per account, so a case runs on
// the same session as the one before it.
type userConns struct {
	t     *testing.T
	addr  string
	conns map[string]*sql.Conn
}

func newUserConns(t *testing.T, addr string) *userConns {
	return &userConns{t: t, addr: addr, conns: map[string]*sql.Conn{}}
}

func (u *userConns) get(user string) *sql.Conn {
	if c, ok := u.conns[user]; ok {
		return c
	}
	pass := "pw"
	if user == "root" || user == "admin" {
		pass = ""
	}
	c, err := openDBAs(u.t, u.addr, user, pass, "", true).Conn(context.Background())
	if err != nil {
		u.t.Fatalf("login %s: %v", user, err)
	}
	u.t.Cleanup(func() { c.Close() })
	u.conns[user] = c
	return c
}

func runPrivCases(t *testing.T, addr, phase string) {
	t.Helper()
	uc := newUserConns(t, addr)
	for i, c := range privCases {
		_, err := uc.get(c.user).ExecContext(context.Background(), c.stmt)
		what := fmt.Sprintf("%s #%d %s: %s", phase, i, c.user, c.stmt)
		if c.code == 0 {
			if err != nil {
				t.Errorf("%s: %v", what, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: succeeded, want error %d", what, c.code)
			continue
		}
		if got := errCode(err); got != c.code || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v (code %d), want code %d with %q", what, err, got, c.code, c.msg)
		}
	}
}

// checkListings: SHOW DATABASES, SHOW TABLES and information_schema list
// what the account may see and nothing else.
func checkListings(t *testing.T, addr, phase string) {
	t.Helper()
	uc := newUserConns(t, addr)
	col0 := func(user, q string) []string {
		var out []string
		for _, r := range queryStrings(t, uc.get(user), q) {
			out = append(out, r[0])
		}
		return out
	}
	checks := []struct {
		user, query string
		want        []string
	}{
		{"u0", "SHOW DATABASES", []string{"information_schema"}},
		{"sel", "SHOW DATABASES", []string{"information_schema", "pdb"}},
		{"sel", "SHOW TABLES FROM pdb", []string{"t"}},
		{"rd", "SHOW TABLES FROM pdb", []string{"cg", "scratch", "t", "t2", "v"}},
		{"vsel", "SHOW TABLES FROM pdb", []string{"v"}},
		{"vsel", "SELECT concat(table_schema, '.', table_name) FROM information_schema.views", []string{"pdb.v"}},
		{"sel", "SELECT table_name FROM information_schema.views", nil},
		{"u0", "SELECT table_name FROM information_schema.tables WHERE table_schema NOT IN ('information_schema')", nil},
		{"sel", "SELECT concat(table_schema, '.', table_name) FROM information_schema.tables WHERE table_schema <> 'information_schema'", []string{"pdb.t"}},
		{"sel", "SELECT DISTINCT table_name FROM information_schema.columns WHERE table_schema = 'pdb'", []string{"t"}},
		{"sel", "SELECT schema_name FROM information_schema.schemata ORDER BY schema_name", []string{"information_schema", "pdb"}},
		{"adm", "SHOW DATABASES", []string{"information_schema", "pdb", "pdb2"}},
	}
	for _, c := range checks {
		got := col0(c.user, c.query)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %s as %s: %q, want %q", phase, c.query, c.user, got, c.want)
		}
	}
	grants := func(user, q string) map[string]string {
		rows, err := uc.get(user).QueryContext(context.Background(), q)
		if err != nil {
			t.Fatalf("%s: %s: %v", phase, q, err)
		}
		defer rows.Close()
		cols, _ := rows.Columns()
		if !rows.Next() {
			t.Fatalf("%s: %s: no row", phase, q)
		}
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		m := map[string]string{}
		for i, c := range cols {
			m[c] = vals[i].String
		}
		return m
	}
	for _, c := range []struct {
		user, q string
		want    map[string]string
	}{
		{"root", "SHOW GRANTS", map[string]string{"UserIdentity": "'root'@'%'", "Comment": "ROOT", "Roles": "operator", "GlobalPrivs": "Node_priv,Admin_priv"}},
		{"sel", "SHOW GRANTS", map[string]string{"UserIdentity": "'sel'@'%'", "Password": "Yes", "TablePrivs": "internal.pdb.t: Select_priv", "DatabasePrivs": ""}},
		{"rd", "SHOW GRANTS", map[string]string{"Roles": "reader", "DatabasePrivs": "internal.pdb: Select_priv"}},
		{"root", "SHOW GRANTS FOR 'ddl'@'%'", map[string]string{"DatabasePrivs": "internal.newdb: Create_priv; internal.pdb: Alter_priv,Create_priv,Drop_priv"}},
		{"root", "SHOW GRANTS FOR 'adm'@'%'", map[string]string{"Roles": "admin", "GlobalPrivs": "Admin_priv"}},
	} {
		got := grants(c.user, c.q)
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("%s: %s as %s: %s = %q, want %q (row %v)", phase, c.q, c.user, k, got[k], v, got)
			}
		}
	}
	var roles []string
	for _, r := range queryStrings(t, uc.get("root"), "SHOW ROLES") {
		roles = append(roles, r[0]+"="+r[2])
	}
	if want := []string{"admin='adm'@'%', 'admin'@'%'", "operator='root'@'%'", "reader='rd'@'%'"}; !reflect.DeepEqual(roles, want) {
		t.Errorf("%s: SHOW ROLES: %q, want %q", phase, roles, want)
	}
}

// httpDo sends a request as user:pass ("" user: no credentials) and
// returns the status and body.
func httpDo(t *testing.T, method, url, user, pass string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if user != "" {
		req.SetBasicAuth(user, pass)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// checkHTTP: every endpoint authenticates and checks the same privileges.
func checkHTTP(t *testing.T, mysqlAddr, httpAddr, phase string) {
	t.Helper()
	ctx := context.Background()
	load := func(user, pass, table string) loadReply {
		r, err := streamLoad(ctx, httpAddr, "pdb", table, user, pass, map[string]string{"column_separator": ","}, strings.NewReader("500,5\n"))
		if err != nil {
			t.Fatalf("%s: stream load as %s into %s: %v", phase, user, table, err)
		}
		return r
	}
	if r := load("loader", "pw", "t"); r.HTTPCode != 200 || r.Status != "Success" || r.NumberLoadedRows != 1 {
		t.Errorf("%s: stream load with LOAD_PRIV: %+v", phase, r)
	}
	for _, c := range []struct {
		user, pass, table string
		code              int
		msg               string
	}{
		{"u0", "pw", "t", 403, "LOAD command denied to user 'u0'@'%' for table 'pdb.t'"},
		{"sel", "pw", "t", 403, "LOAD command denied"},
		{"loader", "pw", "t2", 403, "pdb.t2"},
		{"u0", "pw", "nosuch", 403, "pdb.nosuch"}, // no hint whether it exists
		{"loader", "bad", "t", 401, "Access denied"},
		{"ghost", "", "t", 401, "Access denied"},
	} {
		r := load(c.user, c.pass, c.table)
		if r.HTTPCode != c.code || r.Status != "Fail" || !strings.Contains(r.Message, c.msg) {
			t.Errorf("%s: stream load as %s into %s: %+v, want HTTP %d Fail %q", phase, c.user, c.table, r, c.code, c.msg)
		}
	}

	// Profiles: each user sees its own queries; ADMIN_PRIV sees all.
	root := openDB(t, mysqlAddr, "", true)
	mustExec(t, root, "SELECT 'root-secret-"+phase+"' FROM pdb.t")
	mustExec(t, openDBAs(t, mysqlAddr, "sel", "pw", "", true), "SELECT 'sel-own-"+phase+"' FROM pdb.t")
	type prof struct {
		ID   int64  `json:"id"`
		User string `json:"user"`
		SQL  string `json:"sql"`
	}
	list := func(user, pass string) []prof {
		code, body := httpDo(t, "GET", "http://"+httpAddr+"/api/profile", user, pass)
		if code != 200 {
			t.Fatalf("%s: /api/profile as %s: %d %s", phase, user, code, body)
		}
		var ps []prof
		if err := json.Unmarshal([]byte(body), &ps); err != nil {
			t.Fatal(err)
		}
		return ps
	}
	var rootID int64
	for _, p := range list("adm", "pw") {
		if strings.Contains(p.SQL, "root-secret-"+phase) {
			rootID = p.ID
		}
	}
	if rootID == 0 {
		t.Fatalf("%s: ADMIN does not see root's profile", phase)
	}
	sawOwn := false
	for _, p := range list("sel", "pw") {
		if p.User != "sel" {
			t.Errorf("%s: sel sees %s's profile %q", phase, p.User, p.SQL)
		}
		sawOwn = sawOwn || strings.Contains(p.SQL, "sel-own-"+phase)
	}
	if !sawOwn {
		t.Errorf("%s: sel does not see its own profile", phase)
	}
	one := fmt.Sprintf("http://%s/api/profile/%d", httpAddr, rootID)
	group := "http://" + httpAddr + "/api/colocate/group_stable?db=pdb&group=g"
	for _, c := range []struct {
		method, url, user, pass string
		code                    int
	}{
		{"GET", one, "sel", "pw", 404},
		{"GET", one, "adm", "pw", 200},
		{"GET", one, "", "", 401},
		{"GET", "http://" + httpAddr + "/api/profile", "", "", 401},
		{"GET", "http://" + httpAddr + "/api/profile", "sel", "bad", 401},
		{"POST", group, "u0", "pw", 403},
		{"POST", group, "", "", 401},
		{"POST", group, "adm", "pw", 200},
		{"DELETE", group, "grantor", "pw", 403},
		{"DELETE", group, "root", "", 200},
		{"GET", "http://" + httpAddr + "/debug/pprof/", "", "", 401},
		{"GET", "http://" + httpAddr + "/debug/pprof/", "u0", "pw", 403},
		{"GET", "http://" + httpAddr + "/debug/pprof/", "adm", "pw", 200},
		{"GET", "http://" + httpAddr + "/debug/pprof/goroutine?debug=1", "node", "pw", 403},
		{"GET", "http://" + httpAddr + "/api/health", "", "", 401},
		{"GET", "http://" + httpAddr + "/api/health", "u0", "pw", 200},
		{"GET", "http://" + httpAddr + "/metrics", "", "", 200}, // open by default, as in Doris
	} {
		code, body := httpDo(t, c.method, c.url, c.user, c.pass)
		if code != c.code {
			t.Errorf("%s: %s %s as %q: HTTP %d %.200s, want %d", phase, c.method, c.url, c.user, code, body, c.code)
		}
		if code == 404 && strings.Contains(body, "root-secret") {
			t.Errorf("%s: another user's profile leaked: %s", phase, body)
		}
	}
}

func TestE2EPrivileges(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	defer func() { s.Close() }()
	root := openDB(t, s.MySQLAddr(), "", true)
	for _, q := range privSetup {
		mustExec(t, root, q)
	}
	runPrivCases(t, s.MySQLAddr(), "fresh")
	checkListings(t, s.MySQLAddr(), "fresh")
	checkHTTP(t, s.MySQLAddr(), s.HTTPAddr(), "fresh")

	// Prepared statements are checked when prepared and when run.
	prep := openDBAs(t, s.MySQLAddr(), "u0", "pw", "", false)
	_, err := prep.Exec("SELECT v FROM pdb.t WHERE id = ?", 1)
	wantCode(t, err, 1142, "prepared SELECT without SELECT_PRIV")
	_, err = prep.Exec("INSERT INTO pdb.t VALUES (?, ?)", 1, 2)
	wantCode(t, err, 1142, "prepared INSERT without LOAD_PRIV")
	// Logging in with a database needs a privilege on it.
	wantCode(t, login(t, s.MySQLAddr(), "u0", "pw", "pdb"), 1044, "u0 logging in to pdb")
	wantCode(t, login(t, s.MySQLAddr(), "u0", "pw", "nosuchdb"), 1044, "u0 logging in to an unknown db")
	wantLogin(t, s.MySQLAddr(), "sel", "pw", "pdb")

	// Everything is in the catalog: the same answers after a restart.
	root.Close()
	s.Close()
	s = startServer(t, dir)
	runPrivCases(t, s.MySQLAddr(), "restart")
	checkListings(t, s.MySQLAddr(), "restart")
	checkHTTP(t, s.MySQLAddr(), s.HTTPAddr(), "restart")
}

// TestE2EPrivilegesKill9: grants acknowledged just before a SIGKILL are
// there after the restart, with every check of the table.
func TestE2EPrivilegesKill9(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := startProc(t, dir)
	root := openDB(t, p.mysqlAddr, "", true)
	for _, q := range privSetup {
		mustExec(t, root, q)
	}
	mustExec(t, root, "CREATE USER 'late'@'%' IDENTIFIED BY 'pw'")
	mustExec(t, root, "GRANT SELECT_PRIV ON pdb.t2 TO 'late'@'%'")
	mustExec(t, root, "REVOKE SELECT_PRIV ON pdb.t FROM 'sel'@'%'")
	mustExec(t, root, "GRANT SELECT_PRIV ON pdb.t TO 'sel'@'%'")
	root.Close()
	p.kill()
	p = startProc(t, dir)
	runPrivCases(t, p.mysqlAddr, "kill -9")
	checkListings(t, p.mysqlAddr, "kill -9")
	checkHTTP(t, p.mysqlAddr, p.httpAddr, "kill -9")
	late := openDBAs(t, p.mysqlAddr, "late", "pw", "", true)
	if got := queryStrings(t, late, "SELECT id FROM pdb.t2"); len(got) != 1 {
		t.Errorf("grant before the kill: %v", got)
	}
}

// TestE2EPrivilegesOpenConnection: REVOKE, role changes and DROP USER
// reach a connection that is already open, on its next statement.
func TestE2EPrivilegesOpenConnection(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	for _, q := range []string{
		"CREATE DATABASE odb",
		`CREATE TABLE odb.t (id INT NOT NULL) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("replication_num" = "1")`,
		"INSERT INTO odb.t VALUES (1)",
		"CREATE USER 'o'@'%' IDENTIFIED BY 'pw'",
		"CREATE ROLE ro",
	} {
		mustExec(t, root, q)
	}
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			conn, err := openDBAs(t, s.MySQLAddr(), "o", "pw", "", p.interpolate).Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			sel := func() error {
				var id int
				return conn.QueryRowContext(context.Background(), "SELECT id FROM odb.t WHERE id = ?", 1).Scan(&id)
			}
			step := func(grant string, ok bool) {
				t.Helper()
				if grant != "" {
					mustExec(t, root, grant)
				}
				err := sel()
				switch {
				case ok && err != nil:
					t.Fatalf("after %q: %v", grant, err)
				case !ok:
					wantCode(t, err, 1142, "after "+grant)
				}
			}
			step("", false)
			step("GRANT SELECT_PRIV ON odb.* TO 'o'@'%'", true)
			step("REVOKE SELECT_PRIV ON odb.* FROM 'o'@'%'", false)
			step("GRANT SELECT_PRIV ON odb.t TO ROLE 'ro'", false) // the role is not o's yet
			step("GRANT 'ro' TO 'o'@'%'", true)
			step("REVOKE SELECT_PRIV ON odb.t FROM ROLE 'ro'", false)
			step("GRANT SELECT_PRIV ON odb.t TO ROLE 'ro'", true)
			step("REVOKE 'ro' FROM 'o'@'%'", false)
			step("GRANT 'ro' TO 'o'@'%'", true)
			step("DROP ROLE ro", false)
			mustExec(t, root, "CREATE ROLE ro")

			// USE is checked on the connection too; a database already in
			// use still needs privileges for each table.
			mustExec(t, root, "GRANT SELECT_PRIV ON odb.* TO 'o'@'%'")
			mustExec(t, conn, "USE odb")
			mustExec(t, root, "REVOKE SELECT_PRIV ON odb.* FROM 'o'@'%'")
			_, err = conn.ExecContext(context.Background(), "SELECT * FROM t")
			wantCode(t, err, 1142, "unqualified table after REVOKE")
			_, err = conn.ExecContext(context.Background(), "USE odb")
			wantCode(t, err, 1044, "USE after REVOKE")

			// Dropped while connected: no privileges left.
			mustExec(t, root, "GRANT SELECT_PRIV ON *.* TO 'o'@'%'")
			step("", true)
			mustExec(t, root, "DROP USER 'o'@'%'")
			step("", false)
			mustExec(t, root, "CREATE USER 'o'@'%' IDENTIFIED BY 'pw'")
		})
	}
}

// TestE2EProcesslistAndKill: another user's statements are neither shown
// nor killable without ADMIN_PRIV; one's own are.
func TestE2EProcesslistAndKill(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", true)
	mustExec(t, root, "CREATE DATABASE kdb")
	mustExec(t, root, `CREATE TABLE kdb.t (id INT NOT NULL) DISTRIBUTED BY HASH(id) BUCKETS 1 PROPERTIES ("replication_num" = "1")`)
	mustExec(t, root, `INSERT INTO kdb.t SELECT number FROM numbers("number" = "200000")`)
	mustExec(t, root, "CREATE USER 'p1'@'%' IDENTIFIED BY 'pw'")
	mustExec(t, root, "CREATE USER 'padm'@'%' IDENTIFIED BY 'pw'")
	mustExec(t, root, "GRANT 'admin' TO 'padm'@'%'")

	// Root's statement stops before sending its first batch until
	// released; it has more batches to go, so a KILL QUERY ends it.
	const marker = "root-private-statement"
	release := make(chan struct{})
	planned := make(chan struct{}, 1)
	s.SetTestHook(func(stage, text string) {
		if stage == "rows" && strings.Contains(text, marker) {
			select {
			case planned <- struct{}{}:
			default:
			}
			<-release
		}
	})
	rootConn, err := root.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer rootConn.Close()
	var rootID int64
	if err := rootConn.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&rootID); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := rootConn.ExecContext(context.Background(), "SELECT id FROM kdb.t WHERE '"+marker+"' <> ''")
		done <- err
	}()
	select {
	case <-planned:
	case <-time.After(10 * time.Second):
		t.Fatal("root's statement never sent rows")
	}

	p1 := openDBAs(t, s.MySQLAddr(), "p1", "pw", "", true)
	padm := openDBAs(t, s.MySQLAddr(), "padm", "pw", "", true)
	seen := func(db *sql.DB, q string) (users []string, sawMarker bool) {
		for _, r := range queryStrings(t, db, q) {
			users = append(users, r[1])
			sawMarker = sawMarker || strings.Contains(strings.Join(r, " "), marker)
		}
		return users, sawMarker
	}
	for _, q := range []string{"SHOW PROCESSLIST", "SELECT * FROM information_schema.processlist"} {
		users, saw := seen(p1, q)
		if saw {
			t.Errorf("%s as p1 shows root's statement", q)
		}
		for _, u := range users {
			if u != "p1" {
				t.Errorf("%s as p1 lists a connection of %s", q, u)
			}
		}
		if _, saw := seen(padm, q); !saw {
			t.Errorf("%s with ADMIN_PRIV does not show root's statement", q)
		}
	}
	_, err = p1.Exec(fmt.Sprintf("KILL %d", rootID))
	wantCode(t, err, 1095, "p1 killing root's connection")
	_, err = p1.Exec(fmt.Sprintf("KILL QUERY %d", rootID))
	wantCode(t, err, 1095, "p1 killing root's query")
	// Its own connection, yes.
	own, err := p1.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var ownID int64
	if err := own.QueryRowContext(context.Background(), "SELECT CONNECTION_ID()").Scan(&ownID); err != nil {
		t.Fatal(err)
	}
	mustExec(t, p1, fmt.Sprintf("KILL %d", ownID))
	own.Close()
	// ADMIN_PRIV kills root's query.
	mustExec(t, padm, fmt.Sprintf("KILL QUERY %d", rootID))
	close(release)
	select {
	case err := <-done:
		wantCode(t, err, 1317, "root's killed statement")
	case <-time.After(10 * time.Second):
		t.Fatal("root's statement not ended by KILL QUERY")
	}
}

// TestE2EMetricsRequireLogin: with the flag, /metrics takes the same basic
// auth as /api.
func TestE2EMetricsRequireLogin(t *testing.T) {
	s, err := server.Start(server.Config{DataDir: t.TempDir(), Host: "127.0.0.1", Backends: 1, MetricsRequireLogin: true, Log: quietLog()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	mustExec(t, openDB(t, s.MySQLAddr(), "", true), "CREATE USER 'm'@'%' IDENTIFIED BY 'pw'")
	url := "http://" + s.HTTPAddr() + "/metrics"
	if code, _ := httpDo(t, "GET", url, "", ""); code != 401 {
		t.Errorf("/metrics without login: %d, want 401", code)
	}
	if code, _ := httpDo(t, "GET", url, "m", "bad"); code != 401 {
		t.Errorf("/metrics with a wrong password: %d, want 401", code)
	}
	if code, body := httpDo(t, "GET", url, "m", "pw"); code != 200 || !strings.Contains(body, "doris_fe_") {
		t.Errorf("/metrics logged in: %d", code)
	}
}
