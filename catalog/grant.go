package catalog

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// Grantee receives or loses grants: the account User@Host, or the role
// Role when Role is set.
type Grantee struct{ User, Host, Role string }

func (g Grantee) String() string {
	if g.Role != "" {
		return fmt.Sprintf("role '%s'", g.Role)
	}
	return userString(g.User, normHost(g.Host))
}

// Grant adds privileges p on t to g, in one write. Who may grant what is
// the server's to check; the catalog refuses only what no one may do:
// ADMIN_PRIV and NODE_PRIV below *.*, USAGE_PRIV below *.*, and any change
// to the built-in roles.
func (c *Catalog) Grant(g Grantee, t Target, p Priv) error {
	if err := checkGrantable(t, p); err != nil {
		return err
	}
	return c.editPrivs(g, func(pt PrivTable) (PrivTable, error) {
		return pt.set(t, pt.At(t)|p), nil
	})
}

// Revoke removes privileges p on t from g; error 1141 if g holds nothing
// at exactly that level (as MySQL, a grant on db.* is not revoked by a
// REVOKE on db.t, nor the other way round).
func (c *Catalog) Revoke(g Grantee, t Target, p Priv) error {
	if err := checkGrantable(t, p); err != nil {
		return err
	}
	return c.editPrivs(g, func(pt PrivTable) (PrivTable, error) {
		had := pt.At(t)
		if had == 0 {
			if g.Role != "" {
				return pt, sqlerr.Doris.New(fmt.Sprintf("There is no such grant defined for role '%s' on %s", g.Role, t))
			}
			return pt, sqlerr.NonexistingGrant.New(g.User, normHost(g.Host))
		}
		return pt.set(t, had&^p), nil
	})
}

// checkGrantable applies Doris's GrantStmt rules that depend only on the
// statement.
func checkGrantable(t Target, p Priv) error {
	if t.Level() != LevelGlobal && p&(AdminPriv|NodePriv) != 0 {
		return sqlerr.Doris.New("ADMIN_PRIV and NODE_PRIV can only be granted/revoke on/from *.*")
	}
	if t.Level() != LevelGlobal && p&UsagePriv != 0 {
		return sqlerr.Doris.New("Can not grant/revoke USAGE_PRIV to/from database or table")
	}
	return nil
}

// editPrivs replaces g's own privilege table with edit's result.
func (c *Catalog) editPrivs(g Grantee, edit func(PrivTable) (PrivTable, error)) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if g.Role != "" {
		r, err := c.roleLocked(g.Role)
		if err != nil {
			return err
		}
		if r.Builtin {
			return sqlerr.Doris.New(fmt.Sprintf("Can not grant/revoke to/from role: %s", r.Name))
		}
		pt, err := edit(r.Privs)
		if err != nil {
			return err
		}
		nr := *r
		nr.Privs = pt
		b := c.newBatch()
		b.put(roleKey(nr.Name), &nr)
		if err := c.commit(b); err != nil {
			return err
		}
		c.roles[nr.Name] = &nr
		return nil
	}
	u, err := c.userLocked(g.User, g.Host)
	if err != nil {
		return err
	}
	pt, err := edit(u.Privs)
	if err != nil {
		return err
	}
	nu := *u
	nu.Privs = pt
	return c.putUserLocked(&nu)
}

func (c *Catalog) userLocked(name, host string) (*User, error) {
	host = normHost(host)
	u, ok := c.users[string(userKey(name, host))]
	if !ok {
		return nil, sqlerr.Doris.New(fmt.Sprintf("user %s does not exist", userString(name, host)))
	}
	return u, nil
}

func (c *Catalog) putUserLocked(u *User) error {
	key := userKey(u.Name, u.Host)
	b := c.newBatch()
	b.put(key, u)
	if err := c.commit(b); err != nil {
		return err
	}
	c.users[string(key)] = u
	return nil
}

func (c *Catalog) roleLocked(name string) (*Role, error) {
	if isBuiltinRole(name) {
		name = strings.ToLower(name)
	}
	if r, ok := c.roles[name]; ok {
		return r, nil
	}
	return nil, sqlerr.Doris.New(fmt.Sprintf("Role %s does not exist", name))
}

// grantableRoleLocked checks that role exists and may be handed to an
// account: operator (NODE_PRIV) belongs to root alone, as in Doris.
func (c *Catalog) grantableRoleLocked(role string) error {
	r, err := c.roleLocked(role)
	if err != nil {
		return err
	}
	if r.Name == OperatorRole {
		return sqlerr.Doris.New("Can not grant role: " + OperatorRole)
	}
	return nil
}

