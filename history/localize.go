package history

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/relax"
)

// Localization is a violation cut down to a minimal test case in the sense
// of CGVT (Zhang, Wu, Zhang, "Localization of Linearizability Faults on
// the Coarse-grained Level"; docs/verdicts.md §3): a sequential prefix that sets up
// the state, a concurrent core that triggers the fault, and a sequential
// suffix that reveals it.
//
// Localize computes it in three steps.
//
//  1. The shortest violating prefix. Events (invocations and completions)
//     are ordered by time, invocations before completions at equal times.
//     The prefix of n events keeps the operations invoked among them; an
//     operation whose completion is not among them is pending: it may take
//     effect after its invocation with the result it returned later in the
//     history, or not at all (an Info operation of the history: with any
//     result). Acceptance (linearizability, and quasi-linearizability in
//     open mode) is closed under prefixes (CGVT's Theorem 1; locFixedModel
//     explains why fixing the results keeps it), so violation is monotone
//     in n: a galloping search (n = 16, 32, 64, ... until a prefix
//     violates, the whole history last, then bisection) finds the least
//     violating n with O(log n) checks and checks only short prefixes when
//     the violation is early, as it usually is in stress tests. The whole
//     history is checked only if no shorter prefix violates. Its last event
//     is the completion of the revealing operation. Pending operations
//     whose values no completed operation mentions are left out (see
//     locPrefix).
//  2. A minimal violating sub-history of that prefix, by delta debugging:
//     remove chunks of removable units, halving the chunk size, while the
//     rest still violates, then single units until none can go (the result
//     is 1-minimal: removing any one unit makes it acceptable).
//  3. The test case: those operations as recorded (pending ones with their
//     completions: a violation stays one when results are fixed, operations
//     obligatory and real-time order richer), units removed once more
//     while it still violates (quasi checks within step 2's state budget:
//     an undecided one keeps its unit), and re-checked from scratch with the plain
//     model: that check is Result.

// Units. Removing one operation can invent a violation (drop enq(5) and a
// dequeue that returned 5 is unexplained). So operations connected by a
// value (an argument of one is a result or argument of another: enq(5),
// deq() -> 5; write(1), read() -> 1; a list argument counts each element)
// form one unit and are removed together; nil and booleans connect
// nothing. For queues, stacks, sets and registers removing a whole unit
// from a linearizable history leaves it linearizable, so the violation that
// remains is one of the original history.
//
// The remaining operations are split at their quiescent points (instants
// at which none of them is running) into blocks. Blocks of one operation
// before the first block with overlapping operations form the sequential
// prefix, those after the last such block the revealing suffix, and the
// blocks in between the concurrent core. A violation without overlapping
// operations has an empty core and the last operation as its suffix: the
// observable results are wrong even though none overlap in the test case
// (e.g. a push lost by a racy pop elsewhere, revealed by an empty pop).
//
// Operations of the test case keep their IDs, times and results: it is a
// sub-history of the input.
type Localization struct {
	// Verdict is Invalid when a test case was found; Valid if the history
	// is not violating (nothing to localise); Unknown if a check hit a limit
	// (Reason says which).
	Verdict lts.Verdict
	Reason  string

	// The shortest violating prefix: its number of events and operations,
	// and the revealing operation (ID) whose completion ends it.
	PrefixEvents, PrefixOps int
	Revealing               int
	// Undecided lists the prefix lengths (in events, increasing) whose
	// check used up its state budget (locStates: quasi checks, and queue
	// linearizability checked as quasi with bound 0) without a verdict. If one
	// lies below PrefixEvents, PrefixEvents is the shortest violating
	// prefix found, not necessarily the shortest of all, which is longer
	// than every accepted length checked (the least undecided length is a
	// lower bound when the lengths just below it were accepted). The test
	// case is built from PrefixEvents and re-checked as always.
	Undecided []int

	// The minimal test case: op IDs of the sequential prefix (in order),
	// the concurrent core (by invocation) and the revealing suffix.
	Sequential, Core, Suffix []int
	// Ops is the test case as a sub-history (by invocation), and Result
	// its check from scratch (Invalid).
	Ops    []Op
	Result *Result
	// Checks is the number of history checks Localize ran.
	Checks int
}

