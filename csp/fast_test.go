package csp

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// TestShapesAgree: random guards, event data and assignments over
// variables and an array, compiled with the specialised closures of
// fast.go and explored by expandPlain, and compiled with the generic
// closures and explored by the general path, give the same graph (same
// states, transitions, order) and the same run-time errors (indices out of
// range at the same position, the guard's before the block's).
func TestShapesAgree(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	n := 400
	if testing.Short() {
		n = 30
	}
	errs, states := 0, 0
	for i := 0; i < n; i++ {
		src := randomShapeModel(rng)
		if m, err := lang.Parse("test.csp", []byte(src)); err != nil {
			t.Fatal(err)
		} else if _, err := lang.Check(m); err != nil {
			i-- // a constant index out of range: the checker rejects it
			continue
		}
		fastG, fastE := exploreShapes(t, src, "P", false, false)
		slowG, slowE := exploreShapes(t, src, "P", true, false)
		if fastG != slowG || fastE != slowE {
			t.Fatalf("model %d differs:\n%s\n--- specialised: %s\n%s\n--- generic: %s\n%s", i, src, fastE, fastG, slowE, slowG)
		}
		if fastE != "" {
			errs++
		}
		states += strings.Count(fastG, "\n")
	}
	t.Logf("%d models, %d end in an error, %d transitions", n, errs, states)
	if errs == 0 || errs == n {
		t.Errorf("%d of %d models end in an error: the cases do not cover both outcomes", errs, n)
	}
}

// exploreShapes explores process name of src compiled with the generic
// closures and path (off) or the specialised ones, the blocks specialised
// to their environments (hot) or not: its graph and its error (of
// compiling, or of the search), as text.
func exploreShapes(t *testing.T, src, name string, off, hot bool) (graph, errText string) {
	shapesOff, plainOff = off, off
	defer func() { shapesOff, plainOff = false, false }()
	p, err := Compile(mustCheck(t, src))
	if err != nil {
		return "", "compile: " + err.Error()
	}
	if hot {
		p.heatBlocks()
	}
	sys, err := p.ProcessByName(name)
	if err != nil {
		t.Fatal(err)
	}
	g, err := actualGraph(t, sys, 3000)
	if g != nil {
		graph = g.String()
	}
	if err != nil {
		errText = err.Error()
	}
	return graph, errText
}

// shapesAgree fails the test unless process name of src (model number i)
// explores the same with the specialised closures, their blocks
// specialised to their environments or not, as with the generic ones and
// path; it returns the generic exploration as text, its graph then
// "--- " and its error.
func shapesAgree(t *testing.T, i int, src, name string) string {
	text := func(off, hot bool) string {
		g, e := exploreShapes(t, src, name, off, hot)
		return g + "\n--- " + e
	}
	slow := text(true, false)
	for _, hot := range []bool{false, true} {
		if fast := text(false, hot); fast != slow {
			t.Fatalf("model %d differs (hot %v):\n%s\n--- specialised:\n%s\n--- generic:\n%s", i, hot, src, fast, slow)
		}
	}
	return slow
}

// randomShapesAgree runs shapesAgree on n random models of gen (a model
// the checker rejects, e.g. for a constant index out of range, is drawn
// again) and returns how many end in an error, the lines of their generic
// explorations, and how many were rejected.
func randomShapesAgree(t *testing.T, rng *rand.Rand, n int, gen func(*rand.Rand) string, name string) (errs, lines, rejected int) {
	for i := 0; i < n; i++ {
		src := gen(rng)
		if m, err := lang.Parse("test.csp", []byte(src)); err != nil {
			t.Fatal(err)
		} else if _, err := lang.Check(m); err != nil {
			if rejected++; rejected > 5000 {
				t.Fatalf("too many rejected: %v\n%s", err, src)
			}
			i--
			continue
		}
		slow := shapesAgree(t, i, src, name)
		if !strings.HasSuffix(slow, "--- ") {
			errs++
		}
		lines += strings.Count(slow, "\n")
	}
	return errs, lines, rejected
}

