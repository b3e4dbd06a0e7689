package csp

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lang"
)

// patRemainder is PAT's remainder written from its definition, not from
// lang.Mod: r = a - b*q with q truncated toward zero (C#), then, if r is
// negative, r + b (PAT's EvaluatorDenotational adds the divisor).
func patRemainder(a, b int64) int64 {
	q := a / b // Go truncates toward zero, as C# does
	r := a - b*q
	if r < 0 {
		r += b
	}
	return r
}

// TestRuntimeArithmetic evaluates / and % on variables (not constants, so
// the compiled closures run, not the checker's folding) and reads the
// result off the event the process offers: show.(a / b).(a % b).
func TestRuntimeArithmetic(t *testing.T) {
	cases := [][2]int64{{7, 3}, {-7, 3}, {7, -3}, {-7, -3}, {-6, 3}, {-1, 5}, {0, -4}}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 40 {
		a, b := rng.Int64N(41)-20, rng.Int64N(41)-20
		if b != 0 {
			cases = append(cases, [2]int64{a, b})
		}
	}
	for _, c := range cases {
		a, b := c[0], c[1]
		src := fmt.Sprintf("var a = %d; var b = %d;\nP() = show.(a / b).(a %% b) -> Skip;\n", a, b)
		sys, err := compileSrc(t, src).ProcessByName("P")
		if err != nil {
			t.Fatal(err)
		}
		ts, err := sys.Successors(sys.Initial(), nil)
		if err != nil || len(ts) != 1 {
			t.Fatalf("%d, %d: %v %v", a, b, ts, err)
		}
		got := sys.Events().Name(ts[0].Event)
		want := fmt.Sprintf("show.%d.%d", a/b, patRemainder(a, b))
		if got != want {
			t.Errorf("a=%d b=%d: %s, want %s", a, b, got, want)
		}
	}
}

// pexpr is a random integer expression and its value under PAT's rules,
// computed here from the definitions on Go's int32, which wraps around as
// PAT's unchecked C# int does (ok is false on a division or remainder by
// zero, and on MinInt32 / -1 and MinInt32 % -1, which C# reports as an
// overflow even unchecked: PAT stops with an error).
type pexpr struct {
	src string // with variables v0..v3
	lit string // the same with the variables' values written in
	val int32
	ok  bool
}

// leaves are the operands: small ones, and ones near the int32 edges so
// that sums and products overflow.
var leaves = []int32{-9, -7, -3, -2, -1, 0, 1, 2, 3, 5, 9, 46341, 65536, -65536, 1 << 30, math.MaxInt32, -math.MaxInt32}

func randExpr(rng *rand.Rand, vals []int32, depth int) pexpr {
	if depth == 0 || rng.IntN(4) == 0 {
		if rng.IntN(2) == 0 {
			i := rng.IntN(len(vals))
			return pexpr{src: fmt.Sprintf("v%d", i), lit: fmt.Sprintf("(%d)", vals[i]), val: vals[i], ok: true}
		}
		v := leaves[rng.IntN(len(leaves))]
		return pexpr{src: fmt.Sprintf("(%d)", v), lit: fmt.Sprintf("(%d)", v), val: v, ok: true}
	}
	x, y := randExpr(rng, vals, depth-1), randExpr(rng, vals, depth-1)
	both := x.ok && y.ok
	bin := func(op string, v int32, ok bool) pexpr {
		return pexpr{src: "(" + x.src + " " + op + " " + y.src + ")", lit: "(" + x.lit + " " + op + " " + y.lit + ")", val: v, ok: ok}
	}
	divOK := both && y.val != 0 && (x.val != math.MinInt32 || y.val != -1)
	switch rng.IntN(7) {
	case 0:
		return bin("+", x.val+y.val, both)
	case 1:
		return bin("-", x.val-y.val, both)
	case 2:
		return bin("*", x.val*y.val, both)
	case 3:
		if !divOK {
			return bin("/", 0, false)
		}
		return bin("/", x.val/y.val, true) // C# and Go truncate toward zero
	case 4:
		if !divOK {
			return bin("%", 0, false)
		}
		r := x.val % y.val // C#'s remainder: Go's, with the dividend's sign
		if r < 0 {
			r += y.val // PAT adds the divisor to a negative remainder
		}
		return bin("%", r, true)
	case 5:
		return pexpr{src: "(-" + x.src + ")", lit: "(-" + x.lit + ")", val: -x.val, ok: x.ok}
	default:
		return pexpr{src: "(" + x.src + " + (-" + y.src + "))", lit: "(" + x.lit + " + (-" + y.lit + "))", val: x.val - y.val, ok: both}
	}
}

// TestExpressionsAgainstPAT evaluates random expressions (negative operands
// included) at run time (on variables) and as constants (folded by the
// checker), and compares both with the value PAT's rules give.
func TestExpressionsAgainstPAT(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 1000; n++ {
		vals := make([]int32, 4)
		for i := range vals {
			vals[i] = int32(rng.IntN(41) - 20)
			if rng.IntN(4) == 0 {
				vals[i] = leaves[rng.IntN(len(leaves))]
			}
		}
		e := randExpr(rng, vals, 4)
		decls := fmt.Sprintf("var v0 = %d; var v1 = %d; var v2 = %d; var v3 = %d;\n", vals[0], vals[1], vals[2], vals[3])
		// Run time: the variables are read when the event is offered.
		src := decls + "P() = show.(" + e.src + ") -> Skip;\n"
		m, err := lang.Parse("r.csp", []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		ch, err := lang.Check(m)
		if err != nil {
			// A constant part divides by zero: an error of the model, as
			// PAT's is when it evaluates it.
			if e.ok || !strings.Contains(err.Error(), "division by zero") && !strings.Contains(err.Error(), "overflow") {
				t.Errorf("%s: %v", e.src, err)
			}
			continue
		}
		prog, err := Compile(ch)
		if err != nil {
			t.Fatal(err)
		}
		sys, err := prog.ProcessByName("P")
		if err != nil {
			t.Fatal(err)
		}
		ts, err := sys.Successors(sys.Initial(), nil)
		switch {
		case !e.ok && err == nil:
			t.Errorf("%s: %v, want a division by zero or an overflow", e.src, ts)
		case e.ok && (err != nil || len(ts) != 1):
			t.Errorf("%s: %v %v, want show.%d", e.src, ts, err, e.val)
		case e.ok && sys.Events().Name(ts[0].Event) != fmt.Sprintf("show.%d", e.val):
			t.Errorf("%s = %s at run time, want %d", e.src, sys.Events().Name(ts[0].Event), e.val)
		}
		// Constants: the checker folds the literal form.
		m, err = lang.Parse("c.csp", []byte("#define Z "+e.lit+";\n"))
		if err != nil {
			t.Fatal(err)
		}
		ch, err = lang.Check(m)
		if !e.ok {
			if err == nil {
				t.Errorf("%s: folded without a division-by-zero or overflow error", e.lit)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", e.lit, err)
		}
		z := ch.File.Decls[0].(*lang.DefineDecl)
		if got, ok := ch.Info.Consts[z.Value]; !ok || got != int64(e.val) {
			t.Errorf("%s = %d (constant %v), want %d", e.lit, got, ok, e.val)
		}
	}
}
