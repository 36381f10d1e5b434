package server_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/dorisgo/dorisgo/execution/rpc"
)

// TestE2EClusterTokenRefusesStrangers: the FE's backends refuse a gRPC
// caller without the cluster token kept in the FE's data dir, and serve
// one presenting it.
func TestE2EClusterTokenRefusesStrangers(t *testing.T) {
	dir := t.TempDir()
	s := startServer(t, dir)
	var once sync.Once
	t.Cleanup(func() { once.Do(s.Close) })
	db := openDB(t, s.MySQLAddr(), "", true)
	rows := queryStrings(t, db, "SHOW BACKENDS")
	if len(rows) != 3 {
		t.Fatalf("SHOW BACKENDS: %q", rows)
	}
	tok, err := rpc.ReadTokenFile(filepath.Join(dir, rpc.TokenFile))
	if err != nil || len(tok) < 32 {
		t.Fatalf("cluster token %q: %v", tok, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, rpc.TokenFile)); err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("token file %v %v, want private", fi.Mode(), err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, r := range rows {
		addr := r[1] + ":" + r[3] // Host, BePort
		for _, bad := range []string{"", "not-the-token"} {
			cl, err := rpc.Dial(addr, bad)
			if err != nil {
				t.Fatal(err)
			}
			err = cl.Do(ctx, rpc.ActExecFragment, struct{}{}, nil)
			if err == nil || !strings.Contains(err.Error(), "PermissionDenied") {
				t.Errorf("backend %s, token %q: exec fragment: %v, want PermissionDenied", addr, bad, err)
			}
			err = cl.Do(ctx, rpc.ActCreateTablet, rpc.CreateTabletReq{}, nil)
			if err == nil || !strings.Contains(err.Error(), "PermissionDenied") {
				t.Errorf("backend %s, token %q: create tablet: %v, want PermissionDenied", addr, bad, err)
			}
			cl.Close()
		}
		cl, err := rpc.Dial(addr, tok)
		if err != nil {
			t.Fatal(err)
		}
		var hb rpc.HeartbeatResp
		if err := cl.Do(ctx, rpc.ActHeartbeat, struct{}{}, &hb); err != nil {
			t.Errorf("backend %s with the token: %v", addr, err)
		}
		cl.Close()
	}
	// The token survives a restart: the same backends still serve the FE.
	once.Do(s.Close)
	s2 := startServer(t, dir)
	t.Cleanup(s2.Close)
	if tok2, _ := rpc.ReadTokenFile(filepath.Join(dir, rpc.TokenFile)); tok2 != tok {
		t.Errorf("token changed across a restart")
	}
	waitBackendsAlive(t, openDB(t, s2.MySQLAddr(), "", true), 3)
}
