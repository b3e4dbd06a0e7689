package csp

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lang"
)

// randomParamModel: parameterised copies whose branches share first
// comparisons (over parameters, variables, elements at variable and
// parameter indices), with && / || chains, constants that decide them,
// indices out of range behind a false first conjunct, and blocks that
// write what the guards read.
func randomParamModel(rng *rand.Rand) string {
	idx := func() string {
		return []string{"i", "x", "(x + 1) * 1", "1", "j", "(x * 2) - 1", "y"}[rng.IntN(7)]
	}
	cmp := func() string {
		ops := []string{"==", "!=", "<", "<=", ">", ">="}
		op := ops[rng.IntN(len(ops))]
		c := fmt.Sprint(rng.IntN(4) - 1)
		switch rng.IntN(6) {
		case 0:
			return "a[" + idx() + "] " + op + " " + c
		case 1:
			return c + " " + op + " x"
		case 2:
			return "x " + op + " y"
		case 3:
			return "i " + op + " " + c
		case 4:
			return "y " + op + " " + c
		}
		return "a[" + idx() + "] " + op + " x"
	}
	operand := func() string {
		switch rng.IntN(9) {
		case 0:
			return []string{"true", "false", "(1 == 1)", "(2 < 1)"}[rng.IntN(4)]
		case 1:
			return "(x < 4 && a[x] == " + fmt.Sprint(rng.IntN(3)) + ")"
		case 2:
			return "(j < 4 && a[j] != 0)"
		}
		return cmp()
	}
	guard := func() string {
		g := operand()
		for k := rng.IntN(4); k > 0; k-- {
			op := []string{" && ", " && ", " || "}[rng.IntN(3)]
			if rng.IntN(2) == 0 {
				g = "(" + g + op + operand() + ")"
			} else {
				g = g + op + operand()
			}
		}
		return g
	}
	stmt := func() string {
		k := idx()
		switch rng.IntN(7) {
		case 0:
			return "a[" + k + "] = a[" + k + "] + 1; a[" + k + "] = a[" + k + "] % 3;"
		case 1:
			return "a[" + k + "]++; a[" + k + "] = a[" + k + "] % 3;"
		case 2:
			return "x = (x + 1) % 5;"
		case 3:
			return "y = (y + i) % 3;"
		case 4:
			return "a[i] = " + fmt.Sprint(rng.IntN(3)) + ";"
		case 5:
			return "x = a[" + k + "] % 5;"
		}
		return "y = (y + 2) % 3;"
	}
	shared := []string{"x == " + fmt.Sprint(rng.IntN(3)), "a[x] == 0", "a[i] < 2", "x != y", "a[(x + 1) * 1] == 1", "i == 1", cmp()}[rng.IntN(7)]
	next := []string{"P(i, j)", "P(j % 4, i)", "P((i + 1) % 4, j)", "P(i, (j + 3) % 5)"}
	var b strings.Builder
	b.WriteString("var x = 0;\nvar y = 1;\nvar a[4] = [0, 1, 2, 0];\nP(i, j) = ")
	for k := 0; k < 4; k++ {
		if k > 0 {
			b.WriteString("\n  [] ")
		}
		g := guard()
		if rng.IntN(4) > 0 {
			g = shared + " && (" + g + ")"
			if rng.IntN(3) == 0 {
				g = shared + " && " + guard()
			}
		}
		ev := fmt.Sprintf("e%d", k)
		if rng.IntN(3) == 0 {
			ev = fmt.Sprintf("e%d.(a[%s] %% 3)", k, idx())
		}
		fmt.Fprintf(&b, "[%s] %s{%s %s} -> %s", g, ev, stmt(), stmt(), next[rng.IntN(len(next))])
	}
	fmt.Fprintf(&b, ";\nSys = P(%d, %d) ||| P(%d, %d);\n", rng.IntN(4), rng.IntN(5), rng.IntN(4), rng.IntN(4))
	return b.String()
}

func TestParamGuardsAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(qseed(21), 22))
	n := 600
	errs, trans, rejected := randomShapesAgree(t, rng, n, randomParamModel, "Sys")
	t.Logf("%d models (%d rejected), %d end in an error, %d lines", n, rejected, errs, trans)
}

func mustCheck(t *testing.T, src string) *lang.Checked {
	m, err := lang.Parse("test.csp", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	c, err := lang.Check(m)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestSharedFirstAcrossEnvs: one component whose term offers the
// branches of two instances of P (different environments), whose guards
// start with comparisons that read the instance's element (the same
// comparison generically, different ones once specialised), with blocks
// that write what the others read.
func TestSharedFirstAcrossEnvs(t *testing.T) {
	srcs := []string{
		`var x = 0; var a[3] = [0, 1, 0];
P(i) = [a[i] == 0] e.i{a[i] = 1; x = (x + 1) % 3} -> P(i)
  [] [a[i] == 0 && x > 0] f.i{a[(i + 1) % 3] = 0} -> P(i)
  [] [a[i] != 0] g.i{a[i] = 0} -> P((i + 1) % 3);
Sys = (P(0) [] P(1)) ||| (P(2) [] P(0));`,
		`var x = 0; var a[3] = [0, 1, 0];
P(i) = [a[x] == i && a[i] < 2] e.i{a[i] = a[i] + 1; x = (x + 1) % 4} -> P(i)
  [] [a[x] == i] f.i{a[x] = 0} -> P(i)
  [] [a[x] != i] g.i{a[i] = 0; x = 0} -> P((i + 1) % 3);
Sys = (P(0) [] P(1)) ||| (P(2) [] P(1));`,
	}
	for k, src := range srcs {
		slow := shapesAgree(t, k, src, "Sys")
		t.Logf("model %d: %d lines", k, strings.Count(slow, "\n"))
	}
}
