package models

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

var (
	update = flag.Bool("update", false, "rewrite the golden files in testdata/")
	dump   = flag.String("dump", "", "print the generated model NAME (with -params) and stop")
	params = flag.String("params", "", "parameters for -dump, e.g. \"qf=3 seg=2\"")
)

func TestDump(t *testing.T) {
	if *dump == "" {
		t.Skip("no -dump")
	}
	p, err := ParseParams(strings.Fields(*params))
	if err != nil {
		t.Fatal(err)
	}
	_, src, err := Generate(*dump, p)
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.Write(src)
}

func TestCatalogue(t *testing.T) {
	seen := map[string]bool{}
	for _, i := range List() {
		if seen[i.Name] {
			t.Errorf("%s: listed twice", i.Name)
		}
		seen[i.Name] = true
		if i.Description == "" {
			t.Errorf("%s: no description", i.Name)
		}
		if _, err := FS().Open(i.File); err != nil {
			t.Errorf("%s: %v", i.Name, err)
		}
		if !i.Template() && len(i.Params) > 0 {
			t.Errorf("%s: a fixed model with parameters", i.Name)
		}
		for _, p := range i.Params {
			if p.Min > p.Default || p.Default > p.Max || p.Doc == "" {
				t.Errorf("%s: parameter %+v", i.Name, p)
			}
		}
		if got, ok := Lookup(i.Name); !ok || got.Name != i.Name {
			t.Errorf("Lookup(%q) = %v, %v", i.Name, got.Name, ok)
		}
	}
	// Table 3's classes are all present.
	for _, class := range []string{"Quasi queue", "Queue buggy1", "Queue buggy2", "Lin. queue",
		"Q. priority Q", "Priority Q buggy", "Lin. stack"} {
		found := false
		for _, i := range List() {
			found = found || i.Paper == class
		}
		if !found {
			t.Errorf("no model for Table 3's class %q", class)
		}
	}
	if _, ok := Lookup("nope"); ok {
		t.Error("Lookup(nope) succeeded")
	}
}

func TestGenerateErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params map[string]int
		want   string // substring of the error
	}{
		{"nope", nil, `unknown model "nope" (known: demo, segqueue`},
		{"segqueue", map[string]int{"segs": 2}, `model segqueue has no parameter "segs" (parameters: qf, seg, vals, threads, track)`},
		{"segqueue", map[string]int{"qf": 0}, "model segqueue: qf=0 is out of range 1..4"},
		{"segqueue", map[string]int{"seg": 16}, "seg=16 is out of range 1..15"},
		{"segqueue", map[string]int{"qf": 4, "seg": 15}, "capacity (qf+1) x seg = 75 is larger than 64"},
		{"segqueue-buggy2", map[string]int{"seg": 1}, "seg=1 is out of range 2..15"},
		{"philosophers", map[string]int{"n": 3}, "model philosophers has no parameters"},
	} {
		t.Run(fmt.Sprint(tc.name, tc.params), func(t *testing.T) {
			_, _, err := Generate(tc.name, tc.params)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestParseParams(t *testing.T) {
	p, err := ParseParams([]string{"seg=3", "qf=2"})
	if err != nil || p["seg"] != 3 || p["qf"] != 2 || len(p) != 2 {
		t.Errorf("got %v, %v", p, err)
	}
	for _, bad := range [][]string{{"seg"}, {"=3"}, {"seg=x"}, {"seg=1", "seg=2"}} {
		if _, err := ParseParams(bad); err == nil {
			t.Errorf("ParseParams(%q) succeeded", bad)
		}
	}
}

func TestFilename(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params map[string]int
		want   string
	}{
		{"segqueue", nil, "segqueue.csp"},
		{"segqueue", map[string]int{"seg": 3, "qf": 2}, "segqueue-seg3.csp"},
		{"segqueue", map[string]int{"seg": 3, "qf": 3}, "segqueue-qf3-seg3.csp"},
		{"philosophers", nil, "philosophers.csp"},
	} {
		f, _, err := Generate(tc.name, tc.params)
		if err != nil || f != tc.want {
			t.Errorf("Generate(%s, %v) = %q, %v; want %q", tc.name, tc.params, f, err, tc.want)
		}
	}
}

// instances returns every entry with its defaults, and each family also at
// the corners of its parameters (one parameter at a time at its minimum and
// at a moderate maximum), so that every branch of the templates is parsed.
func instances(t *testing.T) []instance {
	var out []instance
	for _, i := range List() {
		out = append(out, instance{i.Name, nil})
		for _, p := range i.Params {
			for _, v := range []int{p.Min, min(p.Max, p.Default+2)} {
				if v == p.Default {
					continue
				}
				ps := map[string]int{p.Name: v}
				if _, _, err := Generate(i.Name, ps); err == nil {
					out = append(out, instance{i.Name, ps})
				}
			}
		}
	}
	return out
}

type instance struct {
	name   string
	params map[string]int
}

func (in instance) String() string {
	var b strings.Builder
	b.WriteString(in.name)
	keys := make([]string, 0, len(in.params))
	for k := range in.params {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, " %s=%d", k, in.params[k])
	}
	return b.String()
}

// TestModelsParseAndCheck: every model, and every family at its defaults and
// corners, passes the parser and the checker, and every #assert carries an
// expectation (the parser's assertions and Expectations agree line by line).
func TestModelsParseAndCheck(t *testing.T) {
	for _, in := range instances(t) {
		t.Run(in.String(), func(t *testing.T) {
			f, src, err := Generate(in.name, in.params)
			if err != nil {
				t.Fatal(err)
			}
			m, err := lang.Parse(f, src)
			if err != nil {
				t.Fatal(err)
			}
			ch, err := lang.Check(m)
			if err != nil {
				t.Fatal(err)
			}
			exp := Expectations(src)
			if len(exp) != len(ch.Info.Asserts) {
				t.Fatalf("%d assertions, %d expectations", len(ch.Info.Asserts), len(exp))
			}
			for k, a := range ch.Info.Asserts {
				if exp[k].Line != a.Pos().Line {
					t.Errorf("assertion %d: line %d, expectation line %d", k+1, a.Pos().Line, exp[k].Line)
				}
				if exp[k].Verdict == lts.Unknown {
					t.Errorf("%s:%d: %s has no // expect: comment", f, exp[k].Line, exp[k].Text)
				}
			}
		})
	}
}

// TestFixedModelsParseFS: fixed models also parse from the embedded file
// system (the way a user's #include of a library file would).
func TestFixedModelsParseFS(t *testing.T) {
	for _, i := range List() {
		if i.Template() {
			continue
		}
		if _, err := lang.ParseFS(FS(), i.File); err != nil {
			t.Errorf("%s: %v", i.Name, err)
		}
	}
}

func TestExpectations(t *testing.T) {
	src := `// a model
#assert P() deadlockfree; // expect: valid
// expect: invalid (a reason)
#assert P() refines Q();
#assert P() refines<quasi 2
   on {deq}> Q(); // expect: valid

// expect: valid
x = 1;
#assert P() reaches goal;
#assert P() deadlockfree; // expect: maybe
`
	got := Expectations([]byte(src))
	want := []Expect{
		{2, "#assert P() deadlockfree;", lts.Valid},
		{4, "#assert P() refines Q();", lts.Invalid},
		{5, "#assert P() refines<quasi 2 on {deq}> Q();", lts.Valid},
		{10, "#assert P() reaches goal;", lts.Unknown}, // the comment is not just above
		{11, "#assert P() deadlockfree;", lts.Unknown},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// TestDemo: the demo shows a valid linearizability check, a valid quasi
// check and a violation.
func TestDemo(t *testing.T) {
	f, src := Demo()
	if f != "demo.csp" {
		t.Errorf("filename %q", f)
	}
	var lin, quasi, bad bool
	for _, e := range Expectations(src) {
		switch {
		case e.Verdict == lts.Invalid:
			bad = true
		case strings.Contains(e.Text, "refines<quasi"):
			quasi = true
		case strings.Contains(e.Text, "refines"):
			lin = true
		}
	}
	if !lin || !quasi || !bad {
		t.Errorf("demo: linearizable %v, quasi %v, invalid %v", lin, quasi, bad)
	}
}

// TestGolden pins the generated text of one instance of each family, so that
// a template change shows up in review.
func TestGolden(t *testing.T) {
	for _, i := range List() {
		if !i.Template() {
			continue
		}
		t.Run(i.Name, func(t *testing.T) {
			f, src, err := Generate(i.Name, nil)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", f)
			if *update {
				if err := os.WriteFile(golden, src, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if string(want) != string(src) {
				t.Errorf("%s differs from %s (run go test -update and review the diff)", f, golden)
			}
		})
	}
}

// TestDocumented: docs/models.md names every model of the catalogue.
func TestDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "models.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range List() {
		if !strings.Contains(string(doc), "`"+i.Name+"`") {
			t.Errorf("docs/models.md does not mention `%s`", i.Name)
		}
	}
}
