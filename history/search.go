package history

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/quasar-verify/quasar/internal/budget"
)

// Finisher is implemented by machines with accepting states (quasi checks in
// complete mode): a linearization is accepted only if it ends in one.
type Finisher interface {
	Final(s State) bool
}

// search is the memoised depth-first search of Wing & Gong, Lowe and
// Porcupine over one partition (see doc.go).
type search struct {
	m     Machine
	fin   Finisher
	prune Pruner
	// pruneAfter, if the machine has it, replaces prune.Viable: it also
	// knows the op just placed.
	pruneAfter stepPruner
	// ls, if the machine has it, replaces m.Step in the search: its
	// successors may also depend on the linearized set.
	ls    linStepper
	ops   []Op // local indices 0..n-1
	n     int
	bud   *budget.Budget // nil: no limits (shared by the partitions of a check)
	halt  *atomic.Bool   // bud's flag: set when its deadline passes (nil: none)
	rs    runState
	steps int64

	// Entries: call of op i is i, return of op i is n+i; head is 2n; -1 ends
	// the list. Pending ops have no return entry.
	next, prev []int32
	head       int32

	complete int // ops that must be linearized (not Info)
	// Compact memo keys (memo.go): ops are in call order (check sorts
	// them); hiWord[i] is the word index of the last op invoked before
	// completed op i returns; infoRank[i] numbers the Info ops.
	hiWord   []int32
	infoRank []int32
	ninfo    int
	compact  bool // use compact keys (they are shorter than the bitset)
	// twin[i] is the previous Info op identical to Info op i (same F, Key,
	// Input, Output; by call order), or -1. Identical Info ops are interchangeable
	// and the earlier-called one can go wherever the later one can, so the
	// search linearizes them in call order only (symmetry reduction).
	twin []int32

	// outcome
	witness []int   // local indices
	wstates []State // the witness's run: the initial state, then the state after each op
	longest []int
	blocked int
	lstate  State
	reason  string // non-empty: a limit was hit
	states  int

	prog *tracker // Options.Progress (nil: none), for partition part
	part int
	// why, if set, explains blocked: a refutation without a search
	// (strandedQueue).
	why string
}

type frame struct {
	entry int32
	prev  State
	k     int32 // index of the successor taken
}

func newSearch(m Machine, ops []Op, bud *budget.Budget) *search {
	n := len(ops)
	s := &search{m: m, ops: ops, n: n, bud: bud, blocked: -1}
	if bud != nil {
		s.halt = bud.Halted()
	}
	s.fin, _ = m.(Finisher)
	s.prune, _ = m.(Pruner)
	s.pruneAfter, _ = m.(stepPruner)
	s.ls, _ = m.(linStepper)
	type ev struct {
		t   int64
		ret bool
		op  int32
	}
	evs := make([]ev, 0, 2*n)
	for i := range ops {
		evs = append(evs, ev{ops[i].Call, false, int32(i)})
		if ops[i].Status != Info {
			s.complete++
			evs = append(evs, ev{ops[i].Return, true, int32(i)})
		}
	}
	// Calls before returns at equal times: equal times are concurrent.
	slices.SortFunc(evs, func(x, y ev) int {
		if x.t != y.t {
			return cmp.Compare(x.t, y.t)
		}
		if x.ret != y.ret {
			if !x.ret {
				return -1
			}
			return 1
		}
		return cmp.Compare(x.op, y.op)
	})
	// One block for the per-op and per-entry arrays.
	block := make([]int32, 3*n+2*(2*n+1))
	s.hiWord, block = block[:n:n], block[n:]
	s.infoRank, block = block[:n:n], block[n:]
	s.twin, block = block[:n:n], block[n:]
	s.next, s.prev = block[:2*n+1:2*n+1], block[2*n+1:]
	for i := range ops {
		s.infoRank[i] = -1
		if ops[i].Status == Info {
			s.infoRank[i] = int32(s.ninfo)
			s.ninfo++
			continue
		}
		// ops are in call order: the last op invoked before op i returns.
		lo, hi := i, n
		for lo < hi {
			mid := int(uint(lo+hi) >> 1)
			if ops[mid].Call <= ops[i].Return {
				lo = mid + 1
			} else {
				hi = mid
			}
		}
		s.hiWord[i] = int32((lo - 1) >> 6)
	}
	maxWin := 0
	for i := range ops {
		if s.infoRank[i] < 0 {
			maxWin = max(maxWin, int(s.hiWord[i])-i>>6+1)
		}
	}
	s.compact = maxWin+(s.ninfo+63)/64 < (n+63)/64
	for i := range s.twin {
		s.twin[i] = -1
	}
	vs, ok := m.(valueStepper)
	if s.complete == n || !ok {
		goto list
	}
	{
		lastTwin := map[string]int32{}
		for i := range ops { // in call order
			s.twin[i] = -1
			if ops[i].Status != Info {
				continue
			}
			// Output too: an Info op has none in a parsed history, but an
			// op pending at a prefix's cut carries the result it returned
			// later, which the prefix's model (locFixedModel) gives it:
			// two pending dequeues with different results are not twins.
			// An op whose fixed result is null and a free one (any result)
			// show the same Output: the machine tells them apart.
			k := ops[i].F + "\x00" + ops[i].Key + "\x00" + ops[i].Input.String() + "\x00" + ops[i].Output.String()
			if vs.resultFree(i) {
				k += "\x00free"
			}
			if j, ok := lastTwin[k]; ok {
				s.twin[i] = j
			}
			lastTwin[k] = int32(i)
		}
	}
list:
	s.head = int32(2 * n)
	last := s.head
	for _, e := range evs {
		id := e.op
		if e.ret {
			id += int32(n)
		}
		s.next[last] = id
		s.prev[id] = last
		last = id
	}
	s.next[last] = -1
	return s
}

