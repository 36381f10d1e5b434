// Package server is dorisgo's front door and the top of the one-way flow:
// MySQL connections (server/wire) and HTTP (server/httpapi: stream load,
// metrics, admin, the web UI of server/webui; wired in httpdispatch.go)
// come in; statements go to the parser, the binder and the planner; plans
// go to the coordinator; result batches go back out through the wire.
// It also owns sessions and system variables; SHOW results and
// information_schema are built by server/show from what it hands over.
//
// Each statement gets its query id when it starts (the coordinator runs it
// under that id on every backend) and runs guarded (panic.go): a panic
// while it is parsed, bound, planned or executed here fails that statement
// with error 1105 naming the query id, is logged with the id and the
// stack, and leaves the connection usable.
//
// Before it runs, each statement is checked against Doris's privileges as
// the catalog holds them at that moment (privs.go; GRANT and friends in
// grants.go); HTTP endpoints check the same accounts and privileges.
package server
