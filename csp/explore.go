package csp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/quasar-verify/quasar/internal/budget"
	"github.com/quasar-verify/quasar/internal/frontier"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// Options configure a check. The zero value explores sequentially without
// limits.
type Options struct {
	lts.Limits
	// Workers > 1 expands each BFS level in parallel; the verdict, the
	// state count and the counterexample are the same as sequentially,
	// and on a Proc (whose workers also intern, store_par.go) so are the
	// state ids and the transitions.
	Workers int
	// Progress, if set, is called from the searching goroutine about every
	// 100 ms with the figures so far (for a live progress line).
	Progress func(lts.Stats)
	// NoSymmetry keeps CheckAssertion from reducing deadlock and
	// termination checks by thread symmetry (SymmetricProcess).
	NoSymmetry bool
	// Compact, if its Mode is not Exact, makes the checks store a
	// fingerprint or a few bits per visited state (Proc.Compacted): a
	// verdict that rests on having visited every state is then
	// probabilistic (Result.Probabilistic, Result.Coverage), and the search
	// is sequential whatever Workers says. The system must be a *Proc.
	Compact Compaction
}

// Step is one step of a counterexample: the event (its name, "tau" for
// invisible steps), the component that made it, and the variables (and
// control states) after it.
type Step struct {
	Event string        `json:"event"`
	Who   string        `json:"who,omitempty"`
	State lts.State     `json:"-"`
	Vars  []lts.Binding `json:"vars,omitempty"`
}

// Result is the outcome of a check.
type Result struct {
	Verdict lts.Verdict `json:"verdict"`
	Reason  string      `json:"reason,omitempty"`
	Stats   lts.Stats   `json:"stats"`
	// Trace leads from the initial state (Trace[0] has no event and shows
	// the initial variables) to the witness or counterexample state.
	Trace []Step `json:"trace,omitempty"`
	// Loop, for a divergence, is the cycle of tau steps from the last
	// state of Trace back to it.
	Loop []Step `json:"loop,omitempty"`
	// Value is the optimum of a reaches … with min/max check.
	Value    int64 `json:"value,omitempty"`
	HasValue bool  `json:"has_value,omitempty"`
	// Err is the run-time error of the model that stopped the search (the
	// trace leads to the state whose step failed); the verdict is then
	// Unknown and the check itself returns no error.
	Err *lts.RuntimeError `json:"error,omitempty"`
	// Coverage describes the probabilistic visited set of a compact
	// search (Options.Compact), nil otherwise.
	Coverage *Coverage `json:"coverage,omitempty"`
	// Probabilistic: the verdict rests on a compact search having visited
	// every reachable state (valid without a trace, reaches' optimum, or
	// reaches invalid), which it may not have done: Coverage.Omission
	// estimates the probability. A verdict with a trace is exact: the
	// trace was rebuilt on the system.
	Probabilistic bool `json:"probabilistic,omitempty"`
}

// visitor is called for every state in BFS order with its transitions; it
// returns true to stop the search.
type visitor func(s lts.State, ts []lts.Transition) bool

// bfs is a breadth-first exploration that records a parent tree, so any
// visited state has a shortest path from the initial state.
type bfs struct {
	sys    lts.System
	opt    Options
	b      *budget.Budget
	tree   [][]lts.State // the parent tree, in blocks of treeBlock states
	evs    [][]lts.Event // a compacted system's transition indices (cp), as tree
	sink   lts.State     // keeps the loads of warm alive
	seen   int64
	trans  int64
	depth  int
	err    error
	errAt  lts.State
	reason string
	shown  time.Time // last call of opt.Progress
	// cp is the system when it is compacted (Proc.Compacted): the search
	// is then sequential, releases each level's bytes when the next one is
	// expanded (so a path's states cannot be expanded again), and the
	// search keeps beside the parent tree the index of each state's
	// transition in its parent's successors (evs), so that a path can be
	// replayed from the initial state (Proc.rebuild).
	cp *Proc
	// lean: the search may leave the states from treeKeep on out of the
	// parent tree (an exact search of a Proc, by runBatched or
	// runParallelProc: see "The parent tree beyond treeKeep" below).
	// inOrder: every state marked so far was marked with the next id
	// (the marked states are the ids below seen). dense: once inOrder
	// has ended, the ids below it were marked in order. starts[d]: the
	// first id of level d, recorded while inOrder.
	lean, inOrder bool
	dense         lts.State
	starts        []lts.State
	// ctx stops the rebuilding of a path (cancellation only).
	ctx context.Context
	// parSerial and parTotal are the nanoseconds of the serial phases and
	// of all the rounds of a parallel search of a Proc (runParallelProc).
	parSerial, parTotal int64
	parDeferred         int
	parPaths            [9]int // parSearch's nFolded, nByKey, nMerge, nSerial, nSlot4, nGrow4, nLeft4, nWords, nUnpack
	parPhase            [5]int64
	parPhaseCPU         [5]int64
	parWork, parCrit    int64
	parCoord, parRound  int64
	parWait, parWake    int64
}

const noState = ^lts.State(0)

// A state's entry of the parent tree is its BFS predecessor plus one (0 =
// not seen yet, so a fresh block needs no initialisation). The event from
// the predecessor is not kept (4 bytes a state): a path's events are found
// again by expanding its states (treeEvent). The tree grows by blocks, so
// growing it copies nothing (doubling flat arrays cost copies and page
// faults of the whole tree on big explorations).

