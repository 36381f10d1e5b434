package catalog

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// Heavy schema change as Doris's SchemaChangeJobV2 runs it: the job is a
// catalog record holding the table as it will be (Shadow: the new columns
// and keys over new "shadow" tablets, one per old tablet, on the same
// backends); the coordinator converts the old tablets' rows into them in
// the background and CommitSchemaChange swaps them in with one catalog
// write, the change's commit point. Until then the table is untouched, so
// a kill -9 leaves the old table (the next master converts the interrupted
// job again from the start) or, after it, the new one.

// AlterJobState is a schema change job's state (Doris's JobState).
type AlterJobState string

const (
	AlterPending   AlterJobState = "PENDING"
	AlterRunning   AlterJobState = "RUNNING"
	AlterFinished  AlterJobState = "FINISHED"
	AlterCancelled AlterJobState = "CANCELLED"
)

// Done reports a final state.
func (s AlterJobState) Done() bool { return s == AlterFinished || s == AlterCancelled }

// AlterJob is one schema change job (SHOW ALTER TABLE COLUMN's row).
type AlterJob struct {
	ID         int64         `json:"id"`
	DBID       DBID          `json:"db_id"`
	TableID    TableID       `json:"table_id"`
	TableName  string        `json:"table_name"`
	State      AlterJobState `json:"state"`
	Msg        string        `json:"msg,omitempty"`
	CreateTime time.Time     `json:"create_time"`
	FinishTime time.Time     `json:"finish_time,omitzero"`
	// IndexID is the shadow index's id; the base index is the table's.
	IndexID int64 `json:"index_id"`
	// BaseSchemaVersion is the table's schema version the job started
	// from: a change of it meanwhile cancels the job.
	BaseSchemaVersion int64 `json:"base_schema_version"`
	// TxnID is the last conversion transaction (SHOW's TransactionId).
	TxnID   storage.TxnID `json:"txn_id,omitempty"`
	Timeout int64         `json:"timeout_s"`
	// Shadow is the table as it will be: new columns, keys and
	// SchemaVersion, its partitions (same ids and bounds) over the shadow
	// tablets.
	Shadow *Table `json:"shadow"`
	// Converted is, per partition, the old version whose rows the shadow
	// tablets hold (0: not converted yet).
	Converted map[PartitionID]storage.Version `json:"converted,omitempty"`
	// Retired holds, from the commit point until they are dropped, the
	// old partitions whose tablets no table points at any more (a restart
	// drops them if the FE died first).
	Retired []*Partition `json:"retired,omitempty"`
}

func (j *AlterJob) clone() *AlterJob {
	n := *j
	n.Converted = make(map[PartitionID]storage.Version, len(j.Converted))
	for k, v := range j.Converted {
		n.Converted[k] = v
	}
	return &n
}

// AlterJobKept is how long finished jobs stay listed (Doris's
// history_job_keep_max_second); older ones go when the next job starts.
const AlterJobKept = 7 * 24 * time.Hour

// AlterTableTimeout is Doris's alter_table_timeout_second default (30 days).
const AlterTableTimeout = 30 * 24 * time.Hour

// ErrTableNotNormal is Doris's answer to an ALTER of a table under a
// schema change job.
func ErrTableNotNormal(table string) error { return errNotNormal(table, "ALTER ops") }

// errNotNormal refuses operation op on a table under a schema change job:
// what it would write (new partitions, tablets of the old schema) the
// job's swap would not carry over.
func errNotNormal(table, op string) error {
	return sqlerr.Doris.New(fmt.Sprintf("Table[%s]'s state(SCHEMA_CHANGE) is not NORMAL. Do not allow doing %s", table, op))
}

// tabletReplaced answers the commit of a load that wrote a tablet its
// partition no longer has: a schema change swapped new tablets in while
// the load ran (partition ids stay). The load is not committed.
func tabletReplaced(txn storage.TxnID, tab storage.TabletID) error {
	return sqlerr.Doris.New(fmt.Sprintf("transaction [%d] wrote tablet %d, which a schema change replaced while it ran; the load is not committed, retry it", txn, tab))
}

