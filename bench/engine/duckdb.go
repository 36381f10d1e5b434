package engine

import (
	"context"
	"database/sql"
	"fmt"

	_ "github.com/duckdb/duckdb-go/v2" // registers the "duckdb" driver
)

// DuckDB is an embedded DuckDB in this process.
type DuckDB struct{ db *sql.DB }

// OpenDuckDB opens an in-memory database.
func OpenDuckDB() (*DuckDB, error) { return OpenDuckDBFile("") }

// OpenDuckDBFile opens (creating) the database file path, or with "" an
// in-memory database. A file lets DuckDB evict table data from its buffer
// pool, where an in-memory database holds all of it in this process.
func OpenDuckDBFile(path string) (*DuckDB, error) {
	db, err := sql.Open("duckdb", path)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1) // one connection: one in-memory catalog
	return &DuckDB{db: db}, db.Ping()
}

// Exec runs a statement.
func (d *DuckDB) Exec(q string) error {
	_, err := d.db.Exec(q)
	return err
}

// LoadCSV fills table (already created) from a '|'-separated file.
func (d *DuckDB) LoadCSV(table, path, columns string) error {
	return d.Exec(fmt.Sprintf(`INSERT INTO %s SELECT * FROM read_csv('%s', delim='|', header=false, auto_detect=false, columns=%s)`,
		table, path, columns))
}

// Name implements Engine.
func (d *DuckDB) Name() string { return "duckdb" }

// Query implements Engine.
func (d *DuckDB) Query(ctx context.Context, q string) (Result, error) { return queryDB(ctx, d.db, q) }

// Close implements Engine.
func (d *DuckDB) Close() error { return d.db.Close() }