// Size is the number of operations of the test case.
func (l *Localization) Size() int { return len(l.Ops) }

// Localize finds the shortest violating prefix of h and a minimal test case
// inside it (see Localization). opt is used for every check; with
// opt.Quasi in complete mode, which is not prefix-closed, the prefix step
// uses open mode when the history violates it, and otherwise keeps the
// whole history.
func Localize(ctx context.Context, h *History, m Model, opt Options) (*Localization, error) {
	return LocalizeOps(ctx, h.Ops, m, opt)
}

// LocalizeOps is Localize on a slice of operations with any IDs.
func LocalizeOps(ctx context.Context, all []Op, m Model, opt Options) (*Localization, error) {
	all, checks, err := reportedPartition(ctx, all, m, opt)
	if err != nil {
		return nil, err
	}
	z := newLocalizer(ctx, all, m, opt)
	z.l.Checks += checks
	done, err := z.prefixMode()
	if err != nil {
		return nil, err
	}
	if done {
		return z.l, nil
	}
	z.distinctQueue()
	prefix := z.ops
	z.l.PrefixEvents = len(z.evs)
	if z.prefixClosed {
		prefix, done, err = z.shortestPrefix()
		if err != nil {
			return nil, err
		}
		if done {
			return z.l, nil
		}
	} else if n := len(z.evs); n > 0 && z.evs[n-1].ret {
		z.l.Revealing = z.ops[z.evs[n-1].op].ID
	}
	z.l.PrefixOps = len(prefix)
	tc, err := z.minimize(prefix)
	if err != nil {
		return nil, err
	}
	return z.report(tc)
}

// reportedPartition restricts a history of a partitioned model (kv: per
// key) to the partition whose violation Check reports, so that the test
// case explains the violation the check printed (values that recur across
// keys would otherwise tie keys together).
func reportedPartition(ctx context.Context, all []Op, m Model, opt Options) ([]Op, int, error) {
	p, ok := m.(Partitioner)
	if !ok || opt.Quasi != nil || opt.NoPartition {
		return all, 0, nil
	}
	r, err := CheckOps(ctx, all, m, opt)
	if err != nil || r.Verdict != lts.Invalid || r.Failure == nil || r.Failure.Partition == "" {
		return all, 1, err
	}
	groups, names := p.Partition(all)
	for gi, name := range names {
		if name == r.Failure.Partition {
			part := make([]Op, len(groups[gi]))
			for k, i := range groups[gi] {
				part[k] = all[i]
			}
			return part, 1, nil
		}
	}
	return all, 1, nil
}

// localizer holds the state of one Localize run: the operations that
// happened (failed ones dropped, indeterminate ones pending), the model with
// fixed results for prefix checks, and the verdicts of the prefixes checked.
type localizer struct {
	ctx          context.Context
	l            *Localization
	m            Model
	fm           *locFixedModel
	opt          Options // the check asked for
	popt         Options // prefix and sub-history checks (step 1 and 2)
	ops          []Op
	evs          []locEvent
	obs          func(*Op) bool
	seen         map[int]lts.Verdict // prefix length -> verdict
	limit        *Result             // a check stopped by the caller's limits
	prefixClosed bool
}

func newLocalizer(ctx context.Context, all []Op, m Model, opt Options) *localizer {
	ops := make([]Op, 0, len(all))
	for _, o := range all {
		if o.Status == Fail {
			continue // did not happen
		}
		if o.Status == Info || o.Return == Pending {
			o.Status, o.Return = Info, Pending
		}
		ops = append(ops, o)
	}
	// Checks of prefixes and of their sub-histories run against fm: an
	// operation pending at the cut may take effect only with the result it
	// returned later in the history, or not at all (see locFixedModel).
	return &localizer{
		ctx: ctx, l: &Localization{Revealing: -1}, m: m, fm: newLocFixedModel(m, ops),
		opt: opt, popt: opt, ops: ops, evs: locEvents(ops), obs: locObserver(m),
		seen: map[int]lts.Verdict{}, prefixClosed: true,
	}
}

