package csp

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// Proc is the on-the-fly LTS of one process of a program. Its top level is
// flattened: optional hiding over a parallel composition of components.
// A state is the byte string [component codes (uvarint)] [variable
// slots (zigzag varint)], a component's code being the index of its term
// among that component's terms (codes.go),, interned in an arena-backed set that gives it a
// dense uint32 id. Successors is safe for concurrent use.
type Proc struct {
	p      *Program
	name   string
	hides  []*evset
	hidden map[string]bool // the patterns of hides, read-only after newProc
	op     lang.ParOp
	alphas []*evset
	ncomp  int
	names  []string
	// live lists the variable slots a state stores, in order (nil: all of
	// them); pos is its inverse (-1: not stored); nvars is their number.
	// See live.go.
	live  []int
	pos   []int32
	nvars int
	// cd numbers each component's terms: a state's bytes hold the codes
	// (codes.go).
	cd *codes
	// ckey: the key of this process's entries in the templates' code
	// caches (fillCode), noCache: none.
	ckey uint64

	mu    sync.Mutex
	store *store
	// broken is the error of a panic during a search step (breaks):
	// the store may be half updated, so no later step may use it.
	broken atomic.Pointer[error]
	// fp, if not nil, replaces store: a probabilistic visited set
	// (compact.go, Compacted).
	fp   *compactStore
	init lts.State
	pool sync.Pool
	sym  *symState // nil: no symmetry reduction (symmetry.go)
	// indep: an interleaving without atomic steps, where a local step
	// (lts.Move.Local) is independent of the other components.
	indep bool
}

var (
	_ lts.System     = (*Proc)(nil)
	_ lts.Terminator = (*Proc)(nil)
	_ lts.Describer  = (*Proc)(nil)
	_ lts.Sized      = (*Proc)(nil)
)

// Process builds the system of a process expression, usually an assertion
// operand such as `Impl()`.
func (p *Program) Process(q lang.Proc) (sys *Proc, err error) {
	return p.process(q, nil)
}

// process is Process, sharing the codes cd (nil: new ones).
func (p *Program) process(q lang.Proc, cd *codes) (sys *Proc, err error) {
	defer func() {
		if r := recover(); r != nil {
			sys, err = nil, fmt.Errorf("lts: internal error: %v", r)
		}
	}()
	n, err := p.operandNode(q)
	if err != nil {
		return nil, err
	}
	name := "process"
	if r, ok := q.(*lang.RefProc); ok {
		name = r.Name.Name
	}
	t, err := p.norm(n, make([]int64, n.def.nslots), 0)
	if err != nil {
		return nil, err
	}
	return p.newProc(name, t, n, cd)
}

// ProcessByName builds the system of the definition name applied to args.
func (p *Program) ProcessByName(name string, args ...int64) (sys *Proc, err error) {
	defer func() {
		if r := recover(); r != nil {
			sys, err = nil, fmt.Errorf("lts: internal error: %v", r)
		}
	}()
	def := p.defs[name]
	if def == nil {
		return nil, fmt.Errorf("lts: no process named %s", name)
	}
	if len(args) != def.params {
		return nil, fmt.Errorf("lts: process %s takes %d arguments, found %d", name, def.params, len(args))
	}
	if slices.ContainsFunc(def.lens, func(n int) bool { return n > 0 }) {
		return nil, fmt.Errorf("lts: process %s has array parameters: call it from a process definition", name)
	}
	env := make([]int64, def.nslots)
	copy(env, args)
	t, err := p.norm(def.body, env, 0)
	if err != nil {
		return nil, err
	}
	return p.newProc(name, t, def.body, nil)
}

// newProc makes the system of term t, built from the prepared node root.
// cd, if not nil, is the codes of a process of the same components whose
// bytes it shares (symmetry.go).
func (p *Program) newProc(name string, t uint32, root *pnode, cd *codes) (*Proc, error) {
	s := &Proc{p: p, name: name, op: lang.Interleave}
	s.setLive(p.writtenSlots(root))
	for p.term(t).kind == kHide {
		tm := p.term(t)
		s.hides = append(s.hides, tm.set)
		t = tm.kids[0]
	}
	s.hidden = map[string]bool{}
	for _, h := range s.hides {
		for _, pt := range h.pats {
			s.hidden[pt.String()] = true
		}
	}
	var comps []uint32
	if tm := p.term(t); tm.kind == kPar {
		s.op = lang.ParOp(tm.op)
		var flatten func(tm *term)
		flatten = func(tm *term) {
			for i, k := range tm.kids {
				kt := p.term(k)
				if kt.kind == kPar && kt.op == tm.op {
					flatten(kt)
					continue
				}
				comps = append(comps, k)
				if s.op == lang.Parallel {
					s.alphas = append(s.alphas, tm.alphas[i])
				}
			}
		}
		flatten(tm)
	} else {
		comps = []uint32{t}
	}
	s.ncomp = len(comps)
	s.indep = s.op == lang.Interleave && !p.reachesAtomic(root)
	for _, c := range comps {
		s.names = append(s.names, p.termName(c))
	}
	s.cd = cd
	if cd == nil || cd.n != s.ncomp {
		s.cd = newCodes(s.ncomp)
	}
	s.ckey = s.cacheKey()
	enc := s.encode(nil, comps, p.init)
	if err := s.checkSize(len(enc)); err != nil {
		return nil, err
	}
	// Nearly every state has the length of the initial one (one byte per
	// component and variable): the store keeps those inline.
	s.store = newStore(len(enc))
	id, _ := s.store.Intern(enc)
	s.init = lts.State(id)
	return s, nil
}

