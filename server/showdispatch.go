package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/server/show"
	"github.com/dorisgo/dorisgo/server/wire"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// newShows wires server/show to this server: what SHOW and
// information_schema read that only the server knows.
func (s *Server) newShows() *show.Shows {
	return show.New(show.Config{Catalog: s.cat, Host: s.cfg.Host, TableStats: s.coord.TableStats,
		VarNames: sortedVarNames,
		GlobalVar: func(name string) string {
			v, _ := s.globals.get(name)
			return v
		},
		Connections: func() int { return s.wire.ConnCount() }, Started: s.start,
		Processes: s.processRows,
		PeerProcesses: func(ctx context.Context, user string, admin bool) ([]show.Process, error) {
			if s.ha == nil {
				return nil, nil // a frontend of its own
			}
			return s.peerProcessRows(ctx, user, admin)
		},
		FEName: s.feName, StreamLoads: s.streamLoads.Records, LoadProgress: s.loadProgress})
}

// showSession is a Session as server/show sees it.
type showSession struct{ s *Session }

func (v showSession) Account() (string, string) { return v.s.acct.user, v.s.acct.host }
func (v showSession) User() string              { return v.s.info.User }
func (v showSession) Access() *catalog.Access   { return v.s.access() }
func (v showSession) DB() string                { return v.s.DB() }
func (v showSession) Var(name string) string    { return v.s.vars.get(name) }
func (v showSession) ViewColumns(db string, view *catalog.View) ([]types.Column, error) {
	st, err := parser.ParseOne(fmt.Sprintf("SELECT * FROM `%s`.`%s`", strings.ReplaceAll(db, "`", "``"), strings.ReplaceAll(view.Name, "`", "``")))
	if err != nil {
		return nil, err
	}
	q, err := newBinder(v.s, nil).BindQuery(st.(*parser.Vitess))
	if err != nil {
		return nil, err
	}
	cols := make([]types.Column, len(q.Outputs))
	for i, o := range q.Outputs {
		cols[i] = types.Column{Name: o.Name, Type: o.Col.T, Nullable: o.Col.Null}
	}
	return cols, nil
}

// showTo sends a server/show result to w, or returns its error:
// showTo(w)(s.srv.shows.X(...)).
func showTo(w wire.ResultWriter) func(*show.Result, error) error {
	return func(r *show.Result, err error) error {
		if err != nil {
			return err
		}
		return writeShow(w, r)
	}
}

// writeShow sends a server/show result: each column a VARCHAR or BIGINT
// result column as SHOW results always were (strCol, intCol).
func writeShow(w wire.ResultWriter, r *show.Result) error {
	cols := make([]wire.Column, len(r.Cols))
	for i, c := range r.Cols {
		cols[i] = wire.Column{Name: c.Name, OrgName: c.Name, Type: c.Type, Nullable: c.Nullable}
	}
	return writeTable(w, cols, r.Rows)
}

// show runs the SHOW forms of *parser.Show; SHOW WARNINGS and ERRORS are
// the session's diagnostics.
func (s *Session) show(ctx context.Context, n *parser.Show, w wire.ResultWriter) error {
	switch strings.ToLower(n.Type) {
	case "warnings", "errors":
		return s.showDiagnostics(n.Type == "errors", w)
	}
	return showTo(w)(s.srv.shows.Show(ctx, showSession{s}, n))
}

// showProc is SHOW PROC: the catalog's paths from server/show, the
// cluster's state from the server.
func (s *Session) showProc(ctx context.Context, st *parser.ShowProc, w wire.ResultWriter) error {
	path := strings.TrimRight(st.Path, "/")
	const cg = "/colocation_group"
	switch {
	case path == "/frontends":
		return s.showFrontends(ctx, w)
	case path == cg:
		return showTo(w)(s.srv.shows.ColocationGroups())
	case strings.HasPrefix(path, cg+"/"):
		return showTo(w)(s.srv.shows.ColocationGroup(strings.TrimPrefix(path, cg+"/")))
	case path == "/backends":
		return showTo(w)(s.srv.shows.Backends())
	case path == "/cluster_health/tablet_health":
		return s.showTabletHealth(w)
	case path == "/cluster_balance":
		return s.showClusterBalance(w)
	case strings.HasPrefix(path, "/cluster_balance/cluster_load_stat"):
		return s.showClusterLoadStat(w)
	}
	return sqlerr.Doris.New("Proc path '" + st.Path + "' doesn't exist")
}

// table resolves db (the current database when "") and its table name.
func (s *Session) table(db, name string) (string, *catalog.Table, error) {
	db, err := s.dbName(db)
	if err != nil {
		return "", nil, err
	}
	t, err := s.srv.cat.Table(db, name)
	return db, t, err
}
