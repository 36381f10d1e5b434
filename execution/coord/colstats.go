package coord

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/op/aggregate"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/storage"
)

// analyzeParallel bounds the tablets analyzed at once (each is a scan).
const analyzeParallel = 4

// AnalyzeColumns collects ANALYZE's statistics of t's columns cols
// (indexes into t.Columns): every tablet of every loaded partition is read
// by one of its alive replicas, each row kept with probability rate
// (>= 1: all), and the tablets' partials are merged per column.
func (c *Coordinator) AnalyzeColumns(ctx context.Context, t *catalog.Table, cols []int, rate float64) ([]aggregate.ColumnSummary, error) {
	type job struct {
		tablet  *catalog.Tablet
		version storage.Version
	}
	var jobs []job
	for _, p := range t.Partitions {
		if p.VisibleVersion <= 1 {
			continue
		}
		for _, tb := range p.Tablets {
			jobs = append(jobs, job{tb, p.VisibleVersion})
		}
	}
	parts := make([][]aggregate.ColumnPartial, len(cols))
	var mu sync.Mutex
	var firstErr error
	sem := make(chan struct{}, analyzeParallel)
	var wg sync.WaitGroup
	for _, j := range jobs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer func() { <-sem; wg.Done() }()
			ps, err := c.analyzeTablet(ctx, j.tablet, j.version, cols, rate)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			for i := range cols {
				parts[i] = append(parts[i], ps[i])
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	out := make([]aggregate.ColumnSummary, len(cols))
	for i := range cols {
		var seen int64
		for _, p := range parts[i] {
			seen += p.Rows
		}
		rows := seen
		if rate > 0 && rate < 1 {
			rows = int64(math.Round(float64(seen) / rate))
		}
		out[i] = aggregate.MergeColumnPartials(parts[i], rows)
	}
	return out, nil
}

// analyzeTablet asks the tablet's replicas in turn until one answers.
func (c *Coordinator) analyzeTablet(ctx context.Context, tb *catalog.Tablet, v storage.Version, cols []int, rate float64) ([]aggregate.ColumnPartial, error) {
	err := fmt.Errorf("tablet %d has no alive replica", tb.ID)
	for _, r := range tb.Replicas {
		if b, ok := c.cat.Backend(r.BackendID); !ok || !b.Alive {
			continue
		}
		cl, cerr := c.Client(r.BackendID)
		if cerr != nil {
			err = cerr
			continue
		}
		var resp rpc.ColumnStatsResp
		req := rpc.ColumnStatsReq{Versions: map[storage.TabletID]storage.Version{tb.ID: v}, Columns: cols, Rate: rate}
		if err = cl.Do(ctx, rpc.ActColumnStats, req, &resp); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			continue
		}
		ps := resp.Stats[tb.ID]
		if len(ps) != len(cols) {
			return nil, errors.New("column stats: backend answered for other columns")
		}
		for i := range ps {
			ps[i].Restore()
		}
		return ps, nil
	}
	return nil, fmt.Errorf("analyze tablet %d: %w", tb.ID, err)
}