// check checks sub against the model with fixed results.
func (z *localizer) check(sub []Op, o Options) (*Result, error) {
	z.l.Checks++
	o.noReplay = true // only the verdict is used
	return CheckOps(z.ctx, sub, z.fm, o)
}

// plain checks sub against the model as given.
func (z *localizer) plain(sub []Op, o Options) (*Result, error) {
	z.l.Checks++
	return CheckOps(z.ctx, sub, z.m, o)
}

// notViolating ends the run with r's verdict: there is nothing to localise.
func (z *localizer) notViolating(r *Result) {
	z.l.Verdict, z.l.Reason = r.Verdict, r.Reason
	if r.Verdict == lts.Valid {
		z.l.Reason = "the history is not violating"
	}
}

// prefixMode decides how step 1 runs. Quasi-linearizability in complete
// mode is not prefix-closed: if the history violates it in open mode too,
// prefixes are checked in open mode; otherwise only the end violates and
// the whole history is the prefix. done reports that the run has ended
// (the history does not violate, or a limit was hit).
func (z *localizer) prefixMode() (done bool, err error) {
	if z.opt.Quasi == nil || !z.opt.Quasi.Complete {
		return false, nil
	}
	full, err := z.plain(z.ops, z.opt)
	if err != nil {
		return true, err
	}
	if full.Verdict != lts.Invalid {
		z.notViolating(full)
		return true, nil
	}
	q := *z.opt.Quasi
	q.Complete = false
	z.popt.Quasi = &q
	r, err := z.plain(z.ops, z.popt)
	if err != nil {
		return true, err
	}
	switch r.Verdict {
	case lts.Unknown:
		z.l.Verdict, z.l.Reason = lts.Unknown, r.Reason
		return true, nil
	case lts.Valid:
		z.prefixClosed, z.popt = false, z.opt // only the end violates
	}
	return false, nil
}

// distinctQueue: linearizability of a queue with distinct values is quasi-
// linearizability with bound 0 (docs/verdicts.md §2.2: Q ≡ 0 is trace
// refinement, and with no obligation ever open and complete modes agree),
// whose search has rules the plain one lacks (quasiprune.go: rule F, the
// enqueue dominance). Steps 1 and 2 use it; the test case is re-checked for
// linearizability (step 3).
func (z *localizer) distinctQueue() {
	if z.opt.Quasi == nil && locDistinctQueue(z.m, z.ops) {
		z.popt.Quasi = &relax.Config{
			Classes:  []relax.Class{{Patterns: []lts.Pattern{lts.ParsePattern("deq")}, Bound: 0}},
			Barriers: []lts.Pattern{lts.ParsePattern("deq.0")},
		}
	}
}

// budgetFor gives prefix and sub-history checks of a quasi check a state
// budget (deterministic): one check near the violation can be much harder
// than the others (a prefix that is barely accepted, or refuted only by a
// long search), while a slightly longer prefix is refuted at once. A check
// that uses up the budget leaves its prefix undecided
// (Localization.Undecided).
func (z *localizer) budgetFor(sub []Op) (Options, bool) {
	o := z.popt
	b := locBudget(o.Quasi, len(sub))
	if o.Quasi == nil {
		// Linearizability: prefix checks are refuted by the search's
		// pruning or not at all quickly; no budget.
		return o, false
	}
	if o.Limits.MaxStates == 0 || o.Limits.MaxStates > b {
		o.Limits.MaxStates = b
		return o, true
	}
	return o, false
}

// verdictAt checks prefix(n): Unknown only when the budget (not the
// caller's limits) ran out; a check stopped by the caller's limits is kept
// in z.limit.
func (z *localizer) verdictAt(n int) (lts.Verdict, error) {
	if v, ok := z.seen[n]; ok {
		return v, nil
	}
	sub := locPrefix(z.ops, z.evs, n)
	bopt, budgeted := z.budgetFor(sub)
	r, err := z.check(sub, bopt)
	if err != nil {
		return 0, err
	}
	if r.Verdict == lts.Unknown {
		if !budgeted || z.ctx.Err() != nil || !strings.HasPrefix(r.Reason, "state limit") {
			z.limit = r
			return lts.Unknown, nil
		}
		z.l.Undecided = append(z.l.Undecided, n)
	}
	z.seen[n] = r.Verdict
	return r.Verdict, nil
}

