package coord

import (
	"math"
	"testing"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/storage"
)

// The replica-count tolerance is balance_load_score_threshold of the
// average count, at least one replica; pickMove moves only beyond it.
func TestBalanceThresholdTolerance(t *testing.T) {
	s := newTabletSched(nil)
	const a, b, c = catalog.BackendID(1), catalog.BackendID(2), catalog.BackendID(3)
	targets := []catalog.BackendID{a, b, c}
	for _, tc := range []struct {
		threshold float64
		counts    map[catalog.BackendID]int
		want      int
	}{
		{0.1, map[catalog.BackendID]int{a: 4, b: 4, c: 3}, 1},
		{0.1, map[catalog.BackendID]int{a: 30, b: 30, c: 30}, 3},
		{0.5, map[catalog.BackendID]int{a: 30, b: 30, c: 30}, 15},
		{0.5, map[catalog.BackendID]int{}, 1},
	} {
		s.threshold.Store(math.Float64bits(tc.threshold))
		if got := s.countTolerance(targets, tc.counts); got != tc.want {
			t.Errorf("threshold %v, counts %v: tolerance %d, want %d", tc.threshold, tc.counts, got, tc.want)
		}
	}
	// a holds 12, c 8: a move at tolerance 3 (12-8 > 3), none at 4.
	cands := []movable{{tablet: 1, holders: []catalog.BackendID{a}}, {tablet: 2, holders: []catalog.BackendID{a}}}
	counts := map[catalog.BackendID]int{a: 12, b: 10, c: 8}
	none := map[storage.TabletID]repairJob{}
	if js := pickMove(targets, counts, map[catalog.BackendID]int64{}, cands, none, 3); len(js) != 1 || js[0].from != a || js[0].to != c {
		t.Errorf("tolerance 3: got %+v, want one move a → c", js)
	}
	if js := pickMove(targets, counts, map[catalog.BackendID]int64{}, cands, none, 4); js != nil {
		t.Errorf("tolerance 4: got %+v, want none", js)
	}
}
