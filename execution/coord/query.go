package coord

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/dorisgo/dorisgo/catalog"
	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/rpc"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/sqlerr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Run schedules plan: fragment 0 runs here on the FE and returns the
// result stream; every other fragment runs as instances on the backends
// holding its tablets, streaming to the exchange that reads it.
func (c *Coordinator) Run(ctx context.Context, plan *fragment.Plan, env *op.Env, nowMicro int64) (op.Operator, error) {
	q := &query{c: c, id: newQueryID(), plan: plan, now: nowMicro}
	src := &op.Sources{Exchange: func(n *fragment.Node) (op.Operator, error) {
		return q.exchange(ctx, n)
	}}
	root, err := op.Build(env, plan.Fragments[0].Root, src)
	if err != nil {
		q.cancel()
		return nil, err
	}
	return &queryOp{Operator: root, q: q}, nil
}

type query struct {
	c    *Coordinator
	id   string
	plan *fragment.Plan
	now  int64
	mu   sync.Mutex
	gs   []*gather
}

// queryOp closes the remote instances with the root.
type queryOp struct {
	op.Operator
	q *query
}

func (o *queryOp) Close() {
	o.Operator.Close()
	o.q.cancel()
}

func (q *query) cancel() {
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, g := range q.gs {
		g.Close()
	}
}

// exchange starts the instances of the fragment feeding exchange node n.
func (q *query) exchange(ctx context.Context, n *fragment.Node) (op.Operator, error) {
	f := q.plan.Fragments[n.Exchange.From]
	scan := findScan(f.Root)
	if scan == nil {
		return nil, sqlerr.Assertf("fragment %d has no scan to place it", f.ID)
	}
	// Pick one alive replica per tablet, spreading reads over replicas.
	perBE := map[catalog.BackendID][]fragment.TabletRef{}
	var order []catalog.BackendID
	for _, t := range scan.Scan.Tablets {
		be, err := q.c.pickReplica(t)
		if err != nil {
			return nil, err
		}
		if _, ok := perBE[be]; !ok {
			order = append(order, be)
		}
		perBE[be] = append(perBE[be], t)
	}
	g := newGather(ctx, types.ArrowSchema(n.Output))
	q.mu.Lock()
	q.gs = append(q.gs, g)
	q.mu.Unlock()
	for _, be := range order {
		cl, err := q.c.Client(be)
		if err != nil {
			g.Close()
			return nil, err
		}
		tk := &rpc.FragmentTicket{QueryID: q.id, Root: f.Root, NowMicro: q.now,
			Tablets: map[fragment.NodeID][]fragment.TabletRef{scan.ID: perBE[be]}}
		be := be
		g.add(func(ctx context.Context) (*rpc.Stream, error) {
			s, err := cl.RunFragment(ctx, tk)
			return s, q.c.backendErr(be, err)
		}, func(err error) error { return q.c.backendErr(be, err) })
	}
	g.start()
	return g, nil
}

func findScan(n *fragment.Node) *fragment.Node {
	if n.Kind == fragment.KindScan {
		return n
	}
	for _, c := range n.Children {
		if s := findScan(c); s != nil {
			return s
		}
	}
	return nil
}

// pickReplica chooses an alive backend holding tablet t; the tablet id
// rotates the choice so replicas share the read load.
func (c *Coordinator) pickReplica(t fragment.TabletRef) (catalog.BackendID, error) {
	n := len(t.Replicas)
	for i := 0; i < n; i++ {
		be := catalog.BackendID(t.Replicas[(int(t.Tablet)+i)%n])
		if b, ok := c.cat.Backend(be); ok && b.Alive {
			return be, nil
		}
	}
	return 0, sqlerr.Doris.New(fmt.Sprintf("no alive replica for tablet %d (backends %v)", t.Tablet, t.Replicas))
}

// gather merges the streams of several remote instances, in arrival order.
// A bounded channel is the byte budget's stand-in here: at most a few
// batches wait per gather, so a slow client throttles the backends through
// gRPC flow control.
type gather struct {
	ctx    context.Context
	cancel context.CancelFunc
	schema *arrow.Schema
	opens  []func(context.Context) (*rpc.Stream, error)
	wraps  []func(error) error
	ch     chan arrow.Record
	errc   chan error
	wg     sync.WaitGroup
	once   sync.Once
	done   int
	err    error
}

func newGather(ctx context.Context, schema *arrow.Schema) *gather {
	ctx, cancel := context.WithCancel(ctx)
	return &gather{ctx: ctx, cancel: cancel, schema: schema, ch: make(chan arrow.Record, 4), errc: make(chan error, 1)}
}

func (g *gather) add(open func(context.Context) (*rpc.Stream, error), wrap func(error) error) {
	g.opens = append(g.opens, open)
	g.wraps = append(g.wraps, wrap)
}

func (g *gather) start() {
	for i := range g.opens {
		g.wg.Add(1)
		go g.pump(i)
	}
	go func() {
		g.wg.Wait()
		close(g.ch)
	}()
}

func (g *gather) pump(i int) {
	defer g.wg.Done()
	s, err := g.opens[i](g.ctx)
	if err != nil {
		g.fail(err)
		return
	}
	defer s.Close()
	for {
		rec, err := s.Next()
		if err == io.EOF {
			return
		}
		if err != nil {
			g.fail(g.wraps[i](err))
			return
		}
		select {
		case g.ch <- rec:
		case <-g.ctx.Done():
			rec.Release()
			return
		}
	}
}

func (g *gather) fail(err error) {
	select {
	case g.errc <- err:
	default:
	}
	g.cancel()
}

func (g *gather) Schema() *arrow.Schema { return g.schema }

func (g *gather) Next(ctx context.Context) (arrow.Record, error) {
	select {
	case err := <-g.errc:
		return nil, err
	default:
	}
	select {
	case rec, ok := <-g.ch:
		if !ok {
			select {
			case err := <-g.errc:
				return nil, err
			default:
			}
			if err := g.ctx.Err(); err != nil && ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, io.EOF
		}
		if !rec.Schema().Equal(g.schema) {
			out := arrowRelabel(rec, g.schema)
			return out, nil
		}
		return rec, nil
	case err := <-g.errc:
		return nil, err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (g *gather) Close() {
	g.once.Do(func() {
		g.cancel()
		go func() {
			for rec := range g.ch {
				rec.Release()
			}
		}()
	})
}

// newQueryID returns a random id naming a query's instances on every backend.
func newQueryID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
