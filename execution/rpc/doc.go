// Package rpc is the FE↔BE and BE↔BE protocol: Arrow Flight over gRPC.
//
// Why Flight rather than hand-written gRPC streams: Flight already frames
// Arrow IPC record batches on gRPC streams (schema once, then batches,
// decoded without copies), gives per-batch application metadata (used to tag
// a load batch with its tablet) and a descriptor on the first message (used
// to name an exchange stream), and leaves control calls to DoAction, whose
// bodies here are small JSON documents, except exec_fragment's plan and
// report, which are MessagePack (plancodec.go says why). Everything rides
// on plain gRPC underneath, so HTTP/2 flow control, keepalive and
// cancellation come free.
//
//	FE ──DoAction(create_tablet|drop_tablet|prepare|publish|abort|heartbeat|cancel|...)──▶ BE
//	FE ──DoPut(PutCmd{Txn}: load batches tagged with their tablet)──────────────────────▶ BE
//	FE ──DoAction(exec_fragment: [ExecFragmentReq]) ◀─ "started" … InstanceReport×n ───── BE
//	BE ──DoPut(PutCmd{Exchange: StreamID}: one sender→receiver exchange stream)─────────▶ BE
//	FE ◀─DoGet(OutboxTicket: a sender instance's outbox for fragment 0)───────────────── BE
//
// Running a query (execution/coord): the FE starts all of a query's
// instances on a backend with one long-lived exec_fragment call (as Doris
// sends one request per backend), every backend at once. The backend
// answers "started" once the call's instances registered their inboxes; a
// stream that reaches a backend before its inbox waits for it (each
// request says how many instances the backend gets, so it knows when none
// is still to come). The call stays open until its instances end and
// carries each one's report (per-exchange and per-operator counters) as it
// ends; an instance's error ends the call with that error as its status
// (its siblings on the backend are cancelled), cancelling the call cancels
// its instances, and a backend that dies breaks the call at once
// (keepalive pings catch one that hangs), so the FE learns of every
// failure from the call itself, naming the backend.
//
// Exchanges push: a sender instance opens one DoPut stream per receiver
// instance and routes each batch (gather, broadcast, execution hash, bucket
// hash, random). The receiving backend feeds the stream into the receiver
// instance's inbox, which holds at most a byte budget of unread batches
// (8 MiB by default); while it is full the handler stops reading, gRPC's
// per-stream window (fixed at StreamWindow, no BDP growth) fills, and the
// sender's Send blocks: backpressure without unbounded buffers. gRPC-go
// returns connection-level window credit on receipt, so one stalled stream
// does not stall other streams sharing the connection. A receiver that stops
// reading (LIMIT reached, an empty build side) closes its inbox; its handler
// then ends the stream with OK, which the sender takes as "drop rows for this
// receiver", stopping altogether once every receiver is closed.
//
// Fragment 0 runs on the FE, which pulls rather than being pushed to: each
// sender into fragment 0 writes into a budgeted outbox on its own backend
// and the FE fetches it with DoGet. Pulling keeps the FE a pure gRPC client
// (no listener backends must be able to reach, no FE address to configure
// or advertise in cluster mode), and gives the same backpressure: the FE's
// receiver inbox has the same budget, and when it is full the FE stops
// reading the DoGet stream. The cost is an outbox on the sender's backend,
// bounded like any inbox.
//
// Errors: ToStatus/FromStatus carry *sqlerr.Error through gRPC statuses.
// IsSecondary recognises consequential errors (cancellations, a receiver
// whose sender broke off: BrokenStream) so the FE reports the root cause.
// Cause turns what is not a declared error (storage, gRPC transport) into
// words for the client: "disk full", never a server path or gRPC's text.
//
// Trust: every call carries the cluster token (token.go), which a
// backend's TokenGuard interceptors check before any handler runs.
package rpc