// lift removes op i's call (and return) entries from the list.
func (s *search) lift(i int32) {
	s.next[s.prev[i]] = s.next[i]
	if nx := s.next[i]; nx >= 0 {
		s.prev[nx] = s.prev[i]
	}
	if s.ops[i].Status != Info {
		r := i + int32(s.n)
		s.next[s.prev[r]] = s.next[r]
		if nx := s.next[r]; nx >= 0 {
			s.prev[nx] = s.prev[r]
		}
	}
}

// unlift undoes lift (in reverse order).
func (s *search) unlift(i int32) {
	if s.ops[i].Status != Info {
		r := i + int32(s.n)
		s.next[s.prev[r]] = r
		if nx := s.next[r]; nx >= 0 {
			s.prev[nx] = r
		}
	}
	s.next[s.prev[i]] = i
	if nx := s.next[i]; nx >= 0 {
		s.prev[nx] = i
	}
}

// zobrist gives each op a fixed pseudo-random 64-bit code; the hash of a set
// is the xor of its members' codes (deterministic: splitmix64 from 0). The
// codes of the first zobristShared ops are computed once and shared
// (read-only): small checks, many per second, need not recompute them.
func zobrist(n int) []uint64 {
	if n <= zobristShared {
		return zobristTable()[:n:n]
	}
	return zobristCodes(n)
}

const zobristShared = 1 << 12

var zobristTable = sync.OnceValue(func() []uint64 { return zobristCodes(zobristShared) })

func zobristCodes(n int) []uint64 {
	z := make([]uint64, n)
	x := uint64(0x2545F4914F6CDD1D)
	for i := range z {
		x += 0x9E3779B97F4A7C15
		v := x
		v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9
		v = (v ^ (v >> 27)) * 0x94D049BB133111EB
		z[i] = v ^ (v >> 31)
	}
	return z
}

const (
	pollEvery = 1 << 10
	// firstQuantum is the number of search steps a partition runs in the
	// scheduler's first round; each round doubles it (see partition.go).
	firstQuantum = 1 << 12
)

const reasonCancelled = "cancelled: another partition is invalid"

// outcome of a (slice of a) search.
type outcome uint8

const (
	found   outcome = iota // a linearization, in s.witness
	none                   // no linearization: s.longest, s.blocked
	limited                // a limit was hit: s.reason
	paused                 // the step quota was used: call step again
	running                // (poll only) no reason to stop
)

// runState is the search's loop state, kept between slices.
type runState struct {
	started bool
	set     []uint64
	infoSet []uint64 // bits of the Info ops, by rank
	key     []uint64 // scratch: the memo key
	m       int      // first completed op not linearized (n if none)
	z       []uint64
	mm      *memo
	h       uint64
	stack   []frame
	buf     []State
	inits   []State
	initIdx int
	state   State
	e       int32
	resume  int32
	bufArr  [8]State
	initArr [2]State
}

// stepPruner is a Pruner whose verdict may also depend on the op just
// placed (a function of the linearized set, the state and that op, so the
// memo stays exact): quasiMachine refuses some orders of enqueues.
type stepPruner interface {
	viableAfter(s State, op int32, linearized []uint64) bool
}

// linStepper is a machine whose successors of a state by an op, in the
// search, may also depend on the linearized set (set, without the op):
// some of Step's, a function of the set, the state and the op, so the
// memo stays exact. windowMachine leaves out the runs that owe events
// nothing left can read (quasitail.go). A witness is replayed with Step.
type linStepper interface {
	stepIn(s State, i int, set []uint64, buf []State) []State
}

