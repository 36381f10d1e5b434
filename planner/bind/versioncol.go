package bind

import (
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
)

// writesVersionCol refuses a write that names the version column of a
// merge-on-write table (catalog.VersionColumn): the backend gives every
// row the version it is written at, so a value written in it would be a
// lie. It may be read (show_hidden_columns shows it).
func writesVersionCol(t *catalog.Table, name string) error {
	if t.VersionCol() < 0 || !strings.EqualFold(name, catalog.VersionColumn) {
		return nil
	}
	return sqlerr.Doris.New("Column " + catalog.VersionColumn + " of table " + t.Name +
		" holds the version each row is written at; a load or UPDATE cannot set it")
}
