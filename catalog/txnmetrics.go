package catalog

import "sync/atomic"

// TxnCounts are the load transactions this catalog has begun, made visible
// and aborted since it was opened: Doris's doris_fe_txn_begin,
// doris_fe_txn_success and doris_fe_txn_failed.
type TxnCounts struct{ Begun, Succeeded, Failed int64 }

// txnCounters counts at the three places a transaction's state is
// installed (beginTxn, persistTxns for VISIBLE, AbortTxn), after the
// catalog write succeeded, so a retried or refused change is not counted.
type txnCounters struct{ begun, succeeded, failed atomic.Int64 }

// TxnCounts returns the transaction counters.
func (c *Catalog) TxnCounts() TxnCounts {
	return TxnCounts{Begun: c.txnCount.begun.Load(), Succeeded: c.txnCount.succeeded.Load(), Failed: c.txnCount.failed.Load()}
}