// CreateRole adds an empty role (an error if it exists, unless ifNotExists).
func (c *Catalog) CreateRole(name, comment string, ifNotExists bool) error {
	if name == "" {
		return sqlerr.Doris.New("Role name can not be empty")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, err := c.roleLocked(name); err == nil {
		if ifNotExists && !r.Builtin {
			return nil
		}
		return sqlerr.Doris.New(fmt.Sprintf("Role %s already exists", r.Name))
	}
	r := &Role{Name: name, Comment: comment}
	b := c.newBatch()
	b.put(roleKey(name), r)
	if err := c.commit(b); err != nil {
		return err
	}
	c.roles[name] = r
	return nil
}

// DropRole removes a role and takes it from every account holding it, in
// one write.
func (c *Catalog) DropRole(name string, ifExists bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, err := c.roleLocked(name)
	if err != nil {
		if ifExists {
			return nil
		}
		return err
	}
	if r.Builtin {
		return sqlerr.Doris.New("Can not drop role: " + r.Name)
	}
	b := c.newBatch()
	b.del(roleKey(name))
	changed := map[string]*User{}
	for k, u := range c.users {
		if i := slices.Index(u.Roles, name); i >= 0 {
			nu := *u
			nu.Roles = slices.Delete(slices.Clone(u.Roles), i, i+1)
			b.put([]byte(k), &nu)
			changed[k] = &nu
		}
	}
	if err := c.commit(b); err != nil {
		return err
	}
	delete(c.roles, name)
	for k, u := range changed {
		c.users[k] = u
	}
	return nil
}

// GrantRoles gives roles to the account user@host.
func (c *Catalog) GrantRoles(roles []string, user, host string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	u, err := c.userLocked(user, host)
	if err != nil {
		return err
	}
	nu := *u
	nu.Roles = slices.Clone(u.Roles)
	for _, name := range roles {
		if err := c.grantableRoleLocked(name); err != nil {
			return err
		}
		r, _ := c.roleLocked(name)
		if !slices.Contains(nu.Roles, r.Name) && builtinRoleOf(u.Name, u.Host) != r.Name {
			nu.Roles = append(nu.Roles, r.Name)
		}
	}
	sort.Strings(nu.Roles)
	return c.putUserLocked(&nu)
}

// RevokeRoles takes roles from the account user@host. The built-in
// accounts keep their own role.
func (c *Catalog) RevokeRoles(roles []string, user, host string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	u, err := c.userLocked(user, host)
	if err != nil {
		return err
	}
	nu := *u
	nu.Roles = slices.Clone(u.Roles)
	for _, name := range roles {
		r, err := c.roleLocked(name)
		if err != nil {
			return err
		}
		if builtinRoleOf(u.Name, u.Host) == r.Name {
			return sqlerr.Doris.New(fmt.Sprintf("Can not revoke role %s from %s: it is built in", r.Name, userString(u.Name, u.Host)))
		}
		i := slices.Index(nu.Roles, r.Name)
		if i < 0 {
			return sqlerr.Doris.New(fmt.Sprintf("%s does not have role %s", userString(u.Name, u.Host), r.Name))
		}
		nu.Roles = slices.Delete(nu.Roles, i, i+1)
	}
	return c.putUserLocked(&nu)
}

// Roles lists every role, built-in ones included, sorted by name.
func (c *Catalog) Roles() []*Role {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*Role, 0, len(c.roles))
	for _, r := range c.roles {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Access is the effective privileges of the account name@host (the
// account's stored host pattern, not a client address); an account that
// does not exist (dropped while connected) has none.
func (c *Catalog) Access(name, host string) *Access {
	c.mu.RLock()
	defer c.mu.RUnlock()
	host = normHost(host)
	u, ok := c.users[string(userKey(name, host))]
	if !ok {
		return &Access{}
	}
	a := &Access{User: u.Name, Host: u.Host, Privs: u.Privs.clone()}
	roles := slices.Clone(u.Roles)
	if br := builtinRoleOf(u.Name, u.Host); br != "" {
		roles = append(roles, br)
	}
	sort.Strings(roles)
	for _, name := range slices.Compact(roles) {
		if r, ok := c.roles[name]; ok {
			a.Roles = append(a.Roles, name)
			a.Privs.merge(r.Privs)
		}
	}
	return a
}
