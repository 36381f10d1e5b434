package engine

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"strings"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/memory"
	"github.com/dolthub/go-mysql-server/server"
	gsql "github.com/dolthub/go-mysql-server/sql"
)

// GMS is go-mysql-server's memory engine served on loopback in this
// process, queried through the MySQL driver like dorisgo.
type GMS struct {
	srv  *server.Server
	db   *sql.DB
	addr string
	pro  *memory.DbProvider
}

// StartGMS serves an empty memory catalog with databases names.
func StartGMS(names ...string) (*GMS, error) {
	var dbs []gsql.Database
	for _, n := range names {
		dbs = append(dbs, memory.NewDatabase(n))
	}
	pro := memory.NewDBProvider(dbs...)
	engine := sqle.NewDefault(pro)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	srv, err := server.NewServer(server.Config{Protocol: "tcp", Address: addr}, engine, gsql.NewContext, memory.NewSessionBuilder(pro), nil)
	if err != nil {
		return nil, err
	}
	go func() { _ = srv.Start() }()
	g := &GMS{srv: srv, pro: pro, addr: addr}
	db, err := sql.Open("mysql", "root:@tcp("+addr+")/"+names[0])
	if err != nil {
		return nil, err
	}
	g.db = db
	db.SetMaxOpenConns(4)
	if err := waitPort(l.Addr().(*net.TCPAddr).Port, 10e9); err != nil {
		return nil, err
	}
	return g, db.Ping()
}

// Exec runs a statement.
func (g *GMS) Exec(q string) error {
	_, err := g.db.Exec(q)
	return err
}

// LoadCSV inserts the rows of a '|'-separated file into db.table in
// multi-row INSERT batches; quote[i] says whether column i is a string.
func (g *GMS) LoadCSV(db, table, path string, quote []bool, progress func(n int)) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	s.Buffer(make([]byte, 1<<20), 1<<20)
	var b strings.Builder
	var n, batch int64
	flush := func() error {
		if batch == 0 {
			return nil
		}
		_, err := g.db.Exec(b.String())
		b.Reset()
		batch = 0
		return err
	}
	for s.Scan() {
		if batch == 0 {
			fmt.Fprintf(&b, "INSERT INTO %s.%s VALUES ", db, table)
		} else {
			b.WriteByte(',')
		}
		b.WriteByte('(')
		for i, v := range strings.Split(s.Text(), "|") {
			if i > 0 {
				b.WriteByte(',')
			}
			if quote[i] {
				b.WriteByte('\'')
				b.WriteString(strings.ReplaceAll(v, "'", "''"))
				b.WriteByte('\'')
			} else {
				b.WriteString(v)
			}
		}
		b.WriteByte(')')
		n++
		batch++
		if batch == 2000 {
			if err := flush(); err != nil {
				return n, err
			}
			if progress != nil {
				progress(2000)
			}
		}
	}
	if err := flush(); err != nil {
		return n, err
	}
	return n, s.Err()
}

// Use makes name the default database of the connections.
func (g *GMS) Use(name string) error {
	db, err := sql.Open("mysql", "root:@tcp("+g.addr+")/"+name)
	if err != nil {
		return err
	}
	db.SetMaxOpenConns(4)
	g.db.Close()
	g.db = db
	return db.Ping()
}

// Drop drops every table of database name and returns their memory to
// the OS, so that the next suite's timed runs do not share this process's
// heap with them.
func (g *GMS) Drop(name string) error {
	rows, err := g.db.Query("SHOW TABLES FROM " + name)
	if err != nil {
		return err
	}
	var tables []string
	for rows.Next() {
		var t string
		if err := rows.Scan(&t); err != nil {
			rows.Close()
			return err
		}
		tables = append(tables, t)
	}
	rows.Close()
	for _, t := range tables {
		if err := g.Exec("DROP TABLE " + name + "." + t); err != nil {
			return err
		}
	}
	debug.FreeOSMemory()
	return nil
}

// Name implements Engine.
func (g *GMS) Name() string { return "gms" }

// Query implements Engine.
func (g *GMS) Query(ctx context.Context, q string) (Result, error) { return queryDB(ctx, g.db, q) }

// Close implements Engine.
func (g *GMS) Close() error {
	g.db.Close()
	return g.srv.Close()
}
