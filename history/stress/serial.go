package stress

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/history/record"
)

// NondeterminismError reports that two serial runs of a test, identical up
// to an operation, gave it different results: the object has no
// deterministic sequential specification (Line-Up's phase-1 failure).
type NondeterminismError struct {
	Prefix []string // the common serial prefix, "p0 enq(1) -> null"
	Op     string   // the operation, "p1 deq()"
	A, B   history.Value
}

func (e *NondeterminismError) Error() string {
	prefix := "the start"
	if len(e.Prefix) > 0 {
		prefix = strings.Join(e.Prefix, "; ")
	}
	return fmt.Sprintf("not deterministic in serial runs: after %s, %s returned %v in one run and %v in another", prefix, e.Op, e.A, e.B)
}

// serialSpec is the trie of the serial histories of one test; the states
// of serialMachine are its nodes (node 0 is the root).
type serialSpec struct {
	test      Test
	nodes     []tnode
	histories int
}

type tnode struct {
	parent uint32
	via    int32 // index of the edge of parent leading here; -1 at the root
	edges  []tedge
}

// tedge is the next operation of goroutine g after the node's prefix
// (unique: the prefix fixes how many of g's operations ran) and its result.
type tedge struct {
	g     int
	call  Call
	arg   history.Value
	res   history.Value
	child uint32
}

// orders returns the number of serial orders of test (interleavings of the
// goroutines' sequences), or limit+1 if it exceeds limit.
func orders(test Test, limit int) int {
	n, total := 0, 1
	for _, calls := range test {
		for k := 1; k <= len(calls); k++ {
			n++
			// After this step total = n!/(k1!···k!), a multinomial
			// coefficient, so multiplying before dividing stays exact.
			total = total * n / k
			if total > limit {
				return limit + 1
			}
		}
	}
	return total
}

// derive runs phase 1: every serial order of test on a fresh object.
func derive(cfg Config, test Test) (*serialSpec, error) {
	if n := orders(test, cfg.MaxSerial); n > cfg.MaxSerial {
		return nil, fmt.Errorf("stress: the test has more than %d serial orders (Config.MaxSerial): use fewer goroutines or operations, or give a Model", cfg.MaxSerial)
	}
	s := &serialSpec{test: test, nodes: []tnode{{via: -1}}}
	next := make([]int, len(test)) // next call of each goroutine
	order := make([]int, 0, 16)
	var rec func() error
	rec = func() error {
		done := true
		for g := range test {
			if next[g] < len(test[g]) {
				done = false
				next[g]++
				order = append(order, g)
				if err := rec(); err != nil {
					return err
				}
				order = order[:len(order)-1]
				next[g]--
			}
		}
		if done {
			s.histories++
			return s.replay(cfg, order)
		}
		return nil
	}
	if err := rec(); err != nil {
		return nil, err
	}
	return s, nil
}

// replay runs one serial order on a fresh object and adds it to the trie.
func (s *serialSpec) replay(cfg Config, order []int) (err error) {
	obj := cfg.New()
	idx := make([]int, len(s.test))
	node := uint32(0)
	var c Call
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("stress: serial run: %s: the object panicked: %v", c, r)
		}
	}()
	for _, g := range order {
		c = s.test[g][idx[g]]
		idx[g]++
		res := record.Value(obj.Do(c.F, c.Arg))
		found := false
		for _, e := range s.nodes[node].edges {
			if e.g != g {
				continue
			}
			if !e.res.Equal(res) {
				return &NondeterminismError{Prefix: s.path(node), Op: fmt.Sprintf("p%d %s", g, c), A: e.res, B: res}
			}
			node, found = e.child, true
			break
		}
		if !found {
			child := uint32(len(s.nodes))
			s.nodes = append(s.nodes, tnode{parent: node, via: int32(len(s.nodes[node].edges))})
			s.nodes[node].edges = append(s.nodes[node].edges, tedge{g: g, call: c, arg: record.Value(c.Arg), res: res, child: child})
			node = child
		}
	}
	return nil
}

