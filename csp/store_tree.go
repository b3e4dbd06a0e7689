package csp

import (
	"encoding/binary"
	"math/bits"
	"unsafe"
)

// treeSet keeps the states of the store's width when that width is above
// maxWidth, tree-compressed as in LTSmin: the state's bytes, in a fixed
// order (layout), are cut into 4-byte leaf words, and the words are
// paired recursively into a binary tree; every internal node position has
// a table (nodeTable) that interns the pair of its children's values, a
// uint64, and gives it a dense uint32 id, the node's value. The root's
// table gives the pair of the root's children the state's id. So a state
// costs one root entry (a 16-byte slot at a load of 3/8 to 3/4, and its
// key, 8 bytes, in an id-indexed array), and the tables below the root,
// which hold the distinct halves, quarters, ... of the states, are small
// when the layout puts bytes that change together side by side: then a
// lookup touches the root table once (one cache miss, prefetched for the
// whole batch) and small tables in the cache. Each node table remembers
// its last key, so the successors of one state, which share most of their
// subtrees, look up only the nodes on the paths of the words that changed.
type treeSet struct {
	width  int
	leaves int
	// perm[4j+t] is the state byte that goes to byte t of leaf word j
	// (-1: padding, 0).
	perm []int32
	// Nodes 0..inner-1 are internal, in pre-order (node 0 the root, a
	// child after its parent); values inner.. are the leaves. kids[i] are
	// the value indices of node i's children.
	inner int
	kids  [][2]int32
	tabs  []nodeTable // tabs[0] is unused: the root is root
	root  nodeTable
	// val holds the values of the nodes and leaves of prev, the last
	// state rootKey was given (valid: there is one); dval is the scratch
	// of appendState and findRootKey.
	val   []uint32
	prev  []byte
	valid bool
	dval  []uint32
	// For trees of at most 64 internal nodes: the leaf and the shift in
	// it of each state byte, and the internal nodes above it but the root
	// (a bit mask), so that rootKey redoes only the nodes above the bytes
	// that differ from prev.
	leafOf   []int32
	shiftOf  []uint8
	pathMask []uint64
}

// layoutInterleave is the byte order of a tree: component byte i next to
// variable byte i (the first variables of a model are often the ones its
// first components own: philosopher i and fork i), then the remaining
// bytes.
func layoutInterleave(width, ncomp int) []int32 {
	var l []int32
	nv := width - ncomp
	for i := 0; i < max(ncomp, nv); i++ {
		if i < ncomp {
			l = append(l, int32(i))
		}
		if i < nv {
			l = append(l, int32(ncomp+i))
		}
	}
	return l
}

func newTreeSet(width int, layout []int32) *treeSet {
	t := &treeSet{width: width, leaves: (width + 3) / 4}
	t.perm = make([]int32, 4*t.leaves)
	for i := range t.perm {
		t.perm[i] = -1
	}
	for j, b := range layout {
		t.perm[j] = b
	}
	t.inner = t.leaves - 1
	t.kids = make([][2]int32, t.inner)
	t.val = make([]uint32, t.inner+t.leaves)
	t.dval = make([]uint32, t.inner+t.leaves)
	t.prev = make([]byte, width)
	next := 0
	// build numbers the nodes over leaves [lo, hi) in pre-order and
	// returns the value index of the subtree.
	var build func(lo, hi int) int32
	build = func(lo, hi int) int32 {
		if hi-lo == 1 {
			return int32(t.inner + lo)
		}
		i := next
		next++
		mid := lo + (hi-lo+1)/2
		l := build(lo, mid)
		r := build(mid, hi)
		t.kids[i] = [2]int32{l, r}
		return int32(i)
	}
	build(0, t.leaves)
	if t.inner <= 64 {
		// parent[v] is the node above value index v.
		parent := make([]int32, t.inner+t.leaves)
		for i, k := range t.kids {
			parent[k[0]], parent[k[1]] = int32(i), int32(i)
		}
		t.leafOf = make([]int32, width)
		t.shiftOf = make([]uint8, width)
		t.pathMask = make([]uint64, width)
		for j, q := range t.perm {
			if q < 0 {
				continue
			}
			t.leafOf[q], t.shiftOf[q] = int32(j/4), uint8(8*(j%4))
			var m uint64
			for v := parent[t.inner+j/4]; v != 0; v = parent[v] {
				m |= 1 << v
			}
			t.pathMask[q] = m
		}
	}
	t.tabs = make([]nodeTable, t.inner)
	for i := 1; i < t.inner; i++ {
		t.tabs[i].init(4)
	}
	t.root.init(8)
	return t
}