// viable asks the machine's pruner about state ns reached by placing op.
func (s *search) viable(ns State, op int32, set []uint64) bool {
	if s.pruneAfter != nil {
		return s.pruneAfter.viableAfter(ns, op, set)
	}
	return s.prune.Viable(ns, set)
}

// valueStepper marks machines whose Step of an op depends only on its name,
// key, arguments and result (the built-in ones): the symmetry reduction of
// identical Info ops is sound for them. A user's machine may look at other
// fields (the process), so it is not reduced. resultFree reports whether
// op i may take effect with any result (not one fixed by locFixedModel).
type valueStepper interface {
	stepsByValue()
	resultFree(i int) bool
}

func (*registerMachine) stepsByValue()  {}
func (*kvMachine) stepsByValue()        {}
func (*containerMachine) stepsByValue() {}
func (*automatonMachine) stepsByValue() {}

func (mc *registerMachine) resultFree(i int) bool  { return mc.ops[i].info }
func (mc *kvMachine) resultFree(i int) bool        { return mc.ops[i].info }
func (mc *containerMachine) resultFree(i int) bool { return mc.ops[i].info }
func (mc *automatonMachine) resultFree(i int) bool { return mc.info[i] }

// firstOpen is the first completed op at index >= from not in set (n if none).
func (s *search) firstOpen(from int, set []uint64) int {
	for i := from; i < s.n; i++ {
		if s.infoRank[i] < 0 && set[i>>6]&(1<<(uint(i)&63)) == 0 {
			return i
		}
	}
	return s.n
}

// key encodes the linearized set for the memo: with m the first completed
// op not linearized, every completed op before m is linearized and none
// invoked after m returns can be (real-time order: the search meets m's
// completion first), so the set is m, the bitset words from m's word to
// the word of the last op invoked before m returns, and the Info ops' bits.
func (s *search) key(m int, set []uint64, r *runState) (uint64, []uint64) {
	if !s.compact {
		return 0, set
	}
	k := r.key[:0]
	if m < s.n {
		k = append(k, set[m>>6:s.hiWord[m]+1]...)
	}
	k = append(k, r.infoSet...)
	r.key = k
	return uint64(m)<<32 | uint64(len(k)), k
}

// run searches to the end.
func (s *search) run() bool {
	for {
		switch s.step(-1) {
		case found:
			return true
		case none, limited:
			return false
		}
	}
}

// step continues the search for at most quota steps (quota < 0: no quota).
func (s *search) step(quota int64) outcome {
	r := &s.rs
	n := s.n
	if !r.started {
		s.begin()
	}
	set, z, mm, stack, buf := r.set, r.z, r.mm, r.stack, r.buf
	h, state, e, resume := r.h, r.state, r.e, r.resume
	var poll int64
	defer func() {
		r.stack, r.buf = stack, buf
		r.h, r.state, r.e, r.resume = h, state, e, resume
		s.states = mm.len()
		s.steps += poll & (pollEvery - 1)
	}()
	for {
		if e == -2 {
			var out outcome
			if state, out = s.nextInit(); out != running {
				return out
			}
			e, resume = s.next[s.head], 0
		}
		poll++
		if s.halt != nil && s.halt.Load() && s.exceeded(mm) {
			return limited
		}
		if poll&(pollEvery-1) == 0 {
			s.prog.tick(s.part, int64(mm.len()), len(stack))
			if out := s.poll(mm, poll, quota); out != running {
				return out
			}
		}
		if e >= 0 && int(e) < n {
			// A call entry: try to linearize op e now.
			op := e
			info := s.ops[op].Status == Info
			if info {
				if t := s.twin[op]; t >= 0 && set[t>>6]&(uint64(1)<<(uint(t)&63)) == 0 {
					e = s.next[e]
					resume = 0
					continue
				}
			}
			if s.ls != nil {
				buf = s.ls.stepIn(state, int(op), set, buf[:0])
			} else {
				buf = s.m.Step(state, int(op), buf[:0])
			}
			placed := false
			w, bit := op>>6, uint64(1)<<(uint(op)&63)
			for k := resume; int(k) < len(buf); k++ {
				ns := buf[k]
				if info && ns == state {
					// An Info op without effect here is dominated by
					// never linearizing it.
					continue
				}
				set[w] |= bit
				nh := h ^ z[op]
				if s.prune != nil && !s.viable(ns, op, set) {
					set[w] &^= bit
					continue
				}
				if info {
					s.markInfo(op, true)
				}
				m := r.m
				if int(op) == m {
					m = s.firstOpen(m+1, set)
				}
				meta, key := s.key(m, set, r)
				if mm.full(len(key)) {
					s.reason = "memory limit: memo arena full"
					return limited
				}
				if mm.insert(nh, ns, meta, key) {
					stack = append(stack, frame{entry: op, prev: state, k: k})
					state, h = ns, nh
					r.m = m
					s.lift(op)
					placed = true
					break
				}
				set[w] &^= bit
				if info {
					s.markInfo(op, false)
				}
			}
			resume = 0
			if !placed {
				e = s.next[e]
				continue
			}
			if !info {
				s.complete--
			}
			if s.complete == 0 && (s.fin == nil || s.fin.Final(state)) {
				s.witness, s.wstates = entries(stack), run(stack, state)
				return found
			}
			e = s.next[s.head]
			continue
		}
		// A return entry (or the end): some op must be linearized before
		// this point and none can: backtrack.
		if len(stack) > len(s.longest) || s.longest == nil {
			s.noteLongest(stack, state, e)
		}
		if len(stack) == 0 {
			e = -2
			continue
		}
		f := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		s.undo(f.entry)
		h ^= z[f.entry]
		state = f.prev
		e = f.entry
		resume = f.k + 1
	}
}

