package wire

import (
	"bytes"
	"crypto/rsa"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/subtle"

	"github.com/go-mysql-org/go-mysql/mysql"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

type authResult uint8

const (
	authDenied authResult = iota
	authOK
	authSwitch // ask the client to redo the exchange with another plugin
	authBroken // connection failed mid-exchange; nothing more to send
)

func okIf(b bool) authResult {
	if b {
		return authOK
	}
	return authDenied
}

// authenticate checks the client's credentials against the stored hashes
// (item 17), switching plugin at most once. On failure it sends ERR 1045 –
// also for unknown users (item 9) – and returns false.
func (c *conn) authenticate(user, plugin string, resp []byte) bool {
	acct, found := c.srv.h.LookupAccount(user, c.host)
	usedPassword := len(resp) > 0
	if found {
		res, next := c.verify(acct, plugin, resp)
		if res == authSwitch {
			b := append(c.begin(), mysql.EOF_HEADER)
			b = append(b, next...)
			b = append(b, 0)
			b = append(b, c.salt...)
			if c.send(append(b, 0)) != nil {
				return false
			}
			var err error
			if resp, err = readPacket(c.pc, preAuthMaxPacket); err != nil {
				return false
			}
			usedPassword = len(resp) > 0
			if res, _ = c.verify(acct, next, resp); res == authSwitch {
				res = authDenied // one switch only
			}
		}
		switch res {
		case authOK:
			return true
		case authBroken:
			return false
		}
	}
	yes := "NO"
	if usedPassword {
		yes = "YES"
	}
	_ = c.sendErr(sqlerr.AccessDenied.New(user, c.host, yes))
	return false
}

// verify judges one auth response. next names the plugin to switch to.
//
// Policy: mysql_native_password is checked against NativeHash;
// caching_sha2_password's fast path against Sha2Hash (which is exactly what
// MySQL keeps in its cache, so the fast path always works when Sha2Hash is
// stored); a fast-path mismatch or a missing Sha2Hash goes to full
// authentication, as MySQL does on a cache miss. An empty response for an
// account with a password (libmysqlclient sends one when the greeting's
// plugin is not its default) and any other plugin trigger a switch.
func (c *conn) verify(acct Account, plugin string, resp []byte) (authResult, string) {
	emptyPassword := acct.NativeHash == nil && acct.Sha2Hash == nil
	switch plugin {
	case mysql.AUTH_NATIVE_PASSWORD:
		switch {
		case emptyPassword:
			return okIf(len(resp) == 0), ""
		case acct.NativeHash == nil:
			return authSwitch, mysql.AUTH_CACHING_SHA2_PASSWORD
		case len(resp) == 0:
			return authSwitch, mysql.AUTH_NATIVE_PASSWORD
		}
		return okIf(checkNative(c.salt, resp, acct.NativeHash)), ""
	case mysql.AUTH_CACHING_SHA2_PASSWORD:
		switch {
		case emptyPassword:
			return okIf(len(resp) == 0), ""
		case len(resp) == sha256.Size:
			if acct.Sha2Hash != nil && checkSha2(c.salt, resp, acct.Sha2Hash) {
				if c.send(append(c.begin(), 1, mysql.CACHE_SHA2_FAST_AUTH)) != nil {
					return authBroken, ""
				}
				return authOK, ""
			}
			return c.fullAuth(acct), ""
		case acct.Sha2Hash == nil:
			return authSwitch, mysql.AUTH_NATIVE_PASSWORD
		}
		return authSwitch, mysql.AUTH_CACHING_SHA2_PASSWORD
	}
	if acct.Sha2Hash != nil && acct.NativeHash == nil {
		return authSwitch, mysql.AUTH_CACHING_SHA2_PASSWORD
	}
	return authSwitch, mysql.AUTH_NATIVE_PASSWORD
}

// fullAuth runs caching_sha2_password full authentication: the password in
// clear over TLS, else RSA-OAEP encrypted with the server key (sent on
// request), then verified by hashing.
func (c *conn) fullAuth(acct Account) authResult {
	if c.send(append(c.begin(), 1, mysql.CACHE_SHA2_FULL_AUTH)) != nil {
		return authBroken
	}
	pkt, err := readPacket(c.pc, preAuthMaxPacket)
	if err != nil {
		return authBroken
	}
	var pw []byte
	if c.tls {
		pw = pkt
	} else {
		key, pub, err := c.srv.rsa()
		if err != nil {
			c.log.Error("wire: RSA key", "err", err)
			return authDenied
		}
		if len(pkt) == 1 && pkt[0] == 2 { // request public key
			b := append(c.begin(), 1)
			if c.send(append(b, pub...)) != nil {
				return authBroken
			}
			if pkt, err = readPacket(c.pc, preAuthMaxPacket); err != nil {
				return authBroken
			}
		}
		plain, err := rsa.DecryptOAEP(sha1.New(), nil, key, pkt, nil)
		if err != nil {
			return authDenied
		}
		for i := range plain {
			plain[i] ^= c.salt[i%len(c.salt)]
		}
		pw = plain
	}
	pw = bytes.TrimSuffix(pw, []byte{0})
	return okIf(checkPlain(pw, acct))
}

// checkNative verifies a mysql_native_password reply against
// stored = SHA1(SHA1(pw)): SHA1(reply XOR SHA1(salt‖stored)) == stored.
func checkNative(salt, reply, stored []byte) bool {
	if len(reply) != sha1.Size || len(stored) != sha1.Size {
		return false
	}
	h := sha1.New()
	h.Write(salt)
	h.Write(stored)
	m := h.Sum(nil)
	for i := range m {
		m[i] ^= reply[i]
	}
	s := sha1.Sum(m)
	return subtle.ConstantTimeCompare(s[:], stored) == 1
}

// checkSha2 verifies a caching_sha2_password fast-auth reply against
// stored = SHA256(SHA256(pw)): reply = SHA256(pw) XOR SHA256(stored‖salt).
func checkSha2(salt, reply, stored []byte) bool {
	if len(reply) != sha256.Size || len(stored) != sha256.Size {
		return false
	}
	h := sha256.New()
	h.Write(stored)
	h.Write(salt)
	m := h.Sum(nil)
	for i := range m {
		m[i] ^= reply[i]
	}
	s := sha256.Sum256(m)
	return subtle.ConstantTimeCompare(s[:], stored) == 1
}

// checkPlain verifies a clear-text password against whichever hash is stored.
func checkPlain(pw []byte, acct Account) bool {
	switch {
	case acct.Sha2Hash != nil:
		h1 := sha256.Sum256(pw)
		h2 := sha256.Sum256(h1[:])
		return subtle.ConstantTimeCompare(h2[:], acct.Sha2Hash) == 1
	case acct.NativeHash != nil:
		h1 := sha1.Sum(pw)
		h2 := sha1.Sum(h1[:])
		return subtle.ConstantTimeCompare(h2[:], acct.NativeHash) == 1
	}
	return len(pw) == 0
}