const (
	treeBits  = 13
	treeBlock = 1 << treeBits
)

// The parent tree beyond treeKeep.
//
// An exact search of a Proc keeps the tree for the ids below treeKeep
// only (4 MiB), and for the others records where each level starts. A
// Proc's ids are dense and given in the order in which its states are
// first interned, and runBatched and runParallelProc (whose workers give
// the one-worker ids) intern the successors of a level's states in the
// level's order; so while every state the search marks has the next id
// (inOrder, which mark checks for every state), the states marked are the
// ids below seen, a level is the range of ids from its start to the
// next level's, in the order in which it is expanded, and a state is new
// exactly when its id is seen. The tree parent of a state s of level d
// is then the first state of level d-1, in id order, among whose
// successors s occurs (the search marks s from the first transition that
// reaches it, expanding the level in id order and each state's
// transitions in their order), and its event is that of the first such
// transition (the same order whenever a state is expanded). A path
// beyond treeKeep is rebuilt by scanning the level above, in id order,
// until that parent is found (Proc.firstParent compares the encoded
// successors with the state's bytes: nothing is interned), then the
// level above that one, and so on up to treeKeep, from where the tree
// leads on. This costs at most one more expansion of the levels
// involved. Under a symmetry the ids are those of the representatives,
// interned in the same order, and the successors compared are the
// representatives.
//
// Anything else ends inOrder for the rest of the search: a state marked
// with another id (the Proc held states the search had not marked: it
// was used before, or another goroutine interns into it), which mark
// sees. From then on every state is marked in the tree, which is again
// the visited set beyond the ids below dense; a state below dense and
// treeKeep or above keeps being rebuilt, since its level and the one
// above were complete, in order, before. The tree is kept whole by the
// other searches: a compacted one (its states cannot be read back), the
// frontier's parallel search (its workers intern in any order), the
// plain search of other systems.
//
// Only a cancellation of the context (Ctrl-C) stops a rebuild, which
// then leaves the check unknown: a time limit does not, since the
// rebuild adds no state and costs at most one more expansion of the
// levels involved (docs/engine-log.md has the figures).

// treeKeep is the number of ids for which an exact search of a Proc keeps
// the parent tree (a variable for the tests).
var treeKeep lts.State = 1 << 20

func newBFS(ctx context.Context, sys lts.System, opt Options) *bfs {
	x := &bfs{sys: sys, opt: opt, b: budget.New(ctx, opt.Timeout, opt.MaxStates, opt.MaxBytes), shown: time.Now(), ctx: ctx}
	if p, ok := sys.(*Proc); ok && p.fp != nil {
		x.cp = p
	}
	return x
}

// compacted returns the system a check of kind k runs on: sys, or its
// compacted twin when opt.Compact asks for one (an error if the check or
// the system does not allow it). kind < 0: an exploration.
func compacted(sys lts.System, opt Options, kind lang.AssertKind) (lts.System, error) {
	p, ok := sys.(*Proc)
	mode := opt.Compact.Mode
	if mode == Exact && ok && p.fp != nil {
		mode = p.fp.mode
	}
	if mode == Exact {
		return sys, nil
	}
	if kind >= 0 {
		if err := CompactSupports(kind, mode); err != nil {
			return nil, err
		}
	}
	if !ok {
		return nil, fmt.Errorf("%s needs a process of a CSP# model, not a %T", mode, sys)
	}
	if p.fp != nil {
		if opt.Compact.Mode != Exact && p.fp.mode != opt.Compact.Mode {
			return nil, fmt.Errorf("the system is compacted by %s, not %s", p.fp.mode, opt.Compact.Mode)
		}
		return p, nil
	}
	return p.Compacted(opt.Compact)
}

// poll checks the limits (the reason to stop, or "") and reports progress.
func (x *bfs) poll() string {
	if r := x.b.Exceeded(int(x.seen)); r != "" {
		return r
	}
	if x.opt.Progress != nil && time.Since(x.shown) > 100*time.Millisecond {
		x.shown = time.Now()
		x.opt.Progress(lts.Stats{States: x.seen, Transitions: x.trans, Seconds: x.b.Seconds(), PeakBytes: x.b.Peak(), Depth: x.depth})
	}
	return ""
}

func (x *bfs) mark(s, from lts.State, e lts.Event) bool {
	if x.lean {
		if x.inOrder {
			n := lts.State(x.seen)
			if s < n {
				return false
			}
			if s == n && s >= treeKeep {
				x.seen++
				return true
			}
			if s != n {
				x.leaveOrder()
			}
		} else if s < x.dense && s >= treeKeep {
			return false
		}
	}
	b := int(s >> treeBits)
	for b >= len(x.tree) {
		x.tree = append(x.tree, make([]lts.State, treeBlock))
		if x.cp != nil {
			x.evs = append(x.evs, make([]lts.Event, treeBlock))
		}
	}
	up := &x.tree[b][s&(treeBlock-1)]
	if *up != 0 {
		return false
	}
	*up = from + 1
	if x.cp != nil {
		x.evs[b][s&(treeBlock-1)] = e
	}
	x.seen++
	return true
}

// leaveOrder ends the search's inOrder: the ids below seen were marked
// in order, the others go to the tree.
func (x *bfs) leaveOrder() {
	x.inOrder, x.dense = false, lts.State(x.seen)
}

