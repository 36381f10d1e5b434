package be

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dorisgo/dorisgo/execution/rpc"
)

// TestClusterToken: a backend serves only callers presenting its cluster
// token. Without it, or with another, every call (actions, fragments, load
// streams, exchange pulls) is refused with PermissionDenied; a backend
// started without a token takes the first caller's and keeps it across a
// restart.
func TestClusterToken(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	denied := func(what string, err error) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), "serves only its cluster") {
			t.Errorf("%s: %v, want a refusal", what, err)
		}
		if err != nil && !strings.Contains(rpc.Cause(err), "refused") && status.Code(err) != codes.PermissionDenied {
			t.Errorf("%s: %v is not PermissionDenied", what, err)
		}
	}
	refusedEverything := func(addr, tok string) {
		t.Helper()
		cl, err := rpc.Dial(addr, tok)
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		denied("heartbeat", cl.Do(ctx, rpc.ActHeartbeat, struct{}{}, nil))
		denied("exec fragment", cl.Do(ctx, rpc.ActExecFragment, struct{}{}, nil))
		denied("create tablet", cl.Do(ctx, rpc.ActCreateTablet, rpc.CreateTabletReq{}, nil))
		schema := arrow.NewSchema([]arrow.Field{{Name: "k", Type: arrow.PrimitiveTypes.Int64}}, nil)
		l, err := cl.Load(ctx, 1, schema)
		if err == nil {
			b := array.NewInt64Builder(memory.DefaultAllocator)
			b.Append(1)
			a := b.NewArray()
			rec := array.NewRecord(schema, []arrow.Array{a}, 1)
			werr := l.Write(1, rec)
			rec.Release()
			a.Release()
			b.Release()
			if werr == nil {
				werr = l.Close()
			} else {
				l.Abort()
			}
			err = werr
		}
		denied("load stream", err)
	}

	dir := t.TempDir()
	b, err := StartToken(dir, "127.0.0.1:0", nil, "secret-1")
	if err != nil {
		t.Fatal(err)
	}
	refusedEverything(b.Addr(), "")
	refusedEverything(b.Addr(), "secret-2")
	good, err := rpc.Dial(b.Addr(), "secret-1")
	if err != nil {
		t.Fatal(err)
	}
	var hb rpc.HeartbeatResp
	if err := good.Do(ctx, rpc.ActHeartbeat, struct{}{}, &hb); err != nil || hb.StartTime == 0 {
		t.Fatalf("heartbeat with the token: %+v %v", hb, err)
	}
	good.Close()
	b.Stop()

	// Without a token: not in a cluster; a caller without a token is
	// refused, the first with one claims it, and the claim survives a
	// restart.
	dir2 := t.TempDir()
	b2, err := Start(dir2, "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	refusedEverything(b2.Addr(), "")
	fe, err := rpc.Dial(b2.Addr(), "cluster-a")
	if err != nil {
		t.Fatal(err)
	}
	if err := fe.Do(ctx, rpc.ActHeartbeat, struct{}{}, &hb); err != nil {
		t.Fatalf("claiming heartbeat: %v", err)
	}
	fe.Close()
	refusedEverything(b2.Addr(), "cluster-b")
	b2.Stop()
	if tok, err := rpc.ReadTokenFile(filepath.Join(dir2, rpc.TokenFile)); err != nil || tok != "cluster-a" {
		t.Fatalf("kept token %q %v", tok, err)
	}
	if fi, err := os.Stat(filepath.Join(dir2, rpc.TokenFile)); err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("token file mode %v %v, want private", fi.Mode(), err)
	}
	b3, err := Start(dir2, "127.0.0.1:0", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b3.Stop()
	refusedEverything(b3.Addr(), "cluster-b")
}
