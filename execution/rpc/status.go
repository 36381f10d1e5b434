package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// ToStatus turns an error into a gRPC status that carries a *sqlerr.Error
// (code, state, message) so the FE can give the user the backend's exact
// MySQL error.
func ToStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok && !isSQL(err) {
		return err
	}
	e := sqlerr.As(err)
	if !isSQL(err) && !IsSecondary(err) && !errors.Is(err, context.DeadlineExceeded) {
		// Not an error declared for users (a storage or encoding failure):
		// its text may hold paths and type names; send the condition.
		// Cancellations keep their text, by which IsSecondary knows them.
		e = sqlerr.Doris.New(Cause(err))
	}
	b, _ := json.Marshal(e)
	return status.Error(codes.Unknown, "sqlerr:"+string(b))
}

func isSQL(err error) bool {
	var e *sqlerr.Error
	return errors.As(err, &e)
}

// FromStatus reverses ToStatus; other gRPC errors come back as they are.
func FromStatus(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	msg := st.Message()
	const p = "sqlerr:"
	if len(msg) > len(p) && msg[:len(p)] == p {
		var e sqlerr.Error
		if json.Unmarshal([]byte(msg[len(p):]), &e) == nil {
			return &e
		}
	}
	return err
}

// BrokenStream starts the message of a receiver whose sender's stream broke
// off: a consequence of a failure elsewhere (the sender's own error, its
// backend's death), which the FE reports in preference.
const BrokenStream = "exchange stream broken"

// IsSecondary reports whether err is only a consequence of another failure
// of the same query: a cancellation or a broken exchange stream.
func IsSecondary(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.Canceled) || status.Code(err) == codes.Canceled {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, BrokenStream) || strings.Contains(msg, "context canceled")
}
