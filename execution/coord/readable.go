package coord

import (
	"fmt"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// replicaView is the catalog's replica state of the tablets one query
// scans, read once when it is scheduled: a scan reads only a replica that
// has the version it was planned at (Doris: replica version >= the
// partition's visible version), on an alive backend.
type replicaView struct {
	c       *Coordinator
	tablets map[storage.TabletID]*catalog.Tablet
	seen    map[int64]bool // tables indexed
	// singleRows is the plan's SingleBackendRows (schedule.go placeSmall).
	singleRows int64
}

func (c *Coordinator) newReplicaView() *replicaView {
	return &replicaView{c: c, tablets: map[storage.TabletID]*catalog.Tablet{}, seen: map[int64]bool{}}
}

func (v *replicaView) index(table int64) {
	if v.seen[table] {
		return
	}
	v.seen[table] = true
	t, ok := v.c.cat.TableByID(catalog.TableID(table))
	if !ok {
		return
	}
	for _, p := range t.Partitions {
		for _, tb := range p.Tablets {
			v.tablets[tb.ID] = tb
		}
	}
}

// readable is t with its replicas cut to those a scan at t.Version may
// read; an error names the tablet when none is left.
func (v *replicaView) readable(table int64, t fragment.TabletRef) (fragment.TabletRef, error) {
	v.index(table)
	tb := v.tablets[t.Tablet]
	if tb == nil {
		return t, nil // a tablet the catalog does not know (new, of an overwrite): as planned
	}
	state := map[fragment.BackendID]catalog.Replica{}
	for _, r := range tb.Replicas {
		state[fragment.BackendID(r.BackendID)] = r
	}
	var keep []fragment.BackendID
	var why []string
	moved := 0
	for _, be := range t.Replicas {
		r, ok := state[be]
		switch {
		case !ok:
			moved++
			why = append(why, fmt.Sprintf("backend %d: replica moved", be))
		case !r.Healthy() && r.LastFailedVersion <= t.Version:
			why = append(why, fmt.Sprintf("backend %d: has version %d, lacks %d", be, r.Version, r.LastFailedVersion))
		case !v.c.isAlive(catalog.BackendID(be)):
			why = append(why, fmt.Sprintf("backend %d: not alive", be))
		default:
			keep = append(keep, be)
		}
	}
	if len(keep) == 0 {
		msg := fmt.Sprintf("tablet %d: no replica can be read at version %d (%s)", t.Tablet, t.Version, strings.Join(why, "; "))
		if moved > 0 && moved == len(why) {
			// Every replica the plan names moved (balance, repair): the
			// statement planned again reads where they went (retry.go).
			msg = "[E-230] " + msg + "; retry the query"
		}
		return t, sqlerr.Doris.New(msg)
	}
	t.Replicas = keep
	return t, nil
}
