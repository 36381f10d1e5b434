package coord

import (
	"context"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
)

type loadInfoKey struct{}

// WithLoadInfo marks ctx's loads with what SHOW TRANSACTION shows of them
// (their source type and timeout).
func WithLoadInfo(ctx context.Context, info catalog.TxnInfo) context.Context {
	return context.WithValue(ctx, loadInfoKey{}, info)
}

// loadInfo is ctx's load info; without a timeout of its own, the time
// ctx has left (an INSERT's insert_timeout), in whole seconds.
func loadInfo(ctx context.Context) catalog.TxnInfo {
	info, _ := ctx.Value(loadInfoKey{}).(catalog.TxnInfo)
	if d, ok := ctx.Deadline(); ok && info.Timeout == 0 {
		info.Timeout = time.Until(d).Round(time.Second)
	}
	return info
}