// Name is the process's name.
func (s *Proc) Name() string { return s.name }

func (s *Proc) Initial() lts.State          { return s.init }
func (s *Proc) Events() *lts.EventTable     { return s.p.events }
func (s *Proc) Program() *Program           { return s.p }
func (s *Proc) Components() []string        { return append([]string(nil), s.names...) }
func (s *Proc) Terminated(t lts.State) bool { return s.terminated(t) }

func (s *Proc) NumStates() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fp != nil {
		return s.fp.Len()
	}
	return s.store.Len()
}

func (s *Proc) Bytes() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fp != nil {
		return s.fp.Bytes()
	}
	return s.store.Bytes()
}

func (s *Proc) encode(b []byte, comps []uint32, vars []int64) []byte {
	// Nearly every code and variable fits one byte: then the encoding is
	// one byte per value, written in place without a branch per value (the
	// same bytes as the varint loop below, which takes over if any value
	// is larger).
	n0 := len(b)
	n := len(comps) + s.nvars
	b = slices.Grow(b, n)
	dst := b[n0 : n0+n]
	var or uint64
	for i, c := range comps {
		k := s.cd.code(i, c)
		or |= uint64(k)
		dst[i] = byte(k)
	}
	dv := dst[len(comps):]
	if s.live == nil {
		dv = dv[:len(vars)]
		for i, v := range vars {
			z := zigzag(v)
			or |= z
			dv[i] = byte(z)
		}
	} else {
		dv = dv[:len(s.live)]
		for i, slot := range s.live {
			v := vars[slot]
			z := zigzag(v)
			or |= z
			dv[i] = byte(z)
		}
	}
	if or >= 0x80 {
		return s.encodeVarint(b[:n0], comps, vars)
	}
	return b[:n0+n]
}

// maxStateBytes is the longest encoded state the store can keep: an arena
// record (store_side.go) must fit one chunk.
const maxStateBytes = storeChunk - 4 - binary.MaxVarintLen64

// checkSize rejects a state of n bytes that the store cannot keep: a model
// whose variables take more than 4 MiB in a state is a model error, not a
// crash.
func (s *Proc) checkSize(n int) error {
	if n <= maxStateBytes {
		return nil
	}
	return fmt.Errorf("process %s: a state takes %d bytes (%d components, %d variables), over the %d bytes a state may take", s.name, n, s.ncomp, s.nvars, maxStateBytes)
}

func (s *Proc) encodeVarint(b []byte, comps []uint32, vars []int64) []byte {
	for i, c := range comps {
		b = binary.AppendUvarint(b, uint64(s.cd.code(i, c)))
	}
	if s.live == nil {
		for _, v := range vars {
			b = binary.AppendVarint(b, v)
		}
		return b
	}
	for _, slot := range s.live {
		b = binary.AppendVarint(b, vars[slot])
	}
	return b
}

func (s *Proc) decode(b []byte, comps []uint32, vars []int64) ([]uint32, []int64) {
	if s.live != nil {
		return s.decodeLive(b, comps, vars)
	}
	if nv := len(b) - s.ncomp; nv >= 0 && oneByteEach(b) {
		// The common case (see encode): one byte per value, no appends.
		comps = slices.Grow(comps[:0], s.ncomp)[:s.ncomp]
		for k := range comps {
			comps[k] = s.cd.term(k, uint32(b[k]))
		}
		vb := b[s.ncomp:]
		vars = slices.Grow(vars[:0], nv)[:nv]
		for k := range vars {
			c := vb[k]
			vars[k] = int64(c>>1) ^ -int64(c&1)
		}
		return comps, vars
	}
	comps, i := s.decodeComps(b, comps)
	vars = vars[:0]
	for i < len(b) {
		if c := b[i]; c < 0x80 {
			vars = append(vars, int64(c>>1)^-int64(c&1))
			i++
			continue
		}
		v, n := binary.Varint(b[i:])
		i += n
		vars = append(vars, v)
	}
	return comps, vars
}

