// Package fragment is the contract between the planner and the executor.
//
// A Plan is a list of fragments; fragment 0 is the root and runs as one
// instance on the FE, returning rows to the client (RESULT SINK). Every
// other fragment runs as instances on backends and ends in a STREAM DATA
// SINK that sends its rows to the EXCHANGE node (Sink.ExchangeID) of the
// fragment that reads it. An Exchange node names the fragment it reads
// (ExchangeSpec.From); a fragment is read by exactly one exchange.
//
// Instances (decided by the coordinator, execution/coord):
//   - a fragment whose nodes include OLAP scans gets one instance per
//     backend holding its tablets; when the fragment's partition is
//     HashPartitioned on the storage distribution (colocate / bucket
//     shuffle joins keep it), bucket b of every scan in the fragment is read
//     by the same instance, the one on the backend holding the anchor
//     (left-most) scan's bucket b;
//   - an exchange-fed HashPartitioned fragment gets one instance per alive
//     backend;
//   - an exchange-fed RandomPartitioned fragment (a UNION ALL fed by its
//     children's StreamRandom sinks) gets one instance per alive backend;
//   - an Unpartitioned fragment gets one instance (fragment 0: on the FE).
//     A KindTableFunc source (numbers) always sits in one: it generates its
//     whole range, so it must run exactly once.
//
// Sinks route each row of a sender instance to receiver instances:
//
//	StreamGather       every row to the single receiver instance
//	StreamBroadcast    every row to every receiver instance
//	StreamHash         receiver = hash(Keys) mod receivers (execution hash)
//	StreamBucketHash   receiver = the instance reading bucket
//	                   types.Bucket(types.HashColumns(Keys), Buckets) of the
//	                   receiving fragment's anchor scan (bucket shuffle)
//	StreamRandom       any receiver (round robin per batch)
//
// Distributed plans (physical.PlanDistributed) add:
//   - JoinSpec.Dist names the chosen distribution; the join runs in its left
//     child's fragment for DistColocate, DistBucketShuffle and DistBroadcast
//     (right side: none, StreamBucketHash, StreamBroadcast exchange), in an
//     exchange-fed HashPartitioned fragment for DistPartitioned (both sides
//     StreamHash on their keys).
//   - Two-phase aggregation: AggUpdateSerialize outputs groups ++ one partial
//     state column per call (typed as the call's result); after a StreamHash
//     exchange on the groups (StreamGather without groups) AggMergeFinalize
//     has Groups = the exchange's group columns and each call's Args = its
//     partial state column (count merges by summing). Only count, sum, min,
//     max and any_value are split; DISTINCT and others run one phase.
//   - Grouping sets (ROLLUP, CUBE, GROUPING SETS): a KindRepeat node
//     (RepeatSpec) under the first aggregation phase, in its child's
//     fragment; the aggregation groups by the key copies ++ grouping id.
//   - Set operations: every child in one instance → in place; UNION ALL →
//     a RandomPartitioned fragment reading one exchange per child (each
//     child sinks StreamRandom); INTERSECT / EXCEPT / UNION DISTINCT → a
//     HashPartitioned fragment reading children that sink StreamHash on all
//     their columns, or (colocate set operation) in place in a scan
//     fragment whose children are bucketed alike.
//   - ORDER BY over partitioned input: SORT/TOP-N per instance, then a
//     Merge exchange (ExchangeSpec.SortKeys/Offset/Limit) in an
//     Unpartitioned fragment.
//   - Fragment 0 may be a partitioned fragment holding the RESULT SINK when
//     it has at most one instance (a scan fragment reading one tablet), as
//     Doris plans it; the coordinator runs it on that tablet's backend and
//     forwards its rows.
//   - Node ids: operators EXPLAIN shows are numbered as EXPLAIN prints them;
//     projections, bare limits and HAVING filters get larger ids.
//
// Local exchanges (DORIS-PLANNING.md §6), planned when an instance runs
// Fragment.Tasks > 1 pipeline tasks (parallel_pipeline_task_num, 0 = cores/2;
// enable_local_shuffle; Unpartitioned fragments run one task and get none):
//   - Node.LocalExchanges[i] says how rows of child i reach this node's
//     tasks: LocalNoop (keep each task's rows), LocalHashShuffle /
//     LocalBucketHashShuffle on Keys (over child i's output), LocalPassthrough
//     / LocalAdaptivePassthrough (spread blocks), LocalBroadcast (every task
//     gets every row: nested loop build), LocalPassToOne (one task builds a
//     broadcast hash table). Nil: none planned for this node.
//   - Fragment.SinkLocal is the same between the root and the sink (a
//     PASSTHROUGH right after a scan that ignores its storage layout).
//   - Hidden nodes (projections, limits) never get one; the decision sits on
//     the next shown ancestor.
//   - Execution (execution/op/build/tasks.go) honours these and adds what the plan
//     leaves implicit: scans give task t the buckets b with b mod Tasks = t,
//     a hash-partitioned exchange splits what it receives by the senders'
//     hash (so G1's NOOP holds), broadcast builds are shared by all probe
//     tasks, and SORT/TOP-N, LIMIT and keyless final aggregations merge their
//     tasks into one stream.
//
// Expressions in a node refer to its input by position: children[0]'s
// columns, then children[1]'s for joins. Node.Output is the node's result
// shape; Exchange outputs equal the sending fragment root's output.
package fragment
