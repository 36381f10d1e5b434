// Package bind resolves a parsed statement against the catalog: names to
// columns and tables, literals to typed constants, functions to the
// registry with MySQL's implicit conversions, aggregates and window
// functions to their own plan nodes, and subqueries to joins (IN, EXISTS,
// NOT IN become semi, anti and null-aware anti joins) or to Apply where
// they are correlated in ways a join cannot express; ROLLUP, CUBE and
// GROUPING SETS become a Repeat under the Aggregate (rollup.go). Input: vitess AST (from
// sql/parser). Output: a logical plan (planner/logical) whose expressions
// are typed sql/expr trees. Errors are MySQL's: 1054 unknown column, 1052
// ambiguous, 1146 no table, 1046 no database, 1055/1140 GROUP BY misuse,
// 1116 more than 1,000 tables in one FROM clause. Binding stops with the
// statement's context (Context.Ctx).
package bind

import (
	"context"
	"strings"
	"time"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/planner/logical"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/parser"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Vars reads variables for @@name and @name references.
type Vars interface {
	// System returns @@[global.|session.]name.
	System(name string, global bool) (types.Datum, error)
	// User returns @name (NULL if unset).
	User(name string) types.Datum
}

// Virtual supplies system tables (information_schema) as constant relations.
type Virtual interface {
	VirtualTable(db, table string) (cols []types.Column, rows [][]types.Datum, ok bool, err error)
}

// Context is what binding needs from the session.
type Context struct {
	Cat     *catalog.Catalog
	DB      string // current database ("" = none)
	User    string
	ConnID  uint32
	Version string
	Vars    Vars
	Virtual Virtual
	Now     time.Time
	// Params are the prepared statement's arguments (nil: placeholders stay Params).
	Params []types.Datum
	// Hints are the parser's hints of the statement being bound (may be nil).
	Hints *parser.Hints
	// Ctx is the statement's (query_timeout, KILL, the client hanging up):
	// binding stops with its error once it is done. Nil: never.
	Ctx context.Context
	// Warn collects the warnings of what binding evaluates (a VALUES row's
	// CAST); nil drops them.
	Warn *expr.Warnings
	// LastQueryID is the session's previous statement's query id
	// (last_query_id(); "" before the first).
	LastQueryID string
}

// Binder binds one statement; it allocates the statement's column ids.
type Binder struct {
	ctx    *Context
	nextID logical.ColumnID
	// ctes are the WITH definitions in scope, innermost last.
	ctes []map[string]*cte
	// agg is set while binding expressions above an aggregation.
	agg *aggCtx
	// win is set while binding expressions that may hold window functions.
	win *winCtx
	// applies collects subqueries bound inside expressions, to be planned
	// as Apply nodes over the clause's input.
	applies *[]*logical.Apply
	// origins maps table columns to their database and table.
	origins map[logical.ColumnID]origin
	// having is set while a HAVING clause is bound (see havingNames).
	having *havingNames
	// ticks counts expression nodes bound (tick).
	ticks uint32
	// views are the views being expanded, outermost first; defining is
	// the view a CREATE/ALTER VIEW defines; nViews counts expansions
	// (view.go).
	views    []viewRef
	defining *viewRef
	nViews   int
}

// New returns a binder for one statement.
func New(ctx *Context) *Binder { return &Binder{ctx: ctx, nextID: 1} }

// cancelled is the statement context's error: the binder asks at every
// query block and FROM item, and every 1,024 expression nodes (tick), so a
// hostile statement (a 1,000-table join chain, a 100,000-element IN list)
// stops within milliseconds of KILL, query_timeout or its client leaving.
func (b *Binder) cancelled() error {
	if b.ctx.Ctx == nil {
		return nil
	}
	return b.ctx.Ctx.Err()
}

// tick is cancelled every 1,024 calls.
func (b *Binder) tick() error {
	b.ticks++
	if b.ticks%1024 != 0 {
		return nil
	}
	return b.cancelled()
}

func (b *Binder) newCol(table, name string, t types.T, null bool) logical.Column {
	id := b.nextID
	b.nextID++
	return logical.Column{ID: id, Table: table, Name: name, T: t, Null: null}
}

// resolveTable finds db.table (db defaults to the current database).
func (b *Binder) resolveTable(db, name string) (string, *catalog.Table, error) {
	if db == "" {
		db = b.ctx.DB
	}
	if db == "" {
		return "", nil, sqlerr.NoDB.New()
	}
	t, err := b.ctx.Cat.Table(db, name)
	if err != nil {
		return "", nil, err
	}
	return db, t, nil
}

// scope is the set of columns visible to expressions; outer links to the
// enclosing query's scope for correlated subqueries.
type scope struct {
	cols []logical.Column
	// clause names the clause for 1054 messages ("field list", "where clause").
	clause string
	outer  *scope
	// corr collects the outer columns this scope's query referenced.
	corr map[logical.ColumnID]logical.Column
	// post (a grouped query's FROM scope, while its select list, HAVING
	// and ORDER BY are bound): a subquery there runs after the
	// aggregation, so its references to this scope mean the group keys'
	// outputs, and any other column is MySQL's 1055.
	post *aggCtx
	// shown (a FROM scope) holds the columns * shows: of two columns a
	// USING or NATURAL join made one, an unqualified name means the shown
	// one (MySQL's coalesced join column), not an ambiguity.
	shown map[logical.ColumnID]bool
}

func (s *scope) find(qual, name string) ([]logical.Column, error) {
	var found []logical.Column
	for _, c := range s.cols {
		if !strings.EqualFold(c.Name, name) {
			continue
		}
		if qual != "" && !strings.EqualFold(c.Table, qual) {
			continue
		}
		found = append(found, c)
	}
	return found, nil
}

func (s *scope) lookup(qual, name string) (logical.Column, error) {
	full := name
	if qual != "" {
		full = qual + "." + name
	}
	for sc := s; sc != nil; sc = sc.outer {
		found, _ := sc.find(qual, name)
		switch len(found) {
		case 0:
			continue
		case 1:
			if sc != s {
				if ac := sc.post; ac != nil {
					i, ok := ac.groupKey[found[0].Ref().String()]
					if !ok {
						if ac.grouped {
							return logical.Column{}, sqlerr.WrongFieldWithGrp.New(1, full)
						}
						return logical.Column{}, sqlerr.MixOfGroupFunc.New(1, full)
					}
					found[0] = ac.groupCols[i]
				}
				// A correlated reference: every scope between records it.
				for x := s; x != sc; x = x.outer {
					if x.corr == nil {
						x.corr = map[logical.ColumnID]logical.Column{}
					}
					x.corr[found[0].ID] = found[0]
				}
			}
			return found[0], nil
		default:
			if dedup(found) {
				return found[0], nil
			}
			if qual == "" && sc == s && sc.shown != nil {
				var kept []logical.Column
				for _, c := range found {
					if sc.shown[c.ID] {
						kept = append(kept, c)
					}
				}
				if len(kept) > 0 && len(kept) < len(found) && dedup(kept) {
					return kept[0], nil
				}
			}
			return logical.Column{}, sqlerr.NonUniq.New(full, s.clause)
		}
	}
	return logical.Column{}, sqlerr.BadField.New(full, s.clause)
}

// dedup reports whether all candidates are the same column (USING/NATURAL
// joins expose the shared column under both qualifiers).
func dedup(cs []logical.Column) bool {
	for _, c := range cs[1:] {
		if c.ID != cs[0].ID {
			return false
		}
	}
	return true
}
