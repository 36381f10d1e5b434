// Package physical turns an optimised logical plan into the distributed
// physical plan (planner/fragment), as DORIS-PLANNING.md describes: reorder
// (INNER/CROSS runs, §2.6) → build (physical operators with statistics;
// correlated Apply included, apply.go) → decideJoin per join (colocate
// R1–R9, bucket shuffle B1–B8, broadcast vs partitioned by network bytes,
// hints) → EnforceDistribution (the only place exchanges are created, via
// planner/props Satisfies) → edge check → cut (fragments root-first; an
// INSERT's root fragment ends in an OLAP TABLE SINK, tablesink.go) →
// planLocal (local exchanges per seed 000, §6) → emit (plan data) and
// Explain (planner/explain: Doris plain / VERBOSE, or Trino's EXPLAIN (TYPE
// DISTRIBUTED), §4). EXPLAIN prints the plan object that runs.
package physical
