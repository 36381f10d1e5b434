package show

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Load is SHOW LOAD (the database's INSERT loads, from the catalog's
// transactions) and SHOW STREAM LOAD (the FE's record of recent stream
// loads), filtered, ordered and limited as asked.
func (sh *Shows) Load(s Session, st *parser.ShowLoad) (*Result, error) {
	db, err := dbName(s, st.DB)
	if err != nil {
		return nil, err
	}
	if _, err := sh.cat.Database(db); err != nil {
		return nil, err
	}
	a := s.Access()
	var names []string
	var rows [][]string
	if st.Stream {
		names = []string{"Label", "Db", "Table", "ClientIp", "Status", "Message", "Url", "TotalRows", "LoadedRows",
			"FilteredRows", "UnselectedRows", "LoadBytes", "StartTime", "FinishTime", "User", "Comment"}
		for _, r := range sh.cfg.StreamLoads() {
			if r.DB != db || !a.Table(db, r.Table, catalog.WantLoad) {
				continue
			}
			rows = append(rows, []string{r.Label, r.DB, r.Table, r.ClientIP, r.Status, r.Message, r.URL,
				fmt.Sprint(r.Total), fmt.Sprint(r.Loaded), fmt.Sprint(r.Filtered), fmt.Sprint(r.Unselected),
				fmt.Sprint(r.Bytes), Time(r.Start), Time(r.Finish), r.User, r.Comment})
		}
	} else {
		names = []string{"JobId", "Label", "State", "Progress", "Type", "EtlInfo", "TaskInfo", "ErrorMsg", "CreateTime",
			"EtlStartTime", "EtlFinishTime", "LoadStartTime", "LoadFinishTime", "URL", "JobDetails", "TransactionId",
			"ErrorTablets", "User", "Comment"}
		txns, err := sh.cat.TxnsOf(db, func(t *catalog.Txn) bool {
			return t.Delete == nil && len(t.Tables) > 0 && (t.Source == "" || t.Source == "FRONTEND")
		})
		if err != nil {
			return nil, err
		}
		for _, t := range txns {
			tbl, ok := sh.cat.TableByID(t.Tables[0])
			if ok && !a.Table(db, tbl.Name, catalog.WantLoad) {
				continue
			}
			state, errMsg := "LOADING", "NULL"
			switch t.State {
			case catalog.TxnVisible:
				state = "FINISHED"
			case catalog.TxnAborted:
				state, errMsg = "CANCELLED", "type:LOAD_RUN_FAIL; msg:"+t.Reason
			}
			progress, loaded := sh.cfg.LoadProgress(t)
			details, _ := json.Marshal(map[string]any{"LoadedRows": loaded, "Unfinished backends": map[string]any{},
				"All backends": map[string]any{}, "TaskNumber": 1, "FileNumber": 0, "FileSize": 0})
			rows = append(rows, []string{fmt.Sprint(t.ID), t.Label, state, progress, "INSERT", "NULL",
				fmt.Sprintf("cluster:N/A; timeout(s):%d; max_filter_ratio:0.0", t.TimeoutMs/1000), errMsg,
				Time(t.CreateTime), Time(t.CreateTime), Time(t.CreateTime), Time(t.CreateTime),
				Time(t.FinishTime), "", string(details), fmt.Sprint(t.ID), "{}", t.User, ""})
		}
	}
	rows, err = FilterRows(names, rows, st)
	if err != nil {
		return nil, err
	}
	return Strings(names, rows), nil
}

// Strings is a result of VARCHAR columns and rows of text.
func Strings(names []string, rows [][]string) *Result {
	out := make([][]types.Datum, len(rows))
	for i, r := range rows {
		out[i] = make([]types.Datum, len(r))
		for j, v := range r {
			out[i][j] = str(v)
		}
	}
	return &Result{Cols: strCols(names), Rows: out}
}

// FilterRows applies a SHOW's WHERE (label =/LIKE, state or status =,
// case-insensitive for states), ORDER BY (column names) and LIMIT.
func FilterRows(names []string, rows [][]string, st *parser.ShowLoad) ([][]string, error) {
	col := func(name string) int {
		for i, n := range names {
			if strings.EqualFold(n, name) {
				return i
			}
		}
		return -1
	}
	type pred func([]string) bool
	var preds []pred
	for _, c := range st.Where {
		name := c.Field
		if name == "state" || name == "status" {
			if col("State") >= 0 {
				name = "State"
			} else {
				name = "Status"
			}
		}
		i := col(name)
		if i < 0 || (c.Field != "label" && c.Op != "=") {
			return nil, sqlerr.Doris.New("Where clause should look like: LABEL = \"your_load_label\", or LABEL LIKE \"matcher\", or STATE = \"PENDING|ETL|LOADING|FINISHED|CANCELLED\"")
		}
		v := c.Value
		switch {
		case c.Op == "LIKE":
			m := Like(v)
			preds = append(preds, func(r []string) bool { return m(r[i]) })
		case c.Field == "label":
			preds = append(preds, func(r []string) bool { return r[i] == v })
		default:
			preds = append(preds, func(r []string) bool { return strings.EqualFold(r[i], v) })
		}
	}
	var out [][]string
	for _, r := range rows {
		keep := true
		for _, p := range preds {
			keep = keep && p(r)
		}
		if keep {
			out = append(out, r)
		}
	}
	for k := len(st.OrderBy) - 1; k >= 0; k-- {
		o := st.OrderBy[k]
		i := col(o.Column)
		if i < 0 {
			return nil, sqlerr.BadField.New(o.Column, "order clause")
		}
		sort.SliceStable(out, func(a, b int) bool {
			x, y := out[a][i], out[b][i]
			if len(x) != len(y) && isDigits(x) && isDigits(y) {
				return (len(x) < len(y)) != o.Desc
			}
			return (x < y) != o.Desc && x != y
		})
	}
	if st.Limit >= 0 && len(out) > st.Limit {
		out = out[:st.Limit]
	}
	return out, nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}
