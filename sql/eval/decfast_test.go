package eval

import (
	"math/big"
	"math/rand"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// TestArithDecFast checks the int64 fast path against exact big.Int
// arithmetic over random operators, scales, precisions and magnitudes,
// including operands whose results overflow int64 (it must hand over to
// the general loop, never wrap), a scalar operand on either side, and
// batches with no NULL row (the loops per operation).
func TestArithDecFast(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	pick := func() int64 {
		switch r.Intn(4) {
		case 0:
			return r.Int63n(1000) - 500
		case 1:
			return r.Int63n(1e12) - 5e11
		case 2:
			return r.Int63() - r.Int63()
		}
		return 0
	}
	pow := func(k int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil) }
	var fast, denseFast, handed, ranged int
	for iter := 0; iter < 5000; iter++ {
		fn := []string{"add", "subtract", "multiply"}[r.Intn(3)]
		sa, sb := r.Intn(5), r.Intn(5)
		rs := max(sa, sb)
		if fn == "multiply" {
			rs = sa + sb
		}
		rp := 10 + r.Intn(29)
		ys := r.Intn(4) == 0
		xs := !ys && r.Intn(4) == 0
		dense := r.Intn(3) == 0 // no NULL rows: the loops per operation
		const m = 37
		x, y, out := make([]num, m), make([]num, m), make([]num, m)
		vb := make([]byte, (m+7)/8)
		for i := range x {
			x[i], y[i] = decimal128.FromI64(pick()), decimal128.FromI64(pick())
			if dense || r.Intn(10) > 0 {
				vb[i>>3] |= 1 << (i & 7)
			}
		}
		done, ok := arithDecFast(fn, x, y, xs, ys, sa, sb, rs, rp, m, vb, out)
		if !done {
			handed++
			continue
		}
		inRange := true
		for i := 0; i < m; i++ {
			if vb[i>>3]&(1<<(i&7)) == 0 {
				continue
			}
			ia, ib := i, i
			if xs {
				ia = 0
			}
			if ys {
				ib = 0
			}
			p, q := x[ia].BigInt(), y[ib].BigInt()
			var want *big.Int
			switch fn {
			case "add":
				want = new(big.Int).Add(new(big.Int).Mul(p, pow(rs-sa)), new(big.Int).Mul(q, pow(rs-sb)))
			case "subtract":
				want = new(big.Int).Sub(new(big.Int).Mul(p, pow(rs-sa)), new(big.Int).Mul(q, pow(rs-sb)))
			default:
				want = new(big.Int).Mul(p, q)
			}
			if new(big.Int).Abs(want).Cmp(pow(rp)) >= 0 {
				inRange = false
				break
			}
			if ok && out[i].BigInt().Cmp(want) != 0 {
				t.Fatalf("%s scales %d,%d → %d: row %d = %s, want %s", fn, sa, sb, rs, i, out[i].BigInt(), want)
			}
		}
		if ok != inRange {
			t.Fatalf("%s p=%d: fast path says in range=%v, exact says %v", fn, rp, ok, inRange)
		}
		if ok {
			fast++
			if dense {
				denseFast++
			}
		} else {
			ranged++
		}
	}
	if fast == 0 || handed == 0 || ranged == 0 || denseFast == 0 {
		t.Fatalf("cases not all exercised: fast %d (dense %d), handed over %d, out of range %d", fast, denseFast, handed, ranged)
	}
}

// TestCmpDecimals checks the packed DECIMAL comparisons (vector against a
// constant, vector against vector, constant against vector) against
// decimal128.Num.Cmp, with negatives and values beyond 64 bits.
func TestCmpDecimals(t *testing.T) {
	r := rand.New(rand.NewSource(11))
	pick := func() num {
		switch r.Intn(4) {
		case 0:
			return decimal128.FromI64(r.Int63n(200) - 100)
		case 1:
			return decimal128.New(r.Int63n(5)-2, r.Uint64())
		case 2:
			return decimal128.FromI64(r.Int63() - r.Int63())
		}
		return decimal128.FromI64(0)
	}
	ops := map[string]cmpOp{"eq": cmpOps["eq"], "ne": cmpOps["ne"], "lt": cmpOps["lt"], "le": cmpOps["le"], "gt": cmpOps["gt"], "ge": cmpOps["ge"]}
	for iter := 0; iter < 300; iter++ {
		m := 1 + r.Intn(40)
		x, y := make([]num, m), make([]num, m)
		for i := range x {
			x[i], y[i] = pick(), pick()
			if r.Intn(5) == 0 {
				y[i] = x[i]
			}
		}
		for name, op := range ops {
			for _, sc := range [][2]bool{{false, false}, {false, true}, {true, false}} {
				out := make([]byte, (m+7)/8)
				cmpDecimals(op, x, y, sc[0], sc[1], m, out)
				for i := 0; i < m; i++ {
					xi, yi := i, i
					if sc[0] {
						xi = 0
					}
					if sc[1] {
						yi = 0
					}
					want := op.test(x[xi].Cmp(y[yi]))
					if got := out[i>>3]&(1<<(i&7)) != 0; got != want {
						t.Fatalf("%s scalars %v row %d: %v vs %v gave %v", name, sc, i, x[xi], y[yi], got)
					}
				}
			}
		}
	}
}