// decodeLive is decode for a state that stores only the slots s.live: the
// others get their initial values.
func (s *Proc) decodeLive(b []byte, comps []uint32, vars []int64) ([]uint32, []int64) {
	vars = append(vars[:0], s.p.init...)
	if len(b) == s.ncomp+len(s.live) && oneByteEach(b) {
		comps = slices.Grow(comps[:0], s.ncomp)[:s.ncomp]
		for k := range comps {
			comps[k] = s.cd.term(k, uint32(b[k]))
		}
		vb := b[s.ncomp:]
		vb = vb[:len(s.live)]
		for k, slot := range s.live {
			c := vb[k]
			vars[slot] = int64(c>>1) ^ -int64(c&1)
		}
		return comps, vars
	}
	comps, i := s.decodeComps(b, comps)
	for _, slot := range s.live {
		if c := b[i]; c < 0x80 {
			vars[slot] = int64(c>>1) ^ -int64(c&1)
			i++
			continue
		}
		v, n := binary.Varint(b[i:])
		i += n
		vars[slot] = v
	}
	return comps, vars
}

// decodeComps decodes the component codes at the start of b into term
// ids and returns the offset of the variables.
func (s *Proc) decodeComps(b []byte, comps []uint32) ([]uint32, int) {
	comps = comps[:0]
	i := 0
	for k := 0; k < s.ncomp; k++ {
		if c := b[i]; c < 0x80 {
			comps = append(comps, s.cd.term(k, uint32(c)))
			i++
			continue
		}
		v, n := binary.Uvarint(b[i:])
		i += n
		comps = append(comps, s.cd.term(k, uint32(v)))
	}
	return comps, i
}

// oneByteEach reports whether no byte of b has its high bit set: then every
// value of the encoding is one byte.
func oneByteEach(b []byte) bool {
	var or uint64
	for len(b) >= 8 {
		or |= binary.LittleEndian.Uint64(b)
		b = b[8:]
	}
	for _, c := range b {
		or |= uint64(c)
	}
	return or&0x8080808080808080 == 0
}

// raw copies the encoding of t into buf.
func (s *Proc) raw(t lts.State, buf []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.appendGet(buf[:0], uint32(t))
}

func (s *Proc) terminated(t lts.State) bool {
	var cb [16]uint32
	var vb [16]int64
	comps, _ := s.decode(s.raw(t, nil), cb[:0], vb[:0])
	for _, c := range comps {
		if c != termSkip {
			return false
		}
	}
	return true
}

// scratch is the per-call working memory of Successors.
//
// Each worker of a parallel search has one, written on every successor;
// the padding at both ends keeps two scratches that the allocator placed
// side by side off a shared cache line. Without it, the two workers of a
// parallel search were, from one run to the next, either about 1.5 times
// as fast as one or slower than one, each doing nearly twice the work
// (philosophers, N = 12: 0.31-0.33 s or 0.50-0.55 s wall; one worker
// 0.46 s).
type scratch struct {
	_      [cacheLinePad]byte
	m      machine
	raw    []byte
	comps  []uint32
	vars   []int64
	ncomps []uint32
	nv     []int64
	c      combiner
	enc    []byte
	ends   []int
	evs    []lts.Event
	who    []int32 // index into c.joints of each successor
	ids    []uint32
	raws   []byte // encodings of a batch of states
	rawEnd []int
	tsets  []*tmplSet // expandPlain: each component's templates
	shared []int8     // expandPlain: the values of shared first conds
	// only, when not 0, restricts the successors made to those of
	// component only-1 (ComponentMoves); the others' steps are still
	// evaluated, so that the state's run-time errors are the same.
	only int32
	// generic makes expandRaw take the general path (Who reads its
	// combination).
	generic bool
	// canon/cends receive the representatives of enc/ends (symmetry.go).
	canon []byte
	cends []int
	sym   symCache
	// The word path (words.go): wmode, the batch's successors are
	// words (those with an empty string in enc) or strings; pw the
	// parents' words; wc the compiled word edges.
	wmode bool
	words []uint64
	pw    []uint64
	wc    wordCache
	_     [cacheLinePad]byte
}

// appendGet appends the bytes of t to dst (s.mu held).
func (s *Proc) appendGet(dst []byte, t uint32) []byte {
	if s.fp != nil {
		return append(dst, s.fp.Get(t)...)
	}
	return s.store.AppendGet(dst, t)
}

// lookup returns the id of the state enc if the set holds it (s.mu held).
// A compacted set knows only the states it has pinned.
// lookupLocked is lookup under the lock.
func (s *Proc) lookupLocked(enc []byte) (uint32, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lookup(enc)
}

func (s *Proc) lookup(enc []byte) (uint32, bool) {
	if s.fp != nil {
		return s.fp.Lookup(enc)
	}
	return s.store.Lookup(enc)
}

func (s *Proc) getScratch() *scratch {
	n := int(s.p.maxLocals.Load()) + 1
	if x := s.pool.Get(); x != nil {
		sc := x.(*scratch)
		if len(sc.m.locals) < n {
			sc.m.locals = make([]int64, n)
		}
		return sc
	}
	return &scratch{m: machine{locals: make([]int64, n)}}
}