// shortestPrefix is step 1 on a prefix-closed check: the shortest violating
// prefix. done reports that the run has ended.
func (z *localizer) shortestPrefix() (prefix []Op, done bool, err error) {
	lo, hi, done, err := z.gallop()
	if done || err != nil {
		return nil, done, err
	}
	hi, err = z.bisect(lo, hi)
	if err != nil {
		return nil, true, err
	}
	if z.limit != nil {
		z.l.Verdict, z.l.Reason = lts.Unknown, "shortest prefix: "+z.limit.Reason
		return nil, true, nil
	}
	slices.Sort(z.l.Undecided)
	z.l.PrefixEvents = hi
	if last := z.evs[hi-1]; last.ret {
		z.l.Revealing = z.ops[last.op].ID
	}
	return locPrefix(z.ops, z.evs, hi), false, nil
}

// gallop checks prefixes of 16, 32, 64, ... events until one violates (the
// whole history last: if it does not violate, there is nothing to
// localise). prefix(lo) is accepted (or undecided) and prefix(hi) violates.
func (z *localizer) gallop() (lo, hi int, done bool, err error) {
	for n := min(16, len(z.evs)); ; n = min(2*n, len(z.evs)) {
		v, err := z.verdictAt(n)
		if err != nil {
			return 0, 0, true, err
		}
		if z.limit != nil {
			if n < len(z.evs) {
				z.limit.Reason = "shortest prefix: " + z.limit.Reason
			}
			z.notViolating(z.limit)
			return 0, 0, true, nil
		}
		if v == lts.Invalid {
			return lo, n, false, nil
		}
		if n == len(z.evs) {
			if v != lts.Unknown {
				z.notViolating(&Result{Verdict: lts.Valid})
				return 0, 0, true, nil
			}
			// Even the whole history is undecided within the budget: the
			// caller's limits decide.
			r, err := z.check(z.ops, z.popt)
			if err != nil {
				return 0, 0, true, err
			}
			if r.Verdict != lts.Invalid {
				z.notViolating(r)
				return 0, 0, true, nil
			}
			return lo, n, false, nil
		}
		if v == lts.Valid {
			lo = n
		}
	}
}

// bisect narrows (lo, hi] to the shortest decided violating prefix.
// Violation is monotone in n, so a check that is valid moves lo up and one
// that violates moves hi down; an undecided n counts as violating first
// (the shortest violating prefix is then in (lo, n] if every n' <= n is in
// fact violating or accepted), then, to end on a decided one, as accepted in
// a second bisection between the least undecided length and the least
// decided violating one. Each stays logarithmic.
func (z *localizer) bisect(lo, hi int) (int, error) {
	decided := hi // the least decided violating length
	for hi-lo > 1 {
		n := lo + (hi-lo)/2
		v, err := z.verdictAt(n)
		if err != nil {
			return 0, err
		}
		if z.limit != nil {
			break
		}
		switch v {
		case lts.Invalid:
			hi, decided = n, n
		case lts.Valid:
			lo = n
		default:
			hi = n
		}
	}
	for lo = hi; decided-lo > 1 && z.limit == nil; {
		n := lo + (decided-lo)/2
		v, err := z.verdictAt(n)
		if err != nil {
			return 0, err
		}
		if v == lts.Invalid {
			decided = n
		} else {
			lo = n
		}
	}
	return decided, nil
}

// without is items less items[i:j], in a new slice.
func without(items []int, i, j int) []int {
	return append(append([]int(nil), items[:i]...), items[j:]...)
}