// BeginSchemaChange creates a schema change job for table db.name: edit
// changes a copy of the table into its new schema (distribution and
// partition columns are followed by unique id), and every tablet gets a
// shadow tablet with a new id on the same backends, so colocation and
// balance stay as they are. Only the job is written; the table is
// unchanged.
func (c *Catalog) BeginSchemaChange(db, name string, edit func(t *Table) error) (*AlterJob, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	old, err := c.tableLocked(db, name)
	if err != nil {
		return nil, err
	}
	if c.runningAlterLocked(old.ID) != nil {
		return nil, ErrTableNotNormal(old.Name)
	}
	t := old.cloneSchema()
	if err := followColumns(old, t, edit); err != nil {
		return nil, err
	}
	t.SchemaVersion = old.SchemaVersion + 1
	b := c.newBatch()
	t.Partitions = shadowPartitions(b, old.Partitions)
	job := &AlterJob{ID: b.nextID(), DBID: old.DBID, TableID: old.ID, TableName: old.Name, State: AlterPending,
		CreateTime: c.now(), BaseSchemaVersion: old.SchemaVersion, Timeout: int64(AlterTableTimeout / time.Second),
		Shadow: t, Converted: map[PartitionID]storage.Version{}}
	job.IndexID = b.nextID()
	b.put(idKey(keyAlter, job.ID), job)
	var expired []int64
	for id, j := range c.alterJobsLocked() {
		if j.State.Done() && job.CreateTime.Sub(j.FinishTime) > AlterJobKept {
			expired = append(expired, id)
			b.del(idKey(keyAlter, id))
		}
	}
	if err := c.commit(b); err != nil {
		return nil, err
	}
	for _, id := range expired {
		delete(c.alterJobs, id)
	}
	c.alterJobs[job.ID] = job
	return job, nil
}

// followColumns runs edit on t (a copy of old) and points t's
// distribution and partition columns at the same columns (by unique id).
func followColumns(old, t *Table, edit func(*Table) error) error {
	distIDs := make([]int32, len(t.Dist.Columns))
	for i, ci := range t.Dist.Columns {
		distIDs[i] = t.Columns[ci].UID
	}
	partID := int32(-1)
	if t.PartKind != PartNone {
		partID = t.Columns[t.PartColumn].UID
	}
	if err := edit(t); err != nil {
		return err
	}
	for i, id := range distIDs {
		if t.Dist.Columns[i] = t.columnByUID(id); t.Dist.Columns[i] < 0 {
			return sqlerr.Doris.New("Can not drop partition or distribution column : " + old.Columns[old.columnByUID(id)].Name)
		}
	}
	if partID >= 0 {
		if t.PartColumn = t.columnByUID(partID); t.PartColumn < 0 {
			return sqlerr.Doris.New("Can not drop partition or distribution column : " + old.Columns[old.columnByUID(partID)].Name)
		}
	}
	return nil
}

// shadowPartitions gives each partition a copy (same id, name and bounds,
// empty) with a new tablet per tablet, its replicas on the same backends.
func shadowPartitions(b *batch, parts []*Partition) []*Partition {
	out := make([]*Partition, len(parts))
	for i, p := range parts {
		np := &Partition{ID: p.ID, Name: p.Name, Lower: p.Lower, Upper: p.Upper, Values: p.Values, VisibleVersion: 1, NextVersion: 2}
		for _, tb := range p.Tablets {
			ntb := &Tablet{ID: b.nextTablet(), Bucket: tb.Bucket}
			for _, r := range tb.Replicas {
				ntb.Replicas = append(ntb.Replicas, Replica{ID: b.nextReplica(), BackendID: r.BackendID})
			}
			np.Tablets = append(np.Tablets, ntb)
		}
		out[i] = np
	}
	return out
}

// ReshadowPartitions gives partitions pids of job id new shadow tablets
// (their old ones are to be dropped: loads reached those partitions after
// their conversion, which is redone). It returns the job as written.
func (c *Catalog) ReshadowPartitions(id int64, pids []PartitionID) (*AlterJob, error) {
	return c.updateAlterJob(id, func(j *AlterJob, b *batch) error {
		sh := *j.Shadow
		sh.Partitions = slices.Clone(sh.Partitions)
		for i, p := range sh.Partitions {
			if slices.Contains(pids, p.ID) {
				sh.Partitions[i] = shadowPartitions(b, []*Partition{p})[0]
				delete(j.Converted, p.ID)
			}
		}
		j.Shadow = &sh
		return nil
	})
}

