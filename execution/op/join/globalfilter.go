package join

import (
	"context"
	"encoding/binary"
	"errors"
	"math/bits"
	"slices"
	"sync"
	"time"
)

// GlobalFilters are the global runtime filters of one query on one
// backend: the parts sent by the instances of each filter's join, merged
// into one filter once all have come. The scans of every instance of the
// query on the backend read them.
type GlobalFilters struct {
	mu      sync.Mutex
	m       map[int]*globalFilter
	changed chan struct{} // closed (and replaced) when a filter completes
}

type globalFilter struct {
	parts, need int
	f           *RuntimeFilter // the parts merged so far
}

// NewGlobalFilters returns an empty set.
func NewGlobalFilters() *GlobalFilters {
	return &GlobalFilters{m: map[int]*globalFilter{}, changed: make(chan struct{})}
}

// Add merges a part of filter id, which need parts make complete. Parts
// past need (a resent one) are ignored.
func (g *GlobalFilters) Add(id, need int, part []byte) error {
	f, err := UnmarshalRuntimeFilter(part)
	if err != nil {
		return err
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	e := g.m[id]
	if e == nil {
		e = &globalFilter{need: max(need, 1)}
		g.m[id] = e
	}
	if e.parts >= e.need {
		return nil
	}
	e.parts++
	if e.f == nil {
		e.f = f
	} else {
		e.f = mergeFilters(e.f, f)
	}
	if e.parts == e.need {
		close(g.changed)
		g.changed = make(chan struct{})
	}
	return nil
}

// Get is filter id once complete, else nil.
func (g *GlobalFilters) Get(id int) *RuntimeFilter {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if e := g.m[id]; e != nil && e.parts >= e.need {
		return e.f
	}
	return nil
}

// Wait blocks until every filter of ids is complete, d has passed or ctx
// is done (its error is returned).
func (g *GlobalFilters) Wait(ctx context.Context, ids []int, d time.Duration) error {
	if g == nil {
		return nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		g.mu.Lock()
		all := true
		for _, id := range ids {
			if e := g.m[id]; e == nil || e.parts < e.need {
				all = false
				break
			}
		}
		ch := g.changed
		g.mu.Unlock()
		if all {
			return nil
		}
		select {
		case <-ch:
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// mergeFilters is the union of a and b. Blooms of sizes at most twice
// apart fold into the smaller (a word's index is the top bits of the hash,
// so word i of half as many words is the OR of the two words sharing those
// bits); blooms further apart stay side by side, up to maxBlooms.
func mergeFilters(a, b *RuntimeFilter) *RuntimeFilter {
	switch {
	case a.all || b.all:
		return &RuntimeFilter{all: true}
	case a.empty:
		return b
	case b.empty:
		return a
	}
	lo, hi := min(a.min, b.min), max(a.max, b.max)
	if a.set != nil && b.set != nil && uint64(hi-lo) < maxSetBits {
		f := &RuntimeFilter{min: lo, max: hi, set: make([]uint64, setWords(lo, hi))}
		f.orSet(a)
		f.orSet(b)
		return f
	}
	a, b = a.asBloom(), b.asBloom()
	blooms := append(a.blooms(), b.blooms()...)
	slices.SortFunc(blooms, func(x, y bloom) int { return len(y.words) - len(x.words) }) // largest first
	var out []bloom
	for _, bl := range blooms {
		if n := len(out); n > 0 && (len(out[n-1].words) <= 2*len(bl.words) || n == maxBlooms) {
			out[n-1] = foldBlooms(out[n-1], bl)
			continue
		}
		out = append(out, bloom{words: append([]uint64(nil), bl.words...), shift: bl.shift})
	}
	f := &RuntimeFilter{min: min(a.min, b.min), max: max(a.max, b.max), words: out[0].words, shift: out[0].shift}
	f.more = out[1:]
	return f
}

// orSet adds the exact set x (whose range lies in f's) to f's.
func (f *RuntimeFilter) orSet(x *RuntimeFilter) {
	off := uint64(x.min - f.min)
	if off&63 == 0 {
		for i, w := range x.set {
			f.set[off>>6+uint64(i)] |= w
		}
		return
	}
	for i, w := range x.set {
		for w != 0 {
			d := off + uint64(i)<<6 + uint64(bits.TrailingZeros64(w))
			f.set[d>>6] |= 1 << (d & 63)
			w &= w - 1
		}
	}
}

// asBloom is f with an exact set turned into a bloom of its keys (f
// itself when it has none), to merge with a bloom or past maxSetBits.
func (f *RuntimeFilter) asBloom() *RuntimeFilter {
	if f.set == nil {
		return f
	}
	n := 0
	for _, w := range f.set {
		n += bits.OnesCount64(w)
	}
	b := &RuntimeFilter{min: f.min, max: f.max}
	b.initBloom(n)
	for i, w := range f.set {
		for w != 0 {
			b.addBloom(uint64(f.min + int64(i<<6+bits.TrailingZeros64(w))))
			w &= w - 1
		}
	}
	return b
}

// maxBlooms bounds the blooms a merged filter tests per value.
const maxBlooms = 4

func (f *RuntimeFilter) blooms() []bloom {
	return append([]bloom{{words: f.words, shift: f.shift}}, f.more...)
}

// foldBlooms ORs x and y into the smaller of the two (x is modified when
// it is the smaller).
func foldBlooms(x, y bloom) bloom {
	small, large := x, y
	if len(large.words) < len(small.words) {
		small, large = large, small
		small.words = append([]uint64(nil), small.words...)
	}
	k := len(large.words) / len(small.words)
	for i, w := range large.words {
		small.words[i/k] |= w
	}
	return small
}

// Marshal encodes f for a backend: a flags byte (1 empty, 2 all, 3 an
// exact set: min, max and the bitmap's words), then for a bloom (0) min,
// max, the count of blooms and each bloom's shift, word count and words
// (little endian).
func (f *RuntimeFilter) Marshal() []byte {
	var flags byte
	switch {
	case f.all:
		flags = 2
	case f.empty:
		flags = 1
	}
	if flags != 0 {
		return []byte{flags}
	}
	if f.set != nil {
		// 3, min, max, then the bitmap's words (their count follows).
		b := make([]byte, 0, 17+8*len(f.set))
		b = append(b, 3)
		b = binary.LittleEndian.AppendUint64(b, uint64(f.min))
		b = binary.LittleEndian.AppendUint64(b, uint64(f.max))
		for _, w := range f.set {
			b = binary.LittleEndian.AppendUint64(b, w)
		}
		return b
	}
	bl := f.blooms()
	b := make([]byte, 0, 18+len(bl)*5+8*len(f.words))
	b = append(b, 0)
	b = binary.LittleEndian.AppendUint64(b, uint64(f.min))
	b = binary.LittleEndian.AppendUint64(b, uint64(f.max))
	b = append(b, byte(len(bl)))
	for _, x := range bl {
		b = append(b, byte(x.shift))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(x.words)))
		for _, w := range x.words {
			b = binary.LittleEndian.AppendUint64(b, w)
		}
	}
	return b
}

var errBadFilter = errors.New("runtime filter: malformed")

// UnmarshalRuntimeFilter decodes Marshal's encoding.
func UnmarshalRuntimeFilter(b []byte) (*RuntimeFilter, error) {
	if len(b) == 0 {
		return nil, errBadFilter
	}
	switch b[0] {
	case 1:
		return &RuntimeFilter{empty: true}, nil
	case 2:
		return &RuntimeFilter{all: true}, nil
	case 3:
		if len(b) < 17 {
			return nil, errBadFilter
		}
		f := &RuntimeFilter{min: int64(binary.LittleEndian.Uint64(b[1:])), max: int64(binary.LittleEndian.Uint64(b[9:]))}
		if f.min > f.max || uint64(f.max-f.min) >= maxSetBits || len(b) != 17+8*setWords(f.min, f.max) {
			return nil, errBadFilter
		}
		f.set = make([]uint64, setWords(f.min, f.max))
		for i := range f.set {
			f.set[i] = binary.LittleEndian.Uint64(b[17+8*i:])
		}
		return f, nil
	case 0:
	default:
		return nil, errBadFilter
	}
	if len(b) < 18 {
		return nil, errBadFilter
	}
	f := &RuntimeFilter{min: int64(binary.LittleEndian.Uint64(b[1:])), max: int64(binary.LittleEndian.Uint64(b[9:]))}
	k := int(b[17])
	b = b[18:]
	if k < 1 || k > maxBlooms || f.min > f.max {
		return nil, errBadFilter
	}
	var bl []bloom
	for ; k > 0; k-- {
		if len(b) < 5 {
			return nil, errBadFilter
		}
		x := bloom{shift: uint(b[0])}
		n := int(binary.LittleEndian.Uint32(b[1:]))
		b = b[5:]
		// A power of two of words, as newRuntimeFilter makes them,
		// matching the shift (one word: shift 64).
		if n < 1 || n > 1<<21 || n&(n-1) != 0 || len(b) < 8*n || x.shift != uint(64-bits.TrailingZeros(uint(n))) {
			return nil, errBadFilter
		}
		x.words = make([]uint64, n)
		for i := range x.words {
			x.words[i] = binary.LittleEndian.Uint64(b[8*i:])
		}
		b = b[8*n:]
		bl = append(bl, x)
	}
	if len(b) != 0 {
		return nil, errBadFilter
	}
	f.words, f.shift, f.more = bl[0].words, bl[0].shift, bl[1:]
	return f, nil
}
