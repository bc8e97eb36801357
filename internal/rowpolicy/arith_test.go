package rowpolicy

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"vitess.io/vitess/go/vt/sqlparser"
)

// refIntCompute is BIGINT arithmetic as it was: exact in big.Int, then
// range-checked.
func refIntCompute(op sqlparser.BinaryExprOperator, a, b int64) (int64, bool) {
	x, y := big.NewInt(a), big.NewInt(b)
	z := new(big.Int)
	switch op {
	case sqlparser.PlusOp:
		z.Add(x, y)
	case sqlparser.MinusOp:
		z.Sub(x, y)
	case sqlparser.MultOp:
		z.Mul(x, y)
	case sqlparser.IntDivOp, sqlparser.ModOp:
		q, m := new(big.Int).QuoRem(x, y, new(big.Int))
		z = q
		if op == sqlparser.ModOp {
			z = m
		}
	}
	if z.Cmp(big.NewInt(math.MinInt64)) < 0 || z.Cmp(big.NewInt(math.MaxInt64)) > 0 {
		return 0, false
	}
	return z.Int64(), true
}

// TestIntComputeUnchanged: int64 arithmetic with overflow checks gives
// big.Int's results and refuses exactly its out-of-range ones.
func TestIntComputeUnchanged(t *testing.T) {
	edges := []int64{0, 1, -1, 2, -2, 3, 7, -7, 1 << 31, -1 << 31, 1<<32 + 1, 3037000499, 3037000500, -3037000500,
		math.MaxInt64, math.MaxInt64 - 1, math.MinInt64, math.MinInt64 + 1, math.MaxInt64 / 2, math.MinInt64 / 2}
	rng := rand.New(rand.NewPCG(25, 2))
	vals := append([]int64(nil), edges...)
	for i := 0; i < 300; i++ {
		vals = append(vals, int64(rng.Uint64()), rng.Int64N(1<<20)-1<<19, int64(rng.Uint64())>>rng.IntN(63))
	}
	ops := []sqlparser.BinaryExprOperator{sqlparser.PlusOp, sqlparser.MinusOp, sqlparser.MultOp, sqlparser.IntDivOp, sqlparser.ModOp}
	for _, op := range ops {
		for _, a := range vals {
			for _, b := range vals {
				if b == 0 && (op == sqlparser.IntDivOp || op == sqlparser.ModOp) {
					continue
				}
				got, gok := intCompute(op, a, b)
				want, wok := refIntCompute(op, a, b)
				if gok != wok || (wok && got != want) {
					t.Fatalf("%d %s %d = %d, %v; want %d, %v", a, op.ToString(), b, got, gok, want, wok)
				}
			}
		}
	}
}
