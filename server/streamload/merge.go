package streamload

import (
	"net/http"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/bind"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/storage"
)

// mergeTypeColumn applies the merge_type and delete headers as Doris
// does, by computing the table's delete sign: APPEND leaves it 0, DELETE
// sets it for every row (the rows delete their keys), MERGE sets it where
// the delete condition holds. Only UNIQUE KEY tables have the column.
func mergeTypeColumn(h http.Header, t *catalog.Table, cols []parser.LoadColumn) ([]parser.LoadColumn, error) {
	mt := strings.ToUpper(strings.TrimSpace(h.Get("merge_type")))
	cond := strings.TrimSpace(h.Get("delete"))
	switch mt {
	case "":
		mt = "APPEND"
	case "APPEND", "DELETE", "MERGE":
	default:
		return nil, sqlerr.Doris.New("Invalid merge type " + h.Get("merge_type"))
	}
	switch {
	case mt == "MERGE" && cond == "":
		return nil, sqlerr.Doris.New("Excepted DELETE ON clause when merge type is MERGE.")
	case mt != "MERGE" && cond != "":
		return nil, sqlerr.Doris.New("Not support DELETE ON clause when merge type is not MERGE.")
	case mt == "APPEND":
		return cols, nil
	case t.Keys != storage.UniqueKeys:
		return nil, sqlerr.Doris.New("load by MERGE or DELETE is only supported in unique tables.")
	case t.DeleteSign() < 0:
		return nil, sqlerr.Doris.New("load by MERGE or DELETE need to upgrade table to support batch delete.")
	}
	for _, c := range cols {
		if strings.EqualFold(c.Name, catalog.DeleteSignColumn) {
			return nil, sqlerr.Doris.New("columns: " + catalog.DeleteSignColumn + " is set by merge_type " + mt + "; do not also name it")
		}
	}
	text := "1"
	if mt == "MERGE" {
		text = "if((" + cond + "), 1, 0)"
	}
	e, err := parser.ParseLoadWhere(text)
	if err != nil {
		return nil, withHeader("delete", err)
	}
	return append(cols, parser.LoadColumn{Name: catalog.DeleteSignColumn, Expr: e}), nil
}

// partialColumns reads partial_columns: a partial column update of a
// merge-on-write table, whose load names every key column; the columns it
// does not fill come from each key's existing row (new keys keep their
// defaults).
func partialColumns(h http.Header, t *catalog.Table, plan *bind.Load) (*storage.PartialUpdate, error) {
	on, err := boolHeader(h, "partial_columns")
	if err != nil || !on {
		return nil, err
	}
	if !t.MergeOnWrite() {
		return nil, sqlerr.Doris.New("Only unique key merge on write support partial update, table " + t.Name + " is not")
	}
	filled := make([]bool, len(t.Columns))
	for _, f := range plan.File {
		if f.Column >= 0 {
			filled[f.Column] = true
		}
	}
	for i, e := range plan.Exprs {
		if e != nil {
			filled[i] = true
		}
	}
	var missing []string
	for i := 0; i < t.NumKeys; i++ {
		if !filled[i] {
			missing = append(missing, t.Columns[i].Name)
		}
	}
	if len(missing) > 0 {
		return nil, sqlerr.Doris.New("Partial update should include all key columns, missing: " + strings.Join(missing, ", "))
	}
	p := &storage.PartialUpdate{Sign: t.DeleteSign()}
	for i := t.NumKeys; i < len(t.Columns); i++ {
		if !filled[i] && !t.Columns[i].Hidden {
			p.Fill = append(p.Fill, i)
		}
	}
	if len(p.Fill) == 0 {
		return nil, nil // every column given: a whole-row load
	}
	return p, nil
}
