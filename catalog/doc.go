// Package catalog is the frontend's metadata (layer 2): databases, tables,
// partitions, tablets and their replicas, backends, colocate groups, users,
// roles and their privileges (Doris's model, priv.go), and load transactions.
//
// Inputs: DDL and admin calls from the server, heartbeats (SetBackendState),
// load transactions (BeginTxn → CommitTxn → FinishTxn | AbortTxn).
// Outputs: immutable snapshots (*Table, *Partition, *Tablet, *ColocateGroup,
// *Backend, *User, *Txn) read by the planner, the coordinator and SHOW.
//
// Snapshots: every mutation copies the objects it changes, persists them,
// then swaps the pointers under the write lock. Unchanged partitions and
// tablets are shared between versions of a table. A planner holding a *Table
// therefore sees one consistent version for as long as it keeps it.
//
// Persistence goes through KV (satisfied by *storage.Meta). Every mutating
// call writes all of its changes, including the id sequences it advanced, in
// ONE KV.Apply, so a crash leaves either all of a change or none of it. Open
// rebuilds the in-memory state from a full scan of the prefix "c/".
// Key layout (ids are 16 hex digits so keys sort by id; values are JSON):
//
//	c/init                      marker: bootstrap (root and admin users) done
//	c/seq/<name>                next value of a sequence: id, tablet, replica, txn
//	c/db/<DBID>                 Database
//	c/tbl/<TableID>             Table, with its partitions, tablets and replicas
//	c/view/<TableID>            View (its query text and columns; ids from the table sequence)
//	c/be/<BackendID>            Backend (persisted fields only)
//	c/grp/<GroupID>             ColocateGroup
//	c/user/<name>\x00<host>     User (hashes only; never a password), its grants and roles
//	c/role/<name>               Role and its grants (the built-in operator and admin are not stored)
//	c/txn/<TxnID>               Txn
//	c/alter/<job id>            AlterJob: a schema change job and its shadow table (schemachange.go)
//
// Id allocation: databases, tables, partitions, backends and colocate groups
// share one sequence starting at 10000 (as Doris). Tablets have their own
// sequence starting at 10100 and a table's tablets are consecutive, so the
// first table of a fresh catalog owns tablets 10100.. (DORIS-PLANNING.md's
// worked example relies on this). Replicas and transactions have their own
// sequences.
//
// Placement (placement.go): a new non-colocate tablet (CREATE TABLE, ADD
// PARTITION, TRUNCATE, INSERT OVERWRITE) gets its replication_num replicas
// on distinct alive, non-decommissioned backends, the least loaded first:
// fewest replicas, then least data, then lowest id; bucket by bucket and
// partition by partition, each counting the ones placed before. In a
// fresh catalog the first table's bucket i is thus on the (i mod n)-th
// backend by id. A colocate group fixes its sequence once (at its first
// member, its buckets spread evenly over the backends, the extra ones on
// the least loaded) in BucketSeq, and every partition of every member puts
// bucket i on BucketSeq[i].
package catalog
