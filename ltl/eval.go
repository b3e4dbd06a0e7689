package ltl

// Holds evaluates f at position 0 of the ultimately periodic word
// w[0..loop-1] · (w[loop..])^ω, where w[i][a] says whether atom a holds
// at position i. It is a direct evaluator of the LTL semantics, written
// independently of the automaton translation: it re-validates every
// counterexample and is the oracle of the tests.
//
// Positions 0..n-1 of the lasso form a graph in which every position has
// one successor (i+1, and loop after n-1); a subformula's truth is a
// vector over the positions: X reads the successor, U is the least and R
// the greatest fixpoint of its expansion law, computed by iteration (at
// most n+1 rounds each).
func Holds(f *Formula, w [][]bool, loop int) bool {
	n := len(w)
	if n == 0 || loop < 0 || loop >= n {
		return false
	}
	return eval(f, w, loop)[0]
}

func eval(f *Formula, w [][]bool, loop int) []bool {
	n := len(w)
	next := func(i int) int {
		if i == n-1 {
			return loop
		}
		return i + 1
	}
	out := make([]bool, n)
	switch f.Op {
	case OpTrue:
		for i := range out {
			out[i] = true
		}
	case OpFalse:
	case OpAtom:
		for i := range out {
			out[i] = f.Atom < len(w[i]) && w[i][f.Atom]
		}
	case OpNot:
		a := eval(f.L, w, loop)
		for i := range out {
			out[i] = !a[i]
		}
	case OpAnd, OpOr, OpImplies, OpIff:
		a, b := eval(f.L, w, loop), eval(f.R, w, loop)
		for i := range out {
			switch f.Op {
			case OpAnd:
				out[i] = a[i] && b[i]
			case OpOr:
				out[i] = a[i] || b[i]
			case OpImplies:
				out[i] = !a[i] || b[i]
			default:
				out[i] = a[i] == b[i]
			}
		}
	case OpNext:
		a := eval(f.L, w, loop)
		for i := range out {
			out[i] = a[next(i)]
		}
	case OpUntil, OpFinally:
		a, b := untilArgs(f, w, loop)
		// least fixpoint of x = b || (a && X x), from all false
		fixpoint(out, func(i int, x []bool) bool { return b[i] || a[i] && x[next(i)] })
	case OpRelease, OpGlobally:
		a, b := releaseArgs(f, w, loop)
		for i := range out {
			out[i] = true
		}
		// greatest fixpoint of x = b && (a || X x), from all true
		fixpoint(out, func(i int, x []bool) bool { return b[i] && (a[i] || x[next(i)]) })
	}
	return out
}

func untilArgs(f *Formula, w [][]bool, loop int) (a, b []bool) {
	if f.Op == OpFinally {
		a = make([]bool, len(w))
		for i := range a {
			a[i] = true
		}
		return a, eval(f.L, w, loop)
	}
	return eval(f.L, w, loop), eval(f.R, w, loop)
}

func releaseArgs(f *Formula, w [][]bool, loop int) (a, b []bool) {
	if f.Op == OpGlobally {
		return make([]bool, len(w)), eval(f.L, w, loop)
	}
	return eval(f.L, w, loop), eval(f.R, w, loop)
}

// fixpoint iterates x[i] = step(i, x) over all positions until nothing
// changes. step is monotone, so from the bottom (top) the iteration
// reaches the least (greatest) fixpoint.
func fixpoint(x []bool, step func(int, []bool) bool) {
	for changed := true; changed; {
		changed = false
		for i := len(x) - 1; i >= 0; i-- {
			if v := step(i, x); v != x[i] {
				x[i], changed = v, true
			}
		}
	}
}
