package history_test

import (
	"context"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/history/read"
	"github.com/quasar-verify/quasar/lts"
)

// TestIndependent: histories in jepsen.independent's form (values [key
// value], the nemesis's lines skipped), split per key; verdicts reasoned
// by hand.
func TestIndependent(t *testing.T) {
	parse := func(edn string) *history.History {
		t.Helper()
		h, err := read.Parse("h.edn", strings.NewReader(edn))
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	// Key 1: the read that starts after the cas 3 -> 4 returned reads 3:
	// not linearizable. Key 2 alone is.
	bad := parse(`{:type :invoke, :f :write, :value [1 3], :process 0}
{:type :invoke, :f :read, :value [2 nil], :process 1}
{:type :ok, :f :write, :value [1 3], :process 0}
{:type :ok, :f :read, :value [2 nil], :process 1}
{:type :info, :f :start, :value nil, :process :nemesis}
{:type :invoke, :f :cas, :value [1 [3 4]], :process 0}
{:type :ok, :f :cas, :value [1 [3 4]], :process 0}
{:type :invoke, :f :read, :value [1 nil], :process 1}
{:type :ok, :f :read, :value [1 3], :process 1}`)
	// Each key is linearizable, but not as one register: the read of key 2
	// follows the write of 5 to key 1.
	good := parse(`{:type :invoke, :f :write, :value [1 5], :process 0}
{:type :ok, :f :write, :value [1 5], :process 0}
{:type :invoke, :f :read, :value [2 nil], :process 1}
{:type :ok, :f :read, :value [2 nil], :process 1}
{:type :invoke, :f :write, :value [2 7], :process 0}
{:type :info, :f :write, :value [2 7], :process 0}`)

	s, err := history.SplitIndependent(bad)
	if err != nil {
		t.Fatal(err)
	}
	if o := s.Ops[2]; o.Key != "1" || o.F != "cas" || o.Input.String() != "[3, 4]" || o.Output.String() != "[3, 4]" || o.Line != 6 {
		t.Fatalf("split cas: %+v (%s -> %s)", o, o.Input, o.Output)
	}
	if o := s.Ops[1]; o.Key != "2" || !o.Input.IsNil() || !o.Output.IsNil() {
		t.Fatalf("split read: %+v", o)
	}
	if bad.Ops[2].Key != "" {
		t.Fatal("SplitIndependent modified its input")
	}
	res, err := history.Check(context.Background(), s, history.PerKey(history.CASRegister()), history.Options{AllPartitions: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != lts.Invalid || res.Failure == nil || res.Failure.Partition != "1" || len(res.Partitions) != 2 ||
		res.Partitions[0].Name != "1" || res.Partitions[0].Verdict != lts.Invalid || res.Partitions[1].Verdict != lts.Valid {
		t.Fatalf("bad: %v %s %+v", res.Verdict, res.Reason, res.Partitions)
	}

	s, err = history.SplitIndependent(good)
	if err != nil {
		t.Fatal(err)
	}
	res, err = history.Check(context.Background(), s, history.PerKey(history.CASRegister()), history.Options{})
	if err != nil || res.Verdict != lts.Valid {
		t.Fatalf("good: %v %v", res.Verdict, err)
	}
	// One register (keys ignored): the read of null follows the write of 5.
	res, err = history.Check(context.Background(), s, history.CASRegister(), history.Options{})
	if err != nil || res.Verdict != lts.Invalid {
		t.Fatalf("good as one register: %v %v", res.Verdict, err)
	}

	// Bad input: positioned errors.
	for _, c := range []struct{ edn, want string }{
		{`{:type :invoke, :f :write, :value 3, :process 0}
{:type :ok, :f :write, :value 3, :process 0}`, "line 1: write: expected a [key value] tuple"},
		{`{:type :invoke, :f :read, :value [1 nil], :process 0}
{:type :ok, :f :read, :value [2 3], :process 0}`, "line 1: read: the result's key 2 differs from the invocation's 1"},
		{`{:type :invoke, :f :read, :value [1 nil], :process 0}
{:type :ok, :f :read, :value 3, :process 0}`, "line 1: read: expected a [key value] tuple as the result"},
		{`{:type :invoke, :f :read, :key "a", :value [1 nil], :process 0}
{:type :ok, :f :read, :key "a", :value [1 3], :process 0}`, "already has a key"},
	} {
		_, err := history.SplitIndependent(parse(c.edn))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want %q, got %v", c.want, err)
		}
	}
}
