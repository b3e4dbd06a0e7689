package csp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

// compileSrc parses, checks and compiles a model.
func compileSrc(t testing.TB, src string) *Program {
	t.Helper()
	m, err := lang.Parse("test.csp", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	c, err := lang.Check(m)
	if err != nil {
		t.Fatalf("check: %v", err)
	}
	p, err := Compile(c)
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return p
}

// assertedModel is a model file with the distinct processes that its
// assertions name (left and right operands, in order).
type assertedModel struct {
	path    string
	src     []byte
	checked *lang.Checked
	procs   []lang.Proc
	texts   []string // the source text of each process
}

// assertedModels parses and checks every model file matching the globs
// (relative to lts/); a file that does not parse or check fails the test.
func assertedModels(t testing.TB, globs ...string) []assertedModel {
	t.Helper()
	var out []assertedModel
	for _, g := range globs {
		files, _ := filepath.Glob(g)
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			m, err := lang.Parse(filepath.Base(f), src)
			if err != nil {
				t.Fatal(err)
			}
			c, err := lang.Check(m)
			if err != nil {
				t.Fatal(err)
			}
			am := assertedModel{path: f, src: src, checked: c}
			seen := map[string]bool{}
			for _, a := range c.Info.Asserts {
				for _, q := range []lang.Proc{a.Left, a.Right} {
					if q == nil {
						continue
					}
					text := string(src[q.Pos().Offset:q.End().Offset])
					if !seen[text] {
						seen[text] = true
						am.procs, am.texts = append(am.procs, q), append(am.texts, text)
					}
				}
			}
			out = append(out, am)
		}
	}
	if len(out) == 0 {
		t.Fatal("no library models")
	}
	return out
}