// Successors appends the transitions of t, in a deterministic order.
func (s *Proc) Successors(t lts.State, buf []lts.Transition) (out []lts.Transition, err error) {
	if err := s.brokenErr(); err != nil {
		return buf, err
	}
	defer func() {
		if r := recover(); r != nil {
			out, err = buf, s.breaks(r)
		}
	}()
	x := s.getScratch()
	defer s.pool.Put(x)
	if err := s.expand(t, x); err != nil {
		return buf, err
	}
	return s.intern(x, buf), nil
}

// intern stores the successors encoded in x (their representatives, under
// a symmetry) and appends them to buf as transitions. A system that passes
// hotStates states makes its program specialise event blocks.
func (s *Proc) intern(x *scratch, buf []lts.Transition) []lts.Transition {
	if s.sym != nil {
		s.canonAll(x)
	}
	if s.internIDs(x) {
		s.p.heatBlocks()
	}
	for i, id := range x.ids {
		buf = append(buf, lts.Transition{Event: x.evs[i], Target: lts.State(id)})
	}
	return buf
}

// internIDs interns x's successors into x.ids under the lock (released
// by a panic too: the search's recover must not leave it held) and says
// whether the program should specialise its blocks now.
func (s *Proc) internIDs(x *scratch) (hot bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if internHook != nil {
		n := s.store.Len()
		if s.fp != nil {
			n = s.fp.Len()
		}
		internHook(n)
	}
	if s.fp != nil {
		x.ids = s.fp.InternAll(x.enc, x.ends, x.ids[:0])
		return s.p.hot(s.fp.Len())
	}
	if x.wmode {
		x.ids = s.store.InternWords(x.enc, x.ends, x.words, s.ncomp+s.nvars, x.ids[:0])
		return s.p.hot(s.store.Len())
	}
	x.ids = s.store.InternAll(x.enc, x.ends, x.ids[:0])
	return s.p.hot(s.store.Len())
}

// internHook, if set (tests), is called with the number of states stored
// before every interning, under the lock: a panic there stands for a
// store that fails (TestStorePanicNoHang).
var internHook func(n int)

// breaks records the panic r of a search step: the store may be half
// updated, so every later step of s returns the error (brokenErr) rather
// than probing it.
func (s *Proc) breaks(r any) error {
	err := fmt.Errorf("lts: internal error: %v", r)
	s.broken.CompareAndSwap(nil, &err)
	return err
}

// brokenErr is the error of the panic that broke s, if any.
func (s *Proc) brokenErr() error {
	if e := s.broken.Load(); e != nil {
		return *e
	}
	return nil
}

// expand computes the encoded successors of t into x.enc/x.ends/x.evs/x.who.
func (s *Proc) expand(t lts.State, x *scratch) error {
	x.raw = s.raw(t, x.raw)
	x.enc, x.ends, x.evs, x.who = x.enc[:0], x.ends[:0], x.evs[:0], x.who[:0]
	return s.expandRaw(x.raw, x)
}

// expandRaw appends the encoded successors of the state encoded as raw to
// x.enc/x.ends/x.evs/x.who.
func (s *Proc) expandRaw(raw []byte, x *scratch) error {
	p := s.p
	x.comps, x.vars = s.decode(raw, x.comps, x.vars)
	m := &x.m
	m.err = nil
	m.undo = m.undo[:0]
	if s.op == lang.Interleave && !x.generic && !plainOff {
		if ok, err := s.expandPlain(raw, x); ok || err != nil {
			return err
		}
	}
	c := &x.c
	c.flat, c.ext, c.starts = c.flat[:0], c.ext[:0], c.starts[:0]
	for i, ct := range x.comps {
		c.starts = append(c.starts, int32(len(c.flat)))
		if ct == termSkip || ct == termStop {
			continue
		}
		m.vars = x.vars
		es, err := p.templates(ct)
		if err == errComplex {
			es, err = p.build(ct, m, nil)
		}
		if err != nil {
			return err
		}
	edges:
		for j := range es {
			e := &es[j]
			m.vars = x.vars
			if !e.done && (e.kind == labTau || e.kind == labEv) {
				// The common case, inlined: guards, then a fixed label.
				if !m.guardsHold(e.conds) {
					if m.err != nil {
						return m.err
					}
					continue edges
				}
				c.flat = append(c.flat, move{e: e, x: -1, ev: e.ev, who: int32(i), kind: e.kind, sync: e.sync, atomic: e.atomic})
				continue
			}
			if err := p.inst(e, m, c, int32(i)); err != nil {
				return err
			}
		}
	}
	c.starts = append(c.starts, int32(len(c.flat)))
	m.vars = x.vars
	if err := p.combine(c, s.op, s.alphas, false, m); err != nil {
		return err
	}
	atomicOnly := false
	for _, j := range c.joints {
		if j.atomic {
			atomicOnly = true
			break
		}
	}
	if cap(x.nv) < len(x.vars) {
		x.nv = make([]int64, len(x.vars))
	}
	x.nv = x.nv[:len(x.vars)]
	for ji, j := range c.joints {
		if atomicOnly && !j.atomic {
			continue
		}
		if err := s.fire(x, j); err != nil {
			return err
		}
		ev := j.ev
		for _, h := range s.hides {
			if p.has(h, ev) {
				ev = lts.Tau
				break
			}
		}
		n0 := len(x.enc)
		x.enc = s.encode(x.enc, x.ncomps, x.nv)
		if err := s.checkSize(len(x.enc) - n0); err != nil {
			return err
		}
		x.ends = append(x.ends, len(x.enc))
		x.evs = append(x.evs, ev)
		x.who = append(x.who, int32(ji))
	}
	return nil
}

