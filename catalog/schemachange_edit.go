package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
	"github.com/dorisgo/dorisgo/storage"
)

// The edits of a heavy schema change (a copy of the table is edited; see
// BeginSchemaChange), with Doris's checks and errors from
// SchemaChangeHandler and Column.checkSchemaChangeAllowed.

// dorisTypeName is the PrimitiveType name Doris's schema change errors use.
func dorisTypeName(t types.T) string {
	switch t.Kind {
	case types.Date:
		return "DATEV2"
	case types.DateTime:
		return "DATETIMEV2"
	case types.Decimal:
		switch {
		case t.Precision <= 9:
			return "DECIMAL32"
		case t.Precision <= 18:
			return "DECIMAL64"
		}
		return "DECIMAL128"
	}
	return t.Kind.String()
}

// schemaChangeAllowed is Doris's ColumnType.schemaChangeMatrix: which type
// a column's data may be converted to.
func schemaChangeAllowed(from, to types.T) bool {
	if from.Kind == to.Kind {
		return !from.IsNested() || from == to
	}
	num := []types.Kind{types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.LargeInt, types.Float, types.Double}
	str := to.Kind == types.Varchar || to.Kind == types.String
	switch from.Kind {
	case types.TinyInt, types.SmallInt, types.Int, types.BigInt, types.LargeInt:
		i, j := slices.Index(num, from.Kind), slices.Index(num, to.Kind)
		return (j > i) || str || (from.Kind == types.Int && to.Kind == types.Date)
	case types.Float:
		return to.Kind == types.Double || str
	case types.Double:
		return to.Kind == types.Float || str
	case types.Char:
		return str
	case types.Varchar, types.String:
		return slices.Contains(num, to.Kind) || to.Kind == types.Date || str
	case types.Decimal:
		return str
	case types.Date:
		return to.Kind == types.DateTime
	case types.DateTime:
		return to.Kind == types.Date
	}
	return false
}

// checkConvert is Column.checkSchemaChangeAllowed.
func checkConvert(cur, to Column) error {
	if !schemaChangeAllowed(cur.Type, to.Type) {
		return sqlerr.Doris.New(fmt.Sprintf("Can not change %s to %s", dorisTypeName(cur.Type), dorisTypeName(to.Type)))
	}
	if cur.Type.IsNumeric() && to.Type.Kind == types.Varchar && to.Type.Length < numberWidth(cur.Type) {
		return sqlerr.Doris.New(fmt.Sprintf("Can not change from wider type %s to narrower type %s", cur.Type.Lower(), to.Type.Lower()))
	}
	if cur.Agg != to.Agg {
		return sqlerr.Doris.New("Can not change aggregation type")
	}
	if cur.Nullable && !to.Nullable {
		return sqlerr.Doris.New("Can not change from nullable to non-nullable")
	}
	if cur.Default != nil && (to.Default == nil || *to.Default != *cur.Default) {
		return sqlerr.Doris.New("Can not change default value")
	}
	if (cur.Type.Kind == to.Type.Kind || cur.Type.Kind == types.Char && to.Type.Kind == types.Varchar) && cur.Type.Length > to.Type.Length {
		return sqlerr.Doris.New(fmt.Sprintf("Shorten type length is prohibited, srcType=%s, dstType=%s", cur.Type.Lower(), to.Type.Lower()))
	}
	if cur.Type.Kind == types.Decimal && to.Type.Kind == types.Decimal {
		if to.Type.Scale != cur.Type.Scale || to.Type.Precision < cur.Type.Precision {
			return sqlerr.Doris.New(fmt.Sprintf("Can not change %s to %s", cur.Type, to.Type))
		}
	}
	if cur.Type.Kind == types.DateTime && to.Type.Kind == types.DateTime && to.Type.Scale < cur.Type.Scale {
		return sqlerr.Doris.New(fmt.Sprintf("Can not change %s to %s", cur.Type, to.Type))
	}
	return nil
}

