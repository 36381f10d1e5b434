// Package storage is layer 1: tablet storage of a backend (Store) and the
// frontend's metadata store (Meta). It is the only package that imports Pebble.
//
// Stage and data flow. Inputs are Arrow records of a load transaction
// (Write), the FE's transaction decisions (Prepare, Publish, Abort) and scan
// requests; outputs are Arrow records of one tablet at one version:
//
//	load sink ──Write(txn,tablet,rec)──▶ pending rowset (buffer → segments, unsynced)
//	FE commit ──Prepare(txn)──────────▶ fsync; pending survives a crash
//	FE publish ─Publish(txn,versions)─▶ one synced batch: pending → rowset@version
//	OlapScan ──Scan(tablet,version)───▶ rowsets ≤ version → zone-map pruned
//	                                     segments → (UNIQUE/AGG merge) → records
//
// A tablet's rows live in rowsets (one per published load, or one per
// compaction); a rowset is a list of segments of at most 65536 rows; each
// column of a segment is one Pebble value, so a scan reads only the columns
// it needs.
//
// Key layout of a Store (ids are 8-byte big-endian with the sign bit flipped,
// so byte order is numeric order and prefix iteration is sorted):
//
//	'S' tablet                    → TabletSchema (JSON)
//	'R' tablet endVersion rowset  → rowset meta: start version, txn, segments, rows, bytes,
//	                                delete conditions (delete.go), the unique ids of the
//	                                columns its segments store (schema.go)
//	'D' tablet rowset seg:4 0     → segment meta: rows; per column NULL count, min, max
//	'D' tablet rowset seg:4 1+c   → column c of the segment (encoding below)
//	'P' txn tablet                → pending rowset: rowset id, segments, rows, bytes, prepared,
//	                                a delete transaction's condition, a partial update's
//	                                filled columns and the rowsets it filled them from
//	'C' tablet rowset             → compaction output being written (discarded at Open)
//	'D' tablet rowset seg:4 MaxInt32 → a merge-on-write segment's primary-key index (mow.go)
//	'B' tablet rowset seg:4 version  → delete bitmap of a merge-on-write segment (mow.go)
//
// Segment data is keyed by rowset id, not version, so Publish only rewrites a
// small 'P' key into an 'R' key and never copies data; dropping a tablet or a
// rowset is a range deletion over its 'D' prefix.
//
// Column encoding: our own, the Arrow buffers laid end to end (validity
// bitmap if any NULL, then values: bitmap for BOOLEAN, little-endian fixed
// width for integers/floats/DATE/DATETIME/DECIMAL/LARGEINT, int32 offsets plus
// bytes for strings), each section 8-byte aligned. Chosen over Arrow IPC
// because decoding is a single copy with no flatbuffer schema per value, and
// without compression of our own because Pebble already compresses its
// sstable blocks. Zone maps keep min/max per column per segment as typed Datums
// (strings over 256 bytes and NaN floats disable a column's bounds).
//
// Visibility protocol:
//   - Write buffers rows per (txn, tablet) and writes each full segment in one
//     unsynced batch together with the 'P' key describing the segments so far;
//     big segments instead go into an sstable that is ingested (ingest.go).
//   - Prepare writes the remaining rows, marks the 'P' keys prepared and syncs:
//     the WAL is ordered, so every earlier segment batch is durable too; then
//     it ingests the rowsets' sstables. Open deletes unprepared 'P' rowsets
//     (and prepared ones whose last segment is missing), so unsynced Writes
//     vanish whole.
//   - Publish deletes 'P' and writes 'R' for every tablet in one synced batch;
//     a txn without pending data (e.g. already published) is a no-op.
//   - Scan takes a Pebble snapshot and reads rowsets with End <= version that
//     no other such rowset covers, so concurrent Publish/Compact never show
//     half a change.
//
// Data models: DUPLICATE KEY scans stream segment by segment. UNIQUE and
// AGGREGATE scans read the key columns plus the wanted ones, sort a row
// permutation by key (ties by write order, newest last) and gather/fold per
// column (REPLACE, REPLACE_IF_NOT_NULL, MAX, MIN, SUM; NULLs ignored by
// SUM/MAX/MIN); their rows come out in key order. Ranges prune segments only;
// callers still filter rows, and for UNIQUE/AGGREGATE only key ranges prune.
//
// Merge-on-write UNIQUE tablets (mow.go) resolve equal keys when a load
// publishes: older rows of its keys are marked in delete bitmaps written
// in the publish batch, scans drop marked rows and stream like DUPLICATE
// ones, and compaction writes only live rows. A partial column update
// fills its missing columns at Write and again at Publish for the keys a
// rowset published since holds, or for all its keys once a rowset it read
// was compacted or cloned away (partial_publish.go), so replicas agree.
//
// DELETE ... WHERE is Doris's delete predicate (delete.go): a rowset without
// segments carrying the condition, published like a load; scans drop the
// rows of older rowsets it is TRUE for, and compaction folds it away.
//
// Light schema change (schema.go): columns have unique ids and rowsets
// record the ids they store, so AlterTablet's ADD/DROP/RENAME apply to
// existing data at once; scans map each rowset onto the current schema by
// id (a column a rowset predates reads its default).
//
// Compaction merges the rowsets visible at a version into one rowset
// covering [min start, max end]. Its inputs stay as stale rowsets for a grace
// period (the query timeout) so scans at older versions stay exact, then a
// background sweep deletes them. Publish queues a background compaction once
// a tablet gets more than 8 rowsets.
package storage
