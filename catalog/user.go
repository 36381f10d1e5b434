package catalog

import (
	"crypto/sha1"
	"crypto/sha256"
	"fmt"
	"sort"
	"strings"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// NativeHash is SHA1(SHA1(password)), what mysql_native_password checks
// against; nil for the empty password.
func NativeHash(password string) []byte {
	if password == "" {
		return nil
	}
	h1 := sha1.Sum([]byte(password))
	h2 := sha1.Sum(h1[:])
	return h2[:]
}

// Sha2Hash is SHA256(SHA256(password)), enough for caching_sha2_password's
// fast path; nil for the empty password.
func Sha2Hash(password string) []byte {
	if password == "" {
		return nil
	}
	h1 := sha256.Sum256([]byte(password))
	h2 := sha256.Sum256(h1[:])
	return h2[:]
}

func newUser(name, host, password string) *User {
	return &User{Name: name, Host: host, NativeHash: NativeHash(password), Sha2Hash: Sha2Hash(password)}
}

func userString(name, host string) string { return fmt.Sprintf("'%s'@'%s'", name, host) }

// normHost is the stored form of a host pattern: MySQL hosts are
// case-insensitive and an empty host means '%'.
func normHost(host string) string {
	if host == "" {
		return "%"
	}
	return strings.ToLower(host)
}

// CreateUser adds name@host (1396 if it exists, unless ifNotExists).
func (c *Catalog) CreateUser(name, host, password string, ifNotExists bool) error {
	return c.CreateUserWithRole(name, host, password, "", ifNotExists)
}

// CreateUserWithRole is CREATE USER ... DEFAULT ROLE 'role': the account
// is created holding role ("" for none). The names root and admin are the
// built-in accounts' and cannot be created again on any host.
func (c *Catalog) CreateUserWithRole(name, host, password, role string, ifNotExists bool) error {
	host = normHost(host)
	c.mu.Lock()
	defer c.mu.Unlock()
	key := userKey(name, host)
	if _, ok := c.users[string(key)]; ok {
		if ifNotExists {
			return nil
		}
		return sqlerr.CannotUser.New("CREATE USER", userString(name, host))
	}
	if isBuiltinUser(name) {
		return sqlerr.Doris.New(fmt.Sprintf("Can not create user %s: %s and %s are built-in users", userString(name, host), RootUser, AdminUser))
	}
	u := newUser(name, host, password)
	if role != "" {
		if err := c.grantableRoleLocked(role); err != nil {
			return err
		}
		u.Roles = []string{role}
	}
	return c.putUserLocked(u)
}

// DropUser removes name@host (1396 if missing, unless ifExists).
func (c *Catalog) DropUser(name, host string, ifExists bool) error {
	host = normHost(host)
	c.mu.Lock()
	defer c.mu.Unlock()
	key := userKey(name, host)
	if _, ok := c.users[string(key)]; !ok {
		if ifExists {
			return nil
		}
		return sqlerr.CannotUser.New("DROP USER", userString(name, host))
	}
	if builtinRoleOf(name, host) != "" {
		return sqlerr.Doris.New(fmt.Sprintf("Can not drop user %s: it is built in", userString(name, host)))
	}
	b := c.newBatch()
	b.del(key)
	if err := c.commit(b); err != nil {
		return err
	}
	delete(c.users, string(key))
	return nil
}

// SetPassword replaces name@host's password hashes (1133 if no such user).
func (c *Catalog) SetPassword(name, host, password string) error {
	host = normHost(host)
	c.mu.Lock()
	defer c.mu.Unlock()
	key := userKey(name, host)
	old, ok := c.users[string(key)]
	if !ok {
		return sqlerr.PasswordNoMatch.New()
	}
	u := *old // grants and roles stay
	u.NativeHash, u.Sha2Hash = NativeHash(password), Sha2Hash(password)
	return c.putUserLocked(&u)
}

// User returns the account name@host exactly (no pattern matching).
func (c *Catalog) User(name, host string) (*User, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	u, ok := c.users[string(userKey(name, normHost(host)))]
	return u, ok
}

// LookupUser finds the account a client named name connecting from host
// logs in as: the exact host first, then the most specific matching host
// pattern (MySQL LIKE: % any run, _ one character), '%' last.
func (c *Catalog) LookupUser(name, host string) (*User, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if u, ok := c.users[string(userKey(name, normHost(host)))]; ok {
		return u, true
	}
	var best *User
	for _, u := range c.users {
		if u.Name != name || !likeMatch(u.Host, strings.ToLower(host)) {
			continue
		}
		if best == nil || moreSpecific(u.Host, best.Host) {
			best = u
		}
	}
	return best, best != nil
}

// Users lists the accounts sorted by name, then host.
func (c *Catalog) Users() []*User {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*User, 0, len(c.users))
	for _, u := range c.users {
		out = append(out, u)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Name != out[j].Name {
			return out[i].Name < out[j].Name
		}
		return out[i].Host < out[j].Host
	})
	return out
}

// moreSpecific orders host patterns as MySQL sorts its user table: exact
// hosts first, then patterns with more literal characters ('%' alone last);
// ties by text.
func moreSpecific(a, b string) bool {
	la, lb := literals(a), literals(b)
	if la != lb {
		return la > lb
	}
	return a < b
}

func literals(p string) int {
	n := len(p) - strings.Count(p, "%") - strings.Count(p, "_")
	if n == len(p) {
		return 1 << 20 // no wildcard at all beats any pattern
	}
	return n
}

// likeMatch matches s against a LIKE pattern with % and _ (backslash escapes).
func likeMatch(p, s string) bool {
	if p == "" {
		return s == ""
	}
	switch p[0] {
	case '%':
		for i := 0; i <= len(s); i++ {
			if likeMatch(p[1:], s[i:]) {
				return true
			}
		}
		return false
	case '_':
		return s != "" && likeMatch(p[1:], s[1:])
	case '\\':
		if len(p) > 1 {
			return s != "" && s[0] == p[1] && likeMatch(p[2:], s[1:])
		}
	}
	return s != "" && s[0] == p[0] && likeMatch(p[1:], s[1:])
}