// startLevel records the start of the next level (its first id) while
// the search is in order.
func (x *bfs) startLevel() {
	if x.lean && x.inOrder {
		x.starts = append(x.starts, lts.State(x.seen))
	}
}

// treeless reports whether s was marked in order beyond treeKeep: its
// tree entry was not kept.
func (x *bfs) treeless(s lts.State) bool {
	if !x.lean || s < treeKeep {
		return false
	}
	if x.inOrder {
		return s < lts.State(x.seen)
	}
	return s < x.dense
}

// warm touches the parent-tree entries of the targets of ts, in a tight
// loop whose cache misses overlap, before mark visits them one by one.
func (x *bfs) warm(ts []lts.Transition) {
	var sink lts.State
	for _, t := range ts {
		if b := int(t.Target >> treeBits); b < len(x.tree) {
			sink += x.tree[b][t.Target&(treeBlock-1)]
		}
	}
	x.sink += sink
}

// up returns s's predecessor in the parent tree (s itself for the
// initial state; noState if s is not in the tree).
func (x *bfs) up(s lts.State) lts.State {
	if b := int(s >> treeBits); b < len(x.tree) {
		return x.tree[b][s&(treeBlock-1)] - 1
	}
	return noState
}

// run explores from the initial state, calling visit on each state in BFS
// order. It stops when visit returns true, on a limit (reason set) or on a
// model error (err set).
func (x *bfs) run(visit visitor) {
	init := x.sys.Initial()
	if _, ok := x.sys.(*Proc); ok && x.cp == nil && (x.opt.Workers <= 1 || !parOff) {
		// runBatched or runParallelProc: see "The parent tree beyond
		// treeKeep".
		x.lean, x.inOrder = true, true
		x.starts = append(x.starts[:0], 0)
	}
	x.mark(init, init, lts.Tau)
	level := []lts.State{init}
	if (x.opt.Workers > 1 || parForce) && x.cp == nil {
		x.runParallel(level, visit)
		return
	}
	var buf []lts.Transition
	var next []lts.State
	if bs, ok := x.sys.(frontier.Batcher); ok {
		x.runBatched(bs, level, visit)
		return
	}
	for len(level) > 0 {
		next = next[:0]
		for i, s := range level {
			if i&255 == 0 {
				if r := x.poll(); r != "" {
					x.reason = r
					return
				}
			}
			var err error
			buf, err = x.sys.Successors(s, buf[:0])
			if err != nil {
				x.err, x.errAt = err, s
				return
			}
			x.trans += int64(len(buf))
			if visit(s, buf) {
				return
			}
			for _, t := range buf {
				if x.mark(t.Target, s, t.Event) {
					next = append(next, t.Target)
				}
			}
		}
		if len(next) > 0 {
			x.depth++
		}
		level, next = next, level
	}
}

// runBatched is run for a frontier.Batcher (*Proc is one, to overlap the
// cache misses of its state set): the same visit order, in batches.
func (x *bfs) runBatched(bs frontier.Batcher, first []lts.State, visit visitor) {
	var buf []lts.Transition
	var counts []int
	level := idRun{ids: first, listed: true}
	var next idRun
	var buf1 []lts.State // a batch of a run
	sized, _ := bs.(lts.Sized)
	for level.n() > 0 {
		if x.cp != nil {
			// The levels before this one are done: their bytes go.
			x.cp.forget(level.at(0))
		}
		x.startLevel()
		next.reset()
		for lo := 0; lo < level.n(); lo += frontier.BatchSize {
			if r := x.poll(); r != "" {
				x.reason = r
				return
			}
			hi := min(lo+frontier.BatchSize, level.n())
			batch := level.slice(lo, hi, &buf1)
			// If the search has marked as many states as the system
			// holds, it has marked exactly the ids below that count (a
			// Sized system's ids are dense): the targets below it (most
			// of them, on a big search) are known seen without reading
			// the parent tree at random; the others are new ids, which
			// come in order.
			known := lts.State(0)
			if sized != nil {
				if n := sized.NumStates(); int64(n) == x.seen {
					known = lts.State(n)
				}
			}
			var err error
			buf, counts, err = bs.SuccessorsBatch(batch, buf[:0], counts[:0])
			if known == 0 {
				x.warm(buf)
			}
			off := 0
			for k, n := range counts {
				s := batch[k]
				ts := buf[off : off+n]
				off += n
				x.trans += int64(n)
				if visit(s, ts) {
					return
				}
				for j, t := range ts {
					if t.Target < known {
						continue
					}
					ev := t.Event
					if x.cp != nil {
						ev = lts.Event(j)
					}
					if x.mark(t.Target, s, ev) {
						next.add(t.Target)
					}
				}
			}
			if err != nil {
				x.err, x.errAt = err, batch[len(counts)]
				return
			}
		}
		if next.n() > 0 {
			x.depth++
		}
		level, next = next, level
	}
}

// idRun is a BFS level of runBatched: the ids lo, lo+1, ..., lo+k-1 while
// they come in that order (a process's new states do: "The parent tree
// beyond treeKeep"), so that a level costs no memory (4 bytes a state of
// its largest two levels before: 9 MiB at the philosophers' N = 14), else
// the list ids (listed).
type idRun struct {
	lo     lts.State
	k      int
	ids    []lts.State
	listed bool
}

