package csp

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestBlockShapesAgree: random event blocks with the statements fast.go
// fuses into one closure (a[k] = a[k] + c, a[k]++, a[i] = e and reads of
// a[i] with i a parameter of the process) compiled with the specialised
// closures and explored by expandPlain, generic or specialised to their
// environments (heatBlocks), and compiled with the generic closures and
// explored by the general path, give the same graph and the same run-time
// errors (an index out of range at the same position).
func TestBlockShapesAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 11))
	n := 400
	if testing.Short() {
		n = 40
	}
	errs, trans, _ := randomShapesAgree(t, rng, n, randomBlockModel, "Sys")
	t.Logf("%d models, %d end in an error, %d transitions", n, errs, trans)
	if errs < n/20 || errs > n-n/20 {
		t.Errorf("%d of %d models end in an error: the cases do not cover both outcomes", errs, n)
	}
}

// randomBlockModel writes two copies of a process P(i, j) (i in 0..3, j in
// 0..4; a has 4 elements) whose blocks increment, assign and read elements of a
// at indices that are parameters, variables or constants.
func randomBlockModel(rng *rand.Rand) string {
	idx := func() string {
		if rng.IntN(12) == 0 {
			return []string{"j", "(x * 2) - 1"}[rng.IntN(2)] // may be out of range
		}
		return []string{"i", "x", "(x + 1) * 1", "1", "3", "i", "(j + 1) % 4"}[rng.IntN(7)]
	}
	val := func() string {
		switch rng.IntN(6) {
		case 0:
			return fmt.Sprint(rng.IntN(3))
		case 1:
			return "i % 3"
		case 2:
			return "a[" + idx() + "] % 3"
		case 3:
			return "(a[" + idx() + "] + 1) % 3"
		case 4:
			return "(j - a[" + idx() + "]) % 3"
		}
		return "x"
	}
	bound := func(k string) string { return "a[" + k + "] = (a[" + k + "] % 3 + 3) % 3;" }
	stmt := func() string {
		k := idx()
		switch rng.IntN(8) {
		case 7:
			// j is 4 at times: out of range.
			return "a[j] = " + fmt.Sprint(rng.IntN(3)) + ";"
		case 0:
			return "a[" + k + "] = a[" + k + "] + " + fmt.Sprint(rng.IntN(3)-1) + "; " + bound(k)
		case 1:
			return "a[" + k + "] = " + fmt.Sprint(rng.IntN(3)-1) + " + a[" + k + "]; " + bound(k)
		case 2:
			return "a[" + k + "] = a[" + k + "] - " + fmt.Sprint(rng.IntN(3)) + "; " + bound(k)
		case 3:
			return "a[" + k + "]++; " + bound(k)
		case 4:
			// Different indices on the two sides: not an increment.
			return "a[" + k + "] = a[" + idx() + "] + 1; " + bound(k)
		case 5:
			return "a[" + k + "] = " + val() + ";"
		}
		return "x = (" + val() + " + 3) % 3;"
	}
	guard := func() string {
		switch rng.IntN(4) {
		case 0:
			return "a[" + idx() + "] == " + fmt.Sprint(rng.IntN(3))
		case 1:
			return "x != " + fmt.Sprint(rng.IntN(3))
		case 2:
			return "a[" + idx() + "] <= x"
		}
		return "true"
	}
	next := []string{"P(i, j)", "P(j, i)", "P((i + 1) % 4, j)", "P(i, (j + 3) % 5)"}
	var b strings.Builder
	b.WriteString("var x = 0;\nvar a[4] = [0, 1, 2, 0];\nP(i, j) = ")
	for k := 0; k < 3; k++ {
		if k > 0 {
			b.WriteString("\n  [] ")
		}
		fmt.Fprintf(&b, "[%s] e%d.((a[%s] + i) %% 3){%s %s} -> %s", guard(), k, idx(), stmt(), stmt(), next[rng.IntN(len(next))])
	}
	i0, j0 := rng.IntN(4), rng.IntN(5)
	fmt.Fprintf(&b, ";\nSys = P(%d, %d) ||| P(%d, %d);\n", i0, j0, rng.IntN(4), rng.IntN(4))
	return b.String()
}

// TestCmpChainsAgree: guards that are && chains of comparisons (a
// variable, an element at a linear index or two variables against each
// other), which compile to the closures of fast.go in one andChain, give
// the same graphs and run-time errors as the generic closures and path.
func TestCmpChainsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 17))
	n := 400
	if testing.Short() {
		n = 40
	}
	errs, trans, _ := randomShapesAgree(t, rng, n, randomChainModel, "P")
	t.Logf("%d models, %d end in an error, %d transitions", n, errs, trans)
	if errs < n/20 || errs > n-n/20 {
		t.Errorf("%d of %d models end in an error: the cases do not cover both outcomes", errs, n)
	}
}

// randomChainModel writes a process over x in 0..2, y in -1..2 and a[4]
// whose guards are && chains of two to six comparisons.
func randomChainModel(rng *rand.Rand) string {
	ops := []string{"==", "!=", "<", "<=", ">", ">="}
	cmp := func() string {
		op, c := ops[rng.IntN(len(ops))], fmt.Sprint(rng.IntN(4)-1)
		switch rng.IntN(7) {
		case 0:
			return "x " + op + " " + c
		case 1:
			return c + " " + op + " y"
		case 2:
			return "(2 * x - 1) " + op + " " + c
		case 3:
			return "x " + op + " y"
		case 4:
			ix := []string{"0", "3", "x", "(x + 1) * 1", "y + 1", "y - 1", "x + 2"}[rng.IntN(7)] // y - 1 may be -2 or -1, x + 2 may be 4
			return "a[" + ix + "] " + op + " " + c
		case 5:
			return "a[1] " + op + " x" // a generic closure in the chain
		}
		return c + " " + op + " a[x]"
	}
	chain := func() string {
		g := cmp()
		for k := 1 + rng.IntN(5); k > 0; k-- {
			g += " && " + cmp()
		}
		return g
	}
	return fmt.Sprintf(`var x = 0;
var y = 1;
var a[4] = [0, 1, 2, 0];
P = [%s] e0{x = (x + 1) %% 3;} -> P
  [] [%s] e1{y = (y + 2) %% 4 - 1;} -> P
  [] [%s] e2.x{a[x] = (a[x] + 1) %% 3;} -> P
  [] [%s] e3.y{a[(y + 1) %% 4] = x;} -> P
  [] e4{x = (x + y + 3) %% 3; y = (y + x + 1) %% 4 - 1;} -> P;
`, chain(), chain(), chain(), chain())
}
