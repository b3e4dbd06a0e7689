package paper

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

var (
	out        = flag.String("out", "", "run the full reproduction and write it to this directory (slow)")
	maxSeconds = flag.Float64("max-seconds", 60, "time limit per row with -out")
)

// small keeps the rows that finish in well under a second.
func small(r *Row) bool {
	return r.Seg <= 1 && r.QF <= 2 || r.Table == Table4 && strings.Contains(r.Model, "buggy")
}

func TestRows(t *testing.T) {
	rows := Rows(Options{})
	count := map[string]int{}
	for _, r := range rows {
		count[r.Table]++
		if r.Params == "" || r.Method == "" {
			t.Errorf("row %+v", r)
		}
	}
	// Table 1: 16 rows; Table 3: 15 classes; Table 4: 15 classes x 2 modes; Fig. 8: 4 segment
	// counts x 3 methods.
	if count[Table1] != 16 || count[Table3] != 15 || count[Table4] != 30 || count[Fig8] != 12 {
		t.Errorf("rows per table: %v", count)
	}
	if n := len(Rows(Options{Tables: []string{Table4}})); n != 30 {
		t.Errorf("table 4 alone: %d rows", n)
	}
}

// TestSmallRows runs the small rows of every table through the pipeline: each
// finds its assertion and gets the model's expected verdict.
func TestSmallRows(t *testing.T) {
	rep, err := Run(context.Background(), Options{Filter: small, MaxSeconds: 30})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) < 10 {
		t.Fatalf("only %d small rows", len(rep.Rows))
	}
	for _, r := range rep.Rows {
		t.Logf("%s %-16s %-8s %-7s %-8v %8d states %.3fs", r.Table, r.Class, r.Params, r.Method, r.Verdict, r.States, r.Seconds)
		if r.Err != "" {
			t.Errorf("%s %s %s: %s", r.Model, r.Params, r.Method, r.Err)
			continue
		}
		if r.Expected == lts.Unknown && r.Verdict != lts.Unknown && r.Model == "segpq" && r.Method == "window" {
			continue // no expectation: the model makes no claim (see segpq.csp.tmpl)
		}
		if r.Expected == lts.Unknown || r.Verdict != r.Expected {
			t.Errorf("%s %s %s (%s): verdict %v, expected %v %s", r.Model, r.Params, r.Method, r.Assert, r.Verdict, r.Expected, r.Reason)
		}
	}
	// A Fig. 8 row that repeats a Table 4 row is that row's check, all of it.
	twin := map[string]*Row{}
	for _, r := range rep.Rows {
		key := r.Model + " " + r.Params + " " + r.Method
		if d, ok := twin[key]; !ok {
			twin[key] = r
		} else if d.Symmetry != r.Symmetry || d.States != r.States || d.Transitions != r.Transitions || d.Verdict != r.Verdict {
			t.Errorf("table %s %s: %v, %d states, %d transitions, symmetry %d; table %s: %v, %d, %d, %d",
				r.Table, key, r.Verdict, r.States, r.Transitions, r.Symmetry, d.Table, d.Verdict, d.States, d.Transitions, d.Symmetry)
		}
	}
	md := string(rep.Markdown())
	for _, want := range []string{"## Table 1", "## Table 4", "## Fig. 8", "| 1 | 1 | valid | valid |", "Queue buggy1", "Every verdict"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	dir := t.TempDir()
	paths, err := Write(dir, rep)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 3 {
		t.Errorf("wrote %v", paths)
	}
	svg, err := os.ReadFile(filepath.Join(dir, SVGFile))
	if err != nil || !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("Fig. 8")) {
		t.Errorf("svg: %v %.100s", err, svg)
	}
}

// TestFull writes the whole reproduction (go test ./paper -run
// TestFull -out ../../docs): the same as `quasar paper --out docs`.
func TestFull(t *testing.T) {
	if *out == "" {
		t.Skip("no -out")
	}
	rep, err := Run(context.Background(), Options{MaxSeconds: *maxSeconds, Progress: func(r *Row, done bool) {
		if done {
			t.Logf("%s %-18s %-22s %-7s %-8v %10d states %8.2fs", r.Table, r.Class, r.Model+" "+r.Params, r.Method, r.Verdict, r.States, r.Seconds)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(*out, rep); err != nil {
		t.Fatal(err)
	}
}