// plainOff disables expandPlain: the tests compare it with the general
// path.
var plainOff bool

// expandPlain is expandRaw for an interleaving whose components all have
// plain templates (tmplSet), the common case of a model's threads: each
// enabled template is one successor, in component then template order, as
// combine would list them (nothing synchronises, nothing is atomic). A
// state with several run-time errors reports the one the general path
// reports (see blockErr below). It returns false, having appended nothing,
// if some component is not plain (or its templates are not memoised yet).
// Who takes the general path, which records who moved (x.who is
// -2-2i here for component i, one less for a local step; see
// SuccessorsMoves).
func (s *Proc) expandPlain(raw []byte, x *scratch) (bool, error) {
	p := s.p
	x.tsets = x.tsets[:0]
	for _, ct := range x.comps {
		var ts *tmplSet
		if ct != termSkip && ct != termStop {
			if ts = p.term(ct).edges.Load(); ts == nil || !ts.plain {
				return false, nil
			}
		}
		x.tsets = append(x.tsets, ts)
	}
	if s.plainWords(raw, x) {
		return true, nil
	}
	m := &x.m
	m.vars = x.vars
	// Each block runs on the state's own variables, logging its writes;
	// when the state is in the one-byte-per-value form, the successor is
	// the state's bytes with the moved component and the written slots
	// patched. Then the writes are undone.
	short := len(raw) == len(x.comps)+s.nvars
	// The general path evaluates every guard and label before it runs any
	// block, so a failing guard or label is reported before a failing
	// block: after a block fails, the remaining guards and labels are
	// still evaluated, and no more successors are made.
	var blockErr error
	for i, ts := range x.tsets {
		if ts == nil {
			continue
		}
		// The values of the shared first conds in this state: 0 not
		// evaluated yet, 1 true, 2 false.
		shared := x.shared[:0]
		if ts.first != nil {
			shared = append(shared, make([]int8, ts.groups)...)
			x.shared = shared
		}
	edges:
		for j := range ts.es {
			e := &ts.es[j]
			if ts.fast != nil && ts.fast[j] != nil && short {
				if s.fastEdge(raw, x, i, e, ts.fast[j], &ts.codes[j], blockErr != nil) != fastSlow {
					continue
				}
			}
			conds := e.conds
			if ts.first != nil {
				if g := ts.first[j]; g >= 0 {
					switch shared[g] {
					case 0:
						m.env = conds[0].env
						if conds[0].f(m) == 0 || m.err != nil {
							if m.err != nil {
								return true, m.err
							}
							shared[g] = 2
							continue edges
						}
						shared[g] = 1
					case 2:
						continue edges
					}
					conds = conds[1:]
				}
			}
			if !m.guardsHold(conds) {
				if m.err != nil {
					return true, m.err
				}
				continue edges
			}
			ev := e.ev
			if e.kind == labDyn {
				var hidden bool
				if ev, hidden = p.dynEvent(e, m); m.err != nil {
					return true, m.err
				}
				if hidden {
					ev = lts.Tau
				}
			}
			if blockErr != nil {
				continue
			}
			m.undo = m.undo[:0]
			if e.block.f != nil {
				m.env = e.block.env
				e.block.f(m)
				if m.err != nil {
					blockErr, m.err = m.err, nil
					x.undo()
					continue
				}
			}
			if x.only != 0 && int32(i) != x.only-1 {
				x.undo()
				continue
			}
			for _, h := range s.hides {
				if p.has(h, ev) {
					ev = lts.Tau
					break
				}
			}
			who := int32(-2 - 2*i)
			if s.indep && localEdge(e) {
				who-- // a local step (SuccessorsMoves)
			}
			if err := s.plainSuccessor(raw, x, i, e.target, &ts.codes[j], ev, who, short); err != nil {
				return true, err
			}
		}
	}
	return true, blockErr
}

