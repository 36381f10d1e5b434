package fragment

// LocalExchangeKind is how rows move between the pipeline tasks of one
// fragment instance (DORIS-PLANNING.md §6, seed 000).
type LocalExchangeKind uint8

const (
	LocalNoop                LocalExchangeKind = iota // no local exchange
	LocalHashShuffle                                  // task = hash(Keys) mod tasks
	LocalBucketHashShuffle                            // task owning the row's storage bucket of Keys
	LocalPassthrough                                  // whole blocks round-robin over tasks
	LocalAdaptivePassthrough                          // blocks spread evenly (adaptive)
	LocalBroadcast                                    // every block to every task
	LocalPassToOne                                    // every block to one task
)

var localNames = [...]string{"NOOP", "HASH_SHUFFLE", "BUCKET_HASH_SHUFFLE", "PASSTHROUGH", "ADAPTIVE_PASSTHROUGH",
	"BROADCAST", "PASS_TO_ONE"}

func (k LocalExchangeKind) String() string { return localNames[k] }

// LocalExchange is the local exchange on one input edge of a node.
type LocalExchange struct {
	Kind LocalExchangeKind `json:"kind"`
	// Keys (hash kinds) are over the input child's output columns.
	Keys []Ex `json:"keys,omitempty"`
}
