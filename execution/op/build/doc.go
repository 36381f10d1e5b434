// Package build turns a plan fragment's node tree (planner/fragment) into
// a tree of operators from every family, optionally profiled or split into
// pipeline tasks. It is the only package that imports all the families.
// Input: fragment nodes. Output: op.Operator trees.
package build
