// Package server is dorisgo's front door and the top of the one-way flow:
// MySQL connections (server/wire) and HTTP (stream load, metrics, admin)
// come in; statements go to the parser, the binder and the planner; plans
// go to the coordinator; result batches go back out through the wire.
// It also owns sessions, system variables, SHOW and information_schema.
package server
