package coord

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/storage"
)

// publish makes a committed transaction visible: every replica of every
// tablet of the partitions it committed publishes at the partition's new
// version, then the catalog advances the visible versions.
func (c *Coordinator) publish(ctx context.Context, id storage.TxnID) error {
	if err := c.publishBackends(ctx, id); err != nil {
		return err
	}
	return c.cat.FinishTxn(id)
}

// publishBackends has every backend holding a healthy replica of txn's
// partitions publish its rowsets at the committed versions; they stay
// invisible to queries until the catalog's FinishTxn raises the visible
// versions. A backend that fails to publish leaves its replicas lagging
// (catalog.MarkLagging) as long as every tablet keeps a majority of
// published replicas; otherwise the transaction stays COMMITTED and the
// republish loop retries.
func (c *Coordinator) publishBackends(ctx context.Context, id storage.TxnID) error {
	txn, ok := c.cat.Txn(id)
	if !ok {
		return fmt.Errorf("transaction %d not found", id)
	}
	per := map[catalog.BackendID]map[storage.TabletID]storage.Version{}
	type tabletReplicas struct {
		healthy []catalog.BackendID
		quorum  int
	}
	var tablets []tabletReplicas
	for _, tid := range txn.Tables {
		t, ok := c.cat.TableByID(tid)
		if !ok {
			continue // dropped since: nothing to publish
		}
		for _, p := range t.Partitions {
			v, ok := txn.Versions[p.ID]
			if !ok {
				continue
			}
			for _, tb := range p.Tablets {
				tr := tabletReplicas{quorum: catalog.Quorum(replicationOf(t, tb))}
				for _, r := range tb.Replicas {
					// A lagging replica publishes too (a clone catching it
					// up keeps what it published later) but does not count.
					if r.Healthy() {
						tr.healthy = append(tr.healthy, r.BackendID)
					}
					if per[r.BackendID] == nil {
						per[r.BackendID] = map[storage.TabletID]storage.Version{}
					}
					per[r.BackendID][tb.ID] = v
				}
				tablets = append(tablets, tr)
			}
		}
	}
	type result struct {
		be  catalog.BackendID
		err error
	}
	out := make(chan result, len(per))
	for be, vs := range per {
		go func() {
			r := result{be: be}
			defer func() { out <- r }()
			defer c.recoverTo(&r.err, "publishing a load", "txn", id, "backend", be)
			if !c.isAlive(be) {
				r.err = c.backendErr(be, fmt.Errorf("backend %d is not alive", be))
				return
			}
			cl, err := c.Client(be)
			if err == nil {
				err = cl.Do(ctx, rpc.ActPublish, rpc.PublishReq{Txn: id, Versions: vs}, nil)
			}
			r.err = c.backendErr(be, err)
		}()
	}
	failed := map[catalog.BackendID]error{}
	for range per {
		if r := <-out; r.err != nil {
			failed[r.be] = r.err
		}
	}
	if len(failed) == 0 {
		return nil
	}
	for _, tr := range tablets {
		ok := 0
		for _, be := range tr.healthy {
			if failed[be] == nil {
				ok++
			}
		}
		if ok < tr.quorum {
			for _, err := range failed {
				return err
			}
		}
	}
	bes := make([]catalog.BackendID, 0, len(failed))
	for be := range failed {
		bes = append(bes, be)
	}
	return c.cat.MarkLagging(id, bes)
}

// Recover finishes what a crash interrupted: committed transactions are
// published (their data was durable on a majority of the replicas before the commit),
// prepared ones aborted, and backends drop pending data of transactions the
// FE never committed.
func (c *Coordinator) Recover(ctx context.Context) error {
	for _, txn := range c.cat.Txns(catalog.TxnCommitted) {
		if err := c.publish(ctx, txn.ID); err != nil {
			c.log.Warn("republish committed transaction", "txn", txn.ID, "err", err)
		}
	}
	for _, txn := range c.cat.Txns(catalog.TxnPrepare) {
		if err := c.cat.AbortTxn(txn.ID, "aborted by FE restart"); err != nil {
			return err
		}
	}
	c.dropUnfinishedCTAS(ctx)
	c.dropRetiredAlters(ctx)
	for _, b := range c.cat.Backends() {
		if !b.Alive {
			continue
		}
		cl, err := c.Client(b.ID)
		if err != nil {
			continue
		}
		var resp rpc.PendingResp
		if err := cl.Do(ctx, rpc.ActPendingTxns, struct{}{}, &resp); err != nil {
			continue
		}
		for _, id := range resp.Txns {
			if t, ok := c.cat.Txn(id); ok && (t.State == catalog.TxnCommitted || t.State == catalog.TxnPrepare || t.State == catalog.TxnPrecommitted) {
				continue
			}
			_ = cl.Do(ctx, rpc.ActAbort, rpc.TxnReq{Txn: id}, nil)
		}
	}
	return nil
}

// republish retries committed transactions whose publication failed (a
// backend was down): their data is durable on a majority of the replicas, so they only
// need the publish step. The table lock orders this after any load still
// publishing the same table.
func (c *Coordinator) republish() {
	for _, txn := range c.cat.Txns(catalog.TxnCommitted) {
		if len(txn.Tables) == 0 {
			// The head of an explicit transaction holds only its label.
			_ = c.cat.FinishTxn(txn.ID)
			continue
		}
		if len(txn.Tables) != 1 {
			continue // loads touch one table
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		unlock, err := c.lockTable(ctx, txn.Tables[0])
		if err == nil {
			if cur, ok := c.cat.Txn(txn.ID); ok && cur.State == catalog.TxnCommitted {
				if err := c.publish(ctx, txn.ID); err != nil {
					c.log.Debug("republish", "txn", txn.ID, "err", err)
				}
			}
			unlock()
		}
		cancel()
	}
}

// CTASPrefix starts the name a CREATE TABLE … AS SELECT creates its table
// under until the load is visible and the table is renamed.
const CTASPrefix = "__ctas_"

// dropUnfinishedCTAS drops the tables of CREATE TABLE … AS SELECT
// statements a crash interrupted before their rename: no statement
// finished with them, so as in Doris a failed CTAS leaves no table.
func (c *Coordinator) dropUnfinishedCTAS(ctx context.Context) {
	for _, d := range c.cat.Databases() {
		ts, err := c.cat.Tables(d.Name)
		if err != nil {
			continue
		}
		for _, t := range ts {
			if !strings.HasPrefix(t.Name, CTASPrefix) {
				continue
			}
			if _, err := c.cat.DropTable(d.Name, t.Name, true); err != nil {
				c.log.Warn("drop unfinished CREATE TABLE AS SELECT", "table", t.Name, "err", err)
				continue
			}
			c.DropTablets(ctx, t)
		}
	}
}
