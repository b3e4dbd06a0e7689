package history

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ModelByName returns a built-in model: "register", "cas-register" (alias
// "etcd"), "kv", "queue", "unordered-queue" (alias "bag"), "stack",
// "pqueue", "set", "mutex", "multi-register".
func ModelByName(name string) (Model, error) {
	switch name {
	case "register":
		return Register(), nil
	case "cas-register", "etcd":
		return CASRegister(), nil
	case "kv", "kv-append":
		return KV(), nil
	case "queue":
		return Queue(), nil
	case "stack":
		return Stack(), nil
	case "pqueue", "priority-queue":
		return PriorityQueue(), nil
	case "set":
		return Set(), nil
	case "unordered-queue", "bag":
		return UnorderedQueue(), nil
	case "mutex":
		return Mutex(), nil
	case "multi-register":
		return MultiRegister(Nil()), nil
	}
	return nil, fmt.Errorf("unknown model %q (want register, cas-register, kv, queue, unordered-queue, stack, pqueue, set, mutex or multi-register)", name)
}

// ModelNames lists the built-in models.
func ModelNames() []string {
	return []string{"register", "cas-register", "kv", "queue", "unordered-queue", "stack", "pqueue", "set", "mutex", "multi-register"}
}

func opError(o *Op, format string, args ...any) error {
	return fmt.Errorf("%s: %s: %s", lineOf(o), o.F, fmt.Sprintf(format, args...))
}

// ---- registers ----

type registerModel struct {
	cas bool
	RegisterOptions
}

// RegisterOptions are the conventions of a register model where tools
// differ.
type RegisterOptions struct {
	// Init is the register's initial value (the zero Value is null).
	Init Value
	// AnyNilRead makes an ok read of null say nothing about the value, as
	// in Knossos's cas-register (a read whose value was not recorded);
	// by default it read an empty (null) register.
	AnyNilRead bool
}

// Register is a read/write register that starts as nil: read() -> v,
// write(v). Values are any Value.
func Register() Model { return registerModel{} }

// RegisterWith is Register with other conventions (Knossos's (register 0):
// Init 0, AnyNilRead).
func RegisterWith(o RegisterOptions) Model { return registerModel{RegisterOptions: o} }

// CASRegisterWith is CASRegister with other conventions (Knossos's
// (cas-register 0): Init 0, AnyNilRead).
func CASRegisterWith(o RegisterOptions) Model {
	return registerModel{cas: true, RegisterOptions: o}
}

// CASRegister is the etcd model: a register starting as nil with read,
// write and cas([from, to]) -> true/false. A cas that returned false
// happened with no effect (the state differs from `from`); an Info cas may
// have taken effect (state == from: becomes to) or never happened. An ok
// cas whose result echoes its arguments (Knossos's histories: [from to])
// succeeded.
func CASRegister() Model { return registerModel{cas: true} }

func (m registerModel) Name() string {
	if m.cas {
		return "cas-register"
	}
	return "register"
}

const (
	rRead = iota
	rWrite
	rCas
)

type regOp struct {
	kind      uint8
	info      bool
	a, b, out State // interned values; for cas out 1 = true, 0 = false
}

type registerMachine struct {
	ops    []regOp
	values []Value
}

func (m registerModel) Compile(ops []Op) (Machine, error) {
	mc := &registerMachine{values: []Value{m.Init}}
	ids := map[string]State{m.Init.String(): 0} // state 0: the initial value
	intern := func(v Value) State {
		k := v.String()
		if id, ok := ids[k]; ok {
			return id
		}
		id := State(len(mc.values))
		ids[k] = id
		mc.values = append(mc.values, v)
		return id
	}
	mc.ops = make([]regOp, len(ops))
	for i := range ops {
		o := &ops[i]
		r := regOp{info: o.Status == Info}
		switch o.F {
		case "read", "get":
			r.kind = rRead
			if m.AnyNilRead && !r.info && o.Output.IsNil() {
				r.info = true // a read of any value, with no effect
			}
			if !r.info {
				r.out = intern(o.Output)
			}
		case "write", "put":
			r.kind = rWrite
			r.a = intern(o.Input)
		case "cas":
			if !m.cas {
				return nil, opError(o, "unknown operation for model register (want read or write; use cas-register)")
			}
			r.kind = rCas
			l, ok := o.Input.List()
			if !ok || len(l) != 2 {
				return nil, opError(o, "expected arguments [from, to], found %s", o.Input)
			}
			r.a, r.b = intern(l[0]), intern(l[1])
			if !r.info {
				b, ok := o.Output.Bool()
				if o.Output.Equal(o.Input) {
					b, ok = true, true // Knossos: an ok cas echoes [from to]
				}
				if !ok {
					return nil, opError(o, "expected result true or false, found %s", o.Output)
				}
				if b {
					r.out = 1
				}
			}
		default:
			return nil, opError(o, "unknown operation for model %s (want read, write%s)", m.Name(), map[bool]string{true: " or cas", false: ""}[m.cas])
		}
		mc.ops[i] = r
	}
	return mc, nil
}

func (mc *registerMachine) Init(buf []State) []State { return append(buf, 0) }

func (mc *registerMachine) Step(s State, i int, buf []State) []State {
	r := &mc.ops[i]
	switch r.kind {
	case rRead:
		if r.info || r.out == s {
			return append(buf, s)
		}
	case rWrite:
		return append(buf, r.a)
	case rCas:
		if s == r.a {
			if r.info || r.out == 1 {
				return append(buf, r.b)
			}
		} else if r.info || r.out == 0 {
			return append(buf, s)
		}
	}
	return buf
}

func (mc *registerMachine) Describe(s State) string { return mc.values[s].String() }

// ---- key-value store ----

type kvModel struct{}

// KV is a key-value store of strings, every key initially "": get(k) -> v,
// put(k, v), append(k, v) (concatenation). It is P-compositional: checked
// per key.
func KV() Model { return kvModel{} }

func (kvModel) Name() string { return "kv" }

func (kvModel) Partition(ops []Op) ([][]int, []string) {
	// Small histories are checked in microseconds: count first, then fill
	// one backing array, so that partitioning allocates a constant number
	// of times.
	key := make([]int32, len(ops))
	idx := map[string]int32{}
	var names []string
	var count []int32
	for i := range ops {
		g, ok := idx[ops[i].Key]
		if !ok {
			g = int32(len(names))
			idx[ops[i].Key] = g
			names = append(names, ops[i].Key)
			count = append(count, 0)
		}
		key[i] = g
		count[g]++
	}
	// Partitions in key order.
	order := make([]int32, len(names))
	for i := range order {
		order[i] = int32(i)
	}
	sort.Slice(order, func(a, b int) bool { return names[order[a]] < names[order[b]] })
	rank := make([]int32, len(names))
	sorted := make([]string, len(names))
	for r, g := range order {
		rank[g] = int32(r)
		sorted[r] = names[g]
	}
	groups := make([][]int, len(names))
	backing := make([]int, len(ops))
	off := 0
	for r, g := range order {
		groups[r] = backing[off : off : off+int(count[g])]
		off += int(count[g])
	}
	for i := range ops {
		r := rank[key[i]]
		groups[r] = append(groups[r], i)
	}
	return groups, sorted
}

const (
	kvGet = iota
	kvPut
	kvAppend
)

type kvOp struct {
	kind uint8
	info bool
	key  int32
	arg  int32 // string id of the argument
	out  int32 // string id of the result of get
}

// kvMachine: a state is a tuple of string ids, one per key, interned; steps
// are cached per (state, op).
type kvMachine struct {
	ops     []kvOp
	nkeys   int
	strs    ropes
	tuples  [][]int32
	tupIDs  map[string]State
	cache   map[uint64]State // (state<<32 | op) -> next
	keyName []string
	single  bool // one key: a state is the string id itself
	// Pruning (single key, see Viable): for each completed get, the prefix
	// hashes of its result and the puts that could reset the string for it.
	pruneOps   []Op // set until the pruning tables are built (lazily)
	pruneCalls int
	gets       []int32
	getPref    [][]uint64 // slices of one array
	getPuts    [][]int32
}

func (kvModel) Compile(ops []Op) (Machine, error) {
	mc := &kvMachine{}
	mc.strs.init(len(ops))
	str := mc.strs.leafID
	keys := make(map[string]int32, 1)
	text := func(v Value) (string, bool) {
		if v.IsNil() {
			return "", true
		}
		s, ok := v.Str()
		return s, ok
	}
	mc.ops = make([]kvOp, len(ops))
	for i := range ops {
		o := &ops[i]
		var k int32
		if i == 0 || o.Key != mc.keyName[0] || len(mc.keyName) > 1 {
			// A partition has one key: the map is needed only for
			// unpartitioned histories.
			var ok bool
			k, ok = keys[o.Key]
			if !ok {
				k = int32(len(keys))
				keys[o.Key] = k
				mc.keyName = append(mc.keyName, o.Key)
			}
		}
		r := kvOp{key: k, info: o.Status == Info}
		switch o.F {
		case "get", "read":
			r.kind = kvGet
			if !r.info {
				s, ok := text(o.Output)
				if !ok {
					return nil, opError(o, "expected a string result, found %s", o.Output)
				}
				r.out = str(s)
			}
		case "put", "write", "append":
			r.kind = kvPut
			if o.F == "append" {
				r.kind = kvAppend
			}
			s, ok := text(o.Input)
			if !ok {
				return nil, opError(o, "expected a string argument, found %s", o.Input)
			}
			r.arg = str(s)
		default:
			return nil, opError(o, "unknown operation for model kv (want get, put or append)")
		}
		mc.ops[i] = r
	}
	mc.nkeys = len(keys)
	mc.single = mc.nkeys <= 1
	if mc.single {
		mc.pruneOps = ops
	}
	if !mc.single {
		mc.tupIDs = map[string]State{}
		mc.cache = map[uint64]State{}
		mc.tuple(make([]int32, mc.nkeys)) // state 0: every key ""
	}
	return mc, nil
}

func (mc *kvMachine) tuple(t []int32) State {
	var sb strings.Builder
	for _, x := range t {
		sb.WriteString(strconv.Itoa(int(x)))
		sb.WriteByte(',')
	}
	k := sb.String()
	if id, ok := mc.tupIDs[k]; ok {
		return id
	}
	id := State(len(mc.tuples))
	mc.tuples = append(mc.tuples, append([]int32(nil), t...))
	mc.tupIDs[k] = id
	return id
}

func (mc *kvMachine) Init(buf []State) []State { return append(buf, 0) }

// concat returns the id of string a + string b.
func (mc *kvMachine) concat(a, b int32) int32 { return mc.strs.concat(a, b) }

func (mc *kvMachine) Step(s State, i int, buf []State) []State {
	r := &mc.ops[i]
	if mc.single {
		switch r.kind {
		case kvGet:
			if r.info || State(r.out) == s {
				return append(buf, s)
			}
			return buf
		case kvPut:
			return append(buf, State(r.arg))
		default:
			return append(buf, State(mc.concat(int32(s), r.arg)))
		}
	}
	if r.kind == kvGet {
		if r.info || mc.tuples[s][r.key] == r.out {
			return append(buf, s)
		}
		return buf
	}
	ck := uint64(s)<<32 | uint64(i)
	if n, ok := mc.cache[ck]; ok {
		return append(buf, n)
	}
	t := append([]int32(nil), mc.tuples[s]...)
	if r.kind == kvPut {
		t[r.key] = r.arg
	} else {
		t[r.key] = mc.concat(t[r.key], r.arg)
	}
	n := mc.tuple(t)
	mc.cache[ck] = n
	return append(buf, n)
}

func (mc *kvMachine) Describe(s State) string {
	if mc.single {
		return strconv.Quote(mc.strs.str(int32(s)))
	}
	var sb strings.Builder
	sb.WriteByte('{')
	for k, id := range mc.tuples[s] {
		if k > 0 {
			sb.WriteString(", ")
		}
		fmt.Fprintf(&sb, "%q: %q", mc.keyName[k], mc.strs.str(id))
	}
	sb.WriteByte('}')
	return sb.String()
}

// initPruning prepares Viable: between two puts the string only grows, so
// a completed get g that returned G can still be linearized only if the
// current string is a prefix of G, or some unlinearized put (not after g in
// real time) writes a prefix of G.
func (mc *kvMachine) initPruning(ops []Op) {
	total := 0
	for i := range ops {
		if r := &mc.ops[i]; r.kind == kvGet && !r.info {
			total += int(mc.strs.nodes[r.out].n) + 1
		}
	}
	if total > maxPruneWords {
		return // too much memory for the prefix hashes: no pruning
	}
	var putsOf map[string][]int32 // put value -> puts writing it
	for j := range ops {
		if mc.ops[j].kind == kvPut {
			if putsOf == nil {
				putsOf = map[string][]int32{}
			}
			v := mc.strs.str(mc.ops[j].arg)
			putsOf[v] = append(putsOf[v], int32(j))
		}
	}
	all := make([]uint64, total)
	for i := range ops {
		r := &mc.ops[i]
		if r.kind != kvGet || r.info {
			continue
		}
		g := mc.strs.str(r.out)
		pref := all[: len(g)+1 : len(g)+1]
		all = all[len(g)+1:]
		for k := 0; k < len(g); k++ {
			pref[k+1] = pref[k]*ropeBase + uint64(g[k])
		}
		var puts []int32
		if len(putsOf) > 0 {
			for k := 0; k <= len(g); k++ {
				for _, j := range putsOf[g[:k]] {
					if ops[i].Return >= ops[j].Call {
						puts = append(puts, j)
					}
				}
			}
		}
		mc.gets = append(mc.gets, int32(i))
		mc.getPref = append(mc.getPref, pref)
		mc.getPuts = append(mc.getPuts, puts)
	}
}

// pruneAfter is the number of steps after which kv pruning starts.
const pruneAfter = 200

// maxPruneWords bounds the memory of kv pruning (8 bytes a word).
const maxPruneWords = 1 << 23

// Viable reports false when some unlinearized completed get can no longer
// see its result (see initPruning). Prefixes are compared by hash: equal
// strings have equal hashes, so a "not a prefix" answer is exact and a
// state is dropped only when it is dead.
func (mc *kvMachine) Viable(s State, lin []uint64) bool {
	if !mc.single {
		return true
	}
	if mc.pruneOps != nil {
		// Small searches finish before pruning pays for its tables.
		if mc.pruneCalls++; mc.pruneCalls < pruneAfter {
			return true
		}
		mc.initPruning(mc.pruneOps)
		mc.pruneOps = nil
	}
	node := &mc.strs.nodes[s]
	n, h := node.n, node.h
next:
	for k, g := range mc.gets {
		if lin[g>>6]&(1<<(uint(g)&63)) != 0 {
			continue
		}
		if pref := mc.getPref[k]; n < int64(len(pref)) && pref[n] == h {
			continue
		}
		for _, p := range mc.getPuts[k] {
			if lin[p>>6]&(1<<(uint(p)&63)) == 0 {
				continue next
			}
		}
		return false
	}
	return true
}
