package server

import (
	"context"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/coord"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/types"
)

// showHidden reports show_hidden_columns (DESC lists hidden columns).
func (s *Session) showHidden() bool { return s.vars.get("show_hidden_columns") == "true" }

// deleteSign runs a DELETE on a UNIQUE KEY table as Doris's
// DeleteFromUsingCommand: one load of the matched rows with the delete
// sign set (bind.BindDeleteSign), answered with the rows it wrote.
func (s *Session) deleteSign(ctx context.Context, st *parser.Vitess, params []types.Datum) func(wire.ResultWriter) error {
	return func(w wire.ResultWriter) error {
		ins, err := newBinder(s, params).BindDeleteSign(st)
		if err != nil {
			return err
		}
		release, err := s.lockForUpdate(ctx, ins.DB, ins.Table)
		if err != nil {
			return err
		}
		defer release()
		// Bound again under the lock (see update).
		if ins, err = newBinder(s, params).BindDeleteSign(st); err != nil {
			return err
		}
		ctx = coord.WithLoadInfo(ctx, catalog.TxnInfo{User: s.acct.user})
		return s.runInsert(ctx, st, ins, w)
	}
}
