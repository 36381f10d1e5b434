package physical

// Reason is why a distribution was not chosen (DORIS-PLANNING.md §1, §2):
// R1–R9 for colocate, B1–B8 for bucket shuffle, and the broadcast limits.
// Only EXPLAIN turns it into text.
type Reason uint8

const (
	ReasonNone Reason = iota
	// Colocate, in check order.
	ReasonNullAware       // R1 / B1
	ReasonSessionDisabled // R2
	ReasonHasHint         // R3
	ReasonTransformed     // R4
	ReasonRedistributed   // R5
	ReasonNotOlap         // R6
	ReasonNotSameGroup    // R7
	ReasonGroupUnstable   // R8
	ReasonColumnNotMatch  // R9
	// Bucket shuffle.
	ReasonBucketDisabled  // B2
	ReasonBucketJoinType  // B3
	ReasonLeftNotOlapScan // B4
	ReasonLeftNotHash     // B5
	ReasonLeftMultiPart   // B6
	ReasonKeysNotCover    // B7
	ReasonKeyTypeDiffers  // B8
	// Hints and broadcast.
	ReasonNoShuffle
	ReasonNoBroadcast
	ReasonBroadcastDisabled
	ReasonRowLimit
	ReasonMemLimit
	ReasonSparkSide
	ReasonNestedLoopHint
	ReasonMergeNeedsEqui
)

var reasonText = [...]string{
	ReasonNone:              "",
	ReasonNullAware:         "null aware left anti join must be broadcast",
	ReasonSessionDisabled:   "Session disabled",
	ReasonHasHint:           "Has join hint",
	ReasonTransformed:       "src column has been transformed by expr",
	ReasonRedistributed:     "src data has been redistributed",
	ReasonNotOlap:           "only olap table support colocate plan",
	ReasonNotSameGroup:      "table not in the same group",
	ReasonGroupUnstable:     "group is not stable",
	ReasonColumnNotMatch:    "column not match",
	ReasonBucketDisabled:    "bucket shuffle disabled by session",
	ReasonBucketJoinType:    "join type does not support bucket shuffle",
	ReasonLeftNotOlapScan:   "left side is not an olap scan",
	ReasonLeftNotHash:       "left table is not hash distributed",
	ReasonLeftMultiPart:     "left table has more than one partition",
	ReasonKeysNotCover:      "join keys do not cover distribution columns",
	ReasonKeyTypeDiffers:    "join key type differs from distribution column type",
	ReasonNoShuffle:         "join type does not support shuffle",
	ReasonNoBroadcast:       "join type does not support broadcast",
	ReasonBroadcastDisabled: "auto_broadcast_join_threshold is not positive",
	ReasonRowLimit:          "right rows exceed broadcast_row_count_limit",
	ReasonMemLimit:          "hash table exceeds exec_mem_limit * auto_broadcast_join_threshold",
	ReasonSparkSide:         "hinted table is not the right input",
	ReasonNestedLoopHint:    "null aware left anti join runs as a hash join",
	ReasonMergeNeedsEqui:    "sort merge join needs an equi join conjunct",
}

func (r Reason) String() string { return reasonText[r] }
