package rpc

import (
	"context"

	"github.com/dorisgo/dorisgo/storage"
)

type partialKey struct{}

// WithPartialUpdate makes the loads opened with ctx partial column
// updates (a stream load's partial_columns, storage.WritePartial).
func WithPartialUpdate(ctx context.Context, p *storage.PartialUpdate) context.Context {
	return context.WithValue(ctx, partialKey{}, p)
}

func partialUpdate(ctx context.Context) *storage.PartialUpdate {
	p, _ := ctx.Value(partialKey{}).(*storage.PartialUpdate)
	return p
}
