package history

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quasar-verify/quasar/internal/budget"
	"github.com/quasar-verify/quasar/lts"
)

// part is one partition of a history (P-compositionality: kv per key).
type part struct {
	name string
	ops  []Op  // renumbered: local index = position
	ids  []int // caller's op IDs
}

// check runs Check and CheckOps: the ops that happened, split into the
// model's partitions, each searched (in parallel when there are many and
// the history is large), the results combined.
func check(ctx context.Context, all []Op, m Model, opt Options) (res *Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, panicError(r)
		}
	}()
	ops, err := happened(all)
	if err != nil {
		return nil, err
	}
	parts := partition(ops, m, opt)
	if len(parts) == 1 {
		if drop := queueUnusable(parts[0].ops, m, opt.Quasi); len(drop) > 0 {
			parts[0] = parts[0].without(drop)
		}
	}
	stranded, why := -1, ""
	if len(parts) == 1 && opt.Quasi != nil && strandedUpfront {
		stranded, why = strandedQueue(parts[0].ops, m, opt.Quasi)
	}
	if len(parts) == 1 && stranded < 0 {
		stranded, why = queueViolation(parts[0].ops, m, opt.Quasi)
	}
	machines := make([]Machine, len(parts))
	for i := range parts {
		var mc Machine
		if stranded >= 0 && opt.Quasi != nil {
			// Refuted without a search; a bounded search of the runs
			// that pull nothing (cheap, and runs of the full automaton)
			// gives the longest prefix reported.
			mc, err = compileQuasiPulls(m, parts[i].ops, opt.Quasi, 0)
		} else {
			mc, err = compile(m, parts[i].ops, opt)
		}
		if err != nil {
			return nil, err
		}
		machines[i] = mc
	}
	if len(parts) == 1 && stranded < 0 {
		if qm, ok := machines[0].(*quasiMachine); ok {
			if stranded, why = barrierBlocked(qm, parts[0].ops); stranded < 0 {
				stranded, why = strandedRigid(qm, parts[0].ops)
			}
		}
	}

	start := time.Now()
	lim := budget.New(ctx, opt.Limits.Timeout, opt.Limits.MaxStates, opt.Limits.MaxBytes)
	defer lim.Close()
	results := make([]PartitionResult, len(parts))
	cancelled := make([]bool, len(parts))
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	searches := make([]*search, len(parts))
	if len(ops) < 1000 {
		// Small histories: goroutines cost more than they save.
		workers = 1
	}
	prog := newTracker(opt.Progress, parts, start)
	if stranded >= 0 {
		searches[0] = &search{blocked: stranded, why: why}
		if init := machines[0].Init(nil); len(init) > 0 {
			searches[0].lstate = init[0] // a state the machine knows
		}
		if !opt.noReplay {
			// A short search for the longest prefix reported: the
			// refutation does not need it, and Localize checks many.
			s2 := newSearch(machines[0], parts[0].ops, nil)
			if opt.Quasi == nil {
				s2.prune = nil // as replayFailure: a longer prefix
			}
			s2.step(refutedReplaySteps)
			searches[0].longest, searches[0].lstate = s2.longest, s2.lstate
		}
	} else if most := deepeningOf(machines, opt.Quasi); most > 0 {
		searches[0], machines[0], err = searchDeepening(m, machines[0], parts[0].ops, opt.Quasi, most, lim, prog)
		if err != nil {
			return nil, err
		}
	} else if len(parts) == 1 {
		searches[0] = newSearch(machines[0], parts[0].ops, lim)
		searches[0].prog = prog
		searches[0].run()
	} else {
		// Searches are created when first scheduled: those cancelled
		// before their turn cost nothing.
		start := func(i int) *search {
			s := newSearch(machines[i], parts[i].ops, lim)
			s.prog, s.part = prog, i
			return s
		}
		schedule(searches, start, opt, workers, cancelled)
	}
	if !opt.noReplay {
		replayFailure(searches, machines, parts)
	}
	for i := range parts {
		results[i] = partitionResult(machines[i], parts[i], searches[i], cancelled[i])
	}
	res = combine(results, cancelled)
	res.Stats.Seconds = time.Since(start).Seconds()
	res.Stats.PeakBytes = lim.Peak()
	return res, nil
}

