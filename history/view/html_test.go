package view

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/history/read"
	"github.com/quasar-verify/quasar/lts"
)

var update = flag.Bool("update", false, "rewrite the golden page")

func TestHTMLGolden(t *testing.T) {
	f, err := os.Open("../testdata/localize/stack_double_pop.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	h, err := read.JSONL("stack_double_pop.jsonl", f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	res, err := history.Check(context.Background(), h, history.Stack(), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := history.Localize(context.Background(), h, history.Stack(), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := HTML(&buf, h, res, l, Options{Model: "stack"}); err != nil {
		t.Fatal(err)
	}
	// The embedded stylesheet and script are reviewed as files, not in the
	// golden page.
	got := strings.Replace(buf.String(), asset("view.js"), "/* view.js */", 1)
	got = strings.Replace(got, asset("view.css"), "/* view.css */", 1)
	// The CLI's words (cmd/quasar: history check --localize).
	for _, want := range []string{
		"<b class=\"invalid\">invalid</b> linearizability w.r.t. stack, 7 operations",
		"no linearization: after at most 4 operations, p2 pop() -&gt; 1 (line 6) cannot take effect",
		"longest linearizable prefix found: 4 operations",
		"cannot be linearized next: p2 pop() -&gt; 1 (line 6)",
		"shortest violating prefix: 5 operations (10 events), revealed by p2 pop() -&gt; 1 (line 6)",
		"minimal test case (3 operations):",
		"concurrent core", "p1 pop() -&gt; 1 (line 5)",
		"<svg id=\"axis\"",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	const golden = "testdata/stack_double_pop.html"
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update)", err)
	}
	if got != string(want) {
		t.Errorf("page changed (run with -update after checking it)")
	}
}

// staleRead is a register history of n operations (writes of distinct
// values and reads) on procs processes: each operation takes effect at its
// invocation (invocation times are distinct), so it is linearizable, until
// a read after operation at is made stale: it returns the value of a write
// w1 although another write w2 was invoked after w1 completed and
// completed before the read was invoked. No linearization can place the
// read (values are distinct), by the definition of a register.
func staleRead(n, procs, at int, seed uint64) *history.History {
	rng := rand.New(rand.NewPCG(seed, 2))
	h := &history.History{Source: fmt.Sprintf("register-%d.jsonl", n)}
	free := make([]int64, procs)
	cur, next, t := history.Nil(), int64(1), int64(0)
	for i := 0; i < n; i++ {
		p := rng.IntN(procs)
		t = max(t+1+int64(rng.IntN(6)), free[p]+1)
		o := history.Op{ID: i, Process: p, Status: history.Ok, Call: t, Return: t + 2 + int64(rng.IntN(25)), Line: 2*i + 1}
		free[p] = o.Return
		if rng.IntN(3) == 0 {
			o.F, o.Input, cur = "write", history.Int(next), history.Int(next)
			next++
		} else {
			o.F, o.Output = "read", cur
		}
		h.Ops = append(h.Ops, o)
	}
	for r := at; r < n; r++ {
		rd := &h.Ops[r]
		if rd.F != "read" {
			continue
		}
		// w2: the last write that completed before the read's invocation;
		// w1: a write that completed before w2's invocation.
		for w2 := r - 1; w2 >= 0; w2-- {
			if h.Ops[w2].F != "write" || h.Ops[w2].Return >= rd.Call {
				continue
			}
			for w1 := w2 - 1; w1 >= 0; w1-- {
				if h.Ops[w1].F == "write" && h.Ops[w1].Return < h.Ops[w2].Call {
					rd.Output = h.Ops[w1].Input
					return h
				}
			}
		}
	}
	panic("no read to make stale")
}

// TestHTMLLargeHistory: the page of a 12,000-operation history holds the
// whole history as data for the script (no external asset), in a size
// proportional to it.
func TestHTMLLargeHistory(t *testing.T) {
	h := staleRead(12000, 8, 9000, 3)
	ctx := context.Background()
	res, err := history.Check(ctx, h, history.Register(), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != lts.Invalid {
		t.Fatalf("planted violation not found: %v %s", res.Verdict, res.Reason)
	}
	l, err := history.Localize(ctx, h, history.Register(), history.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := HTML(&buf, h, res, l, Options{Model: "register"}); err != nil {
		t.Fatal(err)
	}
	page := buf.String()
	if len(page) > 100*len(h.Ops) {
		t.Errorf("page of %d bytes for %d operations", len(page), len(h.Ops))
	}
	for _, bad := range []string{"src=", "<link", "href=\"http", "@import", "url(http"} {
		if strings.Contains(page, bad) {
			t.Errorf("page refers to an external asset (%s)", bad)
		}
	}
	t.Logf("page: %d bytes, %.1f per operation", len(page), float64(len(page))/float64(len(h.Ops)))
}