// randomShapeModel writes a process with three guarded branches over
// x, y in about -2..2 and a[4].
func randomShapeModel(rng *rand.Rand) string {
	var expr func(d int) string
	leaf := func() string {
		switch k := rng.IntN(16); {
		case k < 2:
			return fmt.Sprint(rng.IntN(5) - 1)
		case k < 4:
			return "x"
		case k < 6:
			return "y"
		case k < 11:
			return "a[" + fmt.Sprint(rng.IntN(4)) + "]"
		case k < 15:
			return "a[(x + 1) * 1]" // x is in 0..2
		}
		return "a[" + expr(1) + "]" // may be out of range
	}
	expr = func(d int) string {
		if d <= 0 || rng.IntN(3) == 0 {
			return leaf()
		}
		c := fmt.Sprint(rng.IntN(4) - 1)
		ops := []string{"+", "-", "*"}
		op := ops[rng.IntN(len(ops))]
		switch rng.IntN(3) {
		case 0:
			return "(" + expr(d-1) + " " + op + " " + c + ")"
		case 1:
			return "(" + c + " " + op + " " + expr(d-1) + ")"
		}
		return "(" + expr(d-1) + " " + op + " " + expr(d-1) + ")"
	}
	cmp := func() string {
		ops := []string{"==", "!=", "<", "<=", ">", ">="}
		op := ops[rng.IntN(len(ops))]
		c := fmt.Sprint(rng.IntN(5) - 2)
		switch rng.IntN(3) {
		case 0: // the shapes fast.go specialises: a[lin] op c, c op lin
			return "a[" + expr(1) + "] " + op + " " + c
		case 1:
			return c + " " + op + " " + expr(1)
		}
		return expr(2) + " " + op + " " + expr(2)
	}
	// logic operands: comparisons, constants (folded by logic in
	// expr.go) and integers that are not truth values.
	operand := func() string {
		switch rng.IntN(8) {
		case 0:
			return []string{"true", "false", "1 == 1", "2 < 1"}[rng.IntN(4)]
		case 1:
			return expr(1)
		}
		return cmp()
	}
	guard := func() string {
		switch rng.IntN(6) {
		case 0:
			return cmp() + " && " + cmp()
		case 1:
			return "!(" + cmp() + ") || " + cmp()
		case 2, 3:
			// Chains of && and || in any nesting.
			g := operand()
			for k := rng.IntN(4); k >= 0; k-- {
				op := []string{" && ", " || "}[rng.IntN(2)]
				if rng.IntN(2) == 0 {
					g = "(" + g + op + operand() + ")"
				} else {
					g = "(" + operand() + op + g + ")"
				}
			}
			return g
		}
		return cmp()
	}
	assign := func() string {
		bound := func(e string) string { return "((" + e + ") % 3 + 3) % 3" }
		switch rng.IntN(6) {
		case 0, 5:
			return "x = " + bound(expr(2)) + ";"
		case 1:
			return "y = " + bound(expr(2)) + ";"
		case 2:
			return "a[" + expr(2) + "] = " + bound(expr(2)) + ";"
		case 3:
			return "a[" + expr(1) + "] = " + fmt.Sprint(rng.IntN(3)) + ";"
		}
		return "x++; x = x % 3;"
	}
	var b strings.Builder
	b.WriteString("var x = 0;\nvar y = 1;\nvar a[4] = [0, 1, 2, 0];\nP = ")
	// Guards that start with the same comparison share its evaluation
	// in expandPlain (tmplSet.first).
	// (A comparison whose value changes from state to state.)
	c := fmt.Sprint(rng.IntN(3))
	shared := []string{"x == " + c, "a[" + fmt.Sprint(rng.IntN(4)) + "] < " + c, "x != y",
		"a[(x + 1) * 1] == " + c, c + " <= y", "a[x] == " + c, cmp()}[rng.IntN(7)]
	for k := 0; k < 3; k++ {
		if k > 0 {
			b.WriteString("\n  [] ")
		}
		g := guard()
		if rng.IntN(3) > 0 {
			g = shared + " && (" + g + ")"
		}
		fmt.Fprintf(&b, "[%s] e%d.((%s) %% 3){%s %s} -> P", g, k, expr(2), assign(), assign())
	}
	b.WriteString(";\n")
	return b.String()
}