// nextInit starts from the next initial state: none if there is none
// left, found if it already completes the history.
func (s *search) nextInit() (State, outcome) {
	r := &s.rs
	r.initIdx++
	if r.initIdx >= len(r.inits) {
		return 0, none
	}
	state := r.inits[r.initIdx]
	if s.complete == 0 && (s.fin == nil || s.fin.Final(state)) {
		s.witness, s.wstates = []int{}, []State{state}
		return state, found
	}
	return state, running
}

// exceeded reports whether a limit of the budget has been hit, with the
// reason in s.reason (the deadline passed or ctx is done).
func (s *search) exceeded(mm *memo) bool {
	s.reason = s.bud.Exceeded(mm.len())
	return s.reason != ""
}

// run is the states of the linearization on the stack: the initial state,
// then the state after each op (the frames keep the state before theirs).
func run(stack []frame, last State) []State {
	ws := make([]State, len(stack)+1)
	for i, f := range stack {
		ws[i] = f.prev
	}
	ws[len(stack)] = last
	return ws
}

// entries is the linearization on the stack, as op indices.
func entries(stack []frame) []int {
	w := make([]int, len(stack))
	for i, f := range stack {
		w[i] = int(f.entry)
	}
	return w
}

// markInfo adds or removes Info op op in the set of linearized Info ops.
func (s *search) markInfo(op int32, on bool) {
	rk := s.infoRank[op]
	if on {
		s.rs.infoSet[rk>>6] |= 1 << (uint(rk) & 63)
	} else {
		s.rs.infoSet[rk>>6] &^= 1 << (uint(rk) & 63)
	}
}

// begin sets up the run state on the first step.
func (s *search) begin() {
	r, n := &s.rs, s.n
	r.started = true
	words := (n + 63) / 64
	if words == 0 {
		words = 1
	}
	iw := (s.ninfo + 63) / 64
	sets := make([]uint64, words+iw) // one allocation for both
	r.set, r.infoSet = sets[:words:words], sets[words:]
	r.z = zobrist(n)
	r.mm = newMemo(n)
	r.m = s.firstOpen(0, r.set)
	r.stack = make([]frame, 0, n)
	// Small fixed buffers inside the search: a check of a small history
	// allocates little.
	r.buf = r.bufArr[:0]
	r.inits = s.m.Init(r.initArr[:0])
	r.initIdx = -1
	r.e = -2 // start the next initial state
}

// poll runs every pollEvery steps: the budget's limits and the quota.
func (s *search) poll(mm *memo, poll, quota int64) outcome {
	s.steps += pollEvery
	if s.bud != nil {
		if reason := s.bud.Exceeded(mm.len()); reason != "" {
			s.reason = reason
			return limited
		}
	}
	if quota >= 0 && poll >= quota {
		return paused
	}
	return running
}

// noteLongest records the stack as the longest linearizable prefix, with
// the entry at which it is blocked (a return entry; -1 at the end).
func (s *search) noteLongest(stack []frame, state State, e int32) {
	s.longest = s.longest[:0]
	for _, f := range stack {
		s.longest = append(s.longest, int(f.entry))
	}
	s.lstate = state
	if e >= 0 {
		s.blocked = int(e) - s.n
	} else {
		s.blocked = -1
	}
}

// undo takes op off the linearization on backtracking (but for the hash,
// state and stack, which step keeps in locals).
func (s *search) undo(op int32) {
	r := &s.rs
	s.unlift(op)
	if s.ops[op].Status != Info {
		s.complete++
	}
	r.set[op>>6] &^= uint64(1) << (uint(op) & 63)
	if s.infoRank[op] >= 0 {
		s.markInfo(op, false)
	} else if int(op) < r.m {
		r.m = int(op)
	}
}
