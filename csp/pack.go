package csp

import (
	"encoding/binary"
	"hash/maphash"
	"math/bits"
	"slices"
	"unsafe"
)

// Bit-packing of the inline states of a store. A Proc's state has one
// byte per component and per variable, but few of those bytes use their 8
// bits (a fork is 0 or 1, zigzag 0 or 2; a component's term id is below
// 128): the store keeps a layout, bits[i] = the bit length of the largest
// byte seen at position i, and stores a state as its bytes' low bits[i]
// bits, concatenated (little-endian), so that states of 28 one-byte values
// (14 dining philosophers and their forks) take 16 bytes and stay inline,
// one cache miss per lookup, instead of going to the side set (a
// fingerprint, then an arena record: two dependent misses).
//
// The layout only widens. A state that does not fit it widens it, and the
// table is repacked in one pass (each position widens at most 8 times, so
// this happens a few times early in a search); the packing is a bijection
// between the states of length raw and the packed strings of the current
// layout, so ids and state counts do not depend on it. When the packed
// width would exceed maxWidth, every state moves to the side set, as the
// store without packing kept states wider than maxWidth.

// pack appends the packed form of b (len(b) == s.raw) to dst; ok is false
// if b does not fit the layout. Each byte is or-ed into a word at its
// precomputed bit offset (and its high bits into the next word), with no
// branch: a byte-serial bit writer cost a quarter of an exploration.
func (s *store) pack(dst []byte, b []byte) ([]byte, bool) {
	var acc [maxWidth/8 + 2]uint64
	offs := s.offs[:len(b)]
	bs := s.bits[:len(b)]
	var over byte
	for i, c := range b {
		o := offs[i]
		over |= c >> bs[i]
		v := uint64(c)
		sh := o & 63
		acc[(o>>6)&3] |= v << sh
		acc[(o>>6+1)&3] |= v >> (64 - sh) // 0 when sh == 0
	}
	n := len(dst)
	if cap(dst)-n < 32 {
		dst = append(dst[:n:n], make([]byte, 32+n)...)
	}
	dst = dst[:n+32]
	le := binary.LittleEndian
	le.PutUint64(dst[n:], acc[0])
	le.PutUint64(dst[n+8:], acc[1])
	le.PutUint64(dst[n+16:], acc[2])
	return dst[:n+s.width], over == 0
}

// packWiden is pack, widening the layout first if b does not fit it.
func (s *store) packWiden(dst, b []byte) []byte {
	out, ok := s.pack(dst, b)
	if ok {
		return out
	}
	if s.widen(b); s.raw < 0 {
		return dst
	}
	out, _ = s.pack(dst, b)
	return out
}

// unpack appends the bytes of the packed state p to dst.
func (s *store) unpack(dst []byte, p []byte) []byte {
	var acc uint64
	var n uint8
	k := 0
	for _, w := range s.bits {
		for n < w {
			acc |= uint64(p[k]) << n
			k++
			n += 8
		}
		dst = append(dst, byte(acc&(1<<w-1)))
		acc >>= w
		n -= w
	}
	return dst
}

// packAll packs the inline strings of a batch into s.pk (s.pends[k]: the
// end of string k there, -1 for a side string), widening the layout first
// if some string does not fit.
func (s *store) packAll(enc []byte, ends []int) {
	for {
		pk, pends := s.pk[:0], s.pends[:0]
		fits := true
		start := 0
		for _, end := range ends {
			b := enc[start:end]
			start = end
			if len(b) != s.raw {
				pends = append(pends, -1)
				continue
			}
			var ok bool
			if pk, ok = s.pack(pk, b); !ok {
				s.widen(b)
				fits = false
				if s.raw < 0 {
					break
				}
			}
			pends = append(pends, len(pk))
		}
		s.pk, s.pends = pk, pends
		if fits || s.raw < 0 {
			return
		}
	}
}

// widen widens the layout to fit b and repacks the table, or moves every
// state to the side set if the packed width would exceed maxWidth.
func (s *store) widen(b []byte) {
	nb := append([]uint8(nil), s.bits...)
	total := 0
	for i, c := range b {
		nb[i] = max(nb[i], uint8(bits.Len8(c)))
		total += int(nb[i])
	}
	w := (total + 7) / 8
	if w > maxWidth {
		s.toSide()
		return
	}
	// Repack every entry into a table of the same number of slots; the
	// hashes (of the packed forms) change, and so do the index entries.
	oldBits, oldTable, oldSlot := s.bits, s.table, uintptr(s.slot)
	oldBase := unsafe.Pointer(unsafe.SliceData(oldTable))
	oldW := s.width
	s.setBits(nb)
	s.setWidth(w)
	s.table = make([]byte, int(s.slots)*s.slot)
	var rawBuf, pk []byte
	for j := uint64(0); j < s.slots; j++ {
		p := unsafe.Add(oldBase, uintptr(j)*oldSlot)
		v := load32(p)
		if v == 0 {
			continue
		}
		s.bits = oldBits
		rawBuf = s.unpack(rawBuf[:0], unsafe.Slice((*byte)(unsafe.Add(p, 4)), oldW))
		s.bits = nb
		pk, _ = s.pack(pk[:0], rawBuf)
		hh := h32(maphash.Bytes(s.seed, pk))
		i, _, _ := s.findInline(pk, hh)
		q := s.at(i)
		store32(q, v)
		copy(unsafe.Slice((*byte)(unsafe.Add(q, 4)), w), pk)
		id := v - 1
		s.index[id>>refBits][id&(refBlock-1)] = hh
	}
}

// toSide moves every state to a fresh side set, in id order (so that a
// state's rank there is its id, as in a store without inline states).
func (s *store) toSide() {
	var d sideSet
	bitsN := uint(8)
	for 1<<bitsN < s.n*2 {
		bitsN++
	}
	d.init(s.seed, bitsN)
	var b []byte
	for id := 0; id < s.n; id++ {
		b = append(b[:0], s.Get(uint32(id))...)
		i, fp, _, _ := d.find(b, maphash.Bytes(s.seed, b))
		d.add(i, fp, uint32(id), b)
	}
	s.side = d
	s.raw, s.bits, s.width, s.slot = -1, nil, -1, 0
	s.table, s.slots, s.inline, s.index = nil, 0, 0, nil
}

// setBits sets the layout and the bit offset of each position.
func (s *store) setBits(nb []uint8) {
	s.bits = nb
	s.offs = slices.Grow(s.offs[:0], len(nb))[:len(nb)]
	o := uint16(0)
	for i, w := range nb {
		s.offs[i] = o
		o += uint16(w)
	}
}
