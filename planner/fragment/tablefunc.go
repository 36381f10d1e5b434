package fragment

// TableFuncSpec is a table-valued function run as a source. "numbers"
// produces Count rows, one BIGINT column 0 .. Count-1, in one instance.
type TableFuncSpec struct {
	Fn    string `json:"fn"`
	Count int64  `json:"count"`
}