// happened drops failed ops (they did not happen) and normalises pending
// ones. The caller's slice is returned as is when nothing changes (it is
// not modified).
func happened(all []Op) ([]Op, error) {
	clean := true
	for i := range all {
		o := &all[i]
		if o.Status == Fail || (o.Return == Pending) != (o.Status == Info) || o.Return < o.Call {
			clean = false
			break
		}
	}
	if clean {
		return all, nil
	}
	ops := make([]Op, 0, len(all))
	for _, o := range all {
		if o.Status == Fail {
			continue
		}
		if o.Return == Pending {
			o.Status = Info
		}
		if o.Status == Info {
			o.Return = Pending
		}
		if o.Return < o.Call {
			return nil, fmt.Errorf("%s: operation %d returns at %d before its call at %d", lineOf(&o), o.ID, o.Return, o.Call)
		}
		ops = append(ops, o)
	}
	return ops, nil
}

// partition splits ops into the model's partitions (one, unless the model
// is a Partitioner and the check is plain), each in invocation order: the
// search's memo keys rely on it; IDs travel with the ops.
func partition(ops []Op, m Model, opt Options) []part {
	var parts []part
	p, isPart := m.(Partitioner)
	if isPart && !opt.NoPartition && opt.Quasi == nil {
		groups, names := p.Partition(ops)
		// One backing array for the partitions' ops and one for their IDs.
		total := 0
		for _, g := range groups {
			total += len(g)
		}
		opsBuf, idBuf := make([]Op, total), make([]int, total)
		parts = make([]part, len(groups))
		off := 0
		for gi, g := range groups {
			pt := part{name: names[gi], ops: opsBuf[off : off+len(g) : off+len(g)], ids: idBuf[off : off+len(g) : off+len(g)]}
			for k, i := range g {
				pt.ops[k] = ops[i]
				pt.ids[k] = ops[i].ID
			}
			parts[gi] = pt
			off += len(g)
		}
	} else {
		pt := part{ops: ops, ids: make([]int, 0, len(ops))}
		for _, o := range ops {
			pt.ids = append(pt.ids, o.ID)
		}
		parts = []part{pt}
	}
	for pi := range parts {
		parts[pi].sortByCall()
	}
	return parts
}

// without is pt without the ops at the indices drop (increasing).
func (pt part) without(drop []int) part {
	out := part{name: pt.name, ops: make([]Op, 0, len(pt.ops)-len(drop)), ids: make([]int, 0, len(pt.ops)-len(drop))}
	for i := range pt.ops {
		if len(drop) > 0 && drop[0] == i {
			drop = drop[1:]
			continue
		}
		out.ops = append(out.ops, pt.ops[i])
		out.ids = append(out.ids, pt.ids[i])
	}
	return out
}

// sortByCall puts the partition's ops in invocation order (stable).
func (pt *part) sortByCall() {
	sorted := true
	for i := 1; i < len(pt.ops); i++ {
		if pt.ops[i].Call < pt.ops[i-1].Call {
			sorted = false
			break
		}
	}
	if sorted {
		return
	}
	idx := make([]int, len(pt.ops))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return pt.ops[idx[a]].Call < pt.ops[idx[b]].Call })
	ops2, ids2 := make([]Op, len(idx)), make([]int, len(idx))
	for k, i := range idx {
		ops2[k], ids2[k] = pt.ops[i], pt.ids[i]
	}
	pt.ops, pt.ids = ops2, ids2
}

// strandedUpfront enables strandedQueue before the search (tests of the
// search's own rules turn it off).
var strandedUpfront = true

// replayFailure improves the report of the first invalid partition: pruning
// cuts dead branches early, so the longest prefix it reached says little.
// The search is redone without it, for a fixed number of steps
// (deterministic).
func replayFailure(searches []*search, machines []Machine, parts []part) {
	for i, s := range searches {
		if s.witness != nil || s.reason != "" {
			continue
		}
		if s.prune != nil {
			s2 := newSearch(machines[i], parts[i].ops, nil)
			s2.prune = nil
			if s2.step(failureReplaySteps) == none {
				s.longest, s.blocked, s.lstate = s2.longest, s2.blocked, s2.lstate
			}
		}
		return
	}
}

// combine is the result of the whole history: invalid if a partition is
// (the first one's failure), unknown if a partition not cancelled is, else
// valid with the one partition's witness.
func combine(results []PartitionResult, cancelled []bool) *Result {
	res := &Result{Verdict: lts.Valid, Partitions: results}
	for i, r := range results {
		res.Stats.States += r.Stats.States
		res.Stats.Transitions += r.Stats.Transitions
		if r.Stats.Depth > res.Stats.Depth {
			res.Stats.Depth = r.Stats.Depth
		}
		reason := r.Reason
		if len(results) > 1 {
			reason = fmt.Sprintf("partition %q: %s", r.Name, r.Reason)
		}
		switch r.Verdict {
		case lts.Invalid:
			if res.Verdict != lts.Invalid {
				res.Verdict, res.Failure, res.Reason = lts.Invalid, r.Failure, reason
			}
		case lts.Unknown:
			if res.Verdict == lts.Valid && !cancelled[i] {
				res.Verdict, res.Reason = lts.Unknown, reason
			}
		}
	}
	if res.Verdict == lts.Valid && len(results) == 1 {
		res.Witness = results[0].Witness
	}
	return res
}

