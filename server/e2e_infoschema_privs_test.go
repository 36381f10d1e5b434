package server_test

import (
	"reflect"
	"testing"
)

// information_schema's USER_PRIVILEGES, SCHEMA_PRIVILEGES and
// TABLE_PRIVILEGES list the catalog's grants as Doris does (MySQL's
// privilege names, roles merged in, a global ADMIN_PRIV as every privilege,
// IS_GRANTABLE from GRANT_PRIV); an account without GRANT_PRIV or
// ADMIN_PRIV sees only its own rows. A REVOKE shows on the next query.
func TestE2EInfoSchemaPrivileges(t *testing.T) {
	s := newServer(t)
	root := openDB(t, s.MySQLAddr(), "", false)
	for _, q := range []string{
		"CREATE DATABASE ip",
		"CREATE DATABASE ip2",
		`CREATE TABLE ip.t (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`,
		`CREATE TABLE ip.t2 (k INT) DISTRIBUTED BY HASH(k) BUCKETS 1 PROPERTIES ("replication_num" = "1")`,
		"CREATE USER 'a'@'%' IDENTIFIED BY 'pw'",
		"GRANT SELECT_PRIV, LOAD_PRIV ON ip.* TO 'a'@'%'",
		"GRANT ALTER_PRIV, GRANT_PRIV ON ip.t TO 'a'@'%'",
		"CREATE ROLE r",
		"GRANT DROP_PRIV ON ip.t2 TO ROLE 'r'",
		"GRANT 'r' TO 'a'@'%'",
		"CREATE USER 'b'@'%' IDENTIFIED BY 'pw'",
		"GRANT SELECT_PRIV ON *.* TO 'b'@'%'",
		"GRANT CREATE_PRIV ON ip2.* TO 'b'@'%'",
		"CREATE USER 'g'@'%' IDENTIFIED BY 'pw'",
		"GRANT GRANT_PRIV ON *.* TO 'g'@'%'",
	} {
		mustExec(t, root, q)
	}
	const (
		userQ   = "SELECT GRANTEE, TABLE_CATALOG, PRIVILEGE_TYPE, IS_GRANTABLE FROM information_schema.USER_PRIVILEGES"
		schemaQ = "SELECT * FROM information_schema.schema_privileges"
		tableQ  = "SELECT GRANTEE, TABLE_CATALOG, TABLE_SCHEMA, TABLE_NAME, PRIVILEGE_TYPE, IS_GRANTABLE FROM information_schema.table_privileges"
	)
	all6 := func(grantee string) [][]string {
		var out [][]string
		for _, p := range []string{"SELECT", "INSERT", "ALTER", "CREATE", "DROP", "USAGE"} {
			out = append(out, []string{grantee, "def", p, "YES"})
		}
		return out
	}
	aSchema := [][]string{{"'a'@'%'", "def", "ip", "SELECT", "NO"}, {"'a'@'%'", "def", "ip", "INSERT", "NO"}}
	aTable := [][]string{{"'a'@'%'", "def", "ip", "t", "ALTER", "YES"}, {"'a'@'%'", "def", "ip", "t2", "DROP", "NO"}}
	bUser := [][]string{{"'b'@'%'", "def", "SELECT", "NO"}}
	bSchema := [][]string{{"'b'@'%'", "def", "ip2", "CREATE", "NO"}}
	cat := func(parts ...[][]string) [][]string {
		var out [][]string
		for _, p := range parts {
			out = append(out, p...)
		}
		return out
	}
	everyUser := cat(all6("'admin'@'%'"), bUser, all6("'root'@'%'"))
	for _, p := range protocols {
		t.Run(p.name, func(t *testing.T) {
			dbs := map[string]querier{"root": openDB(t, s.MySQLAddr(), "", p.interpolate)}
			for _, u := range []string{"a", "b", "g"} {
				dbs[u] = openDBAs(t, s.MySQLAddr(), u, "pw", "", p.interpolate)
			}
			for _, c := range []struct {
				user, query string
				want        [][]string
			}{
				{"root", userQ, everyUser},
				{"root", schemaQ, cat(aSchema, bSchema)},
				{"root", tableQ, aTable},
				{"g", userQ, everyUser}, // GRANT_PRIV lists every account's grants
				{"g", tableQ, aTable},
				{"a", userQ, nil},
				{"a", schemaQ, aSchema},
				{"a", tableQ, aTable},
				{"b", userQ, bUser}, // b sees all tables, but only its own grants
				{"b", schemaQ, bSchema},
				{"b", tableQ, nil},
				{"a", "SELECT PRIVILEGE_TYPE FROM information_schema.table_privileges WHERE TABLE_NAME = 't2'", [][]string{{"DROP"}}},
			} {
				if got := queryStrings(t, dbs[c.user], c.query); !reflect.DeepEqual(got, c.want) {
					t.Errorf("%s as %s:\n got %q\nwant %q", c.query, c.user, got, c.want)
				}
			}
		})
	}
	// Changes show on the next statement of an open connection.
	a := openDBAs(t, s.MySQLAddr(), "a", "pw", "", false)
	mustExec(t, root, "REVOKE 'r' FROM 'a'@'%'")
	mustExec(t, root, "REVOKE GRANT_PRIV ON ip.t FROM 'a'@'%'")
	if got, want := queryStrings(t, a, tableQ), [][]string{{"'a'@'%'", "def", "ip", "t", "ALTER", "NO"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("after REVOKE: %q, want %q", got, want)
	}
	mustExec(t, root, "DROP USER 'a'@'%'")
	if got := queryStrings(t, root, schemaQ); !reflect.DeepEqual(got, bSchema) {
		t.Errorf("after DROP USER: %q", got)
	}
}