func (t *treeSet) bytes() int64 {
	n := t.root.bytes()
	for i := range t.tabs {
		n += t.tabs[i].bytes()
	}
	return n
}

// leafWords sets the leaf values of b in v.
func (t *treeSet) leafWords(b []byte, v []uint32) {
	v = v[t.inner:]
	p := t.perm
	for j := range v {
		var w uint32
		for k := 0; k < 4; k++ {
			if q := p[4*j+k]; q >= 0 {
				w |= uint32(b[q]) << (8 * k)
			}
		}
		v[j] = w
	}
}

// rootKey interns the nodes of b below the root and returns the root's
// key (b's length is the width).
func (t *treeSet) rootKey(b []byte) uint64 {
	v := t.val
	if !t.valid || t.pathMask == nil {
		t.leafWords(b, v)
		for i := t.inner - 1; i >= 1; i-- {
			k := t.kids[i]
			v[i] = t.tabs[i].intern(uint64(v[k[0]]) | uint64(v[k[1]])<<32)
		}
		copy(t.prev, b)
		t.valid = t.pathMask != nil
	} else {
		// Patch the leaves of the bytes that differ from prev (word by
		// word; the last word overlaps the one before), then redo the
		// nodes above them, children first (they come after their
		// parents in pre-order).
		var dirty uint64
		le := binary.LittleEndian
		w := t.width
		leaves := v[t.inner:]
		for o := 0; o < w; o += 8 {
			o = min(o, w-8)
			x := le.Uint64(b[o:]) ^ le.Uint64(t.prev[o:])
			for x != 0 {
				z := bits.TrailingZeros64(x) >> 3
				x &^= 0xff << (8 * z)
				p := o + z
				dirty |= t.pathMask[p]
				sh := t.shiftOf[p]
				lw := &leaves[t.leafOf[p]]
				*lw = *lw&^(0xff<<sh) | uint32(b[p])<<sh
			}
		}
		copy(t.prev, b)
		for dirty != 0 {
			i := 63 - bits.LeadingZeros64(dirty)
			dirty &^= 1 << i
			k := t.kids[i]
			v[i] = t.tabs[i].intern(uint64(v[k[0]]) | uint64(v[k[1]])<<32)
		}
	}
	k := t.kids[0]
	return uint64(v[k[0]]) | uint64(v[k[1]])<<32
}

// findRootKey is rootKey without adding nodes: false if some node is
// absent (then b is).
func (t *treeSet) findRootKey(b []byte) (uint64, bool) {
	v := t.dval
	t.leafWords(b, v)
	for i := t.inner - 1; i >= 1; i-- {
		k := t.kids[i]
		id, ok := t.tabs[i].find(uint64(v[k[0]]) | uint64(v[k[1]])<<32)
		if !ok {
			return 0, false
		}
		v[i] = id
	}
	k := t.kids[0]
	return uint64(v[k[0]]) | uint64(v[k[1]])<<32, true
}

// appendState appends the bytes of the state whose root key is key.
func (t *treeSet) appendState(buf []byte, key uint64) []byte {
	v := t.dval
	k := t.kids[0]
	v[k[0]], v[k[1]] = uint32(key), uint32(key>>32)
	for i := 1; i < t.inner; i++ {
		key := t.tabs[i].key(v[i])
		k := t.kids[i]
		v[k[0]], v[k[1]] = uint32(key), uint32(key>>32)
	}
	n := len(buf)
	buf = append(buf, make([]byte, t.width)...)
	out := buf[n:]
	for j, q := range t.perm {
		if q >= 0 {
			out[q] = byte(v[t.inner+j/4] >> (8 * (j % 4)))
		}
	}
	return buf
}