func (r *idRun) n() int {
	if r.listed {
		return len(r.ids)
	}
	return r.k
}

func (r *idRun) at(i int) lts.State {
	if r.listed {
		return r.ids[i]
	}
	return r.lo + lts.State(i)
}

// slice returns the ids i in [lo, hi): a part of the list, or written
// into *buf (the caller's own: not a part of a list, which a later add
// to this run may overwrite).
func (r *idRun) slice(lo, hi int, buf *[]lts.State) []lts.State {
	if r.listed {
		return r.ids[lo:hi]
	}
	b := (*buf)[:0]
	for i := lo; i < hi; i++ {
		b = append(b, r.lo+lts.State(i))
	}
	*buf = b
	return b
}

func (r *idRun) add(s lts.State) {
	if !r.listed {
		switch {
		case r.k == 0:
			r.lo, r.k = s, 1
			return
		case s == r.lo+lts.State(r.k):
			r.k++
			return
		}
		// Out of order: the run so far becomes a list.
		r.ids = r.ids[:0]
		for i := range r.k {
			r.ids = append(r.ids, r.lo+lts.State(i))
		}
		r.listed = true
	}
	r.ids = append(r.ids, s)
}

// reset empties r (a run again, its list's room kept).
func (r *idRun) reset() {
	r.k, r.ids, r.listed = 0, r.ids[:0], false
}

// runParallel expands each level with several workers (internal/frontier),
// then merges in the level's order, which makes the visit order, the
// parent tree and hence the counterexamples identical to the sequential
// search.
func (x *bfs) runParallel(level []lts.State, visit visitor) {
	if p, ok := x.sys.(*Proc); ok && p.fp == nil && !parOff {
		x.runParallelProc(p, level, visit)
		return
	}
	exp := frontier.New(x.opt.Workers)
	var next []lts.State
	for len(level) > 0 {
		if r := x.poll(); r != "" {
			x.reason = r
			return
		}
		exp.Start(x.sys, level)
		errAt, err := exp.Wait()
		next = next[:0]
		for i, s := range level {
			if i == errAt {
				x.err, x.errAt = err, s
				return
			}
			ts := exp.Result(i)
			x.trans += int64(len(ts))
			if visit(s, ts) {
				return
			}
			for _, t := range ts {
				if x.mark(t.Target, s, t.Event) {
					next = append(next, t.Target)
				}
			}
			if i&255 == 0 && x.opt.MaxStates > 0 && int(x.seen) >= x.opt.MaxStates {
				x.reason = fmt.Sprintf("state limit %d", x.opt.MaxStates)
				return
			}
		}
		if len(next) > 0 {
			x.depth++
		}
		level, next = next, level[:0]
	}
}

// parForce (tests) makes a search of one worker take the parallel rounds,
// to compare their phases with one and with two workers.
var parForce = false

// parOff makes a parallel search of a Proc take the general path
// (frontier, interning under the Proc's lock), for comparison.
var parOff = false

// runParallelProc is runParallel for a Proc: each level is expanded in
// rounds in which the workers also intern the successors, into disjoint
// partitions of the store, with the one-worker ids (parSearch); the walk
// over a round's results in the level's order (visit, parent tree) stays
// sequential.
func (x *bfs) runParallelProc(p *Proc, first []lts.State, visit visitor) {
	r := newParSearch(p, x.opt.Workers)
	defer r.close()
	defer func() {
		x.parSerial, x.parTotal, x.parDeferred, x.parPhase, x.parPhaseCPU = r.serial, r.total, r.deferred, r.phase, r.phaseCPU
		x.parPaths = [9]int{r.nFolded, r.nByKey, r.nMerge, r.nSerial, r.nSlot4, r.nGrow4, r.nLeft4, r.nWords, r.nUnpack}
		x.parWork, x.parCrit, x.parCoord, x.parRound, x.parWait, x.parWake = r.cpuWork, r.cpuCrit, r.cpuCoord, r.cpuRound, r.cpuWait, r.cpuWake
	}()
	// The levels are idRuns, as in runBatched: the new states of a round
	// come in id order, so a level is a range of ids and costs no memory.
	level := idRun{ids: first, listed: true}
	var next idRun
	var buf []lts.State // a round of a run
	step := r.W * parRound
	for level.n() > 0 {
		x.startLevel()
		next.reset()
		for lo := 0; lo < level.n(); lo += step {
			if reason := x.poll(); reason != "" {
				x.reason = reason
				return
			}
			hi := min(lo+step, level.n())
			// As in runBatched: while the search has marked every state
			// the system holds, the targets below that count are known
			// seen, and the new ones come in order.
			known := lts.State(0)
			if n := p.NumStates(); int64(n) == x.seen {
				known = lts.State(n)
			}
			// While the search has marked every state (known == n0),
			// the workers write the parent tree's links of the new
			// states (their ids are the new ones, from n0 on).
			// (The round checks, under the Proc's lock, that the store
			// still holds known states: another goroutine may have
			// interned some since; the workers then leave the tree
			// alone, and the walk below marks the targets.)
			// In order (x.inOrder, "The parent tree beyond treeKeep"),
			// the new states from treeKeep on get no link, and a round
			// whose new states all lie there needs none.
			round := level.slice(lo, hi, &buf)
			r.growTree, r.onNew = nil, nil
			keep := noState
			if x.lean && x.inOrder {
				keep = treeKeep
			}
			if known > 0 && known < keep {
				r.treeN0 = uint32(known)
				r.growTree = func(n int) {
					n = int(min(lts.State(n), keep))
					for n > len(x.tree)<<treeBits {
						x.tree = append(x.tree, make([]lts.State, treeBlock))
					}
				}
				r.onNew = func(t lts.State, pos int, ev lts.Event) {
					if t < keep {
						x.tree[t>>treeBits][t&(treeBlock-1)] = round[pos] + 1
					}
				}
			}
			errAt, err := r.round(round)
			// The new states of the round are the ids from n0 on, in
			// the order of the keys of the strings that found them
			// (r.newBelow counts them): while known is n0, they are
			// marked from those keys, not by a pass over every
			// transition.
			n0 := lts.State(r.n0)
			fast := known == n0
			nk, key, seen0 := 0, 0, x.seen
			k := lo
			for w := range r.W {
				wk := &r.ws[w]
				off := 0
				for _, c := range wk.counts {
					if k-lo == errAt {
						break
					}
					s := round[k-lo]
					ts := wk.trans[off : off+c]
					off += c
					k++
					x.trans += int64(c)
					if visit(s, ts) {
						return
					}
					if fast {
						// Linked by the workers: count them.
						key += c
						nk = r.newBelow(key)
						x.seen = seen0 + int64(nk)
					} else {
						for _, t := range ts {
							if t.Target < known {
								continue
							}
							if x.mark(t.Target, s, t.Event) {
								next.add(t.Target)
							}
						}
					}
					if k&255 == 0 && x.opt.MaxStates > 0 && int(x.seen) >= x.opt.MaxStates {
						x.reason = fmt.Sprintf("state limit %d", x.opt.MaxStates)
						return
					}
				}
				if k-lo == errAt {
					x.err, x.errAt = err, round[k-lo]
					return
				}
			}
			if fast {
				for j := range nk {
					next.add(n0 + lts.State(j))
				}
			}
			if p.p.hot(p.NumStates()) {
				p.p.heatBlocks()
			}
		}
		if next.n() > 0 {
			x.depth++
		}
		level, next = next, level
	}
}

