package history

import "strings"

// ---- Knossos's mutex and multi-register ----

type mutexModel struct{}

// Mutex is Knossos's single lock: acquire() takes it if it is free,
// release() frees it if it is held; acquiring a held lock or releasing a
// free one is not allowed. Owners are not tracked (as in Knossos).
func Mutex() Model { return mutexModel{} }

func (mutexModel) Name() string { return "mutex" }

type mutexMachine struct{ acquire []bool }

func (mutexModel) Compile(ops []Op) (Machine, error) {
	mc := &mutexMachine{acquire: make([]bool, len(ops))}
	for i := range ops {
		switch o := &ops[i]; o.F {
		case "acquire", "lock":
			mc.acquire[i] = true
		case "release", "unlock":
		default:
			return nil, opError(o, "unknown operation for model mutex (want acquire or release)")
		}
	}
	return mc, nil
}

// States: 0 free, 1 held.
func (mc *mutexMachine) Init(buf []State) []State { return append(buf, 0) }

func (mc *mutexMachine) Step(s State, i int, buf []State) []State {
	if mc.acquire[i] == (s == 0) {
		return append(buf, 1-s)
	}
	return buf
}

func (mc *mutexMachine) Describe(s State) string { return [2]string{"free", "held"}[s] }

type multiRegisterModel struct{ init Value }

// MultiRegister is Knossos's multi-register: registers named by keys, all
// starting at init, and one operation, txn, whose argument is a list of
// micro-operations [f, key, value] applied in order: [read, k, v] reads v
// from k (a read of null may have read anything: Knossos records no
// value then), [write, k, v] writes v to k. It is not P-compositional: a
// transaction may touch several keys.
func MultiRegister(init Value) Model { return multiRegisterModel{init: init} }

func (multiRegisterModel) Name() string { return "multi-register" }

// micro is one compiled micro-operation: on the key with index key, read
// (or write) the interned value val; any is a read of null.
type micro struct {
	write, any bool
	key        int
	val        int
}

type multiMachine struct {
	txns   [][]micro
	values []Value // interned values; 0 is the initial one
	nkeys  int
	names  []string // the keys, by index
	states map[string]State
	keys   []string // keys[s]: the state's values, one byte-pair per key
}

func (m multiRegisterModel) Compile(ops []Op) (Machine, error) {
	mc := &multiMachine{values: []Value{m.init}, states: map[string]State{}}
	vals := map[string]int{m.init.String(): 0}
	keys := map[string]int{}
	mc.txns = make([][]micro, len(ops))
	for i := range ops {
		o := &ops[i]
		if o.F != "txn" {
			return nil, opError(o, "unknown operation for model multi-register (want txn)")
		}
		// An ok txn echoes its micro-operations with the values read.
		arg := o.Input
		if o.Status == Ok && !o.Output.IsNil() {
			arg = o.Output
		}
		l, ok := arg.List()
		if !ok {
			return nil, opError(o, "expected a list of [f, key, value], found %s", arg)
		}
		for _, mv := range l {
			t, ok := mv.List()
			if !ok || len(t) != 3 {
				return nil, opError(o, "expected a micro-operation [f, key, value], found %s", mv)
			}
			f, _ := t[0].Str()
			if f != "read" && f != "write" {
				return nil, opError(o, "expected a micro-operation read or write, found %s", t[0])
			}
			k := t[1].String()
			if _, ok := keys[k]; !ok {
				keys[k] = len(keys)
				mc.names = append(mc.names, k)
			}
			v := t[2].String()
			if _, ok := vals[v]; !ok {
				vals[v] = len(mc.values)
				mc.values = append(mc.values, t[2])
			}
			mi := micro{write: f == "write", key: keys[k], val: vals[v]}
			// A read in an incomplete txn, or of null, says nothing.
			mi.any = !mi.write && (o.Status != Ok || t[2].IsNil())
			mc.txns[i] = append(mc.txns[i], mi)
		}
	}
	if len(mc.values) > 1<<16 {
		return nil, opError(&ops[0], "more than %d distinct values", 1<<16)
	}
	mc.nkeys = len(keys)
	mc.intern(make([]int, mc.nkeys)) // state 0: every key at init
	return mc, nil
}

// intern returns the state whose registers hold the values vs.
func (mc *multiMachine) intern(vs []int) State {
	var b strings.Builder
	for _, v := range vs {
		b.WriteByte(byte(v))
		b.WriteByte(byte(v >> 8))
	}
	k := b.String()
	if s, ok := mc.states[k]; ok {
		return s
	}
	s := State(len(mc.keys))
	mc.states[k] = s
	mc.keys = append(mc.keys, k)
	return s
}

func (mc *multiMachine) regs(s State) []int {
	k := mc.keys[s]
	vs := make([]int, mc.nkeys)
	for i := range vs {
		vs[i] = int(k[2*i]) | int(k[2*i+1])<<8
	}
	return vs
}

func (mc *multiMachine) Init(buf []State) []State { return append(buf, 0) }

func (mc *multiMachine) Step(s State, i int, buf []State) []State {
	vs := mc.regs(s)
	for _, m := range mc.txns[i] {
		switch {
		case m.write:
			vs[m.key] = m.val
		case !m.any && vs[m.key] != m.val:
			return buf
		}
	}
	return append(buf, mc.intern(vs))
}

func (mc *multiMachine) Describe(s State) string {
	var parts []string
	for k, v := range mc.regs(s) {
		parts = append(parts, mc.names[k]+"="+mc.values[v].String())
	}
	return "{" + strings.Join(parts, " ") + "}"
}
