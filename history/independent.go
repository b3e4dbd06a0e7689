package history

// SplitIndependent reads a history written with jepsen.independent, whose
// values are [key value] tuples (`:value [1 [2 3]]` is a cas of key 1 from
// 2 to 3; `:f` is the operation on the inner value), into one with the key
// in Op.Key and the inner values in Input and Output. EDN prints a tuple
// as a plain two-element vector, so the reading is asked for, never
// guessed. Every operation must carry a tuple on its invocation; an ok
// completion must carry a tuple of the same key (its result); the value of
// a fail or info completion is not read. Check the result with PerKey(m):
// one sub-history per key, as jepsen.independent/checker does. The
// history is not modified.
func SplitIndependent(h *History) (*History, error) {
	out := &History{Ops: make([]Op, len(h.Ops))}
	for i := range h.Ops {
		o := h.Ops[i]
		if o.Key != "" {
			return nil, opError(&o, "already has a key (%q): independent tuples carry the key in the value", o.Key)
		}
		k, v, ok := tuple(o.Input)
		if !ok {
			return nil, opError(&o, "expected a [key value] tuple (jepsen.independent), found %s", o.Input)
		}
		o.Key, o.Input = k.String(), v
		if o.Status == Ok {
			rk, rv, ok := tuple(o.Output)
			if !ok {
				return nil, opError(&o, "expected a [key value] tuple as the result, found %s", o.Output)
			}
			if !rk.Equal(k) {
				return nil, opError(&o, "the result's key %s differs from the invocation's %s", rk, k)
			}
			o.Output = rv
		} else {
			o.Output = Value{}
		}
		out.Ops[i] = o
	}
	return out, nil
}

// tuple splits a two-element list.
func tuple(v Value) (Value, Value, bool) {
	l, ok := v.List()
	if !ok || len(l) != 2 {
		return Value{}, Value{}, false
	}
	return l[0], l[1], true
}

// PerKey checks m one key at a time (Op.Key, as SplitIndependent sets it):
// the history is linearizable iff each key's sub-history is, which is what
// jepsen.independent/checker reports. Quasi checks are not partitioned, so
// PerKey has no event view.
func PerKey(m Model) Model { return perKey{m} }

type perKey struct{ m Model }

func (p perKey) Name() string                         { return p.m.Name() }
func (p perKey) Compile(ops []Op) (Machine, error)    { return p.m.Compile(ops) }
func (perKey) Partition(ops []Op) ([][]int, []string) { return kvModel{}.Partition(ops) }