// path returns the states and events from the initial state to s; the
// path of a compacted system is rebuilt (an error if that fails).
func (x *bfs) path(s lts.State) ([]lts.State, []lts.Event, error) {
	if x.cp == nil {
		// From s up: a tree link and the event found again by expanding
		// the state above (treeEvent), or, beyond treeKeep, both found by
		// scanning the level above (parent).
		var ss []lts.State
		var es []lts.Event
		var buf []lts.Transition
		for init := x.sys.Initial(); s != init; {
			var p lts.State
			var e lts.Event
			var err error
			if len(ss) > x.depth {
				// A path is at most as long as the search is deep: a
				// corrupt tree ends here, not in a loop.
				return nil, nil, fmt.Errorf("internal error: the path to %d is longer than the search is deep (%d)", ss[0], x.depth)
			}
			if x.treeless(s) {
				p, e, err = x.parent(s)
			} else if p = x.up(s); p == noState {
				err = fmt.Errorf("internal error: state %d is not in the parent tree", s)
			} else {
				e, buf, err = x.treeEvent(p, s, buf)
			}
			if err != nil {
				return nil, nil, err
			}
			ss, es = append(ss, s), append(es, e)
			s = p
		}
		ss, es = append(ss, s), append(es, lts.Tau)
		slices.Reverse(ss)
		slices.Reverse(es)
		return ss, es, nil
	}
	ss := x.treePath(s)
	idx := make([]int, len(ss))
	for i, t := range ss {
		idx[i] = int(x.evs[t>>treeBits][t&(treeBlock-1)])
	}
	es, err := x.cp.rebuild(ss, idx)
	if err != nil {
		return nil, nil, fmt.Errorf("the counterexample could not be rebuilt from the compact search: %v", err)
	}
	return ss, es, nil
}

// errRebuildCancelled: the context was cancelled while a path was being
// rebuilt.
var errRebuildCancelled = errors.New("cancelled while rebuilding the path to the counterexample")

// parent returns the tree parent of s, a state marked in order beyond
// treeKeep, and the event from it: the first state of the level above
// s's with a transition to s ("The parent tree beyond treeKeep").
func (x *bfs) parent(s lts.State) (lts.State, lts.Event, error) {
	d := sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > s }) - 1
	if d < 1 {
		return 0, 0, fmt.Errorf("internal error: state %d has no level", s)
	}
	cancelled := func() bool { return x.ctx != nil && errors.Is(x.ctx.Err(), context.Canceled) }
	return x.sys.(*Proc).firstParent(x.starts[d-1], x.starts[d], s, cancelled)
}

// depthOf returns the depth of a marked state s.
func (x *bfs) depthOf(s lts.State) int {
	d := 0
	for init := x.sys.Initial(); s != init && !x.treeless(s) && d <= x.depth; s = x.up(s) {
		d++
	}
	if x.treeless(s) {
		d += sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > s }) - 1
	}
	return d
}

