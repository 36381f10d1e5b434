package catalog

import (
	"reflect"
	"testing"
)

func TestPrivNames(t *testing.T) {
	if got := (NodePriv | AdminPriv).String(); got != "Node_priv,Admin_priv" {
		t.Fatal(got)
	}
	if got := AllPriv.String(); got != "Select_priv,Load_priv,Alter_priv,Create_priv,Drop_priv" {
		t.Fatal(got)
	}
	cases := map[string]Priv{"select_priv": SelectPriv, "SELECT": SelectPriv, "insert": LoadPriv, "LOAD_PRIV": LoadPriv,
		"all": AllPriv, "READ_ONLY": SelectPriv, "usage": 0, "Usage_Priv": UsagePriv, "node_priv": NodePriv, "grant": GrantPriv}
	for name, want := range cases {
		if got, ok := ParsePriv(name); !ok || got != want {
			t.Errorf("ParsePriv(%q) = %v, %v; want %v", name, got, ok, want)
		}
	}
	if _, ok := ParsePriv("FLY_PRIV"); ok {
		t.Error("unknown privilege parsed")
	}
}

// TestAccessLevels is the OR/inheritance matrix: *.* covers every db and
// table, db.* its tables, ADMIN_PRIV every data privilege, and SHOW any data
// privilege, including one on a single table of the database.
func TestAccessLevels(t *testing.T) {
	a := &Access{Privs: PrivTable{DBs: map[string]Priv{"d1": SelectPriv}, Tables: map[string]map[string]Priv{"d2": {"t": LoadPriv}}}}
	checks := []struct {
		got, want bool
		what      string
	}{
		{a.Table("d1", "x", WantSelect), true, "db grant covers its tables"},
		{a.Table("d1", "x", WantLoad), false, "SELECT is not LOAD"},
		{a.Table("d2", "t", WantLoad), true, "table grant"},
		{a.Table("d2", "u", WantLoad), false, "table grant is that table only"},
		{a.DB("d2", WantLoad), false, "table grant is not a db grant"},
		{a.SeesDB("d2"), true, "a table grant makes its db visible"},
		{a.SeesDB("d3"), false, "nothing on d3"},
		{a.SeesTable("d2", "u"), false, "other table invisible"},
		{a.Global(WantSelect), false, "no global"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: got %v", c.what, c.got)
		}
	}
	adm := &Access{Privs: PrivTable{Global: AdminPriv}}
	if !adm.Table("any", "t", WantDrop) || !adm.SeesDB("any") || adm.Global(WantNode) {
		t.Error("ADMIN_PRIV: every data privilege, not NODE_PRIV")
	}
}

func TestGrantRevokeRoles(t *testing.T) {
	c, kv := newTestCatalog(t, 0)
	if err := c.CreateUser("u1", "%", "p", false); err != nil {
		t.Fatal(err)
	}
	u1 := Grantee{User: "u1", Host: "%"}
	n := kv.applies
	if err := c.Grant(u1, Target{"db", "*"}, SelectPriv|LoadPriv); err != nil {
		t.Fatal(err)
	}
	if kv.applies != n+1 {
		t.Fatal("a grant is one write")
	}
	before := c.Access("u1", "%")
	if err := c.Grant(u1, Target{"db", "t"}, AlterPriv); err != nil {
		t.Fatal(err)
	}
	if before.Table("db", "t", WantAlter) {
		t.Fatal("an earlier Access changed under its reader")
	}
	if err := c.CreateRole("r", "", false); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.CreateRole("r", "", false), 1105, "Role r already exists")
	if err := c.CreateRole("r", "", true); err != nil {
		t.Fatal(err)
	}
	if err := c.Grant(Grantee{Role: "r"}, Target{"*", "*"}, CreatePriv); err != nil {
		t.Fatal(err)
	}
	if err := c.GrantRoles([]string{"r"}, "u1", "%"); err != nil {
		t.Fatal(err)
	}
	a := c.Access("u1", "%")
	if !a.Table("db", "x", WantLoad) || !a.Table("db", "t", WantAlter) || !a.DB("other", WantCreate) || !reflect.DeepEqual(a.Roles, []string{"r"}) {
		t.Fatalf("access %+v", a)
	}

	// Everything survives a reopen.
	c2 := openTest(t, kv)
	if got := c2.Access("u1", "%"); !reflect.DeepEqual(got, a) {
		t.Fatalf("after reopen %+v, want %+v", got, a)
	}

	// REVOKE: bits at exactly that level; nothing there is 1141.
	if err := c.Revoke(u1, Target{"db", "*"}, LoadPriv); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.Revoke(u1, Target{"db2", "*"}, SelectPriv), 1141, "There is no such grant defined for user 'u1' on host '%'")
	if a := c.Access("u1", "%"); a.Table("db", "x", WantLoad) || !a.Table("db", "x", WantSelect) {
		t.Fatal("revoke LOAD_PRIV")
	}
	if err := c.RevokeRoles([]string{"r"}, "u1", "%"); err != nil {
		t.Fatal(err)
	}
	if c.Access("u1", "%").DB("other", WantCreate) {
		t.Fatal("role revoked but its grant still applies")
	}
	if err := c.GrantRoles([]string{"r"}, "u1", "%"); err != nil {
		t.Fatal(err)
	}
	// Dropping the role takes it from its members, in one write.
	n = kv.applies
	if err := c.DropRole("r", false); err != nil {
		t.Fatal(err)
	}
	if kv.applies != n+1 {
		t.Fatal("DROP ROLE is one write")
	}
	if a := c.Access("u1", "%"); len(a.Roles) != 0 || a.DB("other", WantCreate) {
		t.Fatalf("dropped role still held: %+v", a)
	}
	if u, _ := openTest(t, kv).User("u1", "%"); len(u.Roles) != 0 {
		t.Fatal("dropped role held after reopen")
	}
	// The password change keeps the grants; DROP USER takes them along.
	if err := c.SetPassword("u1", "%", "q"); err != nil {
		t.Fatal(err)
	}
	if !c.Access("u1", "%").Table("db", "t", WantAlter) {
		t.Fatal("SET PASSWORD lost the grants")
	}
	if err := c.DropUser("u1", "%", false); err != nil {
		t.Fatal(err)
	}
	if err := c.CreateUser("u1", "%", "", false); err != nil {
		t.Fatal(err)
	}
	if a := c.Access("u1", "%"); !a.Privs.Empty() {
		t.Fatal("a re-created user inherited the dropped one's grants")
	}
}

