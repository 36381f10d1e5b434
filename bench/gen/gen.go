package gen

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
)

// Table is one generated table: chunks independent of each other.
type Table struct {
	Name string
	// Seed names the RNG stream (default Name): tables generated from the
	// same stream (orders and lineitem) agree row for row.
	Seed   string
	Chunks int
	// Chunk appends the rows of chunk i to b and returns it with the row count.
	Chunk func(i int, r *rng, b []byte) ([]byte, int64)
}

// File is a generated CSV file.
type File struct {
	Table string
	Path  string
	Rows  int64
	Bytes int64
}

// Options control a generation run.
type Options struct {
	SF      float64
	Seed    int64
	Dir     string
	Workers int // 0 = GOMAXPROCS
}

// Suite names the tables of a benchmark, in load order.
func Suite(name string, sf float64) ([]Table, error) {
	switch name {
	case "ssb":
		return SSB(sf), nil
	case "tpch":
		return TPCH(sf), nil
	}
	return nil, fmt.Errorf("unknown suite %q (ssb, tpch)", name)
}

// Generate writes every table of tables into opt.Dir as NAME.tbl.
func Generate(opt Options, tables []Table) ([]File, error) {
	if err := os.MkdirAll(opt.Dir, 0o755); err != nil {
		return nil, err
	}
	var out []File
	for _, t := range tables {
		f, err := generateTable(opt, t)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

func generateTable(opt Options, t Table) (File, error) {
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	path := filepath.Join(opt.Dir, t.Name+".tbl")
	f, err := os.Create(path)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)

	type result struct {
		b    []byte
		rows int64
	}
	results := make([]chan result, t.Chunks)
	for i := range results {
		results[i] = make(chan result, 1)
	}
	// Workers may run at most 2*workers chunks ahead of the writer.
	ahead := make(chan struct{}, 2*workers)
	next := make(chan int)
	var wg sync.WaitGroup
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				seedName := t.Seed
				if seedName == "" {
					seedName = t.Name
				}
				b, n := t.Chunk(i, newRNG(opt.Seed, seedName, i), make([]byte, 0, 1<<20))
				results[i] <- result{b, n}
			}
		}()
	}
	go func() {
		for i := 0; i < t.Chunks; i++ {
			ahead <- struct{}{}
			next <- i
		}
		close(next)
	}()
	file := File{Table: t.Name, Path: path}
	var werr error
	for i := 0; i < t.Chunks; i++ {
		r := <-results[i]
		<-ahead
		if werr == nil {
			_, werr = w.Write(r.b)
		}
		file.Rows += r.rows
		file.Bytes += int64(len(r.b))
	}
	wg.Wait()
	if werr != nil {
		return File{}, werr
	}
	return file, w.Flush()
}

// chunked splits n rows into chunks of size per and calls row for each.
func chunked(name string, n, per int64, row func(k int64, r *rng, b []byte) []byte) Table {
	if n < 1 {
		n = 1
	}
	chunks := int((n + per - 1) / per)
	return Table{Name: name, Chunks: chunks, Chunk: func(i int, r *rng, b []byte) ([]byte, int64) {
		lo := int64(i) * per
		hi := min(lo+per, n)
		for k := lo; k < hi; k++ {
			b = row(k+1, r, b)
		}
		return b, hi - lo
	}}
}

func scaled(sf float64, base int64) int64 {
	n := int64(sf * float64(base))
	return max(n, 1)
}
