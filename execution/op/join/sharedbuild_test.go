package join

import (
	"fmt"
	"math/rand"
	"sync"
	"testing"

	"github.com/dorisgo/dorisgo/execution/op"
	"github.com/dorisgo/dorisgo/execution/op/optest"
	"github.com/dorisgo/dorisgo/planner/fragment"
	"github.com/dorisgo/dorisgo/sql/expr"
	"github.com/dorisgo/dorisgo/sql/types"
)

// Probe tasks sharing one build side (a broadcast join run as pipeline
// tasks) return what one join over all probe rows returns.
func TestSharedBuildJoins(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	left, right := optest.RandRows(r, 2000, 60, 0.1), optest.RandRows(r, 500, 60, 0.1)
	for _, typ := range []fragment.JoinType{fragment.JoinInner, fragment.JoinLeftOuter, fragment.JoinLeftSemi, fragment.JoinLeftAnti, fragment.JoinNullAwareLeftAnti} {
		for _, nested := range []bool{false, true} {
			if nested && typ == fragment.JoinNullAwareLeftAnti {
				continue
			}
			t.Run(fmt.Sprintf("%s/nested=%v", typ, nested), func(t *testing.T) {
				want := runHashJoin(t, typ, left, right, false, false, 64)
				mem, check := optest.Checked(t)
				defer check()
				env := optest.Env(mem)
				tracker := op.NewMemTracker(0)
				rc := optest.Cols("rk", types.BigIntT, "w", types.BigIntT)
				probes, _ := optest.Producers(mem, left, 3, 64)
				build := optest.NewSource(mem, rc, right, 64)
				s := NewSharedBuild(build, len(probes), tracker)
				var joins []op.Operator
				for _, p := range probes {
					empty := op.Empty(build.Schema())
					if nested {
						eq, _ := expr.NewCall("eq", optest.ColRef(0, types.BigIntT), optest.ColRef(2, types.BigIntT))
						j, err := NewNestedLoopJoin(env, p, empty, NestedLoopJoinSpec{Type: typ, Conjuncts: []expr.Expr{eq},
							Output: joinOutput(typ), Mem: tracker})
						if err != nil {
							t.Fatal(err)
						}
						j.ShareBuild(s)
						joins = append(joins, j)
						continue
					}
					j, err := NewHashJoin(env, p, empty, HashJoinSpec{Type: typ, LeftKeys: []expr.Expr{optest.ColRef(0, types.BigIntT)},
						RightKeys: []expr.Expr{optest.ColRef(0, types.BigIntT)}, Output: joinOutput(typ), Mem: tracker})
					if err != nil {
						t.Fatal(err)
					}
					if err := j.ShareBuild(s); err != nil {
						t.Fatal(err)
					}
					joins = append(joins, j)
				}
				var got []string
				var mu sync.Mutex
				var wg sync.WaitGroup
				for _, j := range joins {
					wg.Add(1)
					go func() {
						defer wg.Done()
						rows := optest.Drain(t, j)
						j.Close()
						mu.Lock()
						got = append(got, rows...)
						mu.Unlock()
					}()
				}
				wg.Wait()
				optest.EqualRows(t, optest.Sorted(got), want)
				if u := tracker.Used(); u != 0 {
					t.Fatalf("tracker holds %d bytes after every join closed", u)
				}
			})
		}
	}
}
