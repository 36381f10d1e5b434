package fragment

// RepeatSpec (KindRepeat) emits every input batch once per grouping set
// (ROLLUP, CUBE, GROUPING SETS). Output = the input columns ++ one column
// per key (the input column Keys[i], or NULL when set s does not keep key
// i) ++ the grouping id IDs[s] (BIGINT).
type RepeatSpec struct {
	Keys []int   `json:"keys"` // input column positions
	Sets [][]int `json:"sets"` // per set, the indexes into Keys it keeps
	IDs  []int64 `json:"ids"`  // per set, its grouping id
}
