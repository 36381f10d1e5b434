package storage

import (
	"context"
	"slices"
)

// Reclaiming a dropped tablet's disk: DropTablet's range deletions only
// hide the keys, and Pebble gets the space back when a compaction
// rewrites the files holding them, which it may not schedule for a long
// time on a store that is no longer written (a backend whose replicas
// moved away). The background loop compacts each dropped tablet's segment
// data away soon after the drop, so DataUsedCapacity falls.

// reclaimMinBytes is the least on-disk data of a dropped tablet that the
// loop compacts away at once.
const reclaimMinBytes = 64 << 10

// queueReclaim schedules the compaction of dropped tablet id's data.
func (s *Store) queueReclaim(id TabletID) {
	s.reclaimMu.Lock()
	s.reclaimIDs = append(s.reclaimIDs, id)
	s.reclaimMu.Unlock()
	select {
	case s.reclaimCh <- struct{}{}:
	default: // a signal is pending: the loop takes every queued id
	}
}

// reclaim compacts the data of the tablets dropped since the last call.
func (s *Store) reclaim() error {
	s.reclaimMu.Lock()
	ids := s.reclaimIDs
	s.reclaimIDs = nil
	s.reclaimMu.Unlock()
	slices.Sort(ids)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-s.stop:
			cancel() // Close does not wait for a long compaction
		case <-ctx.Done():
		}
	}()
	for _, id := range slices.Compact(ids) {
		// Segment data is nearly all of a tablet's bytes; its schema,
		// rowset metas and bitmaps go with the next ordinary compaction.
		for _, p := range []byte{pfxData, pfxCompact} {
			pre := tabletPrefix(p, id)
			// Little on disk (a small table's rows, often only in the
			// memtable): not worth a forced flush and compaction, which
			// for a dropped sqllogictest table cost more than its CREATE;
			// the range deletion drops it with the next ordinary one.
			if n, err := s.db.EstimateDiskUsage(pre, prefixEnd(pre)); err == nil && n < reclaimMinBytes {
				continue
			}
			if err := s.db.Compact(ctx, pre, prefixEnd(pre), false); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
		}
	}
	return nil
}
