package coord

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// Majority writes, as Doris commits a load: every healthy replica on an
// alive backend is written, a replica whose backend fails is left behind,
// and the load commits once each tablet it wrote has a majority
// (catalog.Quorum of the table's replication_num) of its replicas durable.
// The catalog marks the others lagging at the load's version; they are
// not read until the tablet scheduler's clone catches them up.

// fail records that backend be's replicas miss this load; its stream is
// dropped (the abort or Recover discards what reached it).
func (l *loader) fail(be catalog.BackendID, err error) {
	if l.failed == nil {
		l.failed = map[catalog.BackendID]error{}
	}
	if l.failed[be] != nil {
		return
	}
	l.failed[be] = err
	if s := l.streams[be]; s != nil {
		s.Abort()
	}
}

// reachable fails the load when tablet tb can no longer get a majority:
// its healthy replicas on backends that are alive and have not failed.
func (l *loader) reachable(tb *catalog.Tablet) error {
	ok := 0
	for _, r := range tb.Replicas {
		if r.Healthy() && l.failed[r.BackendID] == nil && l.c.isAlive(r.BackendID) {
			ok++
		}
	}
	if q := catalog.Quorum(replicationOf(l.t, tb)); ok < q {
		return l.quorumErr(tb.ID, ok, len(tb.Replicas), q)
	}
	return nil
}

func replicationOf(t *catalog.Table, tb *catalog.Tablet) int {
	if t.ReplicationNum > 0 {
		return t.ReplicationNum
	}
	return len(tb.Replicas)
}

// quorumErr names the tablet and why its replicas were missed.
func (l *loader) quorumErr(tablet storage.TabletID, ok, n, q int) error {
	if err := l.c.refusal(ok, l.failed); err != nil {
		return err
	}
	var causes []string
	for _, err := range l.failed {
		causes = append(causes, err.Error())
	}
	slices.Sort(causes)
	msg := fmt.Sprintf("tablet %d: only %d of %d replicas can be written, a majority of %d is needed", tablet, ok, n, q)
	if len(causes) > 0 {
		msg += ": " + strings.Join(causes, "; ")
	} else if ok < q {
		msg += " (backends down or replicas lagging)"
	}
	return sqlerr.Doris.New(msg)
}

// refusal is the error to answer when no replica took a write (ok == 0)
// and every backend that failed is alive: they refused it (a condition
// they cannot apply, a schema they do not have) rather than failed, and
// the first one's error says why, as before majority writes.
func (c *Coordinator) refusal(ok int, failed map[catalog.BackendID]error) error {
	if ok > 0 || len(failed) == 0 {
		return nil
	}
	for be := range failed {
		if !c.isAlive(be) {
			return nil
		}
	}
	return failed[slices.Min(slices.Collect(maps.Keys(failed)))]
}

func (c *Coordinator) isAlive(be catalog.BackendID) bool {
	b, ok := c.cat.Backend(be)
	return ok && b.Alive
}

// prepareAll has every backend written make its rows durable and checks
// that each tablet written has a majority of durable replicas.
func (l *loader) prepareAll() (*prepared, error) {
	stats, err := l.prepare()
	if err != nil {
		return nil, err
	}
	pr := &prepared{rows: map[storage.TabletID]int64{}, bytes: map[storage.TabletID]int64{}, written: map[storage.TabletID][]catalog.BackendID{}}
	for be, resp := range stats {
		for tb, st := range resp.Stats {
			// Replicas hold the same rows; count each tablet once.
			pr.rows[tb] = st.Rows
			pr.bytes[tb] = st.Bytes
			pr.written[tb] = append(pr.written[tb], be)
		}
	}
	for id := range l.touched {
		if _, ok := pr.written[id]; !ok {
			pr.written[id] = nil
		}
	}
	return pr, l.checkWritten(pr.written)
}

// checkWritten verifies each written tablet's majority, naming the first
// tablet short of one and the failures that made it so.
func (l *loader) checkWritten(written map[storage.TabletID][]catalog.BackendID) error {
	t := l.t
	if cur, ok := l.c.cat.TableByID(t.ID); ok {
		t = cur
	}
	for _, p := range t.Partitions {
		for _, tb := range p.Tablets {
			bes, touched := written[tb.ID]
			if !touched {
				continue
			}
			ok := 0
			for _, r := range tb.Replicas {
				if r.Healthy() && slices.Contains(bes, r.BackendID) {
					ok++
				}
			}
			if q := catalog.Quorum(replicationOf(t, tb)); ok < q {
				return l.quorumErr(tb.ID, ok, len(tb.Replicas), q)
			}
		}
	}
	return nil
}

// dropFailed tells the failed backends still alive to drop what they got
// of the committed load (best effort: Recover drops it otherwise).
func (l *loader) dropFailed() {
	if len(l.failed) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), abortTimeout)
	defer cancel()
	for be := range l.failed {
		if !l.c.isAlive(be) {
			continue
		}
		if cl, err := l.c.Client(be); err == nil {
			_ = cl.Do(ctx, rpc.ActAbort, rpc.TxnReq{Txn: l.txn}, nil)
		}
	}
}

// writableTarget is the sink target with each tablet's replicas those of
// the catalog now (a clone may have added one since planning) on alive
// backends.
func (c *Coordinator) writableTarget(t *fragment.TableSink) *fragment.TableSink {
	cur, _ := c.cat.TableByID(catalog.TableID(t.TableID))
	now := map[storage.TabletID][]fragment.BackendID{}
	if cur != nil {
		for _, p := range cur.Partitions {
			for _, tb := range p.Tablets {
				for _, r := range tb.Replicas {
					now[tb.ID] = append(now[tb.ID], fragment.BackendID(r.BackendID))
				}
			}
		}
	}
	n := *t
	n.Partitions = slices.Clone(t.Partitions)
	for i, p := range n.Partitions {
		p.Tablets = slices.Clone(p.Tablets)
		for j, tb := range p.Tablets {
			var keep []fragment.BackendID
			reps := tb.Replicas
			if r, ok := now[tb.Tablet]; ok {
				reps = r
			}
			for _, be := range reps {
				if c.isAlive(catalog.BackendID(be)) {
					keep = append(keep, be)
				}
			}
			tb.Replicas = keep
			p.Tablets[j] = tb
		}
		n.Partitions[i] = p
	}
	return &n
}
