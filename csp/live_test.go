package csp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

// TestStoredSlots: a system stores exactly the variables that its own
// definitions (reached through references) assign, and the buffers of the
// buffered channels they use; the others keep their initial values and
// Describe still shows them.
func TestStoredSlots(t *testing.T) {
	src := `
var a = 0;
var b = 5;          // read, never written
var c[2] = [7, 8];  // written only by Other
var d[3];           // written in a while loop inside an if
var e = 1;          // written by a definition no process reaches
channel ch 2;
channel sync 0;
P = [a < 2 && b == 5] step{a = a + 1; if (a == 2) { var i = 0; while (i < 3) { d[i] = a; i = i + 1; } }} -> ch!a -> Q;
Q = ch?x -> sync!x -> P;
Other = set{c[0] = 1} -> Other;
Unused = w{e = 2} -> Unused;
`
	p := compileSrc(t, src)
	sys, err := p.ProcessByName("P")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, slot := range sys.live {
		got[slotName(p, slot)] = true
	}
	var names []string
	for n := range got {
		names = append(names, n)
	}
	// a, d[0..2], and ch's count and its 2 one-value messages.
	if len(sys.live) != 1+3+3 || !got["a"] || !got["d"] || !got["ch"] || got["b"] || got["c"] || got["e"] {
		t.Fatalf("stored slots %v (%v)", sys.live, names)
	}
	if w := len(sys.raw(sys.Initial(), nil)); w != 1+7 {
		t.Errorf("initial state is %d bytes, want 8 (1 component, 7 slots)", w)
	}
	r := explore(t, sys)
	if r.Stats.States == 0 {
		t.Fatal("no states")
	}
	// Every state shows the unstored variables at their initial values.
	for s := lts.State(0); int(s) < sys.NumStates(); s++ {
		desc := map[string]string{}
		for _, b := range sys.Describe(s) {
			desc[b.Name] = b.Value
		}
		if desc["b"] != "5" || desc["c"] != "[7, 8]" || desc["e"] != "1" {
			t.Fatalf("state %d: %v", s, desc)
		}
	}
	// The same system with every slot stored has the same graph.
	liveOff = true
	full, err := compileSrc(t, src).ProcessByName("P")
	liveOff = false
	if err != nil {
		t.Fatal(err)
	}
	a, errA := graphPrefix(sys, 1000)
	b, errB := graphPrefix(full, 1000)
	if a != b || fmt.Sprint(errA) != fmt.Sprint(errB) {
		t.Errorf("graphs differ:\n%s\n---\n%s", a, b)
	}
}

// slotName is the variable or channel that owns a slot.
func slotName(p *Program, slot int) string {
	name := ""
	for i, vi := range p.info.Vars {
		if p.varBase[i] <= slot {
			name = vi.Decl.Name.Name
		}
	}
	for _, cd := range p.chans {
		if cd.size > 0 && cd.base <= slot {
			name = cd.name
		}
	}
	return name
}

// TestUnstoredWriteIsAnError: if the analysis ever missed a write, the
// successor functions report it instead of dropping the write (which
// would merge states that differ).
func TestUnstoredWriteIsAnError(t *testing.T) {
	for _, src := range []string{
		`var x = 0; var y = 0; P = a{x = 1; y = 1} -> P;`,                        // plain path
		`var x = 0; var y = 0; P = a{x = 1; y = 1} -> P; Sys = P || (a -> Sys);`, // general path
	} {
		p := compileSrc(t, src)
		name := "P"
		if strings.Contains(src, "Sys") {
			name = "Sys"
		}
		sys, err := p.ProcessByName(name)
		if err != nil {
			t.Fatal(err)
		}
		sys.setLive([]int{0}) // pretend y is never written
		_, err = sys.Successors(sys.Initial(), nil)
		if err == nil || !strings.Contains(err.Error(), "internal error") {
			t.Errorf("%s: error %v, want an internal error", name, err)
		}
	}
}

// TestStoredSlotsAgree: every process of the compared models (the library
// included) has the same graph and the same descriptions of its states
// whether its states store only the written slots or all of them.
func TestStoredSlotsAgree(t *testing.T) {
	limit := 2000
	if testing.Short() {
		limit = 200
	}
	narrowed := 0
	for _, pr := range comparedProcs(t) {
		name := strings.TrimSuffix(strings.TrimSpace(pr.text), "()")
		run := func(off bool) (string, *Proc) {
			liveOff = off
			defer func() { liveOff = false }()
			sys, err := compileSrc(t, pr.src).ProcessByName(name)
			if err != nil {
				return "", nil
			}
			g, err := graphPrefix(sys, limit)
			var d strings.Builder
			for s := lts.State(0); int(s) < sys.NumStates() && int(s) < limit; s++ {
				fmt.Fprintln(&d, sys.Describe(s))
			}
			return fmt.Sprintf("%s\n%v\n%s", g, err, d.String()), sys
		}
		narrow, sys := run(false)
		full, _ := run(true)
		if narrow != full {
			t.Errorf("%s %s: storing only the written slots changes the graph", pr.file, pr.text)
		}
		if sys != nil && sys.live != nil {
			narrowed++
		}
	}
	if narrowed < 10 {
		t.Errorf("only %d processes store fewer slots than the program has", narrowed)
	}
}

// TestHotBlocksAgree explores every compared process with event blocks
// specialised to their environments from the start (heatBlocks) and with
// the generic blocks a small search uses: the graphs and the described
// states must be the same.
func TestHotBlocksAgree(t *testing.T) {
	limit := 2000
	if testing.Short() {
		limit = 200
	}
	for _, pr := range comparedProcs(t) {
		name := strings.TrimSuffix(strings.TrimSpace(pr.text), "()")
		run := func(hot bool) string {
			p := compileSrc(t, pr.src)
			if hot {
				p.heatBlocks()
			}
			sys, err := p.ProcessByName(name)
			if err != nil {
				return err.Error()
			}
			g, err := graphPrefix(sys, limit)
			var d strings.Builder
			for s := lts.State(0); int(s) < sys.NumStates() && int(s) < limit; s++ {
				fmt.Fprintln(&d, sys.Describe(s))
			}
			return fmt.Sprintf("%s\n%v\n%s", g, err, d.String())
		}
		if run(false) != run(true) {
			t.Errorf("%s %s: specialised blocks change the graph", pr.file, pr.text)
		}
	}
}
