package physical_test

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/types"
)

// columnStats stores ANALYZE statistics given as lines "table column ndv
// [nulls [min max]]" (integer min and max), counts being the table's
// injected rows.
func (e *env) columnStats(lines []string) error {
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) < 3 {
			return fmt.Errorf("column-stats: want table column ndv [nulls [min max]], got %q", l)
		}
		t, err := e.cat.Table(e.db, f[0])
		if err != nil {
			return err
		}
		var rows int64
		for _, p := range t.Partitions {
			for _, tb := range p.Tablets {
				rows += tb.RowCount
			}
		}
		num := func(i int) int64 {
			if i >= len(f) {
				return 0
			}
			n, _ := strconv.ParseInt(f[i], 10, 64)
			return n
		}
		cs := &catalog.ColumnStatistic{Count: rows, NDV: num(2), NumNull: num(3), Method: catalog.MethodFull, Trigger: catalog.TriggerManual}
		if len(f) >= 6 {
			lo, hi := types.IntDatum(num(4)), types.IntDatum(num(5))
			cs.Min, cs.Max = &lo, &hi
		}
		if err := e.cat.SetStatistics(t.ID, rows, catalog.TriggerManual, map[string]*catalog.ColumnStatistic{f[1]: cs}); err != nil {
			return err
		}
	}
	return nil
}