// minimize is step 2: delta debugging over the units of prefix, first in
// halving chunks, then single units until none can go.
func (z *localizer) minimize(prefix []Op) ([]Op, error) {
	us := newLocUnits(prefix, z.obs)
	items := us.all()
	violates := func(keep []int) (bool, error) {
		sub := us.gather(keep)
		bopt, _ := z.budgetFor(sub)
		r, err := z.check(sub, bopt)
		if err != nil {
			return false, err
		}
		return r.Verdict == lts.Invalid, nil // Unknown keeps the units: conservative
	}
	for chunk := len(items) / 2; chunk >= 1; chunk /= 2 {
		for i := 0; i < len(items) && len(items) > 1; {
			end := min(i+chunk, len(items))
			rest := without(items, i, end)
			ok, err := violates(rest)
			if err != nil {
				return nil, err
			}
			if ok {
				items = rest
			} else {
				i = end
			}
		}
		if chunk == 1 {
			break
		}
	}
	for changed := true; changed && len(items) > 1; {
		changed = false
		for i := 0; i < len(items) && len(items) > 1; i++ {
			rest := without(items, i, i+1)
			ok, err := violates(rest)
			if err != nil {
				return nil, err
			}
			if ok {
				items, changed = rest, true
				i--
			}
		}
	}
	return us.gather(items), nil
}

// report is step 3: the test case as reported, its operations as they are
// in the history, pending ones with their completions (a violation with
// fixed results, obligatory operations and more real-time order stays one);
// then single units again under the plain model, and the check from scratch
// that is reported.
func (z *localizer) report(tc []Op) (*Localization, error) {
	l := z.l
	byID := make(map[int]*Op, len(z.ops))
	for i := range z.ops {
		byID[z.ops[i].ID] = &z.ops[i]
	}
	for i := range tc {
		if o, ok := byID[tc[i].ID]; ok && z.fm.fixed != nil {
			tc[i] = *o
		}
	}
	sopt := z.popt // the check asked for
	if z.opt.Quasi == nil {
		sopt = z.opt
	}
	us := newLocUnits(tc, z.obs)
	items := us.all()
	for i := 0; i < len(items) && len(items) > 1; i++ {
		rest := without(items, i, i+1)
		// A quasi check of what remains gets the state budget of step 2:
		// one that is accepted only after a long search (every order of
		// long concurrent enqueues) would otherwise cost most of the run;
		// an undecided one keeps its unit.
		ropt := sopt
		if z.opt.Quasi != nil {
			if b := locBudget(sopt.Quasi, len(tc)); ropt.Limits.MaxStates == 0 || ropt.Limits.MaxStates > b {
				ropt.Limits.MaxStates = b
			}
		}
		ropt.noReplay = true // only the verdict is used
		r, err := z.plain(us.gather(rest), ropt)
		if err != nil {
			return nil, err
		}
		if r.Verdict == lts.Invalid {
			items = rest
			i = -1
		}
	}
	tc = us.gather(items)
	res, err := z.plain(tc, sopt)
	if err != nil {
		return nil, err
	}
	if res.Verdict != lts.Invalid {
		l.Verdict = lts.Unknown
		l.Reason = fmt.Sprintf("internal error: the minimal test case is %v when re-checked", res.Verdict)
		return l, nil
	}
	l.Verdict, l.Reason, l.Ops, l.Result = lts.Invalid, res.Reason, tc, res
	l.Sequential, l.Core, l.Suffix = locSplit(tc)
	return l, nil
}

// locDistinctQueue reports whether ops are a history of the built-in queue
// with positive distinct values put and removed at most once each and no
// dequeue pending with an unknown result: the setting in which Localize
// checks linearizability as quasi-linearizability with bound 0.
func locDistinctQueue(m Model, ops []Op) bool {
	cm, ok := m.(containerModel)
	if !ok || cm.kind != cQueue {
		return false
	}
	cops, err := cm.compileOps(ops)
	if err != nil {
		return false
	}
	put, took := map[int64]bool{}, map[int64]bool{}
	for _, r := range cops {
		switch {
		case r.code == coPut:
			if r.arg <= 0 || put[r.arg] {
				return false
			}
			put[r.arg] = true
		case r.code == coTake && r.info:
			return false
		case r.code == coTake && r.empty:
		case r.code == coTake:
			if r.res <= 0 || took[r.res] {
				return false
			}
			took[r.res] = true
		default:
			return false
		}
	}
	return true
}

