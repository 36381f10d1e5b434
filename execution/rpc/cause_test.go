package rpc

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// TestCause: what crosses from storage and gRPC to a client names the
// condition, with no server paths, gRPC framing or Go type names.
func TestCause(t *testing.T) {
	sst := "/var/lib/dorisgo/be-1/ingest-tmp/000123.sst"
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"disk full", &fs.PathError{Op: "write", Path: sst, Err: syscall.ENOSPC}, "disk full"},
		{"disk full wrapped", fmt.Errorf("flush rowset: %w", &fs.PathError{Op: "write", Path: sst, Err: syscall.ENOSPC}), "disk full"},
		{"disk full as text", errors.New("write " + sst + ": no space left on device"), "disk full"},
		{"path dropped", &fs.PathError{Op: "open", Path: sst, Err: syscall.EACCES}, "open: permission denied"},
		{"path in text", errors.New("pebble: corrupt " + sst + " block"), "pebble: corrupt 000123.sst block"},
		{"unavailable", status.Error(codes.Unavailable, "connection error: desc = \"transport: Error while dialing: dial tcp 127.0.0.1:9060: connect: connection refused\""),
			"unreachable (connection failed or closed)"},
		{"deadline", status.Error(codes.DeadlineExceeded, "context deadline exceeded"), "timed out"},
		{"internal", status.Error(codes.Internal, "grpc: error while marshaling"), "grpc: error while marshaling"},
		{"sqlerr through status", ToStatus(sqlerr.NoSuchTable.New("d", "t")), sqlerr.NoSuchTable.New("d", "t").Message},
		{"storage error through status", FromStatus(ToStatus(&fs.PathError{Op: "write", Path: sst, Err: syscall.ENOSPC})), "disk full"},
	} {
		got := Cause(tc.err)
		if got != tc.want {
			t.Errorf("%s: Cause(%v) = %q, want %q", tc.name, tc.err, got, tc.want)
		}
		for _, bad := range []string{"rpc error", "code =", "/var/lib", "ingest-tmp/"} {
			if strings.Contains(got, bad) {
				t.Errorf("%s: %q shows %q", tc.name, got, bad)
			}
		}
	}
}

// A backend's exchange failure keeps the receiving backend's address and
// reads as the condition, without gRPC's framing.
func TestPeerMessage(t *testing.T) {
	for in, want := range map[string]string{
		`exchange to backend 10.1.0.13:9060: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp 10.1.0.13:9060: connect: no route to host"`: "exchange to backend 10.1.0.13:9060: unreachable (no route to host)",
		"exchange to backend 10.1.0.13:9060: rpc error: code = Unavailable desc = error reading from server: EOF":                                                                                "exchange to backend 10.1.0.13:9060: unreachable (connection failed or closed)",
		"exchange to backend 10.1.0.13:9060: unreachable (connection failed or closed)":                                                                                                          "exchange to backend 10.1.0.13:9060: unreachable (connection failed or closed)",
		"tablet 7: something else": "tablet 7: something else",
	} {
		if got := PeerMessage(in); got != want {
			t.Errorf("PeerMessage(%q) = %q, want %q", in, got, want)
		}
	}
}