// SetAlterJob records a job's progress: its state, message, last
// conversion transaction and the versions converted (merged in).
func (c *Catalog) SetAlterJob(id int64, state AlterJobState, msg string, txn storage.TxnID, converted map[PartitionID]storage.Version) (*AlterJob, error) {
	return c.updateAlterJob(id, func(j *AlterJob, _ *batch) error {
		if j.State.Done() {
			return sqlerr.Doris.New(fmt.Sprintf("schema change job %d of table %s is already %s", j.ID, j.TableName, j.State))
		}
		j.State, j.Msg = state, msg
		if txn != 0 {
			j.TxnID = txn
		}
		for k, v := range converted {
			j.Converted[k] = v
		}
		if state.Done() {
			j.FinishTime = c.now()
		}
		return nil
	})
}

func (c *Catalog) updateAlterJob(id int64, edit func(j *AlterJob, b *batch) error) (*AlterJob, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := c.alterJobsLocked()[id]
	if cur == nil {
		return nil, sqlerr.Doris.New(fmt.Sprintf("schema change job %d does not exist", id))
	}
	j := cur.clone()
	b := c.newBatch()
	if err := edit(j, b); err != nil {
		return nil, err
	}
	b.put(idKey(keyAlter, j.ID), j)
	if err := c.commit(b); err != nil {
		return nil, err
	}
	c.alterJobs[j.ID] = j
	return j, nil
}

// ChangedPartitions lists the partitions of job id's table whose rows
// differ from what the shadow tablets hold: not converted yet, or loaded
// (or deleted from) since. stable is false when a committed version is
// not yet visible (it must be published first).
func (c *Catalog) ChangedPartitions(id int64) (changed []PartitionID, err error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	j := c.alterJobsLocked()[id]
	if j == nil {
		return nil, sqlerr.Doris.New(fmt.Sprintf("schema change job %d does not exist", id))
	}
	t, err := c.jobTableLocked(j)
	if err != nil {
		return nil, err
	}
	for _, p := range t.Partitions {
		if v := j.Converted[p.ID]; v == 0 || v != p.VisibleVersion || p.NextVersion != p.VisibleVersion+1 {
			changed = append(changed, p.ID)
		}
	}
	return changed, nil
}

// jobTableLocked is job j's table, checked to be the one the job started
// from: same schema version and the same partitions.
func (c *Catalog) jobTableLocked(j *AlterJob) (*Table, error) {
	t := c.tables[j.TableID]
	if t == nil {
		return nil, sqlerr.Doris.New(fmt.Sprintf("table %s was dropped during its schema change", j.TableName))
	}
	if t.SchemaVersion != j.BaseSchemaVersion {
		return nil, sqlerr.Doris.New(fmt.Sprintf("the schema of table %s changed during its schema change", t.Name))
	}
	if len(t.Partitions) != len(j.Shadow.Partitions) {
		return nil, sqlerr.Doris.New(fmt.Sprintf("partitions of table %s were added, dropped or replaced during its schema change", t.Name))
	}
	for i, p := range t.Partitions {
		if j.Shadow.Partitions[i].ID != p.ID {
			return nil, sqlerr.Doris.New(fmt.Sprintf("partitions of table %s were added, dropped or replaced during its schema change", t.Name))
		}
	}
	return t, nil
}