// treePath returns the states from the initial state to s.
func (x *bfs) treePath(s lts.State) []lts.State {
	var ss []lts.State
	init := x.sys.Initial()
	for {
		ss = append(ss, s)
		if s == init {
			break
		}
		p := x.up(s)
		if p == s {
			break
		}
		s = p
	}
	slices.Reverse(ss)
	return ss
}

// treeEvent returns the event of the tree link from p to s: that of the
// first transition of p to s. The search marks a new state from the first
// transition that reaches it, in the order of the level and of each
// state's transitions, and a state's transitions come in the same order
// whenever it is expanded, so this is the transition the search took.
func (x *bfs) treeEvent(p, s lts.State, buf []lts.Transition) (lts.Event, []lts.Transition, error) {
	buf, err := x.sys.Successors(p, buf[:0])
	if err != nil {
		return 0, buf, err
	}
	k := slices.IndexFunc(buf, func(t lts.Transition) bool { return t.Target == s })
	if k < 0 {
		return 0, buf, fmt.Errorf("internal error: state %d of the parent tree is no successor of %d", s, p)
	}
	return buf[k].Event, buf, nil
}

// whoer is implemented by systems that can name the component that made a
// transition (*Proc does).
type whoer interface {
	Who(t lts.State, e lts.Event, u lts.State) string
}

// Trace renders the path of states (events[i] leads into states[i];
// events[0] is ignored) as steps.
func Trace(sys lts.System, states []lts.State, events []lts.Event) []Step {
	d, _ := sys.(lts.Describer)
	w, _ := sys.(whoer)
	out := make([]Step, len(states))
	for i, s := range states {
		st := Step{State: s}
		if i > 0 {
			st.Event = sys.Events().Name(events[i])
			if w != nil {
				st.Who = w.Who(states[i-1], events[i], s)
			}
		}
		if d != nil {
			st.Vars = d.Describe(s)
		}
		out[i] = st
	}
	return out
}

func (x *bfs) finish(r *Result) *Result {
	x.b.Close()
	r.Stats = lts.Stats{States: x.seen, Transitions: x.trans, Seconds: x.b.Seconds(), PeakBytes: x.b.Peak(), Depth: x.depth}
	if p, ok := x.sys.(*Proc); ok {
		r.Stats.Symmetry = p.Symmetry()
	}
	if x.err != nil {
		r.Verdict = lts.Unknown
		if re, ok := x.err.(*lts.RuntimeError); ok {
			r.Err = re
		} else {
			r.Err = &lts.RuntimeError{Msg: x.err.Error()}
		}
		r.Reason = "run-time error: " + x.err.Error()
		ss, es, err := x.path(x.errAt)
		if err == nil {
			r.Trace, err = x.trace(ss, es)
		}
		if err != nil {
			r.Reason += "; " + err.Error()
		}
		x.cover(r)
		return r
	}
	if x.reason != "" && r.Verdict == lts.Valid {
		r.Verdict = lts.Unknown
		r.Reason = x.reason
	}
	x.cover(r)
	return r
}

// cover fills the coverage of a compact search and marks a verdict that
// rests on the search having visited every state.
func (x *bfs) cover(r *Result) {
	if x.cp == nil {
		return
	}
	x.cp.mu.Lock()
	r.Coverage = x.cp.fp.coverage()
	x.cp.mu.Unlock()
	r.Probabilistic = r.Err == nil && len(r.Trace) == 0 && (r.Verdict == lts.Valid || r.Verdict == lts.Invalid) ||
		r.Verdict == lts.Valid && r.HasValue
}

func (x *bfs) witness(r *Result, s lts.State) {
	ss, es, err := x.path(s)
	if errors.Is(err, errRebuildCancelled) {
		// A cancelled check is unknown (docs/cli.md), but says what it
		// found.
		what := r.Reason
		if what == "" {
			what = "a witness"
		}
		r.Verdict, r.Reason, r.Trace, r.HasValue = lts.Unknown, fmt.Sprintf("%s (%s found at depth %d)", err, what, x.depthOf(s)), nil, false
		return
	}
	if err != nil {
		// Never a counterexample that was not rebuilt.
		r.Verdict, r.Reason, r.Trace, r.HasValue = lts.Unknown, err.Error(), nil, false
		return
	}
	if r.Trace, err = x.trace(ss, es); err != nil {
		r.Verdict, r.Err, r.Reason = lts.Unknown, &lts.RuntimeError{Msg: err.Error()}, err.Error()
	}
}

// trace renders a path; the path of a symmetry-reduced system is first
// mapped to the unreduced one (Proc.Unreduce), where it is described and
// later re-validated.
func (x *bfs) trace(ss []lts.State, es []lts.Event) ([]Step, error) {
	p, ok := x.sys.(*Proc)
	if !ok || p.sym == nil {
		return Trace(x.sys, ss, es), nil
	}
	u, concrete, err := p.Unreduce(es[1:], ss[1:])
	if err != nil {
		return nil, err
	}
	return Trace(u, append([]lts.State{u.Initial()}, concrete...), es), nil
}

// Explore visits every reachable state and reports the counts (verdict
// Valid when complete, Unknown on a limit).
func Explore(ctx context.Context, sys lts.System, opt Options) (*Result, error) {
	sys, err := compacted(sys, opt, -1)
	if err != nil {
		return nil, err
	}
	x := newBFS(ctx, sys, opt)
	x.run(func(lts.State, []lts.Transition) bool { return false })
	r := x.finish(&Result{Verdict: lts.Valid})
	return r, resultErr(r)
}

