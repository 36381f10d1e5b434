package catalog

import (
	"encoding/json"
	"maps"
	"sort"
	"time"

	"github.com/dorisgo/dorisgo/sql/types"
)

// Column statistics as Doris 2.x keeps them (ANALYZE, SHOW COLUMN STATS):
// one record per table, replaced whole on every change (copy, persist,
// swap, as the rest of the catalog), so readers get immutable snapshots.

// Statistics triggers and methods, as SHOW COLUMN STATS prints them.
const (
	TriggerManual = "MANUAL"
	TriggerSystem = "SYSTEM"
	MethodFull    = "FULL"
	MethodSample  = "SAMPLE"
)

// TableStatistics is what ANALYZE collected of one table.
type TableStatistics struct {
	TableID TableID `json:"table_id"`
	// RowCount is the table's row count at the last ANALYZE; the
	// automatic collection compares today's with it.
	RowCount    int64                       `json:"row_count"`
	LastAnalyze time.Time                   `json:"last_analyze"`
	Trigger     string                      `json:"trigger"`
	Columns     map[string]*ColumnStatistic `json:"columns"` // by column name
}

// ColumnStatistic is one column's statistics.
type ColumnStatistic struct {
	Count    int64        `json:"count"`
	NDV      int64        `json:"ndv"`
	NumNull  int64        `json:"num_null"`
	DataSize int64        `json:"data_size"`
	AvgSize  float64      `json:"avg_size"`
	Min      *types.Datum `json:"min,omitempty"` // nil: no non-NULL value
	Max      *types.Datum `json:"max,omitempty"`
	// Histogram is equi-height over the non-NULL values, ascending.
	Histogram []HistogramBucket `json:"histogram,omitempty"`
	Method    string            `json:"method"`
	Trigger   string            `json:"trigger"`
	Updated   time.Time         `json:"updated"`
}

// HistogramBucket holds the values in [Lower, Upper]: Count rows of NDV
// distinct values, PreSum rows in the buckets before it.
type HistogramBucket struct {
	Lower  types.Datum `json:"lower"`
	Upper  types.Datum `json:"upper"`
	NDV    int64       `json:"ndv"`
	Count  float64     `json:"count"`
	PreSum float64     `json:"pre_sum"`
}

// Column returns a column's statistics (nil: none).
func (s *TableStatistics) Column(name string) *ColumnStatistic {
	if s == nil {
		return nil
	}
	return s.Columns[name]
}

// ColumnNames lists the analyzed columns, sorted.
func (s *TableStatistics) ColumnNames() []string {
	out := make([]string, 0, len(s.Columns))
	for n := range s.Columns {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

func (s *TableStatistics) datums(f func(*types.Datum)) {
	for _, c := range s.Columns {
		if c.Min != nil {
			f(c.Min)
		}
		if c.Max != nil {
			f(c.Max)
		}
		for i := range c.Histogram {
			f(&c.Histogram[i].Lower)
			f(&c.Histogram[i].Upper)
		}
	}
}

// Statistics returns a table's statistics (nil: never analyzed).
func (c *Catalog) Statistics(id TableID) *TableStatistics {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.stats[id]
}

// SetStatistics stores the statistics of some columns of a table (the
// others keep theirs) with the table's row count at collection.
func (c *Catalog) SetStatistics(id TableID, rowCount int64, trigger string, cols map[string]*ColumnStatistic) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.tables[id]; !ok {
		return nil // dropped meanwhile
	}
	s := &TableStatistics{TableID: id, RowCount: rowCount, LastAnalyze: c.now(), Trigger: trigger, Columns: map[string]*ColumnStatistic{}}
	if old := c.stats[id]; old != nil {
		maps.Copy(s.Columns, old.Columns)
	}
	maps.Copy(s.Columns, cols)
	return c.putStats(s)
}

// DropStatistics removes the statistics of cols of a table (all: none
// named).
func (c *Catalog) DropStatistics(id TableID, cols []string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.stats[id]
	if old == nil {
		return nil
	}
	if len(cols) == 0 {
		b := c.newBatch()
		b.del(idKey(keyStats, int64(id)))
		if err := c.commit(b); err != nil {
			return err
		}
		delete(c.stats, id)
		return nil
	}
	s := *old
	s.Columns = maps.Clone(old.Columns)
	for _, n := range cols {
		delete(s.Columns, n)
	}
	return c.putStats(&s)
}

func (c *Catalog) putStats(s *TableStatistics) error {
	b := c.newBatch()
	cp := cloneStats(s)
	cp.datums((*types.Datum).Prepare)
	b.put(idKey(keyStats, int64(s.TableID)), cp)
	if err := c.commit(b); err != nil {
		return err
	}
	if c.stats == nil {
		c.stats = map[TableID]*TableStatistics{}
	}
	c.stats[s.TableID] = s
	return nil
}

// cloneStats deep-copies the datums that Prepare rewrites.
func cloneStats(s *TableStatistics) *TableStatistics {
	cp := *s
	cp.Columns = map[string]*ColumnStatistic{}
	for n, col := range s.Columns {
		cc := *col
		if col.Min != nil {
			v := *col.Min
			cc.Min = &v
		}
		if col.Max != nil {
			v := *col.Max
			cc.Max = &v
		}
		cc.Histogram = append([]HistogramBucket(nil), col.Histogram...)
		cp.Columns[n] = &cc
	}
	return &cp
}

// loadStats restores one persisted statistics record.
func (c *Catalog) loadStats(v []byte) error {
	var s TableStatistics
	if err := json.Unmarshal(v, &s); err != nil {
		return err
	}
	s.datums((*types.Datum).Restore)
	if c.stats == nil {
		c.stats = map[TableID]*TableStatistics{}
	}
	c.stats[s.TableID] = &s
	return nil
}