// CommitSchemaChange is a schema change's commit point, one catalog
// write: the table takes the shadow schema and tablets (each partition
// readable at the version the conversion published, OverwriteVersion),
// the conversion transactions txns become VISIBLE and the job FINISHED.
// It fails, changing nothing, if the table changed since the conversion
// (ChangedPartitions is not empty); the caller holds the table's publish
// lock so no load commits between that check and this write.
func (c *Catalog) CommitSchemaChange(id int64, txns []storage.TxnID, rows, bytes map[storage.TabletID]int64) (*Table, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	cur := c.alterJobsLocked()[id]
	if cur == nil || cur.State.Done() {
		return nil, sqlerr.Doris.New(fmt.Sprintf("schema change job %d is not running", id))
	}
	old, err := c.jobTableLocked(cur)
	if err != nil {
		return nil, err
	}
	for _, p := range old.Partitions {
		if v := cur.Converted[p.ID]; v != p.VisibleVersion || p.NextVersion != p.VisibleVersion+1 {
			return nil, sqlerr.Doris.New(fmt.Sprintf("partition %s of table %s was loaded during the conversion", p.Name, old.Name))
		}
	}
	sh := cur.Shadow
	t := old.cloneSchema()
	t.Columns, t.Keys, t.NumKeys = slices.Clone(sh.Columns), sh.Keys, sh.NumKeys
	t.Dist.Columns, t.PartColumn = slices.Clone(sh.Dist.Columns), sh.PartColumn
	t.NextColumnID, t.SchemaVersion = sh.NextColumnID, sh.SchemaVersion
	t.Partitions = make([]*Partition, len(sh.Partitions))
	for i, p := range sh.Partitions {
		n := *p
		n.RowCount, n.DataSize = 0, 0
		n.Tablets = make([]*Tablet, len(p.Tablets))
		for k, tb := range p.Tablets {
			ntb := *tb
			ntb.RowCount = rows[tb.ID]
			n.Tablets[k] = &ntb
			n.RowCount += rows[tb.ID]
			n.DataSize += bytes[tb.ID]
		}
		// Every shadow tablet was published at OverwriteVersion, empty or not.
		n.VisibleVersion, n.NextVersion = OverwriteVersion, OverwriteVersion+1
		t.Partitions[i] = &n
	}
	now := c.now()
	var out []*Txn
	for _, tid := range txns {
		tx, ok := c.txns[tid]
		if !ok {
			return nil, txnNotFound(tid)
		}
		if tx.State != TxnPrepare {
			return nil, sqlerr.Doris.New(fmt.Sprintf("transaction [%d] is already %s, can not commit", tid, tx.State))
		}
		n := tx.clone()
		n.State, n.CommitTime, n.FinishTime = TxnVisible, now, now
		out = append(out, n)
	}
	j := cur.clone()
	j.State, j.FinishTime, j.Msg, j.Retired = AlterFinished, now, "", old.Partitions
	b := c.newBatch()
	b.put(idKey(keyTable, int64(t.ID)), t)
	for _, tx := range out {
		b.put(idKey(keyTxn, int64(tx.ID)), tx)
	}
	b.put(idKey(keyAlter, j.ID), j)
	if err := c.commit(b); err != nil {
		return nil, err
	}
	c.tables[t.ID] = t
	for _, tx := range out {
		c.txns[tx.ID] = tx
	}
	c.alterJobs[j.ID] = j
	c.refreshGroups()
	return t, nil
}

// RetiredDropped records that job id's old tablets are dropped.
func (c *Catalog) RetiredDropped(id int64) error {
	_, err := c.updateAlterJob(id, func(j *AlterJob, _ *batch) error {
		j.Retired = nil
		return nil
	})
	return err
}

// AlterJobs lists database db's schema change jobs by id (all databases
// when db is 0).
func (c *Catalog) AlterJobs(db DBID) []*AlterJob {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []*AlterJob
	for _, j := range c.alterJobs {
		if db == 0 || j.DBID == db {
			out = append(out, j)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out
}

// RunningAlterJob is table id's unfinished schema change job, nil if none.
func (c *Catalog) RunningAlterJob(id TableID) *AlterJob {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.runningAlterLocked(id)
}

func (c *Catalog) runningAlterLocked(id TableID) *AlterJob {
	for _, j := range c.alterJobs {
		if j.TableID == id && !j.State.Done() {
			return j
		}
	}
	return nil
}

func (c *Catalog) alterJobsLocked() map[int64]*AlterJob {
	if c.alterJobs == nil {
		c.alterJobs = map[int64]*AlterJob{}
	}
	return c.alterJobs
}

// loadAlterJob reads a persisted job.
func (c *Catalog) loadAlterJob(v []byte) error {
	var j AlterJob
	if err := json.Unmarshal(v, &j); err != nil {
		return err
	}
	if j.Shadow != nil {
		restoreTable(j.Shadow)
		restoreColumns(j.Shadow)
	}
	if len(j.Retired) > 0 {
		restoreTable(&Table{Partitions: j.Retired})
	}
	if j.Converted == nil {
		j.Converted = map[PartitionID]storage.Version{}
	}
	c.alterJobsLocked()[j.ID] = &j
	return nil
}
