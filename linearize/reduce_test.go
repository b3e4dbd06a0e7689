package linearize

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/quasar-verify/quasar/csp"
	"github.com/quasar-verify/quasar/internal/modeltest"
	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// TestCompressionKeepsTraces: on the models of testdata/compress.txtar,
// Reduced with its compressed steps has exactly the traces of Reduced
// without them (the claim of "Compression" in the package doc), checked
// by determinising both on the fly and comparing the events each set of
// states offers after every trace; and the compression leaves fewer
// states where the file expects it to, so the comparison is not vacuous.
func TestCompressionKeepsTraces(t *testing.T) {
	ar, err := txtar.ParseFile("testdata/compress.txtar")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range ar.Files {
		t.Run(f.Name, func(t *testing.T) {
			impl := compileImpl(t, f.Name, f.Data)
			on := NewReduced(impl, DefaultNaming)
			off := NewReduced(impl, DefaultNaming)
			off.uncompressed = true
			if w := firstTraceDifference(t, on, off); w != "" {
				t.Fatalf("the traces differ after %q", w)
			}
			a, b := reachable(t, on), reachable(t, off)
			switch {
			case strings.Contains(string(f.Data), "// expect: fewer states"):
				if a >= b {
					t.Errorf("compressed: %d states, uncompressed %d", a, b)
				}
			case strings.Contains(string(f.Data), "// expect: same states"):
				if a != b {
					t.Errorf("compressed: %d states, uncompressed %d", a, b)
				}
			default:
				t.Fatal("no expectation")
			}
		})
	}
}

// compileImpl compiles src and returns the left side of its first
// assertion, without symmetry (whose states name threads relative to a
// representative, so that its traces are not the model's).
func compileImpl(t *testing.T, name string, src []byte) *csp.Proc {
	t.Helper()
	prog, c := modeltest.CompileSource(t, name, src)
	for _, d := range c.File.Decls {
		if a, ok := d.(*lang.AssertDecl); ok {
			impl, err := prog.Process(a.Left)
			if err != nil {
				t.Fatal(err)
			}
			if why := prog.EventThreads(a.Left); why != "" {
				t.Fatalf("the reduction does not apply: %s", why)
			}
			return impl
		}
	}
	t.Fatal("no assertion")
	return nil
}

// closure is the sorted set of states reachable from set by tau steps.
func closure(t *testing.T, sys lts.System, set []lts.State) []lts.State {
	seen := reach(t, sys, set, true)
	out := make([]lts.State, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// after maps each visible event offered by set to the closure of its
// targets.
func after(t *testing.T, sys lts.System, set []lts.State) map[lts.Event][]lts.State {
	next := map[lts.Event][]lts.State{}
	for _, s := range set {
		trs, err := sys.Successors(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range trs {
			if tr.Event != lts.Tau {
				next[tr.Event] = append(next[tr.Event], tr.Target)
			}
		}
	}
	for e, ts := range next {
		next[e] = closure(t, sys, ts)
	}
	return next
}

func setKey(a, b []lts.State) string {
	var k []byte
	k = binary.AppendUvarint(k, uint64(len(a)))
	for _, s := range append(slices.Clone(a), b...) {
		k = binary.AppendUvarint(k, uint64(s))
	}
	return string(k)
}

// firstTraceDifference returns a trace after which a and b offer
// different events ("" if there is none): a breadth-first search over
// pairs of their determinised states.
func firstTraceDifference(t *testing.T, a, b lts.System) string {
	type node struct {
		x, y  []lts.State
		trace []string
	}
	start := node{x: closure(t, a, []lts.State{a.Initial()}), y: closure(t, b, []lts.State{b.Initial()})}
	seen := map[string]bool{setKey(start.x, start.y): true}
	queue := []node{start}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		nx, ny := after(t, a, n.x), after(t, b, n.y)
		for e, xs := range nx {
			ys, ok := ny[e]
			w := append(slices.Clone(n.trace), a.Events().Name(e))
			if !ok {
				return strings.Join(w, " ") + fmt.Sprintf(" (only the compressed system offers %s)", w[len(w)-1])
			}
			if k := setKey(xs, ys); !seen[k] {
				seen[k] = true
				queue = append(queue, node{xs, ys, w})
			}
		}
		for e := range ny {
			if _, ok := nx[e]; !ok {
				return strings.Join(append(slices.Clone(n.trace), b.Events().Name(e)), " ") + " (only the uncompressed system offers it)"
			}
		}
	}
	return ""
}

// reachable counts the states of sys reachable from its initial state.
func reachable(t *testing.T, sys lts.System) int {
	return len(reach(t, sys, []lts.State{sys.Initial()}, false))
}

// reach is the set of states reachable from set, by tau steps only when
// tauOnly.
func reach(t *testing.T, sys lts.System, set []lts.State, tauOnly bool) map[lts.State]bool {
	seen := map[lts.State]bool{}
	stack := slices.Clone(set)
	for _, s := range set {
		seen[s] = true
	}
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		trs, err := sys.Successors(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range trs {
			if (!tauOnly || tr.Event == lts.Tau) && !seen[tr.Target] {
				seen[tr.Target] = true
				stack = append(stack, tr.Target)
			}
		}
	}
	return seen
}

// TestCombineMemo: the label of a choice compressed with a response
// (combine, memoised) is choose.T.A.R for each choice and each response,
// asked in any order and again; a memo keyed by the choice alone would give
// one choice's first response to all of them.
func TestCombineMemo(t *testing.T) {
	tab := lts.NewEventTable()
	r := &Reduced{tab: tab, choose: "choose$"}
	var choices, responses []lts.Event
	for th := range 3 {
		for v := 1; v <= 2; v++ {
			choices = append(choices, tab.Intern("choose$", th, v))
		}
		for v := range 3 {
			responses = append(responses, tab.Intern("deq_res", th, v))
		}
	}
	for range 2 {
		for _, c := range choices {
			for _, e := range responses {
				d := tab.Data(c)
				want := tab.Intern("choose$", d[0], d[1], int(e))
				if got := r.combine(c, e); got != want {
					t.Fatalf("combine(%s, %s) = %s, want %s", tab.Name(c), tab.Name(e), tab.Name(got), tab.Name(want))
				}
			}
		}
	}
	if got := r.combine(lts.Tau, responses[0]); got != responses[0] {
		t.Fatalf("combine(tau, %s) = %s", tab.Name(responses[0]), tab.Name(got))
	}
}