// resultErr is nil: a run-time error of the model is part of the result
// (Result.Err, with the trace), not a failure of the check.
func resultErr(*Result) error { return nil }

// DeadlockFree checks that no reachable state is stuck: without
// transitions and not successfully terminated.
func DeadlockFree(ctx context.Context, sys lts.System, opt Options) (*Result, error) {
	sys, err := compacted(sys, opt, lang.KindDeadlockFree)
	if err != nil {
		return nil, err
	}
	term, _ := sys.(lts.Terminator)
	x := newBFS(ctx, sys, opt)
	r := &Result{Verdict: lts.Valid}
	x.run(func(s lts.State, ts []lts.Transition) bool {
		if len(ts) == 0 && (term == nil || !term.Terminated(s)) {
			r.Verdict, r.Reason = lts.Invalid, "deadlock"
			x.witness(r, s)
			return true
		}
		return false
	})
	x.finish(r)
	return r, resultErr(r)
}

// NonTerminating checks that every reachable state has a transition: the
// process neither deadlocks nor terminates.
func NonTerminating(ctx context.Context, sys lts.System, opt Options) (*Result, error) {
	sys, err := compacted(sys, opt, lang.KindNonTerminating)
	if err != nil {
		return nil, err
	}
	term, _ := sys.(lts.Terminator)
	x := newBFS(ctx, sys, opt)
	r := &Result{Verdict: lts.Valid}
	x.run(func(s lts.State, ts []lts.Transition) bool {
		if len(ts) == 0 {
			r.Verdict, r.Reason = lts.Invalid, "deadlock"
			if term != nil && term.Terminated(s) {
				r.Reason = "terminates"
			}
			x.witness(r, s)
			return true
		}
		return false
	})
	x.finish(r)
	return r, resultErr(r)
}

// Deterministic checks that no reachable state has two transitions with
// the same label (tau included) to different states.
func Deterministic(ctx context.Context, sys lts.System, opt Options) (*Result, error) {
	sys, err := compacted(sys, opt, lang.KindDeterministic)
	if err != nil {
		return nil, err
	}
	x := newBFS(ctx, sys, opt)
	r := &Result{Verdict: lts.Valid}
	x.run(func(s lts.State, ts []lts.Transition) bool {
		for i := range ts {
			for j := i + 1; j < len(ts); j++ {
				if ts[i].Event == ts[j].Event && ts[i].Target != ts[j].Target {
					r.Verdict = lts.Invalid
					r.Reason = "nondeterministic on " + sys.Events().Name(ts[i].Event)
					x.witness(r, s)
					return true
				}
			}
		}
		return false
	})
	x.finish(r)
	return r, resultErr(r)
}

// DivergenceFree checks that no reachable state lies on a cycle of tau
// steps. The reachable states are explored first (BFS), then the tau
// subgraph is searched for a cycle in state order; the counterexample is
// the shortest path to the first state found on a cycle, and the cycle.
func DivergenceFree(ctx context.Context, sys lts.System, opt Options) (*Result, error) {
	sys, err := compacted(sys, opt, lang.KindDivergenceFree)
	if err != nil {
		return nil, err
	}
	x := newBFS(ctx, sys, opt)
	var order []lts.State
	x.run(func(s lts.State, _ []lts.Transition) bool {
		order = append(order, s)
		return false
	})
	r := &Result{Verdict: lts.Valid}
	if x.err != nil || x.reason != "" {
		x.finish(r)
		return r, resultErr(r)
	}
	// Iterative DFS over tau edges with colours: 1 on stack, 2 done.
	var maxID lts.State
	for _, s := range order {
		maxID = max(maxID, s)
	}
	color := make([]uint8, int(maxID)+1) // reachable ids are below maxID
	steps := 0
	type frame struct {
		s  lts.State
		ts []lts.Transition
		i  int
	}
	for _, root := range order {
		if color[root] != 0 {
			continue
		}
		stack := []frame{{s: root}}
		color[root] = 1
		first := true
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if steps++; steps&1023 == 0 {
				if reason := x.poll(); reason != "" {
					x.reason = reason
					x.finish(r)
					return r, nil
				}
			}
			if first || f.ts == nil {
				ts, err := sys.Successors(f.s, nil)
				if err != nil {
					x.err, x.errAt = err, f.s
					x.finish(r)
					return r, resultErr(r)
				}
				f.ts = append(ts[:0:0], ts...)
				if f.ts == nil {
					f.ts = []lts.Transition{}
				}
				first = false
			}
			if f.i >= len(f.ts) {
				color[f.s] = 2
				stack = stack[:len(stack)-1]
				continue
			}
			t := f.ts[f.i]
			f.i++
			if t.Event != lts.Tau {
				continue
			}
			switch color[t.Target] {
			case 1:
				// Cycle: from t.Target through the stack back to it.
				k := len(stack) - 1
				for stack[k].s != t.Target {
					k--
				}
				cyc := []lts.State{t.Target}
				evs := []lts.Event{lts.Tau}
				for _, fr := range stack[k+1:] {
					cyc = append(cyc, fr.s)
					evs = append(evs, lts.Tau)
				}
				cyc = append(cyc, t.Target)
				evs = append(evs, lts.Tau)
				r.Verdict, r.Reason = lts.Invalid, "divergence (a cycle of tau steps)"
				x.witness(r, t.Target)
				r.Loop = Trace(sys, cyc, evs)[1:]
				x.finish(r)
				return r, nil
			case 0:
				color[t.Target] = 1
				stack = append(stack, frame{s: t.Target})
				first = true
			}
		}
	}
	x.finish(r)
	return r, nil
}

