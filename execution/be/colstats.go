package be

import (
	"context"
	"errors"
	"io"

	"github.com/dorisgo/dorisgo/execution/op/aggregate"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/storage"
)

// columnStats scans each requested tablet at its version (merged, as a
// query reads it) and collects ANALYZE's statistics of the columns.
func (b *Backend) columnStats(ctx context.Context, r rpc.ColumnStatsReq) (rpc.ColumnStatsResp, error) {
	out := rpc.ColumnStatsResp{Stats: map[storage.TabletID][]aggregate.ColumnPartial{}}
	for tab, v := range r.Versions {
		sc, err := b.store.Schema(tab)
		if err != nil {
			return out, err
		}
		cs := make([]*aggregate.ColumnCollector, len(r.Columns))
		for i, c := range r.Columns {
			if c < 0 || c >= len(sc.Columns) {
				return out, errors.New("column_stats: column out of range")
			}
			cs[i] = aggregate.NewColumnCollector(sc.Columns[c].Type, r.Rate, uint64(tab))
		}
		it, err := b.store.Scan(ctx, storage.ScanRequest{Tablet: tab, Version: v, Columns: r.Columns})
		if err != nil {
			return out, err
		}
		for {
			rec, err := it.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				it.Close()
				return out, err
			}
			for i, c := range cs {
				c.Add(rec.Column(i))
			}
			rec.Release()
		}
		it.Close()
		ps := make([]aggregate.ColumnPartial, len(cs))
		for i, c := range cs {
			ps[i] = c.Partial()
			ps[i].Prepare()
		}
		out.Stats[tab] = ps
	}
	return out, nil
}
