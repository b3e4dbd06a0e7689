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