// locStates + locStatesPerOp per operation is the state budget of each
// check of Localize's first two steps (see LocalizeOps): far above what the
// prefixes of stress tests need (a few states per operation: the search
// hardly backtracks on an accepted prefix and prunes a refuted one early),
// small enough that an undecided one costs a fraction of a second. (Vars
// for tests.)
var locStates, locStatesPerOp = 1 << 13, 2

// locStatesWindow replaces locStates when every event is in one class
// (windowing: `--quasi K`, quasitail.go). A state of that search costs
// far more (each fresh read pulls up to K events among the puts left), and
// the test cases do not depend on it: on 20 starving-queue recordings at
// K = 3, budgets of 256, 512, 1,024, 2,048 and 8,192 states gave test
// cases of 270, 270, 269, 270 and 269 operations in all (21 at most), in
// 3.0, 4.2, 9.5, 26 and 50 s of CPU in all (0.3, 0.4, 1.1, 2.3 and 9.5 s
// at most).
var locStatesWindow = 1 << 9

// locBudget is the state budget of a check of n operations with quasi
// factor q (see locStates).
func locBudget(q *relax.Config, n int) int {
	if q != nil && windowing(q) {
		return locStatesWindow + locStatesPerOp*n
	}
	return locStates + locStatesPerOp*n
}

// locFixedModel is m for sub-histories of one history: an operation that is
// pending in the sub-history (its completion is after a prefix's cut) but
// completed in the history may take effect only with the result it really
// returned, or not at all. This keeps Theorem 1: if the history has a
// witness W, the prefix of W up to its last operation completed before
// the cut contains only operations invoked before the cut (every later one
// follows those completed ones), with their real results: a witness of the
// prefix. And it keeps prefix checks cheap, where "any result" would let
// each pending dequeue take any value at any time. fixed is nil (no
// fixing) if op IDs are not unique.
type locFixedModel struct {
	m     Model
	fixed map[int]*Op
}

var _ AutomatonModel = (*locFixedModel)(nil)
var _ Partitioner = (*locFixedModel)(nil)

func newLocFixedModel(m Model, ops []Op) *locFixedModel {
	f := &locFixedModel{m: m, fixed: make(map[int]*Op, len(ops))}
	for i := range ops {
		if _, dup := f.fixed[ops[i].ID]; dup {
			f.fixed = nil
			break
		}
		f.fixed[ops[i].ID] = &ops[i]
	}
	for id, o := range f.fixed {
		if o.Status != Ok {
			delete(f.fixed, id) // Info in the history: any result
		}
	}
	return f
}

func (f *locFixedModel) fix(o Op) Op {
	if c, ok := f.fixed[o.ID]; ok && o.Return == Pending {
		o.Status, o.Output = Ok, c.Output
	}
	return o
}

func (f *locFixedModel) fixAll(ops []Op) []Op {
	out := make([]Op, len(ops))
	for i := range ops {
		out[i] = f.fix(ops[i])
	}
	return out
}

func (f *locFixedModel) Name() string { return f.m.Name() }

func (f *locFixedModel) Compile(ops []Op) (Machine, error) { return f.m.Compile(f.fixAll(ops)) }

func (f *locFixedModel) Event(o *Op) (string, []int, bool, error) {
	ev, ok := f.m.(Eventer)
	if !ok {
		return "", nil, false, fmt.Errorf("model %s has no event view", f.m.Name())
	}
	c := f.fix(*o)
	return ev.Event(&c)
}

func (f *locFixedModel) Automaton(ops []Op) (lts.Automaton, error) {
	am, ok := f.m.(AutomatonModel)
	if !ok {
		return nil, fmt.Errorf("model %s has no event view: quasi-linearizability needs queue, stack, pqueue, set or an automaton model", f.m.Name())
	}
	return am.Automaton(f.fixAll(ops))
}

func (f *locFixedModel) Partition(ops []Op) ([][]int, []string) {
	if p, ok := f.m.(Partitioner); ok {
		return p.Partition(ops)
	}
	all := make([]int, len(ops))
	for i := range all {
		all[i] = i
	}
	return [][]int{all}, []string{""}
}

