package rpc

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// The cluster token: a backend's RPC port serves only callers that present
// its cluster's token (the FE and the other backends), in the call metadata
// under TokenHeader. The FE generates the token on its first start and
// keeps it in its data dir (TokenFile); embedded backends get it from the
// FE; a separate backend gets it from --cluster-token / --cluster-token-file
// or, without them, from the first call that carries one — the FE's first
// heartbeat after ALTER SYSTEM ADD BACKEND — and keeps it in its own data
// dir from then on. A call without the token, or with another, is refused
// with PermissionDenied before any handler runs.

// TokenHeader is the metadata key carrying the cluster token.
const TokenHeader = "x-dorisgo-cluster-token"

// TokenFile is the file, in an FE's or a backend's data dir, holding the
// cluster token.
const TokenFile = "cluster_token"

// NewToken returns a random cluster token.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}

// LoadOrCreateToken reads dir's token file, creating it with a new token
// if it does not exist (an FE's first start).
func LoadOrCreateToken(dir string) (string, error) {
	tok, err := ReadTokenFile(filepath.Join(dir, TokenFile))
	if err == nil {
		return tok, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	if tok, err = NewToken(); err != nil {
		return "", err
	}
	return tok, writeToken(dir, tok)
}

// ReadTokenFile reads a token file (surrounding white space ignored).
func ReadTokenFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", fmt.Errorf("cluster token file %s is empty", path)
	}
	return tok, nil
}

// writeToken stores tok in dir durably (written aside, synced, renamed).
func writeToken(dir, tok string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp := filepath.Join(dir, TokenFile+".tmp")
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(dir, TokenFile))
}

// TokenGuard checks the cluster token of every call a backend serves.
type TokenGuard struct {
	dir string // where a token learned from the first call is kept
	mu  sync.RWMutex
	tok string // "" until claimed
}

// NewTokenGuard guards a backend whose data dir is dir with token tok; an
// empty tok means the token kept in dir, or, if there is none yet, the
// token of the first call that presents one.
func NewTokenGuard(dir, tok string) (*TokenGuard, error) {
	if tok == "" {
		t, err := ReadTokenFile(filepath.Join(dir, TokenFile))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		tok = t
	}
	return &TokenGuard{dir: dir, tok: tok}, nil
}

// Token is the cluster token ("" while not yet claimed).
func (g *TokenGuard) Token() string {
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.tok
}

func (g *TokenGuard) check(ctx context.Context) error {
	var got string
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get(TokenHeader); len(v) > 0 {
			got = v[0]
		}
	}
	if got == "" {
		return status.Error(codes.PermissionDenied, "this backend serves only its cluster: the call carries no cluster token")
	}
	g.mu.RLock()
	tok := g.tok
	g.mu.RUnlock()
	if tok == "" {
		g.mu.Lock()
		defer g.mu.Unlock()
		if g.tok == "" {
			// Not yet in a cluster: the first caller with a token (the FE
			// that added this backend) makes it this backend's cluster.
			if err := writeToken(g.dir, got); err != nil {
				return status.Error(codes.Internal, "cannot keep the cluster token: "+Cause(err))
			}
			g.tok = got
		}
		tok = g.tok
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(tok)) != 1 {
		return status.Error(codes.PermissionDenied, "this backend serves only its cluster: wrong cluster token")
	}
	return nil
}

// ServerOptions are the interceptors enforcing the token on unary and
// streaming calls.
func (g *TokenGuard) ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if err := g.check(ctx); err != nil {
				return nil, err
			}
			return h(ctx, req)
		}),
		grpc.ChainStreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if err := g.check(ss.Context()); err != nil {
				return err
			}
			return h(srv, ss)
		}),
	}
}

// tokenCreds sends the cluster token with every call.
type tokenCreds string

func (t tokenCreds) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{TokenHeader: string(t)}, nil
}

// RequireTransportSecurity is false: the cluster network is plain TCP (the
// token keeps strangers out; it does not encrypt).
func (tokenCreds) RequireTransportSecurity() bool { return false }
