package catalog

import (
	"bytes"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func TestUserHashes(t *testing.T) {
	c, kv := newTestCatalog(t, 0)
	const pw = "S3cret-pw!"
	if err := c.CreateUser("alice", "%", pw, false); err != nil {
		t.Fatal(err)
	}
	u, ok := c.LookupUser("alice", "1.2.3.4")
	if !ok {
		t.Fatal("no alice")
	}
	s1 := sha1.Sum([]byte(pw))
	s2 := sha1.Sum(s1[:])
	h1 := sha256.Sum256([]byte(pw))
	h2 := sha256.Sum256(h1[:])
	if !bytes.Equal(u.NativeHash, s2[:]) || !bytes.Equal(u.Sha2Hash, h2[:]) {
		t.Fatal("hashes")
	}
	if err := c.SetPassword("alice", "%", "n3w-Passw0rd"); err != nil {
		t.Fatal(err)
	}
	// Neither password appears anywhere in the KV, in any encoding we use.
	for k, v := range kv.snapshot() {
		for _, p := range []string{pw, "n3w-Passw0rd"} {
			for _, enc := range []string{p, hex.EncodeToString([]byte(p))} {
				if strings.Contains(k, enc) || strings.Contains(v, enc) {
					t.Fatalf("plaintext password stored under %q", k)
				}
			}
		}
	}
	u2, _ := c.LookupUser("alice", "x")
	if bytes.Equal(u2.NativeHash, u.NativeHash) || !bytes.Equal(u2.NativeHash, NativeHash("n3w-Passw0rd")) {
		t.Fatal("SetPassword did not change the hash")
	}
	if u.NativeHash == nil || !bytes.Equal(u.NativeHash, s2[:]) {
		t.Fatal("old snapshot mutated")
	}
	if NativeHash("") != nil || Sha2Hash("") != nil {
		t.Fatal("empty password must hash to nil")
	}
}

func TestUserDDLErrors(t *testing.T) {
	c, _ := newTestCatalog(t, 0)
	if err := c.CreateUser("bob", "localhost", "", false); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.CreateUser("bob", "LOCALHOST", "x", false), 1396, "Operation CREATE USER failed for 'bob'@'localhost'")
	if err := c.CreateUser("bob", "localhost", "x", true); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.DropUser("bob", "%", false), 1396, "Operation DROP USER failed for 'bob'@'%'")
	if err := c.DropUser("bob", "%", true); err != nil {
		t.Fatal(err)
	}
	wantCode(t, c.SetPassword("nobody", "%", "x"), 1133, "Can't find any matching row in the user table")
	if err := c.DropUser("bob", "localhost", false); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.LookupUser("bob", "localhost"); ok {
		t.Fatal("dropped user found")
	}
	// An empty host is '%'.
	if err := c.CreateUser("eve", "", "", false); err != nil {
		t.Fatal(err)
	}
	if u, ok := c.LookupUser("eve", "anything"); !ok || u.Host != "%" {
		t.Fatal("empty host")
	}
}

func TestLookupUserHostMatching(t *testing.T) {
	c, _ := newTestCatalog(t, 0)
	for _, h := range []string{"%", "10.0.%", "10.0.0.5", "192.168.1._", "%.example.com"} {
		if err := c.CreateUser("u", h, h, false); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct{ host, want string }{
		{"10.0.0.5", "10.0.0.5"},
		{"10.0.0.6", "10.0.%"},
		{"192.168.1.7", "192.168.1._"},
		{"192.168.1.17", "%"},
		{"db.example.com", "%.example.com"},
		{"DB.EXAMPLE.COM", "%.example.com"},
		{"127.0.0.1", "%"},
	}
	for _, tc := range cases {
		u, ok := c.LookupUser("u", tc.host)
		if !ok || u.Host != tc.want {
			t.Errorf("LookupUser(u, %s) = %v, want host %s", tc.host, u, tc.want)
		}
	}
	if _, ok := c.LookupUser("nobody", "10.0.0.5"); ok {
		t.Fatal("unknown user matched")
	}
	if err := c.DropUser("u", "%", false); err != nil {
		t.Fatal(err)
	}
	if _, ok := c.LookupUser("u", "127.0.0.1"); ok {
		t.Fatal("no pattern should match after dropping '%'")
	}
	if got := len(c.Users()); got != 6 { // root, admin + 4 u
		t.Fatal("Users()", got)
	}
}