// TestFastPathsAgree: every process named by an assertion of the library
// models (and the benchmark model, made smaller) has the same graph (the
// first states in BFS order, with their transitions in order) with the
// specialised closures and expandPlain as with the generic closures and
// the general combination.
func TestFastPathsAgree(t *testing.T) {
	limit := 3000
	if testing.Short() {
		limit = 300
	}
	procs := comparedProcs(t)
	graphs := func(fast bool) []string {
		shapesOff, plainOff = !fast, !fast
		defer func() { shapesOff, plainOff = false, false }()
		var out []string
		for _, pr := range procs {
			p := compileSrc(t, pr.src)
			name := strings.TrimSuffix(strings.TrimSpace(pr.text), "()")
			sys, err := p.ProcessByName(name)
			if err != nil {
				// An operand that is not a plain reference.
				out = append(out, "")
				continue
			}
			g, err := graphPrefix(sys, limit)
			out = append(out, fmt.Sprintf("%s\n%v", g, err))
		}
		return out
	}
	fast, slow := graphs(true), graphs(false)
	checked := 0
	for i, pr := range procs {
		if fast[i] != slow[i] {
			t.Errorf("%s %s: the fast paths give a different graph", pr.file, pr.text)
		}
		if fast[i] != "" {
			checked++
		}
	}
	if checked < 10 {
		t.Errorf("only %d processes compared", checked)
	}
}

// comparedProc is a process of a model that the path comparisons explore.
type comparedProc struct{ file, src, text string }

// comparedProcs lists every asserted process of the library's models, the
// benchmark model (made smaller), and a few models that exercise hiding,
// wide values, atomic steps and channels.
func comparedProcs(t *testing.T) []comparedProc {
	type proc = comparedProc
	var procs []proc
	for _, am := range assertedModels(t, "../models/lib/*.csp", "../models/testdata/*.csp") {
		for _, text := range am.texts {
			procs = append(procs, proc{am.path, string(am.src), text})
		}
	}
	bench, err := os.ReadFile("../testdata/lts/bench/segqueue.csp")
	if err != nil {
		t.Fatal(err)
	}
	procs = append(procs, proc{"segqueue.csp", strings.Replace(string(bench), "#define T 3;", "#define T 2;", 1), "Queue()"},
		// Hiding inside the components, of events whose data read
		// variables; an atomic step and a channel in a third component.
		proc{"hide", `var x = 0;
P(i) = (a.i.x{x = (x + 1) % 3} -> b.x -> P(i)) \ {a.0};
Sys = P(0) ||| P(1);`, "Sys()"},
		// Values that need two varint bytes (>= 64 or < -64) and more
		// than 128 terms: the patched encoding must fall back to the
		// full one.
		proc{"wide", `var x = 0;
var y[2];
P = [x < 100] inc{x = x + 7; y[(x % 2 + 2) % 2] = x} -> P [] [x > -90] dec{x = x - 13} -> P;
Q = tick -> Q;
R(i) = r.i -> R((i + 1) % 150);
Sys = P ||| Q ||| R(0);`, "Sys()"},
		proc{"atomic", `var x = 0;
channel c 1;
P(i) = (a.i.x{x = (x + 1) % 3} -> P(i)) [] [x == 2] d -> Skip;
Q = atomic{e{x = 0} -> f.x -> Skip}; c!x -> Q;
R = c?y -> g.y -> R;
Sys = P(0) ||| Q ||| R;`, "Sys()"})
	return procs
}

// graphPrefix lists the transitions of the first limit states in BFS
// order, states numbered in discovery order.
func graphPrefix(sys lts.System, limit int) (string, error) {
	num := map[lts.State]int{sys.Initial(): 0}
	order := []lts.State{sys.Initial()}
	var b strings.Builder
	for i := 0; i < len(order) && i < limit; i++ {
		ts, err := sys.Successors(order[i], nil)
		if err != nil {
			return b.String(), err
		}
		for _, tr := range ts {
			j, ok := num[tr.Target]
			if !ok {
				j = len(order)
				num[tr.Target] = j
				order = append(order, tr.Target)
			}
			fmt.Fprintf(&b, "%d %s %d\n", i, sys.Events().Name(tr.Event), j)
		}
	}
	return b.String(), nil
}