// nodeTable interns uint64 keys with dense uint32 ids: open addressing
// over 16-byte slots [key][id+1] (0 = empty), linear probing, the home
// slot the top bits of a mix of the key; ids -> keys in blocks that grow
// without copying. The root's table is given the ids (the store's).
type nodeTable struct {
	slots []uint64 // 2 per slot
	mask  uint64   // slot count - 1
	shift uint
	n     int
	keys  [][]uint64 // id -> key
}

func (t *nodeTable) init(bits uint) {
	t.slots = make([]uint64, 2<<bits)
	t.mask, t.shift = 1<<bits-1, 64-bits
}

func (t *nodeTable) bytes() int64 {
	n := int64(cap(t.slots)) * 8
	for _, k := range t.keys {
		n += int64(cap(k)) * 8
	}
	return n
}

// mixKey is the hash of a key, whose top bits place it: the halves
// folded, then Fibonacci hashing.
func mixKey(k uint64) uint64 { return (k ^ k>>29) * 0x9e3779b97f4a7c15 }

func (t *nodeTable) key(id uint32) uint64 { return t.keys[id>>refBits][id&(refBlock-1)] }

// setKey records the key of id (ids come in order, except the root's,
// which skip the store's side states: their keys stay sideKey).
func (t *nodeTable) setKey(id uint32, k uint64) {
	blk := int(id >> refBits)
	for blk >= len(t.keys) {
		c := refBlock
		if len(t.keys) == 0 {
			c = 16
		}
		t.keys = append(t.keys, make([]uint64, 0, c))
	}
	b := t.keys[blk]
	for len(b) < int(id&(refBlock-1)) {
		b = append(b, sideKey)
	}
	t.keys[blk] = append(b, k)
}

// sideKey marks the root-key entry of a side state (no root key is all
// ones: the root's children are internal nodes, whose ids are below
// 2^32-1).
const sideKey = ^uint64(0)

// find returns the id of k if present.
func (t *nodeTable) find(k uint64) (uint32, bool) {
	for i := mixKey(k) >> t.shift; ; i = (i + 1) & t.mask {
		v := t.slots[2*i+1]
		if v == 0 {
			return 0, false
		}
		if t.slots[2*i] == k {
			return uint32(v - 1), true
		}
	}
}

// intern returns the id of k, adding it (with the next id) if absent.
func (t *nodeTable) intern(k uint64) uint32 {
	i := mixKey(k) >> t.shift
	for ; ; i = (i + 1) & t.mask {
		v := t.slots[2*i+1]
		if v == 0 {
			break
		}
		if t.slots[2*i] == k {
			return uint32(v - 1)
		}
	}
	id := uint32(t.n)
	t.add(i, k, id)
	return id
}

// add stores k with id at the empty slot i.
func (t *nodeTable) add(i, k uint64, id uint32) {
	t.slots[2*i], t.slots[2*i+1] = k, uint64(id)+1
	t.setKey(id, k)
	t.n++
	if uint64(t.n)*4 > (t.mask+1)*3 {
		t.grow()
	}
}

// grow doubles the table; the keys are in the slots, so nothing else is
// read.
func (t *nodeTable) grow() {
	bits := 64 - t.shift + 1
	if bits > 32 {
		panic("lts: state table full")
	}
	old := t.slots
	t.init(bits)
	adviseHuge(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(t.slots))), len(t.slots)*8))
	touch(t.slots, 512)
	for j := 0; j < len(old); j += 2 {
		if old[j+1] == 0 {
			continue
		}
		i := mixKey(old[j]) >> t.shift
		for t.slots[2*i+1] != 0 {
			i = (i + 1) & t.mask
		}
		t.slots[2*i], t.slots[2*i+1] = old[j], old[j+1]
	}
}

// slotAddr is the address of the home slot of hash h.
func (t *nodeTable) slotAddr(h uint64) uintptr {
	return uintptr(unsafe.Pointer(unsafe.SliceData(t.slots))) + uintptr(h>>t.shift)*16
}
