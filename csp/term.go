package csp

import (
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// A term is a hash-consed process expression: a prepared node with its
// environment (kNode), or an operator over other terms. Terms are
// immutable; equal terms have equal ids. Stop is term 0 and Skip term 1.
type tkind uint8

const (
	kStop tkind = iota
	kSkip
	kNode   // a prefix-like leaf (or, as the right of kSeq, suspended syntax)
	kSeq    // kids[0]; kids[1] (kids[1] is a suspended kNode)
	kChoice // op: lang.ChoiceOp
	kPar    // op: lang.ParOp; alphas per kid for ||
	kHide   // set
	kAtomic // atomic{kids[0]}
	kIntr   // kids[0] interrupt kids[1]
)

const (
	termStop uint32 = 0
	termSkip uint32 = 1
)

type term struct {
	id     uint32
	kind   tkind
	op     uint8
	node   *pnode
	env    []int64
	kids   []uint32
	set    *evset
	alphas []*evset

	edges atomic.Pointer[tmplSet] // memoised transition templates
	cplx  atomic.Int32            // 0 unknown, 1 simple, 2 complex
}

func (p *Program) term(id uint32) *term { return p.terms.get(id) }

// mk interns t and returns its id.
func (p *Program) mk(t *term) uint32 {
	var kb [128]byte
	b := nodeKey(kb[:0], t.kind, t.op, t.node, t.env)
	b = binary.AppendUvarint(b, uint64(len(t.kids)))
	for _, k := range t.kids {
		b = binary.AppendUvarint(b, uint64(k))
	}
	if t.set != nil {
		b = binary.AppendUvarint(b, uint64(t.set.id)+1)
	} else {
		b = append(b, 0)
	}
	for _, a := range t.alphas {
		if a == nil {
			b = append(b, 0)
		} else {
			b = binary.AppendUvarint(b, uint64(a.id)+1)
		}
	}
	return p.intern(b, func() *term { return t })
}

// nodeKey appends the start of a term's key: its kind, op, node and
// environment.
func nodeKey(b []byte, kind tkind, op uint8, node *pnode, env []int64) []byte {
	b = append(b, byte(kind), op)
	if node != nil {
		b = binary.AppendUvarint(b, uint64(node.id)+1)
	} else {
		b = append(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(env)))
	for _, v := range env {
		b = binary.AppendVarint(b, v)
	}
	return b
}

// mkNode is mk(&term{kind: kNode, node: n, env: env}) that allocates the
// term (and a copy of env) only when it is new: a check's templates look
// up the same process references many times.
func (p *Program) mkNode(n *pnode, env []int64) uint32 {
	var kb [128]byte
	b := nodeKey(kb[:0], kNode, 0, n, env)
	b = append(b, 0, 0) // no kids, no set (as mk writes them)
	return p.intern(b, func() *term { return &term{kind: kNode, node: n, env: slices.Clone(env)} })
}

// intern returns the id of the term whose key is b, adding the term
// made by mk if b is new.
func (p *Program) intern(b []byte, mk func() *term) uint32 {
	tt := &p.terms
	tt.mu.Lock()
	defer tt.mu.Unlock()
	id, added := tt.set.Intern(b)
	if !added {
		return id
	}
	nt := mk()
	nt.id = id
	tt.chunk(id)[id&(1<<chunkShift-1)] = nt
	tt.count.Store(id + 1)
	return id
}

// initTerms interns Stop and Skip first so they get ids 0 and 1.
func (p *Program) initTerms() {
	if p.mk(&term{kind: kStop}) != termStop || p.mk(&term{kind: kSkip}) != termSkip {
		panic("lts: Stop/Skip ids")
	}
}

const maxUnfold = 1000

// norm builds the term of node n with environment env, unfolding process
// references whose arguments do not read variables.
func (p *Program) norm(n *pnode, env []int64, depth int) (uint32, error) {
	if depth > maxUnfold {
		return 0, &lts.RuntimeError{Pos: n.src.Pos().String(), Msg: "unguarded recursion (a process reaches itself without an event)"}
	}
	switch n.kind {
	case pStop:
		return termStop, nil
	case pSkip:
		return termSkip, nil
	case pRef:
		if n.dyn {
			return p.leaf(n, env), nil
		}
		ne, err := p.refEnv(n, env, nil)
		if err != nil {
			return 0, err
		}
		t, err := p.norm(n.ref.body, ne, depth+1)
		if err == nil {
			p.noteOrigin(t, n.ref, ne)
		}
		return t, err
	case pPrefix, pChanOut, pChanIn, pGuard, pIf, pCase:
		return p.leaf(n, env), nil
	case pSeq:
		l, err := p.norm(n.kids[0], env, depth+1)
		if err != nil {
			return 0, err
		}
		return p.seq(l, p.leaf(n.kids[1], env))
	case pChoice:
		kids := make([]uint32, len(n.kids))
		for i, k := range n.kids {
			t, err := p.norm(k, env, depth+1)
			if err != nil {
				return 0, err
			}
			kids[i] = t
		}
		return p.choice(uint8(n.op), kids), nil
	case pPar:
		kids := make([]uint32, len(n.kids))
		var alphas []*evset
		for i, k := range n.kids {
			t, err := p.norm(k, env, depth+1)
			if err != nil {
				return 0, err
			}
			kids[i] = t
			if n.op == int(lang.Parallel) {
				a, err := p.alphabet(k, env)
				if err != nil {
					return 0, err
				}
				alphas = append(alphas, a)
			}
		}
		return p.par(uint8(n.op), kids, alphas), nil
	case pIndexed:
		body := n.kids[0]
		envs, err := p.indexEnvs(n, env)
		if err != nil {
			return 0, err
		}
		kids := make([]uint32, 0, len(envs))
		var alphas []*evset
		for _, ne := range envs {
			t, err := p.norm(body, ne, depth+1)
			if err != nil {
				return 0, err
			}
			kids = append(kids, t)
			if n.isPar && n.op == int(lang.Parallel) {
				a, err := p.alphabet(body, ne)
				if err != nil {
					return 0, err
				}
				alphas = append(alphas, a)
			}
		}
		if n.isPar {
			return p.par(uint8(n.op), kids, alphas), nil
		}
		return p.choice(uint8(n.op), kids), nil
	case pHide:
		b, err := p.norm(n.kids[0], env, depth+1)
		if err != nil {
			return 0, err
		}
		set, err := p.userSet(n.hide, n.hideSc, env)
		if err != nil {
			return 0, err
		}
		return p.hideT(b, set), nil
	case pAtomic:
		b, err := p.norm(n.kids[0], env, depth+1)
		if err != nil {
			return 0, err
		}
		return p.atomicT(b), nil
	case pIntr:
		l, err := p.norm(n.kids[0], env, depth+1)
		if err != nil {
			return 0, err
		}
		r, err := p.norm(n.kids[1], env, depth+1)
		if err != nil {
			return 0, err
		}
		return p.intr(l, r), nil
	}
	return 0, fmt.Errorf("lts: unknown node kind %d", n.kind)
}

// refEnv evaluates the arguments of a reference (m supplies the variables
// for arguments that read them).
func (p *Program) refEnv(n *pnode, env []int64, m *machine) ([]int64, error) {
	ne := make([]int64, n.ref.nslots)
	var mm machine
	if m != nil {
		mm.vars = m.vars
	}
	mm.env = env
	for i, a := range n.args {
		ne[i] = a.f(&mm)
	}
	if mm.err != nil {
		return nil, mm.err
	}
	return ne, nil
}

// envWith copies env (sized for def) with slot set to v.
func (p *Program) envWith(def *procDef, env []int64, slot int, v int64) []int64 {
	ne := make([]int64, max(def.nslots, len(env)))
	copy(ne, env)
	ne[slot] = v
	return ne
}

// leaf interns a kNode term, keeping only the env slots the node reads so
// that dead bindings do not split states.
func (p *Program) leaf(n *pnode, env []int64) uint32 {
	var buf [16]int64
	var ne []int64
	if n.def.nslots <= len(buf) {
		ne = buf[:n.def.nslots]
	} else {
		ne = make([]int64, n.def.nslots)
	}
	copy(ne, env)
	if n.def.nslots <= 64 {
		for i := range ne {
			if n.free&(1<<i) == 0 {
				ne[i] = 0
			}
		}
	}
	return p.mkNode(n, ne)
}

// unsuspend normalises a suspended kNode (the right of a sequence).
func (p *Program) unsuspend(t uint32) (uint32, error) {
	tm := p.term(t)
	if tm.kind != kNode {
		return t, nil
	}
	return p.norm(tm.node, tm.env, 0)
}

func (p *Program) seq(l, r uint32) (uint32, error) {
	switch l {
	case termSkip:
		return p.unsuspend(r)
	case termStop:
		return termStop, nil
	}
	return p.mk(&term{kind: kSeq, kids: []uint32{l, r}}), nil
}

func (p *Program) choice(op uint8, kids []uint32) uint32 {
	if len(kids) == 0 {
		return termStop
	}
	if len(kids) == 1 {
		return kids[0]
	}
	return p.mk(&term{kind: kChoice, op: op, kids: kids})
}

func (p *Program) par(op uint8, kids []uint32, alphas []*evset) uint32 {
	done := true
	for _, k := range kids {
		if k != termSkip {
			done = false
		}
	}
	if done {
		return termSkip
	}
	return p.mk(&term{kind: kPar, op: op, kids: kids, alphas: alphas})
}

func (p *Program) hideT(b uint32, set *evset) uint32 {
	if b == termSkip || b == termStop {
		return b
	}
	// (P \ A) \ B is P \ (A ∪ B). Without this, a recursion under hiding,
	// P = (a -> P) \ {a}, nests one more hide per unfolding and the state
	// space never closes.
	if in := p.term(b); in.kind == kHide {
		if in.set == set {
			return b
		}
		return p.mk(&term{kind: kHide, kids: in.kids, set: p.unionSet(in.set, set)})
	}
	return p.mk(&term{kind: kHide, kids: []uint32{b}, set: set})
}

// unionSet is the event set holding the patterns of a and b.
func (p *Program) unionSet(a, b *evset) *evset {
	seen := make(map[string]bool, len(a.pats)+len(b.pats))
	var pats []pattern
	for _, pt := range append(append([]pattern(nil), a.pats...), b.pats...) {
		if k := pt.String(); !seen[k] {
			seen[k] = true
			pats = append(pats, pt)
		}
	}
	return p.internSet(pats)
}

func (p *Program) atomicT(b uint32) uint32 {
	if b == termSkip || b == termStop {
		return b
	}
	return p.mk(&term{kind: kAtomic, kids: []uint32{b}})
}

func (p *Program) intr(l, r uint32) uint32 {
	if l == termSkip {
		return termSkip
	}
	return p.mk(&term{kind: kIntr, kids: []uint32{l, r}})
}

// ---------------------------------------------------------------------------
// Event sets: hiding sets, #alphabet sets and default alphabets.

// pattern matches events: base name, then data where a wildcard bit
// matches any value. A prefix pattern (hiding, #alphabet) also matches
// events with more data ("b" matches "b.1"); an exact one (a default
// alphabet) needs the same number of data.
type pattern struct {
	base  string
	data  []int64
	wild  uint64
	exact bool
}

func (pt pattern) String() string {
	var sb strings.Builder
	sb.WriteString(pt.base)
	for i, d := range pt.data {
		sb.WriteByte('.')
		if i < 64 && pt.wild&(1<<i) != 0 {
			sb.WriteByte('*')
		} else {
			sb.WriteString(strconv.FormatInt(d, 10))
		}
	}
	if !pt.exact {
		sb.WriteString(".…")
	}
	return sb.String()
}

func (pt pattern) match(base string, data []int) bool {
	if base != pt.base || len(data) < len(pt.data) || (pt.exact && len(data) != len(pt.data)) {
		return false
	}
	for i, d := range pt.data {
		if i < 64 && pt.wild&(1<<i) != 0 {
			continue
		}
		if int64(data[i]) != d {
			return false
		}
	}
	return true
}

type evset struct {
	id   int32
	key  string
	pats []pattern
	mu   sync.Mutex
	memo atomic.Pointer[[]uint8] // per event: 0 unknown, 1 in, 2 out
}

// has reports whether e is in the set (tau never is).
func (p *Program) has(s *evset, e lts.Event) bool {
	if e == lts.Tau || s == nil {
		return false
	}
	if m := s.memo.Load(); m != nil && int(e) < len(*m) {
		if v := (*m)[e]; v != 0 {
			return v == 1
		}
	}
	base, data := p.events.Base(e), p.events.Data(e)
	in := false
	for _, pt := range s.pats {
		if pt.match(base, data) {
			in = true
			break
		}
	}
	s.mu.Lock()
	old := s.memo.Load()
	var m []uint8
	if old != nil {
		m = *old
	}
	if int(e) >= len(m) {
		nm := make([]uint8, int(e)+64)
		copy(nm, m)
		m = nm
	} else {
		m = append([]uint8(nil), m...)
	}
	if in {
		m[e] = 1
	} else {
		m[e] = 2
	}
	s.memo.Store(&m)
	s.mu.Unlock()
	return in
}

// internSet returns the canonical set of the given patterns.
func (p *Program) internSet(pats []pattern) *evset {
	keys := make([]string, len(pats))
	for i, pt := range pats {
		keys[i] = pt.String()
	}
	sort.Strings(keys)
	key := strings.Join(keys, ",")
	p.setMu.Lock()
	defer p.setMu.Unlock()
	if s, ok := p.sets[key]; ok {
		return s
	}
	s := &evset{id: int32(len(p.sets)), key: key, pats: pats}
	p.sets[key] = s
	return s
}

// userSet evaluates an event set written in the model ({a, b.1, i:{0..N}@c.i}).
// A channel name stands for its handovers and its buffer operations.
func (p *Program) userSet(es *lang.EventSet, sc *scope, env []int64) (*evset, error) {
	var pats []pattern
	add := func(e *lang.EventExpr, sc *scope) error {
		pt := pattern{base: e.Name.Name}
		m := machine{env: env}
		for _, d := range e.Data {
			c, err := p.expr(d, sc)
			if err != nil {
				return err
			}
			if c.dyn {
				return errAt(d, "event set must not depend on variables")
			}
			pt.data = append(pt.data, c.f(&m))
		}
		if m.err != nil {
			return m.err
		}
		pats = append(pats, pt)
		if p.isChannel(e.Name) {
			for _, suf := range []string{"!", "?"} {
				q := pt
				q.base += suf
				pats = append(pats, q)
			}
		}
		return nil
	}
	for _, it := range es.Items {
		if len(it.Index) == 0 {
			if err := add(it.Event, sc); err != nil {
				return nil, err
			}
			continue
		}
		if err := p.eachIndex(it.Index, sc, env, func(sc *scope) error { return add(it.Event, sc) }); err != nil {
			return nil, err
		}
	}
	return p.internSet(pats), nil
}

// eachIndex calls f once per combination of the index variables' values.
func (p *Program) eachIndex(ivs []*lang.IndexVar, sc *scope, env []int64, f func(*scope) error) error {
	if len(ivs) == 0 {
		return f(sc)
	}
	iv := ivs[0]
	vals, err := p.setValues(iv.Set, sc, env)
	if err != nil {
		return err
	}
	sym := p.info.Defs[iv.Var]
	if sym == nil {
		return errAt(iv, "unresolved index variable")
	}
	for _, v := range vals {
		if err := p.eachIndex(ivs[1:], sc.with(sym, constExpr(v)), env, f); err != nil {
			return err
		}
	}
	return nil
}

func (p *Program) isChannel(id *lang.Ident) bool {
	s := p.symOf(id)
	if s != nil && s.Kind == lang.SymChannel {
		return true
	}
	for _, c := range p.chans {
		if c.name == id.Name {
			return true
		}
	}
	return false
}

// alphabet is the alphabet of node n with environment env inside ||: its
// #alphabet declaration if it is a reference to a process that has one,
// otherwise the events occurring in its definition (following references)
// with parameters instantiated; data that depend on variables (or on
// values unknown here) are wildcards.
func (p *Program) alphabet(n *pnode, env []int64) (*evset, error) {
	if n.kind == pRef && n.ref.alpha != nil && !n.dyn {
		ne, err := p.refEnv(n, env, nil)
		if err != nil {
			return nil, err
		}
		return p.userSet(n.ref.alpha.Events, n.ref.sc, ne)
	}
	var pats []pattern
	seen := map[string]bool{}
	add := func(pt pattern) {
		if k := pt.String(); !seen[k] {
			seen[k] = true
			pats = append(pats, pt)
		}
	}
	calls := map[*procDef]int{} // instances of each definition walked
	var walk func(n *pnode, env []int64, known bool) error
	walk = func(n *pnode, env []int64, known bool) error {
		switch n.kind {
		case pPrefix:
			if n.ev != nil {
				pt := pattern{base: n.ev.name, exact: true}
				m := machine{env: env}
				for i, d := range n.ev.data {
					if d.konst {
						pt.data = append(pt.data, d.val)
						continue
					}
					if d.dyn || !known {
						pt.data = append(pt.data, 0)
						pt.wild |= 1 << i
						continue
					}
					pt.data = append(pt.data, d.f(&m))
				}
				if m.err != nil {
					return m.err
				}
				add(pt)
			}
		case pRef:
			var ne []int64
			kn := known && !n.dyn
			if kn {
				var err error
				if ne, err = p.refEnv(n, env, nil); err != nil {
					return err
				}
			} else {
				ne = make([]int64, n.ref.nslots)
			}
			key := fmt.Sprint(n.ref.name, kn, ne)
			if seen[key] {
				return nil
			}
			seen[key] = true
			if n.ref.alpha != nil && kn {
				// A declared alphabet stands for the process (as PAT).
				set, err := p.userSet(n.ref.alpha.Events, n.ref.sc, ne)
				if err != nil {
					return err
				}
				for _, pt := range set.pats {
					add(pt)
				}
				return nil
			}
			if calls[n.ref]++; calls[n.ref] > maxAlphaCalls {
				return errAt(n.src, "cannot compute the alphabet of process %s for ||: it calls itself with ever new arguments (PAT refuses this too); declare it: #alphabet %s {...};", n.ref.name, n.ref.name)
			}
			return walk(n.ref.body, ne, kn)
		case pIndexed:
			if known {
				if envs, err := p.indexEnvs(n, env); err == nil {
					for _, ne := range envs {
						if err := walk(n.kids[0], ne, true); err != nil {
							return err
						}
					}
					return nil
				}
			}
			return walk(n.kids[0], env, false)
		case pChanIn:
			// Input binders are unknown in the continuation.
			return walk(n.kids[0], env, false)
		}
		for _, k := range n.kids {
			if err := walk(k, env, known); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(n, env, true); err != nil {
		return nil, err
	}
	return p.internSet(pats), nil
}

// maxAlphaCalls bounds the instances of one definition that an alphabet
// follows: the events of a process that calls itself with ever new
// arguments (P(i) = ... P(i+1)) would need unbounded unfolding.
const maxAlphaCalls = 4096

// indexEnvs lists the environments of the instances of an indexed
// construct: one per combination of its index variables' values (sets may
// read the earlier variables), or N copies of env for |||{N} @ P.
func (p *Program) indexEnvs(n *pnode, env []int64) ([][]int64, error) {
	envs := [][]int64{env}
	for k, iv := range n.index {
		var next [][]int64
		for _, e := range envs {
			vals, err := p.setValues(iv.Set, n.def.sc, e)
			if err != nil {
				return nil, err
			}
			if n.islot[k] < 0 {
				if len(vals) != 1 || vals[0] < 0 || vals[0] > 1<<12 {
					return nil, errAt(iv, "replication count must be a small constant")
				}
				for i := int64(0); i < vals[0]; i++ {
					next = append(next, e)
				}
				continue
			}
			for _, v := range vals {
				next = append(next, p.envWith(n.def, e, n.islot[k], v))
			}
			if len(next) > 1<<16 {
				return nil, errAt(iv, "too many instances")
			}
		}
		envs = next
	}
	return envs, nil
}

// noteOrigin remembers the first reference that produced term t, to name
// components ("Thread(1)") in counterexamples.
func (p *Program) noteOrigin(t uint32, d *procDef, env []int64) {
	if t == termStop || t == termSkip {
		return
	}
	p.originMu.Lock()
	defer p.originMu.Unlock()
	if _, ok := p.origin[t]; ok {
		return
	}
	p.origin[t] = d.name + "(" + d.args(env) + ")"
}
