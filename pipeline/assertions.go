package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/linearize"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/refine"
	"github.com/quasar-verify/quasar/relax"
)

// File checks the assertions of the model file at path.
func File(ctx context.Context, path string, opt Options) (*Report, error) {
	m, err := lang.ParseFile(path)
	if err != nil {
		return nil, err
	}
	return Parsed(ctx, m, fileSource(nil), opt)
}

// Source checks the assertions of a model given as text; name is used in
// positions. Includes are resolved relative to name on the file system.
func Source(ctx context.Context, name string, src []byte, opt Options) (*Report, error) {
	m, err := lang.Parse(name, src)
	if err != nil {
		return nil, err
	}
	return Parsed(ctx, m, fileSource(map[string][]byte{name: src}), opt)
}

// FS checks the assertions of the model name in fsys (the embedded library).
func FS(ctx context.Context, fsys fs.FS, name string, opt Options) (*Report, error) {
	m, err := lang.ParseFS(fsys, name)
	if err != nil {
		return nil, err
	}
	return Parsed(ctx, m, func(file string) []byte {
		b, _ := fs.ReadFile(fsys, file)
		return b
	}, opt)
}

// fileSource returns the text of a file: from known, else from disk.
func fileSource(known map[string][]byte) func(string) []byte {
	return func(file string) []byte {
		if b, ok := known[file]; ok {
			return b
		}
		b, _ := os.ReadFile(file)
		return b
	}
}

// Parsed checks the assertions of a parsed model file. src returns the text of a
// file of the model (used for the assertions' text).
func Parsed(ctx context.Context, m *lang.File, src func(string) []byte, opt Options) (*Report, error) {
	c, err := lang.Check(m)
	if err != nil {
		return nil, err
	}
	rep := &Report{File: m.Path}
	asserts := c.Info.Asserts
	selected, err := selectAsserts(asserts, src, opt.Assert)
	if err != nil {
		return nil, err
	}
	// The linearizes assertions checked with arguments chosen late use the
	// rewritten model's program, which holds every definition of the
	// model; the model's own program is compiled only if another check,
	// or the replay of a counterexample, needs it.
	late := func(a *lang.AssertDecl) bool { return !opt.NoLateArgs && a.Kind == lang.KindLinearizes && a.Map == nil }
	var lc *lang.Checked
	var lprog *csp.Program
	var lout *lateOut
	var lateWhy string
	if slices.ContainsFunc(selected, func(i int) bool { return late(asserts[i]) }) {
		// Only the selected assertions are rewritten (each gets copies of
		// the definitions it reaches, which the checker then checks).
		only := map[*lang.AssertDecl]bool{}
		for _, i := range selected {
			only[asserts[i]] = true
		}
		if lc, lprog, lout, err = lateSetup(m, c, opt.lateMutant, only); err != nil {
			lateWhy = err.Error()
		}
	}
	var prog *csp.Program
	var progErr error
	compiled := false
	orig := func() (*csp.Program, error) {
		if !compiled {
			compiled = true
			prog, progErr = csp.Compile(c)
		}
		return prog, progErr
	}
	if lprog == nil {
		// Errors of the model are the model's (with the option, the
		// rewritten model compiled, and it holds the model's definitions).
		if _, err := orig(); err != nil {
			return nil, err
		}
	}
	for _, i := range selected {
		a := asserts[i]
		res := &Assertion{Line: a.Pos().Line, Text: assertText(a, src), Kind: kindName(a)}
		rep.Assertions = append(rep.Assertions, res)
		if err := ctx.Err(); err != nil {
			res.Verdict, res.Reason = lts.Unknown, "cancelled"
			continue
		}
		if opt.Collect {
			runtime.GC()
		}
		if late(a) && lprog != nil && lout.asserts[a].off == "" {
			o := opt
			o.late = &lateCtx{orig: orig, a: a, values: lout.asserts[a].values, choose: lout.choose}
			checkOne(ctx, lprog, lc.Info, lc.Info.Asserts[i], res, o)
			if res.lateRetry == "" && res.Error != "" && ctx.Err() == nil {
				// An error of the model is reported as the check
				// without the option finds it (in the model's events,
				// not the rewritten model's).
				res.lateRetry = "the check ended in an error: " + res.Error
			}
			if res.lateRetry == "" {
				res.Stats.LateArgs = true
				continue
			}
			// The rewrite's assumptions do not hold on this model (seen
			// during the search): checked again without the option.
			why, spent := res.lateRetry, res.Stats.Seconds
			*res = Assertion{Line: res.Line, Text: res.Text, Kind: res.Kind}
			res.LateArgsOff = lateRetried + why
			if p, err := orig(); err != nil {
				res.Verdict, res.Error = lts.Unknown, err.Error()
			} else {
				checkOne(ctx, p, c.Info, a, res, opt)
			}
			res.Stats.Seconds += spent // (both checks' time)
			continue
		}
		if late(a) {
			res.LateArgsOff = lateWhy
			if lout != nil && lout.asserts[a] != nil {
				res.LateArgsOff = lout.asserts[a].off
			}
		} else if !opt.NoLateArgs && a.Kind == lang.KindLinearizes {
			res.LateArgsOff = "an assertion with a map (the rewrite reads invocations named OP_inv.T.ARGS only)"
		}
		p, err := orig()
		if err != nil {
			res.Verdict, res.Error = lts.Unknown, err.Error()
			continue
		}
		checkOne(ctx, p, c.Info, a, res, opt)
	}
	return rep, nil
}

