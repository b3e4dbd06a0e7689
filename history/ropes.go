package history

// ropes interns strings built by concatenation without materialising them:
// a string is a leaf or (parent, arg) with its length and a polynomial hash
// (h(a+b) = h(a)·B^len(b) + h(b) mod 2^64), so appending costs O(1). Ids are
// canonical: a new string is looked up by (length, hash); a candidate with
// the same derivation is the same string, any other candidate is compared
// by contents (never by the hash alone), so equal strings share an id.
type ropes struct {
	nodes []rope
	leafs []string // leaf strings; a leaf's parent is its index here
	table []int32  // open addressing over (length, hash): id+1, 0 empty
	mask  uint64
	alias map[uint64]int32 // (parent<<32 | arg) -> id, for concatenations equal to an older string
}

type rope struct {
	parent, arg int32 // arg < 0: a leaf
	n           int64
	h, p        uint64 // hash, ropeBase^n
}

const ropeBase = 0x100000001B3

// init prepares an empty set for about hint strings (in place: a model
// embeds its ropes, one allocation fewer per check).
func (r *ropes) init(hint int) {
	size := 16 // grows as needed; small checks stay small
	for size < 2*hint {
		size <<= 1
	}
	*r = ropes{table: make([]int32, size), mask: uint64(size - 1), nodes: make([]rope, 0, hint+1), leafs: make([]string, 0, hint+1)}
	r.leafID("")
}

func ropeSlot(n int64, h uint64) uint64 {
	k := h ^ uint64(n)*0x9E3779B97F4A7C15
	k ^= k >> 29
	k *= 0xBF58476D1CE4E5B9
	return k ^ k>>32
}

func (r *ropes) add(parent, arg int32, leaf string, n int64, h, p uint64) int32 {
	i := ropeSlot(n, h) & r.mask
	for ; r.table[i] != 0; i = (i + 1) & r.mask {
		id := r.table[i] - 1
		c := &r.nodes[id]
		if c.n != n || c.h != h {
			continue
		}
		if arg >= 0 && c.parent == parent && c.arg == arg {
			return id
		}
		if arg >= 0 {
			if a, ok := r.alias[uint64(parent)<<32|uint64(arg)]; ok {
				return a
			}
		}
		if r.equalTo(id, parent, arg, leaf) {
			if arg >= 0 {
				if r.alias == nil {
					r.alias = map[uint64]int32{}
				}
				r.alias[uint64(parent)<<32|uint64(arg)] = id
			}
			return id
		}
	}
	id := int32(len(r.nodes))
	if arg < 0 {
		parent = int32(len(r.leafs))
		r.leafs = append(r.leafs, leaf)
	}
	r.nodes = append(r.nodes, rope{parent: parent, arg: arg, n: n, h: h, p: p})
	r.table[i] = id + 1
	if uint64(len(r.nodes))*2 > r.mask {
		r.table = make([]int32, 2*len(r.table))
		r.mask = uint64(len(r.table) - 1)
		for id := range r.nodes {
			c := &r.nodes[id]
			j := ropeSlot(c.n, c.h) & r.mask
			for r.table[j] != 0 {
				j = (j + 1) & r.mask
			}
			r.table[j] = int32(id) + 1
		}
	}
	return id
}

// equalTo compares string id with the candidate (parent+arg, or leaf).
func (r *ropes) equalTo(id, parent, arg int32, leaf string) bool {
	if arg < 0 {
		return r.str(id) == leaf
	}
	return r.str(id) == r.str(parent)+r.str(arg)
}

func (r *ropes) leafID(s string) int32 {
	var h uint64
	p := uint64(1)
	for i := 0; i < len(s); i++ {
		h = h*ropeBase + uint64(s[i])
		p *= ropeBase
	}
	return r.add(-1, -1, s, int64(len(s)), h, p)
}

func (r *ropes) concat(a, b int32) int32 {
	x, y := &r.nodes[a], &r.nodes[b]
	if y.n == 0 {
		return a
	}
	if x.n == 0 {
		return b
	}
	return r.add(a, b, "", x.n+y.n, x.h*y.p+y.h, x.p*y.p)
}

// str materialises string id.
func (r *ropes) str(id int32) string {
	if r.nodes[id].arg < 0 {
		return r.leafs[r.nodes[id].parent]
	}
	buf := make([]byte, r.nodes[id].n)
	r.fill(id, buf)
	return string(buf)
}

func (r *ropes) fill(id int32, buf []byte) {
	for r.nodes[id].arg >= 0 {
		c := r.nodes[id]
		pn := r.nodes[c.parent].n
		copy(buf[pn:], r.str(c.arg))
		buf = buf[:pn]
		id = c.parent
	}
	copy(buf, r.leafs[r.nodes[id].parent])
}
