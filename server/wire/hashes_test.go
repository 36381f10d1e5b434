package wire

import (
	"crypto/sha1"
	"crypto/sha256"
)

// The stored password forms, as the catalog computes them (tests only: the
// wire layer verifies hashes, it never makes them).

// NativeHash returns SHA1(SHA1(password)), the stored form of Account.NativeHash
// (nil for an empty password).
func NativeHash(password string) []byte {
	if password == "" {
		return nil
	}
	h1 := sha1.Sum([]byte(password))
	h2 := sha1.Sum(h1[:])
	return h2[:]
}

// Sha2Hash returns SHA256(SHA256(password)), the stored form of
// Account.Sha2Hash (nil for an empty password).
func Sha2Hash(password string) []byte {
	if password == "" {
		return nil
	}
	h1 := sha256.Sum256([]byte(password))
	h2 := sha256.Sum256(h1[:])
	return h2[:]
}
