package server

import (
	"context"

	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/types"
)

// update runs UPDATE on a UNIQUE KEY table as Doris does: the matched rows,
// with their SET columns replaced, are written as one load transaction (a
// sub-transaction inside BEGIN), replacing the old versions of their keys.
// The answer's affected rows are the rows written. It holds the table's
// UPDATE lock from before its read until its rows are visible (tablelock.go).
func (s *Session) update(ctx context.Context, st *parser.Vitess, params []types.Datum, w wire.ResultWriter) error {
	if params == nil {
		if err := noPlaceholder(st); err != nil {
			return err
		}
	}
	ins, err := newBinder(s, params).BindUpdate(st)
	if err != nil {
		return err
	}
	release, err := s.lockForUpdate(ctx, ins.DB, ins.Table)
	if err != nil {
		return err
	}
	defer release()
	// Bound again under the lock: a bound scan reads the partitions'
	// versions of the catalog it saw, and those from before the wait would
	// miss what the UPDATE it waited for wrote.
	if ins, err = newBinder(s, params).BindUpdate(st); err != nil {
		return err
	}
	return s.runInsert(ctx, st, ins, w)
}