func explore(t testing.TB, sys lts.System) *Result {
	t.Helper()
	r, err := Explore(context.Background(), sys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// graph is a small LTS written by hand: "from event to" lines (the first
// line's from is the initial state) and "s term" for terminated states.
type graph struct {
	init  string
	edges map[string][][2]string // state -> (event, target)
	term  map[string]bool
	names []string
}

func parseGraph(text string) (*graph, error) {
	g := &graph{edges: map[string][][2]string{}, term: map[string]bool{}}
	add := func(s string) {
		if _, ok := g.edges[s]; !ok {
			g.edges[s] = nil
			g.names = append(g.names, s)
		}
	}
	for _, line := range strings.Split(text, "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		switch len(f) {
		case 0:
			continue
		case 1:
			add(f[0])
		case 2:
			if f[1] != "term" {
				return nil, fmt.Errorf("bad line %q", line)
			}
			add(f[0])
			g.term[f[0]] = true
		case 3:
			add(f[0])
			add(f[2])
			g.edges[f[0]] = append(g.edges[f[0]], [2]string{f[1], f[2]})
		default:
			return nil, fmt.Errorf("bad line %q", line)
		}
		if g.init == "" {
			g.init = f[0]
		}
	}
	return g, nil
}

// actualGraph explores sys into a graph with states named s0, s1, … in BFS
// order.
func actualGraph(t testing.TB, sys lts.System, limit int) (*graph, error) {
	num := map[lts.State]int{sys.Initial(): 0}
	order := []lts.State{sys.Initial()}
	g := &graph{init: "s0", edges: map[string][][2]string{}, term: map[string]bool{}}
	term, _ := sys.(lts.Terminator)
	for i := 0; i < len(order); i++ {
		if i > limit {
			return nil, fmt.Errorf("more than %d states", limit)
		}
		s := order[i]
		name := fmt.Sprintf("s%d", i)
		g.names = append(g.names, name)
		g.edges[name] = nil
		if term != nil && term.Terminated(s) {
			g.term[name] = true
		}
		ts, err := sys.Successors(s, nil)
		if err != nil {
			return g, err
		}
		for _, tr := range ts {
			j, ok := num[tr.Target]
			if !ok {
				j = len(order)
				num[tr.Target] = j
				order = append(order, tr.Target)
			}
			g.edges[name] = append(g.edges[name], [2]string{sys.Events().Name(tr.Event), fmt.Sprintf("s%d", j)})
		}
	}
	return g, nil
}

func (g *graph) String() string {
	var lines []string
	for _, s := range g.names {
		if g.term[s] {
			lines = append(lines, s+" term")
		}
		for _, e := range g.edges[s] {
			lines = append(lines, s+" "+e[0]+" "+e[1])
		}
	}
	return strings.Join(lines, "\n")
}

// isomorphic reports whether two graphs are equal up to state names (a
// backtracking search: the graphs are tiny).
func isomorphic(a, b *graph) bool {
	if len(a.names) != len(b.names) {
		return false
	}
	m := map[string]string{}
	used := map[string]bool{}
	var try func(pairs [][2]string) bool
	try = func(pairs [][2]string) bool {
		if len(pairs) == 0 {
			return len(m) == len(a.names) || true
		}
		x, y := pairs[0][0], pairs[0][1]
		rest := pairs[1:]
		if v, ok := m[x]; ok {
			if v != y {
				return false
			}
			return try(rest)
		}
		if used[y] || a.term[x] != b.term[y] || len(a.edges[x]) != len(b.edges[y]) {
			return false
		}
		m[x], used[y] = y, true
		// Match edges: every permutation consistent with labels.
		ea, eb := a.edges[x], b.edges[y]
		taken := make([]bool, len(eb))
		var match func(k int, acc [][2]string) bool
		match = func(k int, acc [][2]string) bool {
			if k == len(ea) {
				return try(append(append([][2]string(nil), rest...), acc...))
			}
			for j := range eb {
				if !taken[j] && eb[j][0] == ea[k][0] {
					taken[j] = true
					if match(k+1, append(acc, [2]string{ea[k][1], eb[j][1]})) {
						return true
					}
					taken[j] = false
				}
			}
			return false
		}
		if match(0, nil) {
			return true
		}
		delete(m, x)
		delete(used, y)
		return false
	}
	return try([][2]string{{a.init, b.init}}) && len(m) == len(a.names)
}

// philosophersSrc is bench/philosophers/philosophers.csp with n
// philosophers (3^n states).
func philosophersSrc(t testing.TB, n int) string {
	t.Helper()
	src, err := os.ReadFile("../bench/philosophers/philosophers.csp")
	if err != nil {
		t.Fatal(err)
	}
	const def = "#define N 12;"
	if !strings.Contains(string(src), def) {
		t.Fatalf("philosophers.csp no longer has %q", def)
	}
	return strings.Replace(string(src), def, fmt.Sprintf("#define N %d;", n), 1)
}

// divByZeroAt is a process Count() (over a fresh variable c) that counts
// to d and then divides by zero: put beside a model, a run-time error at
// depth d.
func divByZeroAt(d int) string {
	return fmt.Sprintf("\nvar c = 0;\nCount() = [c < %d] inc{c = c + 1} -> Count() [] [c == %d] bad{c = c / (c - c)} -> Count();\n", d, d)
}

// hotSys returns a maker of src's process Sys, its blocks specialised.
func hotSys(t testing.TB, src string) func() *Proc {
	return func() *Proc {
		p := compileSrc(t, src)
		p.heatBlocks()
		sys, err := p.ProcessByName("Sys")
		if err != nil {
			t.Fatal(err)
		}
		return sys
	}
}

// hotAsserted returns a maker of am's process q, its blocks specialised,
// or of its symmetry reduction (sym).
func hotAsserted(t testing.TB, am assertedModel, q lang.Proc, sym bool) func() *Proc {
	return func() *Proc {
		p, err := Compile(am.checked)
		if err != nil {
			t.Fatal(err)
		}
		p.heatBlocks()
		if !sym {
			sys, err := p.Process(q)
			if err != nil {
				t.Fatal(err)
			}
			return sys
		}
		sys, _, err := p.SymmetricProcess(q)
		if err != nil {
			t.Fatal(err)
		}
		return sys
	}
}

// compareLibrary calls cmp on the processes the library and test models
// assert about and on their symmetry reductions (mk makes one, its blocks
// specialised: hotAsserted), reports those whose two texts differ and
// returns how many it compared.
func compareLibrary(t *testing.T, cmp func(mk func() *Proc) (want, got string)) int {
	t.Helper()
	procs, bad := 0, 0
	for _, am := range assertedModels(t, "../models/lib/*.csp", "../models/testdata/*.csp", "../testdata/pipeline/*.csp", "../testdata/sym/*.csp", "../bench/*/*.csp") {
		for k, q := range am.procs {
			for _, sym := range []bool{false, true} {
				mk := hotAsserted(t, am, q, sym)
				if sym && mk().Symmetry() == 0 {
					continue
				}
				want, got := cmp(mk)
				procs++
				if got != want {
					if bad++; bad <= 2 {
						t.Errorf("%s %s (symmetry %v) differs:\n%s", am.path, am.texts[k], sym, firstDiff(got, want))
					}
				}
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d processes differ", bad, procs)
	}
	return procs
}

// numberFirst returns the id of each string enc[ends[k-1]:ends[k]] in a
// numbering of strings in the order they are first met, kept in want
// (a new string gets the next id): what a store's InternAll must give.
func numberFirst(want map[string]uint32, enc []byte, ends []int) []uint32 {
	ids := make([]uint32, len(ends))
	start := 0
	for k, end := range ends {
		b := string(enc[start:end])
		start = end
		id, ok := want[b]
		if !ok {
			id = uint32(len(want))
			want[b] = id
		}
		ids[k] = id
	}
	return ids
}
