package ltl

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// randomCase is a small explicit LTS with two propositions per state and a
// random formula of at most maxOps operators.
type randomCase struct {
	sys   *lts.Explicit
	props [2][]bool // p, q per state
	f     *Parsed
	atoms []Atom
}

var randAtoms = []string{"a", "b", "p", "q", "terminate"}

func genCase(r *rand.Rand, maxOps int) *randomCase {
	t := lts.NewEventTable()
	x := lts.NewExplicit(t)
	n := 1 + r.IntN(4)
	for i := 1; i < n; i++ {
		x.AddState()
	}
	x.Final = make([]bool, n)
	c := &randomCase{sys: x}
	for s := range n {
		for range r.IntN(3) {
			ev := []string{"a", "b", "tau", "c"}[r.IntN(4)]
			x.Add(lts.State(s), ev, lts.State(r.IntN(n)))
		}
		if len(x.Edges[s]) == 0 {
			x.Final[s] = r.IntN(2) == 0
		}
		c.props[0] = append(c.props[0], r.IntN(2) == 0)
		c.props[1] = append(c.props[1], r.IntN(2) == 0)
	}
	src := genFormula(r, maxOps)
	p, err := Parse("", 0, 0, src)
	if err != nil {
		panic(fmt.Sprintf("%q: %v", src, err))
	}
	c.f = p
	for _, a := range p.Atoms {
		switch a.Name {
		case "p", "q":
			vals := c.props[0]
			if a.Name == "q" {
				vals = c.props[1]
			}
			c.atoms = append(c.atoms, Atom{Name: a.Name, Prop: func(s lts.State) (bool, error) { return vals[s], nil }})
		default:
			c.atoms = append(c.atoms, Atom{Name: a.Name})
		}
	}
	return c
}

func genFormula(r *rand.Rand, ops int) string {
	if ops == 0 || r.IntN(4) == 0 {
		if r.IntN(12) == 0 {
			return []string{"true", "false"}[r.IntN(2)]
		}
		return randAtoms[r.IntN(len(randAtoms))]
	}
	switch k := r.IntN(11); {
	case k < 5:
		op := []string{"!", "X", "[]", "<>", "[]<>"}[k]
		return op + "(" + genFormula(r, ops-1) + ")"
	default:
		op := []string{"&&", "||", "->", "<->", "U", "R"}[k-5]
		split := r.IntN(ops)
		return "(" + genFormula(r, split) + " " + op + " " + genFormula(r, ops-1-split) + ")"
	}
}

// oracleLasso enumerates every lasso of c.sys with at most maxLen steps
// and returns one on which the negation of the formula holds and that is
// fair, or nil. It shares only Holds with the checker.
func oracleLasso(c *randomCase, fair Fairness, maxLen int) []Step {
	var path []Step
	var flags []bool // flags[i]: path[i] starts after the termination step
	var found []Step
	var rec func(s lts.State, after bool)
	rec = func(s lts.State, after bool) {
		if found != nil {
			return
		}
		for k := range path {
			if path[k].From == s && flags[k] == after && oracleAccepts(c, path, k, fair) {
				found = append([]Step(nil), path...)
				return
			}
		}
		if len(path) == maxLen {
			return
		}
		edges := c.sys.Edges[s]
		if len(edges) == 0 {
			// Skip terminates once, then behaves as Stop.
			ev := Deadlock
			if c.sys.Final[s] && !after {
				ev = Terminate
			}
			edges = []lts.Transition{{Event: ev, Target: s}}
		}
		for _, e := range edges {
			path, flags = append(path, Step{s, e.Event, e.Target}), append(flags, after)
			rec(e.Target, after || e.Event == Terminate)
			path, flags = path[:len(path)-1], flags[:len(flags)-1]
		}
	}
	rec(c.sys.Init, false)
	return found
}

