// Package props is the distribution property model of the physical
// planner: what a parent requires of a child (Required) and what a subtree
// delivers (Delivered), kept apart as DataFusion keeps Distribution and
// Partitioning. A storage-bucketed layout records which table or colocate
// group, which bucket count and which bucket→backend map made it, so two
// streams hashed on the same columns are colocated only if the same buckets
// made them; execution hashing (an exchange) is a different layout.
//
// Input: column ids of planner/logical. Output: the Satisfies relation the
// enforcement pass of planner/physical uses to decide where an exchange goes.
package props
