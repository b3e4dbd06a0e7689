package csp

import (
	"slices"
	"sync/atomic"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// Successors as packed words (issue 21, docs/engine-log.md "Successors as
// packed words"). A state of 8 to 32 bytes whose values all fit a nibble
// is pack32's two words (the store's packing at 4 bits a byte; their fold
// is a 2-bit record). When every template of every component of such a
// state is a fast edge (bytes.go), its successors are made on the words:
// the guards are masks compared on the words, a successor is the
// parent's words with the moved component's nibble and the written
// slots' nibbles replaced. No decode, no copy of the bytes, no pack of
// the successor's bytes. SuccessorsBatch reads the parents as words when
// the store keeps 2-bit records (the philosophers from N = 13 on: one
// word a state) and hands the successors to the store as words
// (InternWords, which hashes them and compares their fold with its
// records), else it packs the parents' strings and writes the
// successors as strings; expandPlain does the latter for the other
// callers of expandRaw (plainWords). Anything else takes the byte path:
// a state when one of its components has a template that is not a fast
// edge, or a code or value does not fit a nibble. The successors, their
// order, events and who are those of expandPlain's fast edges; so are
// the codes given (fillCode, on the first firing of a template, as
// fastEdge).

// wordsOff disables the word path: the tests compare it with the bytes.
// wordsHook, if set (tests), receives the number of states of each batch
// that the words expanded.
var (
	wordsOff  bool
	wordsHook func(n int)
)

// wordPos is where a byte of a state lies in pack32's words: word w (0
// or 1), bits sh to sh+3.
type wordPos struct {
	w, sh uint8
}

// wordEdge is a fast edge of component i in the state's code c as masks on
// the words: it is enabled when w&gm == gv (both words) and the extra
// tests hold; the successor is w&^sm | sv. Until the template's code is
// known (coded), sm and sv leave the component's nibble alone.
type wordEdge struct {
	gm, gv [2]uint64
	sm, sv [2]uint64
	extra  []wordTest
	coded  bool
	cc     *atomic.Uint64
	target uint32
	ev     lts.Event
	who    int32
}

// wordTest is a test the masks do not express: nibble a == nibble b
// (isB; != if !eq), or nibble a != z.
type wordTest struct {
	a, b wordPos
	z    uint64
	eq   bool
	isB  bool
}

// wordSet is the word edges of one (component, code); noWords marks a
// code whose templates are not all fast edges (the state takes the bytes).
type wordSet struct {
	es []wordEdge
}

var noWords = &wordSet{}

// wordCache is a scratch's compiled word edges (a scratch belongs to one
// Proc: its pool). They are rebuilt when the program starts specialising
// blocks (its templates are rebuilt then, with more fast edges).
type wordCache struct {
	ok   bool // built for this length and heat
	hot  bool
	n    int // the states' length
	pos  []wordPos
	sets []*wordSet // component i, code c: sets[i<<4|c]
}

func nib(w *[2]uint64, p wordPos) uint64 { return w[p.w] >> p.sh & 0xF }

// wordPositions returns where each byte of an n-byte state (8 to 32)
// lies in pack32's words: byte p < h = (n+1)/2 in the low half of packed
// byte p, byte h+q in the high half of packed byte q.
func wordPositions(n int) []wordPos {
	h := (n + 1) / 2
	ps := make([]wordPos, n)
	for p := range ps {
		q, hi := p, uint8(0)
		if p >= h {
			q, hi = p-h, 4
		}
		ps[p] = wordPos{w: uint8(q / 8), sh: uint8(q%8)*8 + hi}
	}
	return ps
}

// How a batch is read and expanded (readWords).
const (
	wordsNone  = iota // the byte path
	wordsIn           // words in and out (2-bit dense records)
	wordsBytes        // words made from the parents' strings, strings out
)

// readWords reads the parents ids for the word path: their records' words
// into x.pw (pack32's two words each, wordsIn) when the store keeps its
// states as 2-bit dense records of the states' length n, else their
// strings into x.raws/x.rawEnd (wordsBytes) if n is 8 to 32 bytes (a
// state whose values do not all fit a nibble takes the bytes, one by
// one); wordsNone, having read nothing, for a process whose successors
// take the byte path anyway.
func (s *Proc) readWords(ids []lts.State, x *scratch) int {
	// What does not change with the store, before the lock.
	if !s.wordsProc(x) {
		return wordsNone
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.wordCacheFor(x)
	st := s.store
	if !st.wordsDense(s.ncomp + s.nvars) {
		x.raws, x.rawEnd = x.raws[:0], x.rawEnd[:0]
		st.PrefetchGet(ids)
		for _, id := range ids {
			x.raws = st.AppendGet(x.raws, uint32(id))
			x.rawEnd = append(x.rawEnd, len(x.raws))
		}
		return wordsBytes
	}
	st.readDense(ids, x)
	return wordsIn
}

// wordsProc reports whether s's successors may take the word path with
// scratch x (what does not change with the store).
func (s *Proc) wordsProc(x *scratch) bool {
	n := s.ncomp + s.nvars
	return !wordsOff && !plainOff && s.fp == nil && s.sym == nil && s.op == lang.Interleave &&
		x.only == 0 && !x.generic && n >= packMin && n <= pack2Max
}

// wordsDense reports whether the store keeps its states as 2-bit dense
// records of length n (the word path's words in and out).
func (st *store) wordsDense(n int) bool {
	d := &st.side
	return st.width < 0 && d.recLen == n && d.pbits == 2 && !d.withIDs
}

// readDense sets x.pw to the words of the records of ids (wordsDense).
func (st *store) readDense(ids []lts.State, x *scratch) {
	d := &st.side
	dense, dbits, pl, m2, sh := d.dense, d.dbits, uintptr(d.plen), d.m2, d.f2sh
	x.pw = x.pw[:0]
	for _, id := range ids {
		w0, w1 := unfold2(at2(dense, dbits, pl, m2, uint64(id)), sh)
		x.pw = append(x.pw, w0, w1)
	}
}

// wordCacheFor makes x.wc the word edges of s's states for the program's
// current templates (rebuilt when it starts specialising blocks).
func (s *Proc) wordCacheFor(x *scratch) {
	n := s.ncomp + s.nvars
	wc := &x.wc
	if hot := s.p.Hot(); !wc.ok || wc.hot != hot || wc.n != n {
		*wc = wordCache{ok: true, hot: hot, n: n, pos: wordPositions(n), sets: make([]*wordSet, s.ncomp<<4)}
	}
}

// plainWords is expandPlain's word path, for the callers of expandRaw
// (the parallel rounds, Successors, SuccessorsMoves, the replay of a
// compact search's trace): a short state raw of 8 to 32 bytes whose
// values fit a nibble, all of whose components' templates are fast edges
// (x.tsets, memoised), gets its successors from expandWords, as strings,
// and true; else nothing is appended and expandPlain goes on. The state
// is decoded already (x.comps, x.vars), as the callers may read it.
func (s *Proc) plainWords(raw []byte, x *scratch) bool {
	n := s.ncomp + s.nvars
	if wordsOff || x.wmode || x.only != 0 || len(raw) != n || n < packMin || n > pack2Max {
		return false
	}
	w0, w1, ok := pack32(raw)
	if !ok {
		return false
	}
	s.wordCacheFor(x)
	if !s.expandWords([2]uint64{w0, w1}, x) {
		return false
	}
	if wordsHook != nil {
		wordsHook(1)
	}
	return true
}

// expandWords appends the successors of the state of words w (x.words,
// x.evs, x.who, and an empty string each in x.enc/x.ends; without wmode,
// their strings in x.enc/x.ends) and reports true, or appends nothing and
// reports false: the state must take the byte path.
func (s *Proc) expandWords(w [2]uint64, x *scratch) bool {
	wc := &x.wc
	n0 := len(x.evs)
	for i := range s.ncomp {
		c := nib(&w, wc.pos[i])
		set := wc.sets[i<<4|int(c)]
		if set == nil {
			if set = s.compileWords(wc, i, uint32(c)); set == nil {
				x.dropWords(n0)
				return false
			}
		}
		if set == noWords {
			x.dropWords(n0)
			return false
		}
	edges:
		for j := range set.es {
			e := &set.es[j]
			if (w[0]&e.gm[0])^e.gv[0]|(w[1]&e.gm[1])^e.gv[1] != 0 {
				continue
			}
			for _, t := range e.extra {
				a := nib(&w, t.a)
				if t.isB {
					if (a == nib(&w, t.b)) != t.eq {
						continue edges
					}
				} else if a == t.z {
					continue edges
				}
			}
			if !e.coded && !s.codeWord(wc, e, i) {
				x.dropWords(n0)
				return false
			}
			if x.wmode {
				x.words = append(x.words, w[0]&^e.sm[0]|e.sv[0], w[1]&^e.sm[1]|e.sv[1])
			} else {
				x.enc = unpack32(x.enc, w[0]&^e.sm[0]|e.sv[0], w[1]&^e.sm[1]|e.sv[1], wc.n)
			}
			x.evs = append(x.evs, e.ev)
			x.who = append(x.who, e.who)
			x.ends = append(x.ends, len(x.enc))
		}
	}
	return true
}

// dropWords removes the successors from the n-th on.
func (x *scratch) dropWords(n int) {
	end := 0
	if n > 0 {
		end = x.ends[n-1]
	}
	x.enc, x.evs, x.who, x.ends = x.enc[:end], x.evs[:n], x.who[:n], x.ends[:n]
	if x.wmode {
		x.words = x.words[:2*n]
	}
}

// codeWord looks up the code of e's target in component i as fastEdge
// does, and folds it into e's patch if it fits a nibble (false: it does
// not, the state takes the byte path).
func (s *Proc) codeWord(wc *wordCache, e *wordEdge, i int) bool {
	var code uint32
	if v := e.cc.Load(); v&^0xff == s.ckey|uint64(i)<<8 {
		code = uint32(v) & 0xff
	} else {
		code = s.fillCode(e.cc, i, e.target)
	}
	if code >= 16 {
		return false
	}
	p := wc.pos[i]
	e.sm[p.w] |= 0xF << p.sh
	e.sv[p.w] |= uint64(code) << p.sh
	e.coded = true
	return true
}

// compileWords builds the word edges of component i in code c, caches
// them, and returns them (noWords: not all fast edges); nil if the
// templates are not memoised yet (the byte path builds them; nothing is
// cached).
func (s *Proc) compileWords(wc *wordCache, i int, c uint32) *wordSet {
	t := s.cd.term(i, c)
	if t == termSkip || t == termStop {
		wc.sets[i<<4|int(c)] = &wordSet{}
		return wc.sets[i<<4|int(c)]
	}
	ts := s.p.term(t).edges.Load()
	if ts == nil {
		return nil
	}
	set := s.wordEdges(wc, i, ts)
	wc.sets[i<<4|int(c)] = set
	return set
}

// wordEdges translates the fast edges of ts (component i) to word edges,
// noWords if some template is not one or touches an unstored slot.
func (s *Proc) wordEdges(wc *wordCache, i int, ts *tmplSet) *wordSet {
	if !ts.plain || len(ts.es) > 0 && ts.fast == nil {
		return noWords
	}
	at := func(slot int32) (wordPos, bool) {
		k := int(slot)
		if s.pos != nil {
			if k >= len(s.pos) || s.pos[k] < 0 {
				return wordPos{}, false
			}
			k = int(s.pos[k])
		}
		if k < 0 || k >= s.nvars {
			return wordPos{}, false
		}
		return wc.pos[s.ncomp+k], true
	}
	set := &wordSet{}
	for j := range ts.es {
		e, f := &ts.es[j], ts.fast[j]
		if f == nil {
			return noWords
		}
		we := wordEdge{cc: &ts.codes[j], target: e.target, ev: e.ev}
		never := false
		for _, t := range f.tests {
			pa, ok := at(t.a)
			if !ok {
				return noWords
			}
			if t.b >= 0 {
				pb, ok := at(t.b)
				if !ok {
					return noWords
				}
				we.extra = append(we.extra, wordTest{a: pa, b: pb, isB: true, eq: t.eq})
				continue
			}
			z := zigzag(t.c)
			if !t.eq {
				if z < 16 {
					we.extra = append(we.extra, wordTest{a: pa, z: z})
				} // else always true: every nibble is below 16
				continue
			}
			if z >= 16 {
				never = true // no nibble equals it
				continue
			}
			m := uint64(0xF) << pa.sh
			if we.gm[pa.w]&m != 0 && we.gv[pa.w]&m != z<<pa.sh {
				never = true // two different constants
				continue
			}
			we.gm[pa.w] |= m
			we.gv[pa.w] |= z << pa.sh
		}
		for k, sv := range f.sets {
			p, ok := at(sv.slot)
			if !ok || f.zs[k] >= 16 {
				return noWords
			}
			m := uint64(0xF) << p.sh
			we.sm[p.w] |= m
			we.sv[p.w] = we.sv[p.w]&^m | uint64(f.zs[k])<<p.sh
		}
		if never {
			continue
		}
		for _, h := range s.hides {
			if s.p.has(h, we.ev) {
				we.ev = lts.Tau
				break
			}
		}
		we.who = int32(-2 - 2*i)
		if s.indep && localEdge(e) {
			we.who--
		}
		set.es = append(set.es, we)
	}
	return set
}

// InternWords is InternAll for a batch of the word path (n the states'
// length): successor k is the words words[2k], words[2k+1] (pack32's)
// when its string enc[ends[k-1]:ends[k]] is empty, else that string (a
// state that took the byte path). The ids are those InternAll gives the
// strings. A batch that is not all of 2-bit records of length n (a
// string of another length or with a byte of 4 or more, or a store
// changed meanwhile) is interned as strings.
func (s *store) InternWords(enc []byte, ends []int, words []uint64, n int, ids []uint32) []uint32 {
	d := &s.side
	if s.width >= 0 || d.recLen != n || d.pbits != 2 || d.withIDs {
		return s.internWordsBytes(enc, ends, words, n, ids)
	}
	// The hashes and folded words are written by index into the
	// store's buffers, grown once (appends through s cost a load and a
	// store of the slice header each).
	m := len(ends)
	hashes, folds := slices.Grow(s.hashes[:0], m)[:m], slices.Grow(s.folds[:0], m)[:m]
	s.hashes, s.folds = hashes, folds
	words = words[:2*m]
	sh := d.f2sh
	start := 0
	for k, end := range ends {
		w0, w1 := words[2*k], words[2*k+1]
		if end != start {
			b := enc[start:end]
			ok := len(b) == n
			if ok {
				w0, w1, ok = pack32(b)
			}
			if !ok {
				return s.internWordsBytes(enc, ends, words, n, ids)
			}
		}
		start = end
		x, ok := fold2(w0, w1, sh)
		if !ok {
			return s.internWordsBytes(enc, ends, words, n, ids)
		}
		hashes[k] = d.hash2(w0, w1, n)
		folds[k] = x
	}
	s.cands = slices.Grow(s.cands[:0], m)[:m]
	cands := s.cands
	s.sideSlots(0, min(2*window, m))
	s.recordCands(ends, 0, min(window, m))
	pl, m2 := uintptr(d.plen), d.m2
	for lo := 0; lo < m; lo += window {
		hi := min(lo+window, m)
		s.sideSlots(lo+2*window, min(hi+2*window, m))
		s.recordCands(ends, lo+window, min(hi+window, m))
		for k := lo; k < hi; k++ {
			// The record found when it was prefetched is the string's
			// if it holds it (ids are ranks; records never move): the
			// probe run is not walked again. Otherwise (no candidate,
			// another string, or a string added since) internFolded.
			if c := cands[k]; c != 0 && at2(d.dense, d.dbits, pl, m2, uint64(c-1)) == folds[k] {
				ids = append(ids, c-1)
				continue
			}
			ids = append(ids, s.internFolded(hashes[k], folds[k]))
		}
	}
	return ids
}

// recordCands is sideRecords for InternWords' strings k in [lo, hi),
// which also notes in cands[k] the rank+1 of the record each is compared
// with first (0: none, or a table of 8-byte slots).
func (s *store) recordCands(ends []int, lo, hi int) {
	if lo >= hi {
		return
	}
	s.sideRecordsTo(ends, lo, hi, s.cands[lo:hi])
}

// internFolded looks up the 2-bit record x (hash h) and adds it if new;
// it returns its id (internSide4's and internAllSide's 2-bit loops).
func (s *store) internFolded(h, x uint64) uint32 {
	d := &s.side
	dense, dbits, pl, m2 := d.dense, d.dbits, uintptr(d.plen), d.m2
	mask := d.mask
	i := h >> d.shift
	if t := d.t4; t != nil {
		rm := d.rmask
		f := d.fp4(h)
		for ; ; i = (i + 1) & mask {
			v := t[i]
			if v == 0 {
				break
			}
			if v&^rm != f {
				continue
			}
			r := uint64(v&rm - 1)
			if at2(dense, dbits, pl, m2, r) == x {
				return uint32(r)
			}
		}
		id := s.newID()
		d.addFolded(i, uint64(f), id, x)
		return id
	}
	table := d.table
	fp := h >> offBits
	for ; ; i = (i + 1) & mask {
		v := table[i]
		if v == 0 {
			break
		}
		if v>>offBits != fp {
			continue
		}
		r := v&offMask - 1
		if at2(dense, dbits, pl, m2, r) == x {
			return uint32(r)
		}
	}
	id := s.newID()
	d.addFolded(i, fp, id, x)
	return id
}

// addFolded is add for the 2-bit record x of the dense length.
func (s *sideSet) addFolded(i, fp uint64, id uint32, x uint64) {
	_, loc := s.reserveRecord(s.recLen, 0) // (every byte below 4: no repack)
	s.setRec2(loc, x)
	if s.withIDs {
		s.ids.Set(int(loc), id)
	}
	if s.t4 != nil {
		s.t4[i] = uint32(fp) | uint32(loc+1)
	} else {
		s.table[i] = fp<<offBits | (loc + 1)
	}
	if uint64(s.n)*4 > (s.mask+1)*3 {
		s.grow()
	}
}

// internWordsBytes interns the batch of InternWords as strings.
func (s *store) internWordsBytes(enc []byte, ends []int, words []uint64, n int, ids []uint32) []uint32 {
	s.wenc, s.wends = s.wenc[:0], s.wends[:0]
	start := 0
	for k, end := range ends {
		if end == start {
			s.wenc = unpack32(s.wenc, words[2*k], words[2*k+1], n)
		} else {
			s.wenc = append(s.wenc, enc[start:end]...)
		}
		start = end
		s.wends = append(s.wends, len(s.wenc))
	}
	return s.InternAll(s.wenc, s.wends, ids)
}

// expandWordBatch is SuccessorsBatch's expansion on the word path: the
// parents are x.pw (wmode) or x.raws; a state the words cannot expand
// takes expandRaw (with wmode, unpacked; its successors are strings, with
// zero words).
func (s *Proc) expandWordBatch(ts []lts.State, x *scratch, counts []int) ([]int, error) {
	x.words = x.words[:0]
	n := s.ncomp + s.nvars
	nw := 0
	if wordsHook != nil {
		defer func() { wordsHook(nw) }()
	}
	start := 0
	for k := range ts {
		m := len(x.ends)
		var raw []byte
		if x.wmode {
			w := [2]uint64{x.pw[2*k], x.pw[2*k+1]}
			if s.expandWords(w, x) {
				counts = append(counts, len(x.ends)-m)
				nw++
				continue
			}
			x.raw = unpack32(x.raw[:0], w[0], w[1], n)
			raw = x.raw
		} else {
			raw = x.raws[start:x.rawEnd[k]]
			start = x.rawEnd[k]
			if len(raw) == n {
				if w0, w1, ok := pack32(raw); ok && s.expandWords([2]uint64{w0, w1}, x) {
					counts = append(counts, len(x.ends)-m)
					nw++
					continue
				}
			}
		}
		if e := s.expandRaw(raw, x); e != nil {
			// Keep the successors of the states before this one only.
			x.dropWords(m)
			return counts, e
		}
		if x.wmode {
			for len(x.words) < 2*len(x.ends) {
				x.words = append(x.words, 0)
			}
		}
		counts = append(counts, len(x.ends)-m)
	}
	return counts, nil
}