func oracleAccepts(c *randomCase, path []Step, loop int, fair Fairness) bool {
	w := make([][]bool, len(path))
	for i, st := range path {
		w[i] = make([]bool, len(c.atoms))
		for a, at := range c.atoms {
			switch at.Name {
			case "p":
				w[i][a] = c.props[0][st.From]
			case "q":
				w[i][a] = c.props[1][st.From]
			case "terminate":
				w[i][a] = st.Event == Terminate
			default:
				w[i][a] = st.Event != Deadlock && st.Event != Terminate && c.sys.Table.Name(st.Event) == at.Name
			}
		}
	}
	if !Holds(&Formula{Op: OpNot, L: c.f.Root}, w, loop) {
		return false
	}
	return oracleFair(c, path[loop:], fair)
}

// oracleFair checks the fairness definitions on a cycle directly.
func oracleFair(c *randomCase, cyc []Step, fair Fairness) bool {
	for _, st := range cyc {
		for _, e := range c.sys.Edges[st.From] {
			always, takenEv, takenTr := true, false, false
			for _, o := range cyc {
				takenEv = takenEv || o.Event == e.Event
				takenTr = takenTr || o == Step{st.From, e.Event, e.Target}
				has := false
				for _, e2 := range c.sys.Edges[o.From] {
					has = has || e2.Event == e.Event
				}
				always = always && has
			}
			switch {
			case fair == Global && !takenTr,
				fair == Strong && e.Event != lts.Tau && !takenEv,
				fair == Weak && e.Event != lts.Tau && always && !takenEv:
				return false
			}
		}
	}
	return true
}

var (
	randCases = flag.Int("ltl.cases", 4000, "random cases of TestRandomAgainstOracle")
	randSeed  = flag.Uint64("ltl.seed", 1, "seed of TestRandomAgainstOracle")
)

// TestRandomAgainstOracle compares the checker with lasso enumeration on
// thousands of random systems (at most 4 states, 2 propositions, events a,
// b, c, tau, deadlocked and terminated states) and formulas (1 to 5
// operators), under each fairness. The oracle enumerates every lasso of
// up to 9 steps and evaluates the negation with Holds and the fairness
// definitions directly. A valid verdict must have no such lasso; an
// invalid one must come with a re-validated lasso, and the oracle must find
// one too unless the checker's lasso is longer than the bound (counted, a
// handful of cases).
func TestRandomAgainstOracle(t *testing.T) {
	n := *randCases
	if testing.Short() {
		n = 500
	}
	const maxLen = 9
	r := rand.New(rand.NewPCG(*randSeed, 2))
	stats := map[string]int{}
	for i := range n {
		c := genCase(r, 1+i%5)
		fair := Fairness(i % 4)
		res, err := Check(context.Background(), c.sys, c.f, c.atoms, Options{Fairness: fair})
		if err != nil {
			t.Fatalf("case %d %s (%s): %v", i, c.f, fair, err)
		}
		o := oracleLasso(c, fair, maxLen)
		switch {
		case res.Verdict == lts.Valid && o != nil:
			t.Fatalf("case %d: %s under %s fairness: checker valid, oracle lasso %v (loop ...) on %v final %v props %v",
				i, c.f, fair, o, c.sys.Edges, c.sys.Final, c.props)
		case res.Verdict == lts.Invalid && o == nil:
			l := res.Counterexample
			if len(l.Prefix)+len(l.Cycle) <= maxLen {
				t.Fatalf("case %d: %s under %s: checker lasso %v, oracle none", i, c.f, fair, l)
			}
			stats["invalid beyond the oracle's bound"]++
		case res.Verdict == lts.Unknown:
			t.Fatalf("case %d: unknown: %s", i, res.Reason)
		default:
			stats[res.Verdict.String()]++
		}
		if res.Verdict == lts.Invalid {
			if err := Validate(c.sys, c.f, c.atoms, res.Counterexample, fair); err != nil {
				t.Fatalf("case %d: %v", i, err)
			}
		}
	}
	t.Logf("%d cases: %v", n, stats)
}
