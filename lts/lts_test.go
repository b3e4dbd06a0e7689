package lts

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// graph builds an Explicit from "from event to" triples.
func graph(edges ...string) *Explicit {
	x := NewExplicit(nil)
	for _, e := range edges {
		f := strings.Fields(e)
		x.Add(State(f[0][0]-'0'), f[1], State(f[2][0]-'0'))
	}
	return x
}

func names(t *EventTable, es []Event) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = t.Name(e)
	}
	return out
}

// TestEventTable: names split into a base and integer data, one id per
// name, patterns match a base and a prefix of the data.
func TestEventTable(t *testing.T) {
	tab := NewEventTable()
	a := tab.InternName("deq.0.-3")
	if b := tab.Intern("deq", 0, -3); b != a {
		t.Fatalf("Intern(deq, 0, -3) = %d, InternName = %d", b, a)
	}
	if tab.Name(a) != "deq.0.-3" || tab.Base(a) != "deq" || !slices.Equal(tab.Data(a), []int{0, -3}) {
		t.Fatalf("event %d: name %q base %q data %v", a, tab.Name(a), tab.Base(a), tab.Data(a))
	}
	if e, ok := tab.Lookup("deq.0.-3"); !ok || e != a {
		t.Fatal("Lookup misses an interned name")
	}
	if _, ok := tab.Lookup("deq.1"); ok {
		t.Fatal("Lookup finds a name never interned")
	}
	for _, c := range []struct {
		pat  string
		want bool
	}{{"deq", true}, {"deq.0", true}, {"deq.0.-3", true}, {"deq.1", false}, {"de", false}, {"deq.0.-3.1", false}} {
		if got := ParsePattern(c.pat).Match(tab, a); got != c.want {
			t.Errorf("%s matches deq.0.-3: %v, want %v", c.pat, got, c.want)
		}
	}
	if ParsePattern("deq").Match(tab, Tau) {
		t.Error("a pattern matches tau")
	}
}

// TestTauClosed: the automaton of a system with tau steps, by hand:
// 0 -tau-> 1, 0 -a-> 2, 1 -b-> 3, 1 -a-> 3, 3 -tau-> 0.
func TestTauClosed(t *testing.T) {
	x := graph("0 tau 1", "0 a 2", "1 b 3", "1 a 3", "3 tau 0")
	tc := NewTauClosed(x)
	tab := x.Table
	c, err := tc.Closure(0)
	if err != nil || !slices.Equal(c, []State{0, 1}) {
		t.Fatalf("closure of 0 = %v, %v; want [0 1]", c, err)
	}
	if c, _ := tc.Closure(3); !slices.Equal(c, []State{0, 1, 3}) {
		t.Fatalf("closure of 3 = %v; want [0 1 3]", c)
	}
	en, err := tc.Enabled(0, nil)
	if err != nil || !slices.Equal(names(tab, en), []string{"a", "b"}) {
		t.Fatalf("enabled at 0 = %v; want a b once each", names(tab, en))
	}
	a, _ := tab.Lookup("a")
	next, err := tc.Step(0, a, nil)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(next)
	if !slices.Equal(next, []State{2, 3}) {
		t.Fatalf("0 -a-> %v; want [2 3]", next)
	}
	// Explicit's own Enabled (no tau closure) also lists each event once.
	y := graph("0 a 1", "0 a 2", "0 tau 1", "0 b 0")
	if en, _ := y.Enabled(0, nil); !slices.Equal(names(y.Table, en), []string{"a", "b"}) {
		t.Fatalf("Explicit.Enabled = %v", names(y.Table, en))
	}
}

// TestExport: the AUT of a small graph, and the refusal of a graph over
// the limit.
func TestExport(t *testing.T) {
	x := graph("0 a 1", "1 tau 0", "1 b 2")
	var buf bytes.Buffer
	if err := Export(context.Background(), x, AUT, &buf, 10); err != nil {
		t.Fatal(err)
	}
	want := "des (0,3,3)\n(0,\"a\",1)\n(1,\"i\",0)\n(1,\"b\",2)\n"
	if got := strings.ReplaceAll(buf.String(), " ", ""); got != strings.ReplaceAll(want, " ", "") {
		t.Errorf("AUT:\n%s\nwant:\n%s", buf.String(), want)
	}
	buf.Reset()
	if err := Export(context.Background(), x, DOT, &buf, 10); err != nil || !strings.Contains(buf.String(), "digraph") {
		t.Errorf("DOT: %v\n%s", err, buf.String())
	}
	if err := Export(context.Background(), x, AUT, &buf, 2); !errors.Is(err, ErrTooLarge) {
		t.Errorf("3 states with limit 2: %v, want ErrTooLarge", err)
	}
}