// numberWidth is the longest text of a number type (Doris's
// getColumnStringRepSize).
func numberWidth(t types.T) int {
	switch t.Kind {
	case types.TinyInt:
		return 4
	case types.SmallInt:
		return 6
	case types.Int:
		return 11
	case types.BigInt:
		return 20
	case types.LargeInt:
		return 40
	case types.Float, types.Double:
		return 24
	case types.Decimal:
		return t.Precision + 2
	}
	return 0
}

// checkKeyType refuses the types Doris refuses as keys.
func checkKeyType(c Column) error {
	switch {
	case c.Type.IsNested():
		return sqlerr.Doris.New(nestedTypeName(c.Type) + " can only be used in the non-key column of the duplicate table at present.")
	case c.Type.IsFloat():
		return sqlerr.Doris.New("Float or double can not used as a key, use decimal instead.")
	case c.Type.Kind == types.String:
		return sqlerr.Doris.New("String Type should not be used in key column[" + c.Name + "].")
	case c.Type.IsOpaque():
		return sqlerr.Doris.New(fmt.Sprintf("%s can not be used as a key column", c.Type))
	}
	return nil
}

// HeavyModifyColumn is MODIFY COLUMN rewriting the column's data: a new
// type, nullability, key-ness or position. The column keeps its unique id
// (the shadow tablets are written whole).
func (t *Table) HeavyModifyColumn(col Column, pos ColumnPos) error {
	i := t.ColumnIndex(col.Name)
	if i < 0 {
		return sqlerr.Doris.New("Column[" + col.Name + "] does not exists")
	}
	cur := t.Columns[i]
	if cur.Hidden {
		return sqlerr.Doris.New("Can not modify hidden column: " + col.Name)
	}
	if (t.PartKind != PartNone && t.PartColumn == i) || slices.Contains(t.Dist.Columns, i) {
		if col.Type != cur.Type {
			return sqlerr.Doris.New("Can not modify partition or distribution column : " + col.Name)
		}
	}
	switch t.Keys {
	case storage.DupKeys:
		// As Doris: a key column modified without KEY becomes a value
		// column (which must then come after the keys).
		if col.Agg != storage.AggNone {
			return sqlerr.Doris.New("Can not assign aggregation method on column in Duplicate data model table: " + col.Name)
		}
	case storage.UniqueKeys:
		if col.IsKey != cur.IsKey && !cur.IsKey {
			return sqlerr.NotSupportedYet.New("MODIFY COLUMN " + col.Name + " into a key column of a UNIQUE KEY table")
		}
		col.IsKey = cur.IsKey
		if col.Agg != storage.AggNone {
			return sqlerr.Doris.New("Can not assign aggregation method on column in Unique data model table: " + col.Name)
		}
		col.Agg = cur.Agg
	case storage.AggKeys:
		if cur.IsKey {
			if col.Agg != storage.AggNone {
				return sqlerr.Doris.New("Key column " + col.Name + " can not set aggregation type")
			}
			col.IsKey = true
		} else {
			if col.Agg == storage.AggNone {
				col.Agg = cur.Agg
			}
			if col.IsKey {
				return sqlerr.Doris.New("Key column " + col.Name + " can not set aggregation type")
			}
		}
	}
	if err := checkConvert(cur, col); err != nil {
		return err
	}
	if col.IsKey {
		if err := checkKeyType(col); err != nil {
			return err
		}
	}
	n := cur
	n.Type, n.Nullable, n.IsKey, n.Default, n.Comment = col.Type, col.Nullable, col.IsKey, col.Default, col.Comment
	t.Columns = slices.Delete(t.Columns, i, i+1)
	at := i
	switch {
	case pos.First:
		at = 0
	case pos.After != "":
		a := t.ColumnIndex(pos.After)
		if a < 0 {
			return sqlerr.Doris.New("Column[" + pos.After + "] does not exists")
		}
		at = a + 1
	case n.IsKey && !cur.IsKey:
		at = t.keyCount() // a new key column goes after the keys
	}
	t.Columns = slices.Insert(t.Columns, at, n)
	return t.recountKeys()
}