// panicError turns a panic of the search into an error: an automaton's
// run-time error, or an internal error.
func panicError(r any) error {
	if ae, ok := r.(automatonError); ok {
		return ae.err
	}
	return fmt.Errorf("history: internal error: %v", r)
}

func lineOf(o *Op) string {
	if o.Line > 0 {
		return fmt.Sprintf("line %d", o.Line)
	}
	return fmt.Sprintf("op %d", o.ID)
}

// compile builds the machine of one partition: the model's own, or for a
// quasi check the relaxed automaton of the model's events.
func compile(m Model, ops []Op, opt Options) (Machine, error) {
	if opt.Quasi != nil {
		return compileQuasi(m, ops, opt.Quasi)
	}
	return m.Compile(ops)
}

// schedule runs the partitions in rounds: in round k every unfinished
// partition runs a slice of firstQuantum·2^k search steps (on at most
// workers goroutines), in partition order. Unless opt.AllPartitions, once
// a partition is found invalid in a round, the partitions after it in that
// round are cancelled (skipped if not started yet, their outcome discarded
// otherwise), and after the round every undecided one is too. A
// partition's progress after k slices does not depend on timing, and every
// partition before the first invalid one of a round runs its whole slice,
// so the partitions decided (and the reported failure, the lowest invalid
// one in partition order) are deterministic, whatever the number of
// workers; a hard partition cannot delay the discovery of an easy invalid
// one by more than a factor of about two in steps. searches[i] is created
// by start(i) when partition i first runs (a partition cancelled before its
// turn is never compiled into a search).
func schedule(searches []*search, start func(int) *search, opt Options, workers int, cancelled []bool) {
	n := len(searches)
	active := make([]int, n)
	for i := range active {
		active[i] = i
	}
	outcomes := make([]outcome, n)
	quota := int64(firstQuantum)
	run := func(i int) outcome {
		if searches[i] == nil {
			searches[i] = start(i)
		}
		s := searches[i]
		out := s.step(quota)
		if out == found || out == none {
			s.prog.finish(i, s, out == found)
		}
		return out
	}
	for len(active) > 0 {
		firstBad := len(active) // position in active of the first invalid partition
		if workers == 1 || len(active) == 1 {
			for k, i := range active {
				outcomes[i] = run(i)
				if outcomes[i] == none && !opt.AllPartitions {
					firstBad = k
					break
				}
			}
		} else {
			var next atomic.Int64
			var bad atomic.Int64 // least position found invalid
			bad.Store(int64(len(active)))
			var wg sync.WaitGroup
			var mu sync.Mutex
			var perr error
			for w := 0; w < workers && w < len(active); w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					defer func() {
						if r := recover(); r != nil {
							mu.Lock()
							if perr == nil {
								perr = panicError(r)
							}
							mu.Unlock()
						}
					}()
					for {
						k := int(next.Add(1) - 1)
						if k >= len(active) || (!opt.AllPartitions && int64(k) > bad.Load()) {
							return // positions are taken in order: the rest are after the invalid one
						}
						i := active[k]
						outcomes[i] = run(i)
						if outcomes[i] == none && !opt.AllPartitions {
							for {
								b := bad.Load()
								if int64(k) >= b || bad.CompareAndSwap(b, int64(k)) {
									break
								}
							}
						}
					}
				}()
			}
			wg.Wait()
			if perr != nil {
				panic(automatonError{perr}) // re-raised in the caller's goroutine, recovered by check
			}
			firstBad = int(bad.Load())
		}
		if firstBad < len(active) {
			// Cancel everything after the first invalid partition of the
			// round, and whatever is undecided before it.
			for k, i := range active {
				if k < firstBad && outcomes[i] != paused || k == firstBad {
					continue
				}
				cancelled[i] = true
				if searches[i] == nil {
					searches[i] = &search{blocked: -1}
				}
				searches[i].witness = nil
				searches[i].reason = reasonCancelled
			}
			return
		}
		rest := active[:0]
		for _, i := range active {
			if outcomes[i] == paused {
				rest = append(rest, i)
			}
		}
		active = rest
		quota *= 2
	}
}

// failureReplaySteps bounds the search without pruning that computes the
// report of an invalid partition.
const failureReplaySteps = 1 << 15