// load checks a parsed model and compiles it: the one way every check of
// this package gets from an AST to systems.
func load(m *lang.File) (*lang.Checked, *csp.Program, error) {
	c, err := lang.Check(m)
	if err != nil {
		return nil, nil, err
	}
	prog, err := csp.Compile(c)
	if err != nil {
		return nil, nil, err
	}
	return c, prog, nil
}

// selectAsserts picks the assertions named by sel: all, a 1-based index,
// or those whose text contains sel.
func selectAsserts(asserts []*lang.AssertDecl, src func(string) []byte, sel string) ([]int, error) {
	var out []int
	if sel == "" {
		for i := range asserts {
			out = append(out, i)
		}
		return out, nil
	}
	if n, err := strconv.Atoi(sel); err == nil {
		if n < 1 || n > len(asserts) {
			return nil, fmt.Errorf("no assertion %d: the model has %d", n, len(asserts))
		}
		return []int{n - 1}, nil
	}
	for i, a := range asserts {
		if strings.Contains(assertText(a, src), sel) {
			out = append(out, i)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no assertion matches %q", sel)
	}
	return out, nil
}

// assertText is the source text of an assertion without `#assert` and `;`.
func assertText(a *lang.AssertDecl, src func(string) []byte) string {
	b := src(a.Pos().File)
	start, end := a.Pos().Offset, a.End().Offset
	if b == nil || start < 0 || end > len(b) || start >= end {
		return a.Kind.String()
	}
	t := strings.TrimSpace(string(b[start:end]))
	t = strings.TrimPrefix(t, "#assert")
	t = strings.TrimSuffix(strings.TrimSpace(t), ";")
	return strings.Join(strings.Fields(t), " ")
}

func kindName(a *lang.AssertDecl) string {
	switch a.Kind {
	case lang.KindQuasi:
		return "quasi"
	case lang.KindRefinesF:
		return "refines_f"
	case lang.KindRefinesFD:
		return "refines_fd"
	case lang.KindLTL:
		return "ltl"
	case lang.KindLinearizes:
		if a.Quasi != nil {
			return "linearizes_quasi"
		}
	}
	return a.Kind.String()
}

// checkOne runs one assertion and fills res. Errors of the model found
// while checking (run-time errors) and internal errors end in res.Error.
func checkOne(ctx context.Context, prog *csp.Program, info *lang.Info, a *lang.AssertDecl, res *Assertion, opt Options) {
	start := time.Now()
	defer func() {
		if r := recover(); r != nil {
			res.Verdict, res.Error, res.Internal = lts.Unknown, fmt.Sprintf("internal error: %v", r), true
		}
		// The time of an assertion is all of its work: building the
		// systems, the search, and re-validating a counterexample.
		res.Stats.Seconds = time.Since(start).Seconds()
	}()
	var err error
	if opt.Compact.Mode != csp.Exact {
		if err := csp.CompactSupports(a.Kind, opt.Compact.Mode); err != nil {
			res.Verdict, res.Error = lts.Unknown, err.Error()
			return
		}
	}
	switch a.Kind {
	case lang.KindRefines:
		err = checkRefines(ctx, prog, a, res, opt, nil, linearize.Naming{})
	case lang.KindQuasi:
		var cfg relax.Config
		if cfg, err = quasiConfig(prog.Events(), info, a.Quasi, opt.Mode); err == nil {
			err = checkRefines(ctx, prog, a, res, opt, &cfg, linearize.Naming{})
		}
	case lang.KindLinearizes:
		var cfg *relax.Config
		if a.Quasi != nil {
			var c relax.Config
			if c, err = quasiConfig(prog.Events(), info, a.Quasi, opt.Mode); err != nil {
				break
			}
			cfg = &c
		}
		var naming linearize.Naming
		if naming, err = linNaming(a, info); err == nil {
			err = checkRefines(ctx, prog, a, res, opt, cfg, naming)
		}
	case lang.KindRefinesF:
		err = checkFailures(ctx, prog, a, res, opt, refine.StableFailures)
	case lang.KindRefinesFD:
		err = checkFailures(ctx, prog, a, res, opt, refine.FailuresDivergences)
	case lang.KindLTL:
		err = checkLTL(ctx, prog, info, a, res, opt)
	default:
		var r *csp.Result
		lopt := csp.Options{Limits: opt.Limits, Workers: opt.Workers, NoSymmetry: opt.NoSymmetry, Progress: opt.searchProgress(res), Compact: opt.Compact}
		r, err = csp.CheckAssertion(ctx, prog, a, lopt)
		if err == nil {
			err = validateLTS(prog, a, r)
		}
		if err == nil {
			fromLTS(r, res)
		}
	}
	if err != nil {
		res.Verdict, res.Error = lts.Unknown, err.Error()
		// A counterexample that fails re-validation, a panic caught below:
		// every package says "internal error" (never for bad input).
		var rte *lts.RuntimeError
		res.Internal = !errors.As(err, &rte) && strings.Contains(res.Error, "internal error")
	}
}

func fromLTS(r *csp.Result, res *Assertion) {
	res.Verdict, res.Reason = r.Verdict, r.Reason
	res.Probabilistic, res.Coverage = r.Probabilistic, r.Coverage
	res.Stats = Stats{States: r.Stats.States, Transitions: r.Stats.Transitions, Seconds: r.Stats.Seconds, PeakBytes: r.Stats.PeakBytes, Symmetry: r.Stats.Symmetry}
	if r.HasValue {
		v := r.Value
		res.Value = &v
	}
	if r.Err != nil {
		res.Error = r.Err.Error()
	}
	if len(r.Trace) > 0 {
		ce := &Counterexample{}
		prev := r.Trace[0].Vars
		steps := append(append([]csp.Step(nil), r.Trace[1:]...), r.Loop...)
		for _, st := range steps {
			vars := varsOnly(st.Vars)
			who := st.Who
			if who == "" {
				who = changedNames(splitControlOnly(prev), splitControlOnly(st.Vars))
			}
			ce.Steps = append(ce.Steps, Step{Event: st.Event, Who: who, Changed: lts.Changed(varsOnly(prev), vars)})
			if st.Event != "tau" {
				ce.Trace = append(ce.Trace, st.Event)
			}
			prev = st.Vars
		}
		if len(r.Loop) > 0 {
			ce.Explanation = fmt.Sprintf("the last %d steps form a cycle of internal steps", len(r.Loop))
		}
		if r.Verdict == lts.Valid && r.Err == nil {
			res.Witness = ce // reaches: the shortest trace to the goal
		} else {
			res.Counterexample = ce
		}
	}
}

// checkRefines runs `Left refines Right`, relaxed by cfg if not nil, and
// re-validates a quasi counterexample against the definition. For
// `linearizes` the specification is first wrapped into the linearizable
// behaviours of its operations (package linearize), whose events naming
// reads, and a counterexample is re-validated as a history by the history
// engine.
func checkRefines(ctx context.Context, prog *csp.Program, a *lang.AssertDecl, res *Assertion, opt Options, cfg *relax.Config, naming linearize.Naming) error {
	lin := a.Kind == lang.KindLinearizes
	var impl, specSys *csp.Proc
	var err error
	// The thread symmetry and the reduction read the thread as the first
	// datum of every event (csp.Program.EventThreads).
	threadFirst := naming.ThreadFirst()
	if lin {
		impl, specSys, err = linearizesSides(prog, a, opt.NoSymmetry || !threadFirst)
	} else {
		impl, specSys, err = refinementSides(prog, a, opt.NoSymmetry)
	}
	if err != nil {
		return err
	}
	var spec lts.Automaton = lts.NewTauClosed(specSys)
	base := spec
	var relaxed *relax.Relaxed
	if cfg != nil {
		if relaxed, err = relax.New(spec, *cfg); err != nil {
			return err
		}
		defer relaxed.Close()
		spec = relaxed
	}
	var implSys lts.System = impl
	if lin {
		w := linearize.New(spec, naming)
		if opt.late != nil {
			w.SetLate(opt.late.values, opt.late.choose)
		}
		spec = w
		// The reduction moves events of different components past each
		// other: sound when components show distinct threads.
		if !opt.NoReduction && threadFirst && prog.EventThreads(a.Left) == "" {
			red := linearize.NewReduced(impl, naming)
			if opt.late != nil && !opt.lateNoCompress {
				red.SetChoose(opt.late.choose)
			}
			implSys = red
		}
	}
	ropt := refine.Options{Limits: opt.Limits, Workers: opt.Workers, Progress: opt.pairProgress(res)}
	r, err := refine.Check(ctx, implSys, spec, ropt)
	if err != nil {
		if opt.late != nil && errors.Is(err, linearize.ErrLateOrder) {
			res.lateRetry = err.Error()
		}
		return err
	}
	res.Verdict, res.Reason = r.Verdict, r.Reason
	res.Stats = RefinementStats(r.Stats, impl.Symmetry())
	if r.Counterexample == nil {
		return nil
	}
	ce := pathSteps(prog, impl, r.Counterexample)
	res.Counterexample = ce
	if lin && opt.late != nil {
		if err := validateLate(ctx, base, cfg, naming, ce, opt.late); err != nil {
			res.Counterexample = nil
			if ctx.Err() == nil {
				// No trace of the model violates it: what the search
				// found is the rewrite's, not the model's.
				res.lateRetry = "arguments chosen late: a counterexample that is none of the model: " + err.Error()
			}
			return err
		}
		return nil
	}
	if lin {
		lines, why, err := validateLinearizes(ctx, base, cfg, naming, ce.Trace)
		if err != nil {
			res.Counterexample = nil
			return err
		}
		ce.History, ce.Explanation = lines, why
		return nil
	}
	if cfg != nil {
		if err := validateQuasi(base, relaxed, *cfg, ce); err != nil {
			res.Counterexample = nil
			return err
		}
	}
	return nil
}

// pathSteps converts the implementation path of a refinement
// counterexample into steps that say who moved and what changed.
func pathSteps(prog *csp.Program, impl *csp.Proc, rc *refine.Counterexample) *Counterexample {
	ce := &Counterexample{Trace: rc.Trace, Offered: rc.Offered}
	if u := impl.Unreduced(); u != nil {
		impl = u // the path's states are the unreduced system's
	}
	prev, from := rc.Initial, impl.Initial()
	for _, st := range rc.Path {
		vars := varsOnly(st.Vars)
		var who string
		if ev, ok := prog.Events().Lookup(st.Event); ok {
			who = impl.Who(from, ev, st.State)
		}
		if who == "" {
			who = changedNames(splitControlOnly(prev), splitControlOnly(st.Vars))
		}
		ce.Steps = append(ce.Steps, Step{Event: st.Event, Who: who, Changed: lts.Changed(varsOnly(prev), vars)})
		prev, from = st.Vars, st.State
	}
	return ce
}

// refinementSides builds the implementation (reduced by thread symmetry
// where that is proved, unless noSymmetry) and the specification of a
// refinement assertion.
func refinementSides(prog *csp.Program, a *lang.AssertDecl, noSymmetry bool) (impl, spec *csp.Proc, err error) {
	if noSymmetry {
		impl, err = prog.Process(a.Left)
	} else {
		impl, _, err = prog.SymmetricProcess(a.Left)
	}
	if err != nil {
		return nil, nil, err
	}
	spec, err = prog.Process(a.Right)
	return impl, spec, err
}

// linearizesSides is refinementSides for linearizes: the thread symmetry
// renames the thread datum of the events (csp.SymmetricEventsProcess).
func linearizesSides(prog *csp.Program, a *lang.AssertDecl, noSymmetry bool) (impl, spec *csp.Proc, err error) {
	if noSymmetry {
		impl, err = prog.Process(a.Left)
	} else {
		impl, _, err = prog.SymmetricEventsProcess(a.Left)
	}
	if err != nil {
		return nil, nil, err
	}
	spec, err = prog.Process(a.Right)
	return impl, spec, err
}

// validateQuasi re-checks a quasi counterexample (ValidateQuasi) and
// attaches the relaxed automaton's explanation.
func validateQuasi(spec lts.Automaton, relaxed *relax.Relaxed, cfg relax.Config, ce *Counterexample) error {
	trace, err := ValidateQuasi(spec, cfg, ce.Trace)
	if err != nil {
		return err
	}
	if ex, err := relaxed.Explain(trace); err == nil && ex.Reason != "" {
		ce.Explanation = ex.Reason
	}
	return nil
}

// ValidateQuasi re-checks a quasi counterexample against the definition
// (relax.Admits, independent of the relaxed automaton a search used): the
// trace without its last event must be admitted by spec relaxed by cfg, the
// whole trace not. It returns the trace as events.
func ValidateQuasi(spec lts.Automaton, cfg relax.Config, names []string) ([]lts.Event, error) {
	t := spec.Events()
	trace := make([]lts.Event, len(names))
	for i, name := range names {
		e, ok := t.Lookup(name)
		if !ok {
			return nil, fmt.Errorf("internal error: counterexample event %q is not in the event table", name)
		}
		trace[i] = e
	}
	if len(trace) == 0 {
		return nil, errors.New("internal error: empty quasi counterexample")
	}
	whole, err := relax.Admits(spec, cfg, trace)
	if err != nil {
		return nil, err
	}
	prefix, err := relax.Admits(spec, cfg, trace[:len(trace)-1])
	if err != nil {
		return nil, err
	}
	if whole || !prefix {
		return nil, fmt.Errorf("internal error: quasi counterexample %s failed re-validation against the definition (trace admitted: %v, prefix admitted: %v)",
			strings.Join(names, " "), whole, prefix)
	}
	return trace, nil
}

// quasiConfig turns the `quasi ...` of an assertion, as the checker
// resolved it, into a relax.Config. mode, if not nil, overrides the
// assertion's own mode.
func quasiConfig(t *lts.EventTable, info *lang.Info, q *lang.QuasiSpec, mode *relax.Mode) (relax.Config, error) {
	var cfg relax.Config
	if q == nil {
		return cfg, errors.New("quasi assertion without a quasi factor")
	}
	if q.Window {
		cfg.Mode = relax.Window
	}
	if mode != nil {
		cfg.Mode = *mode
	}
	patterns := func(evs []*lang.EventExpr) ([]lts.Pattern, error) {
		var out []lts.Pattern
		for _, e := range evs {
			p := lts.Pattern{Base: e.Name.Name}
			for _, d := range e.Data {
				v, ok := info.Consts[d]
				if !ok {
					return nil, fmt.Errorf("%s: event pattern data must be constant", d.Pos())
				}
				p.Data = append(p.Data, int(v))
			}
			out = append(out, p)
		}
		return out, nil
	}
	bound := func(e lang.Expr) (int, error) {
		v, ok := info.Consts[e]
		if !ok || v < 0 {
			return 0, fmt.Errorf("%s: a quasi bound must be a constant >= 0", e.Pos())
		}
		return int(v), nil
	}
	var err error
	if cfg.Barriers, err = patterns(q.Barriers); err != nil {
		return cfg, err
	}
	switch {
	case len(q.Classes) > 0:
		for _, cl := range q.Classes {
			ps, err := patterns(cl.Patterns)
			if err != nil {
				return cfg, err
			}
			b, err := bound(cl.Bound)
			if err != nil {
				return cfg, err
			}
			cfg.Classes = append(cfg.Classes, relax.Class{Patterns: ps, Bound: b})
		}
	case q.Factor != nil:
		b, err := bound(q.Factor)
		if err != nil {
			return cfg, err
		}
		if len(q.On) > 0 {
			ps, err := patterns(q.On)
			if err != nil {
				return cfg, err
			}
			cfg.Classes = []relax.Class{{Patterns: ps, Bound: b}}
		} else {
			cfg.All = b
		}
	}
	return cfg, cfg.Validate()
}

// splitControl separates variable bindings from control-state bindings
// (those named "@component").
func splitControl(bs []lts.Binding) (vars, control []lts.Binding) {
	for _, b := range bs {
		if strings.HasPrefix(b.Name, "@") {
			control = append(control, b)
		} else {
			vars = append(vars, b)
		}
	}
	return vars, control
}

func varsOnly(bs []lts.Binding) []lts.Binding         { v, _ := splitControl(bs); return v }
func splitControlOnly(bs []lts.Binding) []lts.Binding { _, c := splitControl(bs); return c }

// changedNames names the components whose control state changed.
func changedNames(prev, cur []lts.Binding) string {
	var names []string
	for _, b := range lts.Changed(prev, cur) {
		names = append(names, strings.TrimPrefix(b.Name, "@"))
	}
	return strings.Join(names, ", ")
}

// searchProgress forwards a search's progress as res's (nil if no one
// listens).
func (opt Options) searchProgress(res *Assertion) func(lts.Stats) {
	if opt.Progress == nil {
		return nil
	}
	return func(st lts.Stats) {
		opt.Progress(Progress{Assertion: res.Text, States: st.States, Depth: st.Depth, Bytes: st.PeakBytes, Seconds: st.Seconds})
	}
}

// pairProgress forwards a refinement search's progress (its pairs) as
// res's.
func (opt Options) pairProgress(res *Assertion) func(refine.Stats) {
	if opt.Progress == nil {
		return nil
	}
	return func(st refine.Stats) {
		opt.Progress(Progress{Assertion: res.Text, States: st.Pairs, Depth: st.Depth, Bytes: st.PeakBytes, Seconds: st.Seconds})
	}
}