// keyCount is the number of key columns.
func (t *Table) keyCount() int {
	n := 0
	for _, c := range t.Columns {
		if c.IsKey {
			n++
		}
	}
	return n
}

// recountKeys checks that key columns lead (Doris's "Invalid column
// order") and sets NumKeys.
func (t *Table) recountKeys() error {
	n := t.keyCount()
	for i, c := range t.Columns {
		if c.IsKey != (i < n) {
			return sqlerr.Doris.New(fmt.Sprintf("Invalid column order. value should be after key. index[%d]", i))
		}
	}
	if n == 0 {
		return sqlerr.Doris.New("Table must have at least one key column")
	}
	t.NumKeys = n
	return nil
}

// AddKeyColumn is ADD COLUMN c T KEY (or, on an AGGREGATE table, a column
// without an aggregation type): a heavy change, since every row gets the
// key. fill is what existing rows get (its default, or NULL).
func (t *Table) AddKeyColumn(col Column, pos ColumnPos, fill *types.Datum) error {
	if col.Name == "" {
		return sqlerr.WrongColumnName.New(col.Name)
	}
	if t.ColumnIndex(col.Name) >= 0 {
		return sqlerr.Doris.New("Can not add column which already exists in base table: " + col.Name)
	}
	if col.Agg != storage.AggNone {
		return sqlerr.Doris.New("Can not assign aggregation method on key column: " + col.Name)
	}
	if err := checkKeyType(col); err != nil {
		return err
	}
	if !col.Nullable && fill == nil {
		return sqlerr.Doris.New(fmt.Sprintf("Can not add column %s which is NOT NULL and has no default value", col.Name))
	}
	col.IsKey = true
	at := t.keyCount()
	switch {
	case pos.First:
		at = 0
	case pos.After != "":
		i := t.ColumnIndex(pos.After)
		if i < 0 {
			return sqlerr.Doris.New("Column[" + pos.After + "] does not exists")
		}
		at = i + 1
	}
	if t.NextColumnID == 0 {
		assignColumnIDs(t)
	}
	col.UID = t.NextColumnID
	t.NextColumnID++
	if fill != nil {
		d := *fill
		d.Prepare()
		col.FillValue = &d
	}
	t.Columns = slices.Insert(t.Columns, at, col)
	return t.recountKeys()
}

// DropKeyColumn is DROP COLUMN of a key column (DropColumn's checks
// passed): an AGGREGATE table's rows are merged on the keys left.
func (t *Table) DropKeyColumn(name string) error {
	i := t.ColumnIndex(name)
	if i < 0 || !t.Columns[i].IsKey {
		return sqlerr.Assertf("catalog: %s is not a key column", name)
	}
	if (t.PartKind != PartNone && t.PartColumn == i) || slices.Contains(t.Dist.Columns, i) {
		return sqlerr.Doris.New("Can not drop partition or distribution column : " + name)
	}
	t.Columns = slices.Delete(t.Columns, i, i+1)
	return t.recountKeys()
}

// Reorder is ORDER BY (c, …): the visible columns in a new order, every
// one named once, keys first (SchemaChangeHandler.processReorderColumn).
func (t *Table) Reorder(names []string) error {
	vis := t.VisibleColumns()
	if len(names) != len(vis) {
		return sqlerr.Doris.New("Reorder stmt should contains all columns")
	}
	out := make([]Column, 0, len(t.Columns))
	seen := map[string]bool{}
	for _, n := range names {
		i := t.ColumnIndex(n)
		if i < 0 || t.Columns[i].Hidden {
			return sqlerr.Doris.New("Column[" + n + "] does not exists")
		}
		if seen[strings.ToLower(n)] {
			return sqlerr.Doris.New("Duplicated column[" + n + "]")
		}
		seen[strings.ToLower(n)] = true
		out = append(out, t.Columns[i])
	}
	t.Columns = append(out, t.Columns[len(vis):]...)
	return t.recountKeys()
}