// locEvent is an invocation or completion of ops[op].
type locEvent struct {
	t   int64
	ret bool
	op  int
}

// locEvents orders invocations and completions by time, invocations first at
// equal times (equal times are concurrent), then by op index.
func locEvents(ops []Op) []locEvent {
	evs := make([]locEvent, 0, 2*len(ops))
	for i, o := range ops {
		evs = append(evs, locEvent{o.Call, false, i})
		if o.Return != Pending {
			evs = append(evs, locEvent{o.Return, true, i})
		}
	}
	slices.SortFunc(evs, func(a, b locEvent) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		if a.ret != b.ret {
			if a.ret {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.op, b.op)
	})
	return evs
}

// locPrefix is the sub-history of the first n events: operations invoked
// among them, pending if their completion is not. A pending operation with
// values (arguments or results) none of which a completed operation of the
// prefix mentions is left out: it cannot explain an observed result (an
// enqueue whose value nobody dequeued yet), while keeping it lets the
// search place it anywhere, which on busy histories (a pending enqueue per
// goroutine) multiplies the states by the orders of those enqueues.
// Pending operations without values (a dequeue) are kept.
func locPrefix(ops []Op, evs []locEvent, n int) []Op {
	in := make([]int8, len(ops)) // 1 invoked, 2 completed
	for _, e := range evs[:n] {
		if e.ret {
			in[e.op] = 2
		} else {
			in[e.op] = 1
		}
	}
	seen := map[string]bool{}
	for i, o := range ops {
		if in[i] == 2 {
			locAtoms(o.Input, func(k string) { seen[k] = true })
			if o.Status == Ok {
				locAtoms(o.Output, func(k string) { seen[k] = true })
			}
		}
	}
	var out []Op
	for i, o := range ops {
		switch in[i] {
		case 1:
			atoms, mentioned := 0, false
			locAtoms(o.Input, func(k string) { atoms++; mentioned = mentioned || seen[k] })
			if atoms > 0 && !mentioned {
				continue
			}
			o.Status, o.Return = Info, Pending
			out = append(out, o)
		case 2:
			out = append(out, o)
		}
	}
	return out
}

// locAtoms calls fn with the key of each integer or string in v (lists are
// walked; nil and booleans are not values that connect operations).
func locAtoms(v Value, fn func(string)) {
	switch v.Kind() {
	case IntKind, StringKind:
		fn(v.String())
	case ListKind:
		l, _ := v.List()
		for _, e := range l {
			locAtoms(e, fn)
		}
	}
}

// locObserver returns which operations of m only observe the state (a
// read of a register, a get, a failed compare-and-set, a set's contains):
// removing one from a linearizable history leaves it linearizable, so each
// can go on its own.
// A model says so by a method Observer(*Op) bool; the built-in ones are
// known by name. Every other operation is treated as a mutator.
func locObserver(m Model) func(*Op) bool {
	if o, ok := m.(interface{ Observer(*Op) bool }); ok {
		return o.Observer
	}
	var names []string
	switch m.Name() {
	case "register", "cas-register", "kv":
		names = []string{"read", "get"}
	case "set":
		names = []string{"contains", "has"}
	}
	return func(o *Op) bool {
		if o.F == "cas" && len(names) > 0 && o.Status == Ok {
			b, isBool := o.Output.Bool()
			return isBool && !b // compared and did not swap
		}
		return slices.Contains(names, o.F)
	}
}

// locUnits are the removable items of a sub-history. Mutators connected by a
// value (an argument of one is a result or argument of another: enq(5),
// deq() -> 5; write(1), cas(1, 2)) form one unit, removed together; each
// observer is a unit of its own that depends on the units of the values it
// mentions, and goes whenever one of those goes (a read of 1 without any
// write of 1 would be an invented violation).
type locUnits struct {
	ops   []Op
	items [][]int // op indices of each unit, in order of their first op
	deps  [][]int // units an observer unit depends on
}

