package history

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lts"
)

func TestDbgPrefix(t *testing.T) {
	f, _ := os.Open("/tmp/starving.jsonl")
	h, err := Parse("s", f)
	if err != nil {
		t.Fatal(err)
	}
	evs := events(h.Ops)
	for _, n := range []int{16, 32, 64, 128} {
		p := prefixOps(h.Ops, evs, n)
		pend := 0
		for _, o := range p {
			if o.Return == Pending {
				pend++
			}
		}
		st := time.Now()
		r, _ := CheckOps(context.Background(), p, Queue(), Options{Limits: lts.Limits{Timeout: 3 * time.Second}})
		t.Log(n, len(p), pend, time.Since(st), r.Verdict, r.Reason, r.Stats)
		if n == 128 {
			for _, o := range p {
				t.Log(o.String(), o.Call, o.Return)
			}
		}
	}
}
