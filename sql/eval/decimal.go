package eval

import (
	"github.com/dorisgo/dorisgo/sql/types"
	"math"
	"math/big"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow/decimal128"
)

// 128-bit decimal helpers with overflow detection. Values that fit in an
// int64 take integer fast paths; the rest fall back to big.Int.

type num = decimal128.Num

// pow10 holds 10^0 .. 10^38.
var pow10 = func() [39]num {
	var t [39]num
	b := big.NewInt(1)
	ten := big.NewInt(10)
	for i := range t {
		t[i] = decimal128.FromBigInt(b)
		b = new(big.Int).Mul(b, ten)
	}
	return t
}()

var maxI128 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
var minI128 = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 127))

// small returns n as int64 when it fits.
func small(n num) (int64, bool) {
	lo, hi := n.LowBits(), n.HighBits()
	if (hi == 0 && lo <= math.MaxInt64) || (hi == -1 && lo > math.MaxInt64) {
		return int64(lo), true
	}
	return 0, false
}

func fromBig(b *big.Int) (num, bool) {
	if b.Cmp(maxI128) > 0 || b.Cmp(minI128) < 0 {
		return num{}, false
	}
	return decimal128.FromBigInt(b), true
}

func decAdd(a, b num) (num, bool) {
	r := a.Add(b)
	// Signed overflow: operands agree in sign and the result does not.
	if (a.HighBits() < 0) == (b.HighBits() < 0) && (r.HighBits() < 0) != (a.HighBits() < 0) {
		return r, false
	}
	return r, true
}

func decSub(a, b num) (num, bool) { return decAdd(a, b.Negate()) }

func decMul(a, b num) (num, bool) {
	if x, ok := small(a); ok {
		if y, ok := small(b); ok {
			hi, lo := mul64(x, y)
			return decimal128.New(hi, lo), true
		}
	}
	return fromBig(new(big.Int).Mul(a.BigInt(), b.BigInt()))
}

// mul64 is the exact 128-bit signed product of two int64s.
func mul64(x, y int64) (int64, uint64) {
	hi, lo := bits.Mul64(uint64(x), uint64(y))
	h := int64(hi)
	if x < 0 {
		h -= y
	}
	if y < 0 {
		h -= x
	}
	return h, lo
}

// scaleUp multiplies by 10^k.
func scaleUp(a num, k int) (num, bool) {
	if k == 0 {
		return a, true
	}
	if k > 38 {
		return a, a.Sign() == 0
	}
	return decMul(a, pow10[k])
}

// scaleDown divides by 10^k rounding half away from zero (round) or
// truncating towards zero.
func scaleDown(a num, k int, round bool) num {
	if k <= 0 {
		return a
	}
	if x, ok := small(a); ok && k <= 18 {
		d := int64(1)
		for i := 0; i < k; i++ {
			d *= 10
		}
		q, r := x/d, x%d
		if round && 2*abs64(r) >= d {
			if x < 0 {
				q--
			} else {
				q++
			}
		}
		return decimal128.FromI64(q)
	}
	if k > 38 {
		return num{}
	}
	q, r := new(big.Int).QuoRem(a.BigInt(), pow10[k].BigInt(), new(big.Int))
	if round {
		r.Abs(r).Lsh(r, 1)
		if r.Cmp(pow10[k].BigInt()) >= 0 {
			q.Add(q, big.NewInt(int64(a.Sign())))
		}
	}
	n, _ := fromBig(q)
	return n
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// rescale converts a value at scale from to scale to (rounding when the
// scale shrinks).
func rescale(a num, from, to int) (num, bool) {
	if to >= from {
		return scaleUp(a, to-from)
	}
	return scaleDown(a, from-to, true), true
}

// decDiv computes a/b (scales sa, sb) at result scale rs, rounding half
// away from zero. b must be non-zero.
func decDiv(a, b num, sa, sb, rs int) (num, bool) {
	// a/10^sa / (b/10^sb) * 10^rs = a * 10^(rs-sa+sb+1) / b, then round the last digit.
	k := rs - sa + sb + 1
	if x, ok := small(a); ok && k >= 0 && k <= 18 {
		if y, ok := small(b); ok {
			hi, lo := mul64(x, pow10i64[k])
			if (hi == 0 && lo <= math.MaxInt64) || (hi == -1 && lo > math.MaxInt64) {
				q := int64(lo) / y
				return roundLast(q), true
			}
		}
	}
	n := a.BigInt()
	if k >= 0 {
		n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(k)), nil))
	} else {
		n.Quo(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-k)), nil))
	}
	n.Quo(n, b.BigInt())
	// round the extra digit half away from zero
	r := new(big.Int)
	n.QuoRem(n, big.NewInt(10), r)
	if r.CmpAbs(big.NewInt(5)) >= 0 {
		n.Add(n, big.NewInt(int64(r.Sign())))
	}
	return fromBig(n)
}

func roundLast(q int64) num {
	r := q % 10
	q /= 10
	if r >= 5 {
		q++
	} else if r <= -5 {
		q--
	}
	return decimal128.FromI64(q)
}

var pow10i64 = func() [19]int64 {
	var t [19]int64
	t[0] = 1
	for i := 1; i < 19; i++ {
		t[i] = t[i-1] * 10
	}
	return t
}()

// decFits reports whether a has at most p digits.
func decFits(a num, p int) bool {
	if p > types.MaxDecimalPrecision {
		return true // LARGEINT: any 128-bit value
	}
	if p >= 38 {
		p = 38
	}
	if p <= 0 {
		return a.Sign() == 0
	}
	return a.FitsInPrecision(int32(p))
}

// decToFloat converts a scaled decimal to float64.
func decToFloat(a num, scale int) float64 {
	if x, ok := small(a); ok && scale <= 22 && abs64(x) < 1<<53 {
		// exact integer divided by an exact power of ten: correctly rounded
		return float64(x) / math.Pow10(scale)
	}
	return a.ToFloat64(int32(scale))
}

// decMaxAt is the largest value with precision p (all nines).
func decMaxAt(p int) num {
	if p > types.MaxDecimalPrecision {
		return decimal128.New(math.MaxInt64, math.MaxUint64) // LARGEINT: 2^127-1
	}
	return decimal128.GetMaxValue(int32(p))
}
