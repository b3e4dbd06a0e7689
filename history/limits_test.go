package history

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lts"
)

// TestLimits: a cancelled context, a state limit and a deadline end the
// search with Unknown and a reason, promptly.
func TestLimits(t *testing.T) {
	h := loadHistory(t, "jepsen/etcd_002.log") // needs about 32000 states
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel2()
	time.Sleep(time.Millisecond)
	cases := []struct {
		name   string
		ctx    context.Context
		opt    Options
		reason string
	}{
		{"cancelled", cancelled, Options{}, "cancelled"},
		{"deadline", expired, Options{}, "time limit"},
		{"states", context.Background(), Options{Limits: lts.Limits{MaxStates: 1000}}, "state limit 1000"},
		{"timeout", context.Background(), Options{Limits: lts.Limits{Timeout: time.Nanosecond}}, "time limit"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			res, err := Check(c.ctx, h, CASRegister(), c.opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != lts.Unknown || !strings.HasPrefix(res.Reason, c.reason) {
				t.Fatalf("got %v %q, want unknown %q", res.Verdict, res.Reason, c.reason)
			}
			if el := time.Since(start); el > 2*time.Second {
				t.Fatalf("took %v", el)
			}
			if res.Stats.States == 0 && c.name == "states" {
				t.Fatalf("no statistics")
			}
		})
	}
}

// TestPartitionsDeterministic: the reported failure of a partitioned
// history does not depend on the number of workers.
func TestPartitionsDeterministic(t *testing.T) {
	h := loadHistory(t, "kv/c50-bad.txt")
	var first string
	for _, w := range []int{1, 2, 4, 1, 2} {
		res, err := Check(context.Background(), h, KV(), Options{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != lts.Invalid {
			t.Fatalf("workers %d: %v", w, res.Verdict)
		}
		got := res.Reason
		for _, p := range res.Partitions {
			got += "|" + p.Name + ":" + p.Verdict.String()
		}
		if first == "" {
			first = got
		} else if got != first {
			t.Fatalf("workers %d:\n%s\nwant\n%s", w, got, first)
		}
	}
}

// slowModel makes every step of m take a while, as the steps of a quasi
// search over a large heap can.
type slowModel struct{ Model }

type slowMachine struct{ Machine }

func (m slowModel) Compile(ops []Op) (Machine, error) {
	mc, err := m.Model.Compile(ops)
	return slowMachine{mc}, err
}

func (m slowMachine) Step(s State, i int, buf []State) []State {
	time.Sleep(500 * time.Microsecond)
	return m.Machine.Step(s, i, buf)
}

// TestLimitsPrompt: with slow steps a time limit or a cancellation still
// ends the search promptly (not only at the next of the periodic polls,
// which come every 1024 steps: half a second here).
func TestLimitsPrompt(t *testing.T) {
	h := loadHistory(t, "jepsen/etcd_002.log")
	for _, name := range []string{"timeout", "cancel"} {
		t.Run(name, func(t *testing.T) {
			ctx, opt := context.Background(), Options{}
			if name == "timeout" {
				opt.Limits.Timeout = 50 * time.Millisecond
			} else {
				c, cancel := context.WithCancel(ctx)
				time.AfterFunc(50*time.Millisecond, cancel)
				ctx = c
			}
			start := time.Now()
			res, err := Check(ctx, h, slowModel{CASRegister()}, opt)
			if err != nil {
				t.Fatal(err)
			}
			if res.Verdict != lts.Unknown {
				t.Fatalf("got %v", res.Verdict)
			}
			if el := time.Since(start); el > 300*time.Millisecond {
				t.Fatalf("a 50ms limit took %v", el)
			}
		})
	}
}
