// Package rpc is the FE↔BE and BE↔BE protocol: Arrow Flight over gRPC.
//
// Why Flight rather than hand-written gRPC streams: Flight already frames
// Arrow IPC record batches on gRPC streams (schema once, then batches,
// decoded without copies), gives per-batch application metadata (used to tag
// a load batch with its tablet), and leaves control calls to DoAction, whose
// bodies here are small JSON documents. Backpressure is gRPC's flow control
// plus the receivers' byte budgets.
//
//	FE ──DoAction(create_tablet|drop_tablet|prepare|publish|abort|heartbeat|...)──▶ BE
//	FE ──DoPut(load: batches tagged with their tablet)───────────────────────────▶ BE
//	FE ◀─DoGet(run fragment instance: ticket = fragment JSON)──────────────────── BE
package rpc