// plainSuccessor appends the successor in which component i moved to
// to with event ev, the variables as the block left them (x.vars,
// m.undo), then undoes the block's writes. When the state is in the
// one-byte-per-value form (short) and every patched value fits, the
// successor is raw with those bytes patched; else it is encoded anew.
func (s *Proc) plainSuccessor(raw []byte, x *scratch, i int, to uint32, cc *atomic.Uint64, ev lts.Event, who int32, short bool) error {
	m := &x.m
	nc := len(x.comps)
	target := s.stripHides(to)
	n0 := len(x.enc)
	ok := short
	var code uint32
	if ok {
		if v := cc.Load(); v&^0xff == s.ckey|uint64(i)<<8 {
			code = uint32(v) & 0xff
		} else {
			code = s.fillCode(cc, i, to)
		}
		ok = code < 0x80
	}
	if ok {
		x.enc = append(x.enc, raw...)
		enc := x.enc[n0:]
		enc[i] = byte(code)
		for _, u := range m.undo {
			at := u.slot
			if s.pos != nil {
				if at = int(s.pos[at]); at < 0 {
					return s.unstoredWrite(u.slot)
				}
			}
			v := x.vars[u.slot]
			z := zigzag(v)
			if z >= 0x80 {
				ok = false
				break
			}
			enc[nc+at] = byte(z)
		}
	} else if s.pos != nil {
		for _, u := range m.undo {
			if s.pos[u.slot] < 0 {
				return s.unstoredWrite(u.slot)
			}
		}
	}
	if !ok {
		old := x.comps[i]
		x.comps[i] = target
		x.enc = s.encode(x.enc[:n0], x.comps, x.vars)
		x.comps[i] = old
		if err := s.checkSize(len(x.enc) - n0); err != nil {
			x.undo()
			return err
		}
	}
	x.undo()
	x.ends = append(x.ends, len(x.enc))
	x.evs = append(x.evs, ev)
	x.who = append(x.who, who)
	return nil
}

// undo restores the variables that the last block wrote.
func (x *scratch) undo() {
	u := x.m.undo
	for i := len(u) - 1; i >= 0; i-- {
		x.vars[u[i].slot] = u[i].old
	}
	x.m.undo = u[:0]
}

// fire executes joint j from the decoded state into x.ncomps and x.nv.
func (s *Proc) fire(x *scratch, j joint) error {
	p := s.p
	c := &x.c
	m := &x.m
	copy(x.nv, x.vars)
	x.ncomps = append(x.ncomps[:0], x.comps...)
	m.vars = x.nv
	m.undo = m.undo[:0]
	parts := c.parts[j.off : j.off+j.n]
	for k, pi := range parts {
		mv := &c.flat[pi]
		e := c.edgeOf(mv)
		target := e.target
		if j.pair && k == 1 {
			a := c.edgeOf(&c.flat[parts[0]])
			ne := make([]int64, max(len(e.env), e.node.def.nslots))
			copy(ne, e.env)
			for i, sl := range e.node.slots {
				if sl >= 0 && i < int(a.nv) {
					ne[sl] = a.vals[i]
				}
			}
			t, err := p.bindTarget(e.node, ne, e.wraps)
			if err != nil {
				return err
			}
			target = t
			if e.block.f != nil {
				m.env = ne
				e.block.f(m)
			}
		} else {
			p.apply(e, m)
		}
		if m.err != nil {
			return m.err
		}
		x.ncomps[mv.who] = s.stripHides(target)
	}
	if s.pos != nil {
		for _, u := range m.undo {
			if s.pos[u.slot] < 0 {
				return s.unstoredWrite(u.slot)
			}
		}
	}
	return nil
}

// fillCode returns the code in component i of template target t (hides
// stripped) and caches it in the template's cache cc if it is one byte
// (codes.go). fastEdge and plainSuccessor first read cc themselves (a
// function would not be inlined): an entry whose key is s.ckey | i<<8
// holds the code in its low byte.
func (s *Proc) fillCode(cc *atomic.Uint64, i int, t uint32) uint32 {
	k := s.cd.code(i, s.stripHides(t))
	if s.ckey != noCache && k < 0x80 {
		cc.CompareAndSwap(0, s.ckey|uint64(i)<<8|uint64(k))
	}
	return k
}

// cacheKey is the key of s's entries in the edge code caches, noCache for
// none: only when no hides are stripped is a template's code a function
// of the codes, the component and the target alone.
func (s *Proc) cacheKey() uint64 {
	if s.cd.id == 0 || s.ncomp >= cacheComps || s.ncomp == 1 && len(s.hides) > 0 {
		return noCache
	}
	return uint64(s.cd.id) << 32
}

// stripHides removes from the term of a single component the hiding that
// the process already applies at its top: P = (a -> b -> P) \ {a} peels
// the hide off the initial term, and without this every unfolding of P
// would come back wrapped in it, doubling the states.
func (s *Proc) stripHides(t uint32) uint32 {
	if s.ncomp != 1 || len(s.hides) == 0 {
		return t
	}
	for {
		tm := s.p.term(t)
		if tm.kind != kHide {
			return t
		}
		for _, pt := range tm.set.pats {
			if !s.hidden[pt.String()] {
				return t
			}
		}
		t = tm.kids[0]
	}
}