// Reaches searches (BFS) for a state where cond holds: Valid with the
// shortest witness, Invalid if no reachable state satisfies it. With opt
// OptMin/OptMax, every reachable state is visited and Value is the least
// (greatest) value of value over the states where cond holds; the witness
// is the first such state found in BFS order.
//
// With opt.Compact, sys must be compacted already (Proc.Compacted), and
// cond and value read its states.
func Reaches(ctx context.Context, sys lts.System, cond func(lts.State) (bool, error), optKind lang.OptKind, value func(lts.State) (int64, error), opt Options) (*Result, error) {
	if p, ok := sys.(*Proc); opt.Compact.Mode != Exact && (!ok || p.fp == nil) {
		return nil, fmt.Errorf("csp: Reaches with %s needs a compacted system (Proc.Compacted) and conditions on it", opt.Compact.Mode)
	}
	sys, err := compacted(sys, opt, lang.KindReaches)
	if err != nil {
		return nil, err
	}
	x := newBFS(ctx, sys, opt)
	r := &Result{Verdict: lts.Invalid, Reason: "no reachable state satisfies the condition"}
	best := noState
	var evalErr error
	x.run(func(s lts.State, _ []lts.Transition) bool {
		ok, err := cond(s)
		if err != nil {
			evalErr, x.errAt = err, s
			return true
		}
		if !ok {
			return false
		}
		if optKind == lang.OptNone {
			best = s
			return true
		}
		v, err := value(s)
		if err != nil {
			evalErr, x.errAt = err, s
			return true
		}
		if best == noState || (optKind == lang.OptMin && v < r.Value) || (optKind == lang.OptMax && v > r.Value) {
			best, r.Value, r.HasValue = s, v, true
		}
		return false
	})
	if evalErr != nil {
		x.err = evalErr
	}
	if best != noState {
		r.Verdict, r.Reason = lts.Valid, ""
		x.witness(r, best)
	}
	if x.reason != "" {
		// An incomplete search proves nothing negative, and an optimum
		// found so far may not be the optimum.
		if r.Verdict == lts.Invalid || optKind != lang.OptNone {
			r.Verdict = lts.Unknown
			r.Reason = x.reason
		}
	}
	x.finish(r)
	return r, resultErr(r)
}

// Condition compiles a boolean (or integer) expression over the global
// variables into a function of the states of s.
func (s *Proc) Condition(e lang.Expr) (func(lts.State) (int64, error), error) {
	c, err := s.p.expr(e, &scope{})
	if err != nil {
		return nil, err
	}
	f := c.f
	return func(t lts.State) (int64, error) {
		_, vars := s.decode(s.raw(t, nil), nil, nil)
		m := machine{vars: vars}
		v := f(&m)
		if m.err != nil {
			return 0, m.err
		}
		return v, nil
	}, nil
}

// CheckAssertion runs a single-process assertion of the model:
// deadlockfree, divergencefree, nonterminating, deterministic, reaches.
func CheckAssertion(ctx context.Context, prog *Program, a *lang.AssertDecl, opt Options) (*Result, error) {
	var sys *Proc
	var err error
	// A deadlock or a termination is a property of a state that the
	// thread renamings keep, so these searches may store one state per
	// orbit (the others look at cycles, at a state's nondeterminism or at
	// conditions that may name one thread).
	if (a.Kind == lang.KindDeadlockFree || a.Kind == lang.KindNonTerminating) && !opt.NoSymmetry {
		sys, _, err = prog.SymmetricProcess(a.Left)
	} else {
		sys, err = prog.Process(a.Left)
	}
	if err != nil {
		return nil, err
	}
	if opt.Compact.Mode != Exact {
		if err := CompactSupports(a.Kind, opt.Compact.Mode); err != nil {
			return nil, errAt(a, "%v", err)
		}
		if sys, err = sys.Compacted(opt.Compact); err != nil {
			return nil, errAt(a, "%v", err)
		}
	}
	switch a.Kind {
	case lang.KindDeadlockFree:
		return DeadlockFree(ctx, sys, opt)
	case lang.KindDivergenceFree:
		return DivergenceFree(ctx, sys, opt)
	case lang.KindNonTerminating:
		return NonTerminating(ctx, sys, opt)
	case lang.KindDeterministic:
		return Deterministic(ctx, sys, opt)
	case lang.KindReaches:
		goal := a.Goal
		cf, err := sys.Condition(goal)
		if err != nil {
			return nil, err
		}
		cond := func(s lts.State) (bool, error) {
			v, err := cf(s)
			return v != 0, err
		}
		var value func(lts.State) (int64, error)
		if a.Opt != lang.OptNone {
			if a.OptExpr == nil {
				return nil, errAt(a, "missing expression to optimise")
			}
			if value, err = sys.Condition(a.OptExpr); err != nil {
				return nil, err
			}
		}
		return Reaches(ctx, sys, cond, a.Opt, value, opt)
	}
	return nil, errAt(a, "assertion %s is not a single-process check", a.Kind)
}
