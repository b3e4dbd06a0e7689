package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/pipeline"
)

// sampleReport exercises every part of the text and JSON renderings. Its
// figures are made up: this tests the printing, not the checking.
func sampleReport() *pipeline.Report {
	v := int64(3)
	return &pipeline.Report{
		File: "queue.csp",
		Assertions: []*pipeline.Assertion{
			{Line: 10, Text: "Impl() refines Spec()", Kind: "refines", Verdict: lts.Valid,
				Stats: pipeline.Stats{States: 1503, Transitions: 3892, Seconds: 0.0091, PeakBytes: 2 << 20, Pairs: 1503, SpecStates: 7}},
			{Line: 12, Text: "Seg() refines Spec()", Kind: "refines", Verdict: lts.Invalid,
				Stats: pipeline.Stats{States: 210, Transitions: 388, Seconds: 1.23456},
				Counterexample: &pipeline.Counterexample{
					Trace: []string{"enq.1", "enq.2", "deq.2"},
					Steps: []pipeline.Step{
						{Event: "enq.1", Who: "Thread(0)", Changed: []lts.Binding{{Name: "slot[0]", Value: "1"}, {Name: "filled", Value: "1"}}},
						{Event: "enq.2", Who: "Thread(1)", Changed: []lts.Binding{{Name: "slot[1]", Value: "2"}, {Name: "filled", Value: "2"}}},
						{Event: "", Who: "Thread(0)", Changed: []lts.Binding{{Name: "pick[0]", Value: "1"}}},
						{Event: "deq.2", Who: "Thread(0)"},
					},
					Offered: []string{"deq.1", "enq.1"},
				}},
			{Line: 14, Text: "Seg() refines<quasi 1> Spec()", Kind: "refines", Verdict: lts.Invalid,
				Stats: pipeline.Stats{States: 5, Transitions: 4, Seconds: 0.0000042},
				Counterexample: &pipeline.Counterexample{
					Trace:       []string{},
					Explanation: "the obligation deq.1 ran out of slack",
				}},
			{Line: 16, Text: "Big() deadlockfree", Kind: "deadlockfree", Verdict: lts.Unknown, Reason: "time limit 2s",
				Stats: pipeline.Stats{States: 1234567, Transitions: 7654321, Seconds: 2.0004, PeakBytes: 3 << 30}},
			{Line: 20, Text: "Q() deadlockfree", Kind: "deadlockfree", Verdict: lts.Unknown,
				Reason: "run-time error: queue.csp:2:2: index 2 out of range", Error: "queue.csp:2:2: index 2 out of range",
				Stats: pipeline.Stats{States: 3, Transitions: 2, Seconds: 0.001}},
			{Line: 18, Text: "P() reaches goal with max(x)", Kind: "reaches", Verdict: lts.Valid, Value: &v,
				Stats: pipeline.Stats{States: 9, Transitions: 12, Seconds: 0.5}},
		},
	}
}

func TestRender(t *testing.T) {
	var text, js bytes.Buffer
	writeReport(&text, sampleReport(), map[string][]byte{"queue.csp": []byte("line 1\n\tx[i] = 1;\n")})
	if err := writeJSON(&js, sampleReport()); err != nil {
		t.Fatal(err)
	}
	golden(t, "render.txt", text.Bytes())
	golden(t, "render.json", js.Bytes())

	// The JSON document has the documented shape (docs/cli.md).
	var doc struct {
		File       string `json:"file"`
		Assertions []map[string]any
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.File != "queue.csp" || len(doc.Assertions) != 6 {
		t.Fatalf("file %q with %d assertions", doc.File, len(doc.Assertions))
	}
	for _, key := range []string{"line", "text", "kind", "verdict", "stats"} {
		if _, ok := doc.Assertions[0][key]; !ok {
			t.Errorf("assertion without %q", key)
		}
	}
	if got := doc.Assertions[3]["verdict"]; got != "unknown" {
		t.Errorf("verdict %v, want unknown", got)
	}
	stats := doc.Assertions[0]["stats"].(map[string]any)
	for _, key := range []string{"states", "transitions", "seconds", "peak_bytes"} {
		if _, ok := stats[key]; !ok {
			t.Errorf("stats without %q", key)
		}
	}
}

func TestReportCode(t *testing.T) {
	rep := func(vs ...lts.Verdict) *pipeline.Report {
		r := &pipeline.Report{}
		for _, v := range vs {
			r.Assertions = append(r.Assertions, &pipeline.Assertion{Verdict: v})
		}
		return r
	}
	for _, tc := range []struct {
		name string
		rep  any // *pipeline.Report or []*pipeline.Assertion
		want int
	}{
		{"none", rep(), exitOK},
		{"valid", rep(lts.Valid, lts.Valid), exitOK},
		{"invalid", rep(lts.Valid, lts.Invalid), exitInvalid},
		{"unknown", rep(lts.Unknown, lts.Valid), exitUnknown},
		{"invalid beats unknown", rep(lts.Unknown, lts.Invalid, lts.Unknown), exitInvalid},
		{"model error beats invalid", append(rep(lts.Invalid).Assertions, &pipeline.Assertion{Verdict: lts.Unknown, Error: "m.csp:1:1: index out of range"}), exitBadInput},
		{"a package's internal error", append(rep(lts.Valid).Assertions,
			&pipeline.Assertion{Verdict: lts.Unknown, Error: "refine: internal error: counterexample fails re-validation", Internal: true}), exitInternal},
		{"internal error beats all", append(rep(lts.Invalid).Assertions,
			&pipeline.Assertion{Verdict: lts.Unknown, Error: "internal error: boom"},
			&pipeline.Assertion{Verdict: lts.Unknown, Error: "m.csp:1:1: x"}), exitInternal},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, ok := tc.rep.(*pipeline.Report)
			if !ok {
				r = &pipeline.Report{Assertions: tc.rep.([]*pipeline.Assertion)}
			}
			if got := reportCode(r); got != tc.want {
				t.Errorf("reportCode = %d, want %d", got, tc.want)
			}
		})
	}
}

// golden compares got with testdata/NAME, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o666); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -update rewrites it):\ngot:\n%s\nwant:\n%s", name, got, want)
	}
}
