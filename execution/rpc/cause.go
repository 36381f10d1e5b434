package rpc

import (
	"context"
	"errors"
	"io/fs"
	"regexp"
	"strings"
	"syscall"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// Cause says what went wrong in err in the words a client may read: the
// condition, never our internals. Errors cross to the client from storage
// (file paths under the data dir), from gRPC (its status text) and from
// encoding packages; the backend applies Cause before an error leaves it
// (ToStatus) and the FE to what a backend call returned (the
// coordinator's backendErr), which names the backend.
func Cause(err error) string {
	if err == nil {
		return ""
	}
	var se *sqlerr.Error
	if errors.As(err, &se) {
		return se.Message // declared for users: already says what it means
	}
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return "disk full"
	case errors.Is(err, syscall.EDQUOT):
		return "disk quota exceeded"
	case errors.Is(err, syscall.EROFS):
		return "storage is read-only"
	case errors.Is(err, syscall.EIO):
		return "storage I/O error"
	case errors.Is(err, syscall.EMFILE), errors.Is(err, syscall.ENFILE):
		return "too many open files"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	case errors.Is(err, context.Canceled):
		return "cancelled"
	}
	if st, ok := status.FromError(err); ok {
		if e := FromStatus(err); e != err {
			return Cause(e)
		}
		return statusCause(st)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + Cause(pe.Err)
	}
	return scrubMessage(err.Error())
}

// statusCause describes a gRPC status without its "rpc error: code = …"
// framing; transport failures say the backend could not be reached.
func statusCause(st *status.Status) string {
	switch st.Code() {
	case codes.Unavailable:
		return "unreachable (connection failed or closed)"
	case codes.DeadlineExceeded:
		return "timed out"
	case codes.Canceled:
		return "cancelled"
	case codes.PermissionDenied:
		return "refused the call: " + scrubMessage(st.Message())
	case codes.Unauthenticated:
		return "refused the call (not authenticated)"
	case codes.ResourceExhausted:
		return "out of resources: " + scrubMessage(st.Message())
	}
	return scrubMessage(st.Message())
}

// scrubMessage translates the conditions a flattened error text still
// shows (the errno text survives where the error value did not) and drops
// paths.
func scrubMessage(msg string) string {
	switch {
	case strings.Contains(msg, "no space left on device"):
		return "disk full"
	case strings.Contains(msg, "disk quota exceeded"):
		return "disk quota exceeded"
	case strings.Contains(msg, "read-only file system"):
		return "storage is read-only"
	case strings.Contains(msg, "input/output error"):
		return "storage I/O error"
	}
	msg = strings.TrimPrefix(msg, "rpc error: ")
	return scrubPaths(msg)
}

// absPath matches an absolute file path of two or more components.
var absPath = regexp.MustCompile(`(?:^|[\s"'(=])(/[A-Za-z0-9._+\-]+){2,}/?`)

// scrubPaths replaces absolute file paths in msg by their last component.
func scrubPaths(msg string) string {
	return absPath.ReplaceAllStringFunc(msg, func(m string) string {
		lead := ""
		if m != "" && m[0] != '/' {
			lead, m = m[:1], m[1:]
		}
		m = strings.TrimSuffix(m, "/")
		return lead + m[strings.LastIndex(m, "/")+1:]
	})
}