func TestBuiltinUsersAndRoles(t *testing.T) {
	c, _ := newTestCatalog(t, 0)
	root, admin := c.Access("root", "%"), c.Access("admin", "%")
	if !root.Global(WantNode) || !root.Global(WantAdmin) || !reflect.DeepEqual(root.Roles, []string{"operator"}) {
		t.Fatalf("root %+v", root)
	}
	if admin.Global(WantNode) || !admin.Global(WantAdmin) || !reflect.DeepEqual(admin.Roles, []string{"admin"}) {
		t.Fatalf("admin %+v", admin)
	}
	if a := c.Access("ghost", "%"); a.Global(WantShow) || a.User != "" {
		t.Fatal("unknown account has privileges")
	}
	wantCode(t, c.DropUser("root", "%", false), 1105, "")
	wantCode(t, c.DropUser("admin", "%", false), 1105, "")
	wantCode(t, c.CreateUser("root", "localhost", "", false), 1105, "")
	wantCode(t, c.DropRole("operator", false), 1105, "Can not drop role: operator")
	wantCode(t, c.CreateRole("Admin", "", false), 1105, "Role admin already exists")
	wantCode(t, c.Grant(Grantee{Role: "admin"}, Target{"*", "*"}, SelectPriv), 1105, "Can not grant/revoke to/from role: admin")
	wantCode(t, c.RevokeRoles([]string{"operator"}, "root", "%"), 1105, "")
	if err := c.CreateUser("u", "%", "", false); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.GrantRoles([]string{"operator"}, "u", "%"), 1105, "Can not grant role: operator")
	if err := c.GrantRoles([]string{"admin"}, "u", "%"); err != nil {
		t.Fatal(err)
	}
	if !c.Access("u", "%").Global(WantAdmin) {
		t.Fatal("admin role not effective")
	}
	// Doris's level rules.
	wantCode(t, c.Grant(Grantee{User: "u", Host: "%"}, Target{"db", "*"}, AdminPriv), 1105, "ADMIN_PRIV and NODE_PRIV can only be granted/revoke on/from *.*")
	wantCode(t, c.Grant(Grantee{User: "u", Host: "%"}, Target{"db", "t"}, UsagePriv), 1105, "Can not grant/revoke USAGE_PRIV to/from database or table")
	wantCode(t, c.Grant(Grantee{User: "nobody", Host: "%"}, Target{"db", "t"}, SelectPriv), 1105, "user 'nobody'@'%' does not exist")
	wantCode(t, c.Grant(Grantee{Role: "nope"}, Target{"db", "t"}, SelectPriv), 1105, "Role nope does not exist")
	if err := c.CreateUserWithRole("v", "%", "", "admin", false); err != nil {
		t.Fatal(err)
	}
	if !c.Access("v", "%").Global(WantAdmin) {
		t.Fatal("DEFAULT ROLE not held")
	}
}
