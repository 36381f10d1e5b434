package fragment

var kindNames = [...]string{KindScan: "OlapScanNode", KindFilter: "SELECT", KindProject: "PROJECT", KindLimit: "LIMIT",
	KindValues: "UNION", KindExchange: "EXCHANGE", KindHashJoin: "HASH JOIN", KindNestedLoopJoin: "NESTED LOOP JOIN",
	KindAgg: "AGGREGATE", KindSort: "SORT", KindTopN: "TOP-N", KindSetOp: "SET OPERATION", KindWindow: "ANALYTIC",
	KindApply: "APPLY", KindRepeat: "REPEAT_NODE", KindTableFunc: "DataGenScanNode"}

// String is the node kind's Doris EXPLAIN label (profiles name operators by it).
func (k NodeKind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "?"
}
