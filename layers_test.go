package dorisgo_test

import (
	"encoding/json"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/dorisgo/dorisgo/"

// rule says which of the module's packages and which outside modules a
// package (matched by prefix) may import directly. Data flows one way:
// wire → parse → bind → plan → fragments → execute → results (STYLE.md §1).
type rule struct {
	pkg     string
	ours    []string // allowed internal prefixes; one ending in "$" allows only that package
	foreign []string // allowed external module prefixes, beyond the standard library
}

var arrow = "github.com/apache/arrow-go/"

// opFamily is what an operator family may import: the operator core and
// the plan and SQL packages it runs.
var opFamily = []string{"execution/op$", "planner/fragment", "sql/types", "sql/sqlerr", "sql/expr", "sql/eval"}

var rules = []rule{
	{"sql/sqlerr", nil, nil},
	{"sql/types", []string{"sql/sqlerr"}, []string{arrow, "github.com/zeebo/xxh3"}},
	// BITMAP / HLL values and the approximate aggregate states.
	{"sql/sketch", nil, []string{"github.com/RoaringBitmap/roaring/", "github.com/axiomhq/hyperloglog"}},
	// Join hints, read by the parser and applied by the planner.
	{"sql/hint", nil, nil},
	{"sql/parser", []string{"sql/types", "sql/sqlerr", "sql/hint"}, []string{"github.com/dolthub/vitess/"}},
	{"sql/expr", []string{"sql/types", "sql/sqlerr"}, []string{arrow}},
	// JSON functions read paths with gjson.
	{"sql/eval", []string{"sql/expr", "sql/types", "sql/sqlerr", "sql/sketch"}, []string{arrow, "github.com/RoaringBitmap/roaring/", "github.com/tidwall/gjson"}},
	// The names the plan shares with storage, without the engine.
	{"storage/meta", []string{"sql/types"}, nil},
	{"storage", []string{"storage/meta", "sql/types", "sql/sqlerr", "sql/sketch"}, []string{"github.com/cockroachdb/pebble/", arrow, "github.com/cockroachdb/", "github.com/RoaringBitmap/roaring/"}},
	{"catalog", []string{"storage", "sql/types", "sql/sqlerr"}, []string{arrow}},
	{"planner/bind", []string{"planner/logical", "planner/fragment", "catalog", "storage", "sql/"}, []string{"github.com/dolthub/vitess/"}},
	// The plan contract between FE and BE: no storage engine, no catalog.
	{"planner/fragment", []string{"sql/types", "sql/expr", "storage/meta"}, nil},
	// The plan checker reads only the emitted plan and the catalog: it
	// shares nothing with the planner it checks.
	{"planner/check", []string{"planner/fragment", "catalog", "sql/expr", "sql/types"}, nil},
	{"planner/", []string{"planner/", "catalog", "storage", "sql/"}, []string{arrow}},
	{"execution/coord", []string{"execution/", "planner/fragment", "catalog", "storage", "sql/types", "sql/sqlerr", "sql/expr", "sql/eval"}, []string{arrow, "google.golang.org/grpc"}},
	// A backend exports its own Prometheus series (doris_be_*).
	{"execution/be", []string{"execution/", "planner/fragment", "storage", "sql/types", "sql/sqlerr", "sql/expr", "sql/eval"}, []string{arrow, "google.golang.org/grpc", "github.com/prometheus/"}},
	// The operators: a core (execution/op: the Operator interface, batch,
	// key and memory helpers) and families over it that never import one
	// another; only the builder (execution/op/build) sees them all.
	{"execution/op/optest", []string{"execution/op$", "sql/types", "sql/expr"}, []string{arrow}},
	{"execution/op/build", []string{"execution/op", "planner/fragment", "storage", "sql/types", "sql/sqlerr", "sql/expr", "sql/eval"}, []string{arrow}},
	{"execution/op/aggregate", slices.Concat(opFamily, []string{"sql/sketch"}), []string{arrow, "github.com/RoaringBitmap/roaring/", "github.com/axiomhq/hyperloglog"}},
	{"execution/op/scan", slices.Concat(opFamily, []string{"storage"}), []string{arrow}},
	{"execution/op/", opFamily, []string{arrow}}, // join, sorting, exchange
	{"execution/op", []string{"sql/types", "sql/sqlerr", "sql/expr", "sql/eval"}, []string{arrow}},
	{"execution/", []string{"execution/", "planner/fragment", "storage", "sql/types", "sql/sqlerr", "sql/expr", "sql/eval", "sql/sketch"}, []string{arrow, "google.golang.org/grpc", "github.com/cockroachdb/swiss", "github.com/RoaringBitmap/roaring/", "github.com/axiomhq/hyperloglog", "github.com/vmihailenco/msgpack/"}},
	{"server/wire", []string{"sql/types", "sql/sqlerr"}, []string{"github.com/go-mysql-org/go-mysql/", arrow}},
	{"server/slt", []string{""}, []string{"github.com/go-sql-driver/mysql"}},
	// The web UI renders plain data the FE hands it: standard library only.
	{"server/webui", nil, nil},
	// HTTP stream load: the server mounts it and hands it the catalog,
	// the coordinator and authentication; it never imports the server.
	// It reads lz4 bodies (compress_type) with pierrec/lz4, which arrow
	// uses too, and jsonpaths and json_root with gjson.
	{"server/streamload", []string{"catalog", "storage", "execution/coord", "execution/rpc", "planner/bind", "sql/"}, []string{arrow, "github.com/pierrec/lz4/", "github.com/tidwall/gjson"}},
	// SHOW results and information_schema: built from the catalog and
	// what the server hands it (show.Config, show.Session); it never
	// imports the server nor the wire protocol.
	{"server/show", []string{"catalog", "storage", "execution/coord", "server/streamload", "sql/"}, nil},
	// The HTTP surface: the mux, basic auth, the admin endpoints, /metrics
	// (its Prometheus registry) and the web UI's source, built from the
	// catalog and what the server hands it (httpapi.Config); it never
	// imports the server nor the wire protocol. The query page joins the
	// plan (planner/physical) with what its operators and exchanges
	// measured.
	{"server/httpapi", []string{"catalog", "storage", "execution/be$", "execution/coord", "execution/op/build", "execution/op/exchange",
		"planner/physical", "planner/fragment", "server/webui", "server/streamload", "server/show", "sql/sqlerr"}, []string{"github.com/prometheus/"}},
	// The audit log rotates by size with lumberjack.
	// The FE journal: Raft (hashicorp/raft, its logger hclog) over the
	// metadata store, its log in Pebble.
	{"server/journal", []string{"storage", "sql/sqlerr"}, []string{"github.com/hashicorp/raft", "github.com/hashicorp/go-hclog", "github.com/cockroachdb/pebble/"}},
	// The server runs what sql/parser classified and hands queries to
	// planner/bind whole: it never sees a vitess node.
	{"server", []string{""}, []string{arrow, "gopkg.in/natefinch/lumberjack.v2"}},
	{"cmd/", []string{""}, nil},
	{"bench", []string{""}, nil},
}

type pkgInfo struct {
	ImportPath string
	Imports    []string
	Standard   bool
}

func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	checked := 0
	for dec.More() {
		var p pkgInfo
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if p.ImportPath+"/" == mod {
			continue // this test's own package
		}
		rel := strings.TrimPrefix(p.ImportPath, mod)
		var r *rule
		for i := range rules {
			if rel == rules[i].pkg || strings.HasPrefix(rel, rules[i].pkg) && strings.HasSuffix(rules[i].pkg, "/") ||
				strings.HasPrefix(rel, rules[i].pkg+"/") {
				r = &rules[i]
				break
			}
		}
		if r == nil {
			t.Errorf("package %s has no layering rule", rel)
			continue
		}
		checked++
		for _, imp := range p.Imports {
			if strings.HasPrefix(imp, mod) {
				dep := strings.TrimPrefix(imp, mod)
				if !hasPrefix(dep, r.ours) {
					t.Errorf("%s imports %s: not allowed by its layer", rel, dep)
				}
				continue
			}
			if !strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") {
				continue // standard library
			}
			if !hasPrefix(imp, r.foreign) {
				t.Errorf("%s imports %s: only its layer's owner may", rel, imp)
			}
		}
	}
	if checked < 10 {
		t.Fatalf("only %d packages checked", checked)
	}
}

func hasPrefix(s string, ps []string) bool {
	for _, p := range ps {
		if exact, ok := strings.CutSuffix(p, "$"); ok {
			if s == exact {
				return true
			}
			continue
		}
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
