package parser

import (
	"reflect"
	"testing"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

func TestParseGrants(t *testing.T) {
	u1 := UserIdent{User: "u1", Host: "%"}
	for _, tc := range []struct {
		sql  string
		want Statement
	}{
		{"GRANT SELECT_PRIV ON db.* TO 'u1'@'%'", &GrantPrivs{Privs: []string{"SELECT_PRIV"}, DB: "db", Table: "*", User: u1}},
		{"grant select_priv, load_priv on *.* to u1", &GrantPrivs{Privs: []string{"SELECT_PRIV", "LOAD_PRIV"}, DB: "*", Table: "*", User: u1}},
		{"GRANT ALL PRIVILEGES ON `d`.`t` TO 'u1'@'10.%'", &GrantPrivs{Privs: []string{"ALL"}, DB: "d", Table: "t", User: UserIdent{User: "u1", Host: "10.%"}}},
		{"GRANT LOAD_PRIV ON internal.d.t TO ROLE 'r'", &GrantPrivs{Privs: []string{"LOAD_PRIV"}, DB: "d", Table: "t", Role: "r"}},
		{"GRANT ADMIN_PRIV ON *.*.* TO ROLE r", &GrantPrivs{Privs: []string{"ADMIN_PRIV"}, DB: "*", Table: "*", Role: "r"}},
		{"GRANT SELECT ON d.* TO role", &GrantPrivs{Privs: []string{"SELECT"}, DB: "d", Table: "*", User: UserIdent{User: "role", Host: "%"}}},
		{"REVOKE SELECT_PRIV ON d.t FROM 'u1'", &GrantPrivs{Revoke: true, Privs: []string{"SELECT_PRIV"}, DB: "d", Table: "t", User: u1}},
		{"REVOKE DROP_PRIV ON d.* FROM ROLE 'r'", &GrantPrivs{Revoke: true, Privs: []string{"DROP_PRIV"}, DB: "d", Table: "*", Role: "r"}},
		{"GRANT 'r1', 'r2' TO 'u1'@'%'", &GrantRoles{Roles: []string{"r1", "r2"}, User: u1}},
		{"REVOKE 'r1' FROM u1", &GrantRoles{Revoke: true, Roles: []string{"r1"}, User: u1}},
		{"CREATE ROLE r COMMENT 'readers'", &CreateRole{Name: "r", Comment: "readers"}},
		{"CREATE ROLE IF NOT EXISTS 'r'", &CreateRole{IfNotExists: true, Name: "r"}},
		{"DROP ROLE IF EXISTS r", &DropRole{IfExists: true, Name: "r"}},
		{"SHOW GRANTS", &ShowGrants{}},
		{"SHOW GRANTS FOR 'u1'@'%'", &ShowGrants{User: &u1}},
		{"SHOW ALL GRANTS", &ShowGrants{All: true}},
		{"SHOW ROLES", &ShowRoles{}},
		{"CREATE USER 'u1' IDENTIFIED BY 'p' DEFAULT ROLE 'r'", &CreateUser{User: "u1", Host: "%", Password: "p", Role: "r"}},
		{"ADMIN SET FRONTEND CONFIG ('a' = 'b')", &Admin{Text: "ADMIN SET FRONTEND CONFIG ('a' = 'b')"}},
	} {
		got := mustOne(t, tc.sql)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.sql, got, tc.want)
		}
	}
	for sql, what := range map[string]string{
		"GRANT SELECT_PRIV(c) ON db.t TO u":      "column privileges",
		"GRANT USAGE_PRIV ON RESOURCE 'x' TO u":  "privileges ON RESOURCE",
		"REVOKE SELECT_PRIV ON hive.db.t FROM u": "privileges on catalog hive",
	} {
		if st, ok := mustOne(t, sql).(*GrantPrivs); !ok || st.Unsupported != what {
			t.Errorf("%q: %+v, want Unsupported %q", sql, st, what)
		}
	}
	for _, bad := range []struct {
		sql  string
		code sqlerr.Code
	}{
		{"GRANT SELECT_PRIV ON db TO u", 1064},
		{"GRANT SELECT_PRIV ON *.t TO u", 1064},
		{"GRANT SELECT_PRIV db.* TO u", 1064},
		{"GRANT SELECT_PRIV ON db.* u", 1064},
		{"GRANT ON db.* TO u", 1064},
		{"GRANT 'r' TO", 1064},
		{"SHOW GRANTS FOR", 1064},
	} {
		_, err := ParseOne(bad.sql)
		if err == nil || sqlerr.As(err).Code != bad.code {
			t.Errorf("%q: %v, want code %d", bad.sql, err, bad.code)
		}
	}
}