// apply runs the effects of an instantiated edge on m.vars.
func (p *Program) apply(e *edge, m *machine) {
	if e.sub != nil {
		for i := range e.sub {
			p.apply(&e.sub[i], m)
			if m.err != nil {
				return
			}
		}
		return
	}
	if e.block.f != nil {
		m.env = e.block.env
		if e.benv != nil {
			m.env = e.benv
		}
		e.block.f(m)
		if m.err != nil {
			return
		}
	}
	switch e.bop {
	case bopPush:
		cd := e.node.ch
		base := cd.base + int(e.ch)*cd.instSlots()
		n := int(m.vars[base])
		at := base + 1 + n*cd.arity
		for i := 0; i < cd.arity; i++ {
			var v int64
			if i < int(e.nv) {
				v = e.vals[i]
			}
			m.vars[at+i] = v
		}
		m.vars[base]++
	case bopPop:
		cd := e.node.ch
		base := cd.base + int(e.ch)*cd.instSlots()
		n := int(m.vars[base])
		copy(m.vars[base+1:], m.vars[base+1+cd.arity:base+1+n*cd.arity])
		for i := base + 1 + (n-1)*cd.arity; i < base+1+n*cd.arity; i++ {
			m.vars[i] = 0
		}
		m.vars[base]--
	}
}

// Who names the component(s) that moved in the transition t -e-> u (the
// first such transition in the deterministic order), or "" if none. The
// successors it compares are not reduced: on a symmetry-reduced system,
// ask Unreduced() about the states Unreduce returns.
func (s *Proc) Who(t lts.State, e lts.Event, u lts.State) string {
	x := s.getScratch()
	defer s.pool.Put(x)
	x.generic = true
	defer func() { x.generic = false }()
	if err := s.expand(t, x); err != nil {
		return ""
	}
	start := 0
	for i, end := range x.ends {
		enc := x.enc[start:end]
		start = end
		if x.evs[i] != e {
			continue
		}
		if id, ok := s.lookupLocked(enc); ok && lts.State(id) == u {
			// Every component that took part, in component order.
			j := x.c.joints[x.who[i]]
			var names []string
			for _, pi := range x.c.parts[j.off : j.off+j.n] {
				names = append(names, s.names[x.c.flat[pi].who])
			}
			return strings.Join(names, "+")
		}
	}
	return ""
}

// Describe shows the variables of t and the control state of each
// component.
func (s *Proc) Describe(t lts.State) []lts.Binding {
	p := s.p
	comps, vars := s.decode(s.raw(t, nil), nil, nil)
	var out []lts.Binding
	for i, vi := range p.info.Vars {
		base := p.varBase[i]
		n := 1
		for _, d := range vi.Dims {
			n *= d
		}
		out = append(out, lts.Binding{Name: vi.Decl.Name.Name, Value: formatVals(vars[base:base+n], vi.Dims != nil, vi.Bool)})
	}
	for _, cd := range p.chans {
		if cd.size == 0 {
			continue
		}
		n := 1
		for _, d := range cd.dims {
			n *= d
		}
		for k := 0; k < n; k++ {
			base := cd.base + k*cd.instSlots()
			cnt := int(vars[base])
			var msgs []string
			for q := 0; q < cnt; q++ {
				var parts []string
				for a := 0; a < cd.arity; a++ {
					parts = append(parts, strconv.FormatInt(vars[base+1+q*cd.arity+a], 10))
				}
				msgs = append(msgs, strings.Join(parts, "."))
			}
			name := cd.name
			x := k
			idx := make([]string, len(cd.dims))
			for d := len(cd.dims) - 1; d >= 0; d-- {
				idx[d] = "[" + strconv.Itoa(x%cd.dims[d]) + "]"
				x /= cd.dims[d]
			}
			name += strings.Join(idx, "")
			out = append(out, lts.Binding{Name: name, Value: "[" + strings.Join(msgs, ", ") + "]"})
		}
	}
	for i, c := range comps {
		out = append(out, lts.Binding{Name: "@" + s.names[i], Value: p.describeTerm(c)})
	}
	return out
}

// describeTerm is termString(t, 3), memoised: a counterexample describes
// each of its states, and its components are in few distinct terms.
func (p *Program) describeTerm(t uint32) string {
	p.originMu.Lock()
	str, ok := p.descTerm[t]
	p.originMu.Unlock()
	if ok {
		return str
	}
	str = p.termString(t, 3)
	p.originMu.Lock()
	if p.descTerm == nil {
		p.descTerm = map[uint32]string{}
	}
	p.descTerm[t] = str
	p.originMu.Unlock()
	return str
}

