// Command fesoak runs a replicated dorisgo cluster of separate processes
// (three FOLLOWER frontends with --edit-log-port and three backends on
// loopback), keeps clients writing through random frontends — CREATE and
// DROP TABLE, CREATE USER and GRANT, labelled INSERTs and labelled stream
// loads — and every round kills the master with kill -9, restarts it after
// a random time, and checks the history of acknowledged changes against
// what every frontend reads:
//
//   - a new master is elected within -elect of the kill;
//   - SHOW TABLES on every frontend lists exactly the tables whose last
//     acknowledged statement was a CREATE;
//   - every acknowledged user logs in on every frontend, reads the table
//     it was granted and SHOW GRANTS names the grant;
//   - SHOW TRANSACTION on every frontend lists exactly the clients'
//     acknowledged load labels as VISIBLE, and count(*) and sum(v) of the
//     table are exactly the acknowledged loads' rows: a load whose reply
//     was lost is retried with the same label until it is acknowledged or
//     its label is reported used, so it counts once.
//
// Every write is retried until it is acknowledged (IF [NOT] EXISTS, the
// same label), so the expected state is exact at each check; the clients
// pause for it. It exits 1 at the first round that breaks one, printing
// the seed; the processes' logs stay in -dir. Run from the bench module:
//
//	cd bench && go run ./cmd/fesoak -duration 10m
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"os"
	"sync"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/dorisgo/dorisgo/bench/engine"
)

type config struct {
	duration time.Duration
	elect    time.Duration
	seed     uint64
	dir      string
	clients  int
}

func main() {
	var c config
	flag.DurationVar(&c.duration, "duration", 5*time.Minute, "how long to run rounds")
	flag.DurationVar(&c.elect, "elect", 10*time.Second, "bound on electing a new master after the kill")
	flag.Uint64Var(&c.seed, "seed", uint64(time.Now().UnixNano()), "random seed (printed; rerun a failure with it)")
	flag.StringVar(&c.dir, "dir", "", "data and log directory (default: a temporary one, removed after a pass)")
	flag.IntVar(&c.clients, "clients", 1, "client goroutines of each kind (DDL, grants, INSERT, stream load)")
	flag.Parse()
	log.SetFlags(log.Ltime)
	_ = mysql.SetLogger(log.New(io.Discard, "", 0)) // dropped connections to killed frontends are expected
	temp := c.dir == ""
	if temp {
		d, err := os.MkdirTemp("", "dorisgo-fesoak-")
		if err != nil {
			log.Fatal(err)
		}
		c.dir = d
	}
	if err := run(c); err != nil {
		log.Printf("FAIL: %v (seed %d; logs in %s)", err, c.seed, c.dir)
		os.Exit(1)
	}
	if temp {
		_ = os.RemoveAll(c.dir)
	}
	log.Print("PASS")
}

func run(c config) error {
	rng := rand.New(rand.NewPCG(c.seed, 0))
	log.Printf("seed %d, 3 frontends, 3 backends, logs in %s", c.seed, c.dir)
	bin := c.dir + "/dorisgo"
	if err := engine.BuildDorisgo("..", bin); err != nil {
		return fmt.Errorf("build: %w (run from the bench directory)", err)
	}
	cl, err := startCluster(bin, c.dir)
	if err != nil {
		return err
	}
	defer cl.stopAll()

	h := newHistory()
	var wg sync.WaitGroup
	for i := 0; i < c.clients; i++ {
		for kind, f := range []func(*cluster, *history, *rand.Rand){ddlClient, grantClient, insertClient, streamClient} {
			r := rand.New(rand.NewPCG(c.seed, uint64(1+i*4+kind)))
			wg.Add(1)
			go func() { defer wg.Done(); f(cl, h, r) }()
		}
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			h.stop.Store(true)
			wg.Wait()
		}
	}
	defer stop()

	end := time.Now().Add(c.duration)
	var elections []time.Duration
	for round := 1; time.Now().Before(end); round++ {
		before := h.snapshot()
		time.Sleep(time.Duration(2000+rng.IntN(6000)) * time.Millisecond)
		if err := cl.restartExited(); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		m, err := cl.master(-1)
		if err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		killed := time.Now()
		cl.fes[m].kill()
		var nm int
		if err := waitFor(c.elect, "a new master", func() bool {
			nm, err = cl.master(m)
			return err == nil && nm != m
		}); err != nil {
			return fmt.Errorf("round %d: kill -9 of master fe%d: %w", round, m, err)
		}
		elected := time.Since(killed)
		elections = append(elections, elected)
		down := time.Duration(500+rng.IntN(4500)) * time.Millisecond
		time.Sleep(down)
		if err := cl.fes[m].start(bin); err != nil {
			return err
		}
		if err := waitFor(60*time.Second, fmt.Sprintf("fe%d back as an alive follower", m), func() bool { return cl.allAlive(nm) }); err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		res, err := check(cl, h)
		if err != nil {
			return fmt.Errorf("round %d: %w", round, err)
		}
		after := h.snapshot()
		log.Printf("round %d: killed master fe%d, fe%d elected in %v, fe%d back after %v; acknowledged during the round: %s; retried %d; every frontend agrees (%s)",
			round, m, nm, elected.Round(10*time.Millisecond), m, down.Round(100*time.Millisecond), after.sub(before), after.retries-before.retries, res)
	}
	stop()
	res, err := check(cl, h)
	if err != nil {
		return fmt.Errorf("final check: %w", err)
	}
	var worst, total time.Duration
	for _, e := range elections {
		total += e
		worst = max(worst, e)
	}
	if len(elections) > 0 {
		log.Printf("%d master kills: election took %v on average, %v at worst", len(elections), (total / time.Duration(len(elections))).Round(10*time.Millisecond), worst.Round(10*time.Millisecond))
	}
	log.Printf("final: %s; %s", h.snapshot(), res)
	return nil
}

func waitFor(d time.Duration, what string, cond func() bool) error {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return fmt.Errorf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return nil
}
