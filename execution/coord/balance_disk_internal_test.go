package coord

import (
	"testing"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/storage"
)

// pickDiskMove between the backends with the most and the least data:
// one tablet when the replica counts allow it, a large and a small tablet
// trading places when they do not, nothing when no move leaves a smaller
// difference or the difference is within the tolerance.
func TestPickDiskMove(t *testing.T) {
	const a, b, c = catalog.BackendID(1), catalog.BackendID(2), catalog.BackendID(3)
	targets := []catalog.BackendID{a, b, c}
	const mb = 1 << 20
	tab := func(id storage.TabletID, size int64, on ...catalog.BackendID) movable {
		return movable{tablet: id, holders: on, bytes: size}
	}
	none := map[storage.TabletID]repairJob{}

	// a holds 40 MB in 2 tablets, c 4 MB in 1: a → c, the 20 MB tablet.
	cands := []movable{tab(1, 20*mb, a), tab(2, 20*mb, a), tab(3, 4*mb, c), tab(4, 10*mb, b), tab(5, 10*mb, b)}
	counts := map[catalog.BackendID]int{a: 2, b: 2, c: 1}
	bytes := map[catalog.BackendID]int64{a: 40 * mb, b: 20 * mb, c: 4 * mb}
	js := pickDiskMove(targets, counts, bytes, cands, none, 1)
	if len(js) != 1 || js[0].from != a || js[0].to != c || (js[0].tablet != 1 && js[0].tablet != 2) {
		t.Errorf("one move a → c: got %+v", js)
	}

	// Equal counts: a's 30 MB tablet and c's 2 MB one trade places.
	cands = []movable{tab(1, 30*mb, a), tab(2, 10*mb, a), tab(3, 2*mb, c), tab(4, 3*mb, c), tab(5, 10*mb, b), tab(6, 10*mb, b)}
	counts = map[catalog.BackendID]int{a: 2, b: 2, c: 2}
	bytes = map[catalog.BackendID]int64{a: 40 * mb, b: 20 * mb, c: 5 * mb}
	js = pickDiskMove(targets, counts, bytes, cands, none, 1)
	if len(js) != 2 || js[0].from != a || js[0].to != c || js[1].from != c || js[1].to != a {
		t.Fatalf("a swap between a and c: got %+v", js)
	}
	// gap 35: trading 30 for 2 leaves |35 - 56| = 21, 30 for 3 leaves 19,
	// 10 for 2 leaves 19, 10 for 3 leaves 21: a best one, never worse.
	moved := js[0].tablet
	back := js[1].tablet
	sizes := map[storage.TabletID]int64{1: 30, 2: 10, 3: 2, 4: 3}
	if d := sizes[moved] - sizes[back]; d != 27 && d != 8 {
		t.Errorf("swap of tablets %d and %d (a delta of %d MB), want one leaving 19 MB", moved, back, d)
	}

	// One tablet bigger than the difference: nothing moves.
	cands = []movable{tab(1, 30*mb, a), tab(2, 28*mb, c), tab(3, 29*mb, b)}
	counts = map[catalog.BackendID]int{a: 1, b: 1, c: 1}
	bytes = map[catalog.BackendID]int64{a: 30 * mb, b: 29 * mb, c: 28 * mb}
	if js := pickDiskMove(targets, counts, bytes, cands, none, 1); js != nil {
		t.Errorf("within the tolerance: got %+v", js)
	}
	cands = []movable{tab(1, 60*mb, a), tab(2, 1*mb, c), tab(3, 2*mb, b)}
	bytes = map[catalog.BackendID]int64{a: 60 * mb, b: 2 * mb, c: 1 * mb}
	if js := pickDiskMove(targets, counts, bytes, cands, none, 1); js != nil {
		t.Errorf("only a tablet larger than the difference could move: got %+v", js)
	}
}