// refutedReplaySteps bounds the search that gives the longest prefix of a
// history refuted without a search (quasistranded.go).
const refutedReplaySteps = 1 << 12

func partitionResult(mc Machine, pt part, s *search, cancelled bool) PartitionResult {
	r := PartitionResult{Name: pt.name, Ops: pt.ids}
	r.Stats = lts.Stats{States: int64(s.states), Transitions: s.steps, Depth: len(s.longest)}
	switch {
	case s.witness != nil:
		if err := verifyWitness(mc, pt.ops, s.witness, s.wstates, s.fin); err != nil {
			r.Verdict = lts.Unknown
			r.Reason = "internal error: witness rejected: " + err.Error()
			return r
		}
		r.Verdict = lts.Valid
		r.Witness = s.witness // mapped to the caller's IDs in place
		for i, j := range s.witness {
			r.Witness[i] = pt.ids[j]
		}
		s.witness = nil
		r.Stats.Depth = len(r.Witness)
	case s.reason != "":
		r.Verdict = lts.Unknown
		r.Reason = s.reason
	default:
		r.Verdict = lts.Invalid
		f := &Failure{Partition: pt.name, Blocked: -1, State: mc.Describe(s.lstate)}
		for _, j := range s.longest {
			f.Longest = append(f.Longest, pt.ids[j])
		}
		if s.why != "" {
			f.Blocked = pt.ids[s.blocked]
			o := pt.ops[s.blocked]
			r.Reason = fmt.Sprintf("no linearization: %s (%s) cannot take effect: %s", o.String(), lineOf(&o), s.why)
		} else if s.blocked >= 0 {
			f.Blocked = pt.ids[s.blocked]
			o := pt.ops[s.blocked]
			r.Reason = fmt.Sprintf("no linearization: after at most %d operations, %s (%s) cannot take effect", len(s.longest), o.String(), lineOf(&o))
			if ex, ok := mc.(interface{ unknownEvent(int) string }); ok {
				if note := ex.unknownEvent(s.blocked); note != "" {
					r.Reason += ": " + note
				}
			}
		} else {
			r.Reason = "no linearization"
		}
		r.Failure = f
	}
	return r
}

// verifyWitness checks a linearization (local indices) found by the search:
// every completed op present once, real-time order kept, and the run ws
// (the initial state, then the state after each op) replayed on the
// machine: ws[0] is an initial state, each ws[k+1] a successor of ws[k] by
// op w[k], and the last state final when fin is set. Following the
// search's own run, not the set of all runs, keeps the replay linear in
// the witness (the set of states of a relaxed queue grows exponentially).
func verifyWitness(mc Machine, ops []Op, w []int, ws []State, fin Finisher) error {
	// One allocation: minRet (below), then the bits of the ops seen.
	scratch := make([]int64, len(w)+1+(len(ops)+63)/64)
	minRet, seen := scratch[:len(w)+1], scratch[len(w)+1:]
	for _, i := range w {
		if i < 0 || i >= len(ops) || seen[i>>6]&(1<<(uint(i)&63)) != 0 {
			return fmt.Errorf("op %d repeated or out of range", i)
		}
		seen[i>>6] |= 1 << (uint(i) & 63)
	}
	for i, o := range ops {
		if seen[i>>6]&(1<<(uint(i)&63)) == 0 && o.Status != Info {
			return fmt.Errorf("completed op %d missing", o.ID)
		}
	}
	// Real time: no later op in w may precede an earlier one. Sorting by
	// call time makes this O(n log n): the max call seen so far must not
	// exceed... simply compare each op with the minimum return of the ops after it.
	minRet[len(w)] = Pending
	for k := len(w) - 1; k >= 0; k-- {
		minRet[k] = min(minRet[k+1], ops[w[k]].Return)
	}
	for k := range w {
		if minRet[k+1] < ops[w[k]].Call {
			return fmt.Errorf("op %d placed after an op that returned before its call", ops[w[k]].ID)
		}
	}
	if len(ws) != len(w)+1 {
		return fmt.Errorf("a run of %d states for %d ops", len(ws), len(w))
	}
	buf := mc.Init(make([]State, 0, 8))
	if !slices.Contains(buf, ws[0]) {
		return fmt.Errorf("the run does not start in an initial state")
	}
	for k, i := range w {
		buf = mc.Step(ws[k], i, buf[:0])
		if !slices.Contains(buf, ws[k+1]) {
			return fmt.Errorf("model rejects %s", ops[i].String())
		}
	}
	if fin != nil && !fin.Final(ws[len(w)]) {
		return fmt.Errorf("linearization ends with obligations")
	}
	return nil
}

func dedup(s []State) []State {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}
