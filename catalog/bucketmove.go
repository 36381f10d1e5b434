package catalog

import (
	"fmt"
	"slices"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// MoveBucket replaces backend from with to in bucket's backends of group
// id (Doris's ColocateTableCheckerAndBalancer relocating a bucket
// sequence). The members' tablets of the bucket are then off their
// sequence, so the group is unstable until the tablet scheduler moved each
// of them (refreshGroups makes it stable again).
func (c *Catalog) MoveBucket(id GroupID, bucket int, from, to BackendID) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	g, ok := c.groups[id]
	if !ok {
		return sqlerr.Doris.New(fmt.Sprintf("colocate group %d does not exist", id))
	}
	if bucket < 0 || bucket >= len(g.BucketSeq) {
		return sqlerr.Doris.New(fmt.Sprintf("colocate group %s has no bucket %d", g.Name, bucket))
	}
	seq := g.BucketSeq[bucket]
	i := slices.Index(seq, from)
	if i < 0 || slices.Contains(seq, to) {
		return sqlerr.Doris.New(fmt.Sprintf("bucket %d of colocate group %s: backend %d is not in its sequence or %d already is", bucket, g.Name, from, to))
	}
	if be, ok := c.backends[to]; !ok || !be.Alive || be.Decommissioned {
		return sqlerr.Doris.New(fmt.Sprintf("bucket %d of colocate group %s cannot move to backend %d: not alive", bucket, g.Name, to))
	}
	ng := cloneGroup(g)
	ng.BucketSeq = slices.Clone(g.BucketSeq)
	ns := slices.Clone(seq)
	ns[i] = to
	ng.BucketSeq[bucket] = ns
	b := c.newBatch()
	b.put(idKey(keyGroup, int64(ng.ID)), ng)
	if err := c.commit(b); err != nil {
		return err
	}
	c.groups[ng.ID] = ng
	c.refreshGroups()
	return nil
}