// path renders the serial prefix leading to node.
func (s *serialSpec) path(node uint32) []string {
	var out []string
	for node != 0 {
		n := s.nodes[node]
		e := s.nodes[n.parent].edges[n.via]
		out = append(out, fmt.Sprintf("p%d %s -> %v", e.g, e.call, e.res))
		node = n.parent
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// serialModel is the derived specification as a history.Model. Compile
// runs phase 1 on the test made of exactly the given operations (each
// goroutine's operations in call order, a subsequence of its calls in the
// generated test), so sub-histories (prefixes, the sub-histories tried by
// history.Localize) are checked against the serial runs of their own test:
// CGVT's re-execution of a smaller test case.
type serialModel struct {
	cfg   Config
	test  Test
	cache map[string]*serialSpec
}

func newSerialModel(cfg Config, test Test) *serialModel {
	return &serialModel{cfg: cfg, test: test, cache: map[string]*serialSpec{}}
}

func (m *serialModel) Name() string { return "serial-observations" }

// subTest maps ops to the calls of the generated test they perform.
func (m *serialModel) subTest(ops []history.Op) (Test, error) {
	byProc := make([][]*history.Op, len(m.test))
	for i := range ops {
		o := &ops[i]
		if o.Process < 0 || o.Process >= len(m.test) {
			return nil, fmt.Errorf("op %d (%v): process %d is not a goroutine of the test", o.ID, o, o.Process)
		}
		byProc[o.Process] = append(byProc[o.Process], o)
	}
	sub := make(Test, len(m.test))
	for g, os := range byProc {
		slices.SortStableFunc(os, func(a, b *history.Op) int { return cmp.Compare(a.Call, b.Call) })
		j := 0
		for _, o := range os {
			for j < len(m.test[g]) && (m.test[g][j].F != o.F || !record.Value(m.test[g][j].Arg).Equal(o.Input)) {
				j++
			}
			if j == len(m.test[g]) {
				return nil, fmt.Errorf("op %d (%v) is not a call of goroutine %d in the test", o.ID, o, g)
			}
			sub[g] = append(sub[g], m.test[g][j])
			j++
		}
	}
	return sub, nil
}

func (m *serialModel) Compile(ops []history.Op) (history.Machine, error) {
	sub, err := m.subTest(ops)
	if err != nil {
		return nil, err
	}
	key := sub.String()
	spec, ok := m.cache[key]
	if !ok {
		if spec, err = derive(m.cfg, sub); err != nil {
			return nil, err
		}
		m.cache[key] = spec
	}
	return &serialMachine{s: spec, ops: ops}, nil
}

type serialMachine struct {
	s   *serialSpec
	ops []history.Op
}

func (m *serialMachine) Init(buf []history.State) []history.State { return append(buf, 0) }

func (m *serialMachine) Step(st history.State, i int, buf []history.State) []history.State {
	o := &m.ops[i]
	for _, e := range m.s.nodes[st].edges {
		if e.g != o.Process {
			continue
		}
		if e.call.F != o.F || !e.arg.Equal(o.Input) {
			return buf // not this goroutine's next call in the test
		}
		if o.Status == history.Ok && !e.res.Equal(o.Output) {
			return buf
		}
		return append(buf, e.child)
	}
	return buf
}

func (m *serialMachine) Describe(st history.State) string {
	p := m.s.path(st)
	if len(p) > 6 {
		p = append([]string{fmt.Sprintf("... %d more", len(p)-6)}, p[len(p)-6:]...)
	}
	return "serial prefix [" + strings.Join(p, "; ") + "]"
}

// SerialModel runs phase 1 on test (every serial order, each on a fresh
// object from newObj) and returns the derived specification as a
// history.Model: a history of test's calls (or of a sub-test of them) is
// accepted iff some precedence-respecting order of it is a serial history.
// maxSerial bounds the serial orders (0: 100000). A *NondeterminismError
// reports an object without a deterministic sequential specification.
func SerialModel(newObj func() Object, test Test, maxSerial int) (history.Model, error) {
	if newObj == nil {
		return nil, fmt.Errorf("stress: SerialModel needs a constructor")
	}
	cfg := Config{New: newObj, MaxSerial: maxSerial}
	if cfg.MaxSerial <= 0 {
		cfg.MaxSerial = 100000
	}
	spec, err := derive(cfg, test)
	if err != nil {
		return nil, err
	}
	m := newSerialModel(cfg, test)
	m.cache[test.String()] = spec
	return m, nil
}