func formatVals(vs []int64, array, isBool bool) string {
	var buf [64]byte
	b := buf[:0]
	if array {
		b = append(b, '[')
	}
	for i, v := range vs {
		if !array && i > 0 {
			break
		}
		if i > 0 {
			b = append(b, ", "...)
		}
		if isBool {
			b = strconv.AppendBool(b, v != 0)
		} else {
			b = strconv.AppendInt(b, v, 10)
		}
	}
	if array {
		b = append(b, ']')
	}
	return string(b)
}

// termName names a component by the definition its control is in.
func (p *Program) termName(t uint32) string {
	p.originMu.Lock()
	o, ok := p.origin[t]
	p.originMu.Unlock()
	if ok {
		return o
	}
	tm := p.term(t)
	switch tm.kind {
	case kStop:
		return "Stop"
	case kSkip:
		return "Skip"
	case kNode:
		return p.defName(tm.node, tm.env)
	}
	if len(tm.kids) > 0 {
		return p.termName(tm.kids[0])
	}
	return "?"
}

func (p *Program) defName(n *pnode, env []int64) string {
	d := n.def
	if d.name == "" {
		return "main"
	}
	return d.name + "(" + d.args(env) + ")"
}

// args renders the parameters' values in env, an array parameter as
// [a,b,c].
func (d *procDef) args(env []int64) string {
	var args []string
	slot := 0
	for _, n := range d.lens {
		if slot+max(n, 1) > len(env) {
			break
		}
		if n == 0 {
			args = append(args, strconv.FormatInt(env[slot], 10))
			slot++
			continue
		}
		el := make([]string, n)
		for k := range el {
			el[k] = strconv.FormatInt(env[slot+k], 10)
		}
		args = append(args, "["+strings.Join(el, ",")+"]")
		slot += n
	}
	return strings.Join(args, ",")
}

// termString renders a term briefly, for counterexamples.
func (p *Program) termString(t uint32, depth int) string {
	tm := p.term(t)
	if depth <= 0 {
		return "…"
	}
	switch tm.kind {
	case kStop:
		return "Stop"
	case kSkip:
		return "Skip"
	case kNode:
		pos := tm.node.src.Pos()
		return fmt.Sprintf("%s@%d:%d", p.defName(tm.node, tm.env), pos.Line, pos.Col)
	case kSeq:
		return p.termString(tm.kids[0], depth-1) + "; " + p.termString(tm.kids[1], depth-1)
	case kAtomic:
		return "atomic{" + p.termString(tm.kids[0], depth-1) + "}"
	case kHide:
		return p.termString(tm.kids[0], depth-1) + " \\ {" + tm.set.key + "}"
	}
	sep := map[tkind]string{kChoice: " [] ", kPar: " || ", kIntr: " interrupt "}[tm.kind]
	var parts []string
	for _, k := range tm.kids {
		parts = append(parts, p.termString(k, depth-1))
	}
	return "(" + strings.Join(parts, sep) + ")"
}

// SuccessorsBatch appends the transitions of every state of ts to buf, in
// order, and the number of transitions of each to counts: the same result
// as calling Successors on each, but the successors of the whole batch are
// interned together (store.InternAll), so that the cache misses of the
// lookups overlap. On a model error at ts[k], the results of ts[:k] are
// returned (len(counts) == k) with the error; on an internal error (a
// panic), none.
func (s *Proc) SuccessorsBatch(ts []lts.State, buf []lts.Transition, counts []int) (out []lts.Transition, cnt []int, err error) {
	n0 := len(counts)
	if err := s.brokenErr(); err != nil {
		return buf, counts, err
	}
	defer func() {
		if r := recover(); r != nil {
			// buf has none of the batch's transitions: nor may counts.
			out, cnt, err = buf, counts[:n0], s.breaks(r)
		}
	}()
	x := s.getScratch()
	defer s.pool.Put(x)
	x.enc, x.ends, x.evs, x.who = x.enc[:0], x.ends[:0], x.evs[:0], x.who[:0]
	switch s.readWords(ts, x) {
	case wordsIn:
		x.wmode = true
		defer func() { x.wmode = false }()
		fallthrough
	case wordsBytes:
		counts, err = s.expandWordBatch(ts, x, counts)
		return s.intern(x, buf), counts, err
	}
	s.readAll(ts, x)
	start := 0
	for _, end := range x.rawEnd {
		n := len(x.ends)
		if e := s.expandRaw(x.raws[start:end], x); e != nil {
			// Keep the successors of the states before this one only.
			encEnd := 0
			if n > 0 {
				encEnd = x.ends[n-1]
			}
			x.enc, x.ends, x.evs, x.who = x.enc[:encEnd], x.ends[:n], x.evs[:n], x.who[:n]
			err = e
			break
		}
		start = end
		counts = append(counts, len(x.ends)-n)
	}
	return s.intern(x, buf), counts, err
}
