package history_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/history/read"
	"github.com/quasar-verify/quasar/lts"
)

// TestJepsenQueueCheckers: the histories of Jepsen's queue-test and
// total-queue-test (testdata/histories/jepsen-queue, transcribed with
// their verdicts in SOURCE.md): the unordered-queue model gives the queue
// checker's verdicts, TotalQueue the total-queue checker's verdicts,
// counts and multisets; the two completions without invocations are
// rejected with a position.
func TestJepsenQueueCheckers(t *testing.T) {
	dir := filepath.Join("..", "testdata", "histories", "jepsen-queue")
	tsv, err := os.ReadFile(filepath.Join(dir, "expected.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	// Jepsen's maps for total-queue-test (SOURCE.md): attempt,
	// acknowledged and ok counts, then lost, unexpected, duplicated,
	// recovered.
	type counts struct {
		attempts, acked, ok     int
		lost, unexp, dup, recov []string
	}
	totals := map[string]counts{
		"total-queue-empty.edn":        {},
		"total-queue-sane.edn":         {attempts: 2, acked: 1, ok: 2, recov: []string{"1"}},
		"total-queue-pathological.edn": {attempts: 3, acked: 2, ok: 1, lost: []string{`"enqueued"`}, unexp: []string{`"wtf"`}, dup: []string{`"dup"`}},
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(tsv)), "\n") {
		f := strings.Split(line, "\t")
		file, check, want := f[0], f[1], f[2]
		src, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		h, err := read.Parse(file, strings.NewReader(string(src)))
		if want == "not a history" {
			if err == nil || !strings.Contains(err.Error(), file+":1:") || !strings.Contains(err.Error(), "without an invocation") {
				t.Errorf("%s: want a positioned error for a completion without an invocation, got %v", file, err)
			}
			n++
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		switch check {
		case "unordered-queue":
			res, err := history.Check(context.Background(), h, history.UnorderedQueue(), history.Options{})
			if err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			if res.Verdict.String() != want {
				t.Errorf("%s: %v (%s), Jepsen: %s", file, res.Verdict, res.Reason, want)
			}
		case "total-queue":
			r := history.TotalQueue(h)
			if (r.Valid && want != "valid") || (!r.Valid && want != "invalid") {
				t.Errorf("%s: valid=%v, Jepsen: %s", file, r.Valid, want)
			}
			c := totals[file]
			strs := func(vs []history.Value) []string {
				out := []string{}
				for _, v := range vs {
					out = append(out, v.String())
				}
				return out
			}
			got := counts{r.Attempts, r.Acknowledged, r.OK, strs(r.Lost), strs(r.Unexpected), strs(r.Duplicated), strs(r.Recovered)}
			eq := func(a, b []string) bool { return slices.Equal(a, b) || len(a) == 0 && len(b) == 0 }
			if got.attempts != c.attempts || got.acked != c.acked || got.ok != c.ok || !eq(got.lost, c.lost) || !eq(got.unexp, c.unexp) || !eq(got.dup, c.dup) || !eq(got.recov, c.recov) {
				t.Errorf("%s: %+v, Jepsen: %+v", file, got, c)
			}
		default:
			t.Fatalf("%s: unknown check %q", file, check)
		}
		n++
	}
	if n != 10 {
		t.Fatalf("%d histories checked, want 10", n)
	}
}

// TestUnorderedQueue: the multiset model, verdicts reasoned by hand.
func TestUnorderedQueue(t *testing.T) {
	cases := []struct {
		name string
		edn  string
		want lts.Verdict
	}{
		// Dequeued in the other order: fine for a multiset, not a queue.
		{"any order", `
{:process 0 :type :invoke :f :enqueue :value 1}
{:process 0 :type :ok :f :enqueue :value 1}
{:process 0 :type :invoke :f :enqueue :value 2}
{:process 0 :type :ok :f :enqueue :value 2}
{:process 1 :type :invoke :f :dequeue :value nil}
{:process 1 :type :ok :f :dequeue :value 2}
{:process 1 :type :invoke :f :dequeue :value nil}
{:process 1 :type :ok :f :dequeue :value 1}`, lts.Valid},
		// One 1 enqueued, two dequeued.
		{"duplicate", `
{:process 0 :type :invoke :f :enqueue :value 1}
{:process 0 :type :ok :f :enqueue :value 1}
{:process 1 :type :invoke :f :dequeue :value nil}
{:process 1 :type :ok :f :dequeue :value 1}
{:process 1 :type :invoke :f :dequeue :value nil}
{:process 1 :type :ok :f :dequeue :value 1}`, lts.Invalid},
		// Empty only while nothing is in: 1 is in from p0's return on.
		{"empty with an element", `
{:process 0 :type :invoke :f :enqueue :value 1}
{:process 0 :type :ok :f :enqueue :value 1}
{:process 1 :type :invoke :f :dequeue :value nil}
{:process 1 :type :ok :f :dequeue :value nil}`, lts.Invalid},
		// A pending dequeue need not take effect: p2 and p3 take both.
		{"pending dequeue", `
{:process 0 :type :invoke :f :enqueue :value 1}
{:process 0 :type :ok :f :enqueue :value 1}
{:process 0 :type :invoke :f :enqueue :value 2}
{:process 0 :type :ok :f :enqueue :value 2}
{:process 1 :type :invoke :f :dequeue :value nil}
{:process 2 :type :invoke :f :dequeue :value nil}
{:process 2 :type :ok :f :dequeue :value 2}
{:process 3 :type :invoke :f :dequeue :value nil}
{:process 3 :type :ok :f :dequeue :value 1}`, lts.Valid},
		// The pending dequeue may take the 1 before p2 finds it empty.
		{"empty after pending", `
{:process 0 :type :invoke :f :enqueue :value 1}
{:process 0 :type :ok :f :enqueue :value 1}
{:process 1 :type :invoke :f :dequeue :value nil}
{:process 2 :type :invoke :f :dequeue :value nil}
{:process 2 :type :ok :f :dequeue :value nil}`, lts.Valid},
	}
	for _, c := range cases {
		h, err := read.Parse(c.name, strings.NewReader(c.edn))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		res, err := history.Check(context.Background(), h, history.UnorderedQueue(), history.Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if res.Verdict != c.want {
			t.Errorf("%s: %v (%s), want %v", c.name, res.Verdict, res.Reason, c.want)
		}
	}
}