func newLocUnits(ops []Op, observer func(*Op) bool) *locUnits {
	u := &locUnits{ops: ops}
	parent := make([]int, len(ops))
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	owner := map[string]int{}
	obs := make([]bool, len(ops))
	for i := range ops {
		obs[i] = observer(&ops[i])
		if obs[i] {
			continue
		}
		link := func(k string) {
			if j, ok := owner[k]; ok {
				a, b := find(i), find(j)
				if a != b {
					parent[max(a, b)] = min(a, b)
				}
			} else {
				owner[k] = i
			}
		}
		locAtoms(ops[i].Input, link)
		if ops[i].Status == Ok {
			locAtoms(ops[i].Output, link)
		}
	}
	byRoot := map[int]int{}
	of := make([]int, len(ops)) // unit of each mutator
	for i := range ops {
		if obs[i] {
			u.items = append(u.items, []int{i})
			u.deps = append(u.deps, nil)
			continue
		}
		r := find(i)
		k, ok := byRoot[r]
		if !ok {
			k = len(u.items)
			byRoot[r] = k
			u.items = append(u.items, nil)
			u.deps = append(u.deps, nil)
		}
		u.items[k] = append(u.items[k], i)
		of[i] = k
	}
	// String atoms of mutators, for observed strings that concatenate
	// several (a kv get after appends).
	var strs []string
	for a := range owner {
		if len(a) > 2 && a[0] == '"' {
			strs = append(strs, a)
		}
	}
	slices.Sort(strs)
	for k, it := range u.items {
		if i := it[0]; obs[i] {
			add := func(j int) {
				if !slices.Contains(u.deps[k], of[j]) {
					u.deps[k] = append(u.deps[k], of[j])
				}
			}
			dep := func(a string) {
				if j, ok := owner[a]; ok {
					add(j)
					return
				}
				if len(a) > 2 && a[0] == '"' {
					// Not one mutator's value: it depends on each whose
					// string it contains (the appends it saw).
					for _, b := range strs {
						if strings.Contains(a[1:len(a)-1], b[1:len(b)-1]) {
							add(owner[b])
						}
					}
				}
			}
			locAtoms(u.ops[i].Input, dep)
			if u.ops[i].Status == Ok {
				locAtoms(u.ops[i].Output, dep)
			}
		}
	}
	return u
}

// all is the list of every unit.
func (u *locUnits) all() []int {
	out := make([]int, len(u.items))
	for i := range out {
		out[i] = i
	}
	return out
}

// gather returns the operations of the kept units, in their original
// order, leaving out observers whose values lost their units.
func (u *locUnits) gather(keep []int) []Op {
	kept := make([]bool, len(u.items))
	for _, k := range keep {
		kept[k] = true
	}
	var idx []int
	for _, k := range keep {
		ok := true
		for _, d := range u.deps[k] {
			ok = ok && kept[d]
		}
		if ok {
			idx = append(idx, u.items[k]...)
		}
	}
	slices.Sort(idx)
	out := make([]Op, len(idx))
	for n, i := range idx {
		out[n] = u.ops[i]
	}
	return out
}

// locSplit cuts the test case at its quiescent points (see Localization) and
// returns the op IDs of the sequential prefix, the core and the suffix.
func locSplit(ops []Op) (seq, core, suffix []int) {
	evs := locEvents(ops)
	var blocks [][]int
	open := 0
	var cur []int
	for _, e := range evs {
		if e.ret {
			open--
		} else {
			open++
			cur = append(cur, e.op)
		}
		if open == 0 {
			blocks = append(blocks, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		blocks = append(blocks, cur) // ends with pending operations
	}
	first, last := -1, -1
	for b, blk := range blocks {
		if len(blk) > 1 {
			if first < 0 {
				first = b
			}
			last = b
		}
	}
	ids := func(bs [][]int) []int {
		var out []int
		for _, b := range bs {
			for _, i := range b {
				out = append(out, ops[i].ID)
			}
		}
		return out
	}
	if first < 0 {
		// Sequential violation: the last operation reveals it.
		return ids(blocks[:len(blocks)-1]), nil, ids(blocks[len(blocks)-1:])
	}
	return ids(blocks[:first]), ids(blocks[first : last+1]), ids(blocks[last+1:])
}
