package pipeline

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/ltl"
	"github.com/quasar-verify/quasar/lts"
)

// checkLTL runs `#assert P |= F;` (package ltl, docs/ltl.md): it parses
// the formula at its position in the model file, resolves its atoms (a
// parameterless #define over the variables is a proposition on the state;
// any other name is an event, whose identifier components name constants),
// and checks the process under opt.Fair.
func checkLTL(ctx context.Context, prog *csp.Program, info *lang.Info, a *lang.AssertDecl, res *Assertion, opt Options) error {
	fair, err := ltl.ParseFairness(opt.Fair)
	if err != nil {
		return err
	}
	pos := a.LTLPos
	f, err := ltl.Parse(pos.File, pos.Line, pos.Col, a.LTL)
	if err != nil {
		return err
	}
	sys, err := prog.Process(a.Left)
	if err != nil {
		return err
	}
	atoms, err := ltlAtoms(sys, info, f, pos)
	if err != nil {
		return err
	}
	lopt := ltl.Options{Limits: opt.Limits, Fairness: fair, Progress: opt.searchProgress(res)}
	r, err := ltl.Check(ctx, sys, f, atoms, lopt)
	if err != nil {
		return err
	}
	res.Verdict, res.Reason = r.Verdict, r.Reason
	res.Stats = Stats{States: int64(sys.NumStates()), Pairs: r.Stats.States, Transitions: r.Stats.Transitions, Seconds: r.Stats.Seconds, PeakBytes: r.Stats.PeakBytes}
	if fair != ltl.NoFairness && res.Reason == "" && r.Verdict != lts.Unknown {
		res.Reason = "under " + fair.String() + " fairness"
	}
	if note := unknownEvents(sys, atoms); note != "" {
		res.Reason = strings.TrimPrefix(res.Reason+"; "+note, "; ")
	}
	if r.Counterexample != nil {
		res.Counterexample = lassoCounterexample(sys, r.Counterexample)
	}
	return nil
}

// ltlAtoms resolves the atoms of f.
func ltlAtoms(sys *csp.Proc, info *lang.Info, f *ltl.Parsed, pos lang.Pos) ([]ltl.Atom, error) {
	consts := map[string]int64{}
	for _, sym := range info.Defs {
		if sym.Kind == lang.SymConst || sym.Kind == lang.SymEnum {
			consts[sym.Name] = sym.Value
		}
	}
	var atoms []ltl.Atom
	for _, ref := range f.Atoms {
		if def, ok := info.Macros[ref.Name]; ok && len(ref.Parts) == 1 {
			if def.Params != nil || def.Value == nil {
				return nil, fmt.Errorf("%s: %s is a macro with parameters, not a proposition", atomPos(pos, f, ref), ref.Name)
			}
			cond, err := sys.Condition(def.Value)
			if err != nil {
				return nil, err
			}
			atoms = append(atoms, ltl.Atom{Name: ref.Name, Prop: func(s lts.State) (bool, error) {
				v, err := cond(s)
				return v != 0, err
			}})
			continue
		}
		parts := append([]string(nil), ref.Parts...)
		for i, p := range parts[1:] {
			if _, err := strconv.Atoi(p); err == nil {
				continue
			}
			v, ok := consts[p]
			if !ok {
				return nil, fmt.Errorf("%s: %s in event %s is not a constant", atomPos(pos, f, ref), p, ref.Name)
			}
			parts[i+1] = strconv.FormatInt(v, 10)
		}
		if _, isConst := consts[parts[0]]; isConst && len(parts) == 1 {
			return nil, fmt.Errorf("%s: %s is a constant, not a proposition or an event", atomPos(pos, f, ref), ref.Name)
		}
		atoms = append(atoms, ltl.Atom{Name: strings.Join(parts, ".")})
	}
	return atoms, nil
}

// atomPos is the file position of an atom.
func atomPos(pos lang.Pos, f *ltl.Parsed, ref ltl.AtomRef) string {
	return ltl.Position(pos.File, pos.Line, pos.Col, f.Source, ref.Off)
}

// unknownEvents notes the event atoms that name no event the search met:
// usually a typo.
func unknownEvents(sys *csp.Proc, atoms []ltl.Atom) string {
	var missing []string
	for _, a := range atoms {
		if a.Prop != nil || a.Name == ltl.TerminateName {
			continue
		}
		if _, ok := sys.Events().Lookup(a.Name); !ok {
			missing = append(missing, a.Name)
		}
	}
	if len(missing) == 0 {
		return ""
	}
	return "note: no event of the model is named " + strings.Join(missing, ", ")
}

// lassoCounterexample turns a lasso into the report's steps; the
// explanation says which steps repeat.
func lassoCounterexample(sys *csp.Proc, l *ltl.Lasso) *Counterexample {
	ce := &Counterexample{}
	t := sys.Events()
	steps := append(append([]ltl.Step(nil), l.Prefix...), l.Cycle...)
	prev := sys.Describe(steps[0].From)
	for _, st := range steps {
		var name, who string
		switch st.Event {
		case ltl.Deadlock:
			name = "(deadlock)"
			if sys.Terminated(st.From) {
				name = "(terminated)"
			}
		case ltl.Terminate:
			name = ltl.TerminateName
		default:
			name = t.Name(st.Event)
			who = sys.Who(st.From, st.Event, st.To)
		}
		cur := sys.Describe(st.To)
		if who == "" {
			who = changedNames(splitControlOnly(prev), splitControlOnly(cur))
		}
		ce.Steps = append(ce.Steps, Step{Event: name, Who: who, Changed: lts.Changed(varsOnly(prev), varsOnly(cur))})
		if st.Event != lts.Tau && st.Event != ltl.Deadlock && st.Event != ltl.Terminate {
			ce.Trace = append(ce.Trace, name)
		}
		prev = cur
	}
	n, k := len(steps), len(l.Prefix)
	ce.Explanation = "an infinite run that violates the formula: " + stepRange(1, k) + " to a cycle, then " + stepRange(k+1, n) + " forever"
	if k == 0 {
		ce.Explanation = "an infinite run that violates the formula: " + stepRange(1, n) + " forever"
	}
	return ce
}

func stepRange(from, to int) string {
	if from == to {
		return fmt.Sprintf("step %d", from)
	}
	return fmt.Sprintf("steps %d-%d", from, to)
}
