package stress

import (
	"context"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/lts"
)

func TestDbg(t *testing.T) {
	for _, q := range []int{-1, 3} {
		cfg := Config{Goroutines: 8, OpsPerGoroutine: 1250, Seed: 6, Ops: queueOps, Model: history.Queue(), New: segQueue(4, true)}
		cfg.defaults()
		h, _ := execute(cfg, Generate(cfg, 0))
		st := time.Now()
		opt := history.Options{Limits: lts.Limits{Timeout: 20 * time.Second}}
		if q >= 0 {
			opt.Quasi = deqQuasi(q)
		}
		l, err := history.Localize(context.Background(), h, history.Queue(), opt)
		t.Log(q, time.Since(st), err, l.Verdict, l.Reason, l.Checks, l.PrefixOps, l.Size())
		for _, o := range l.Ops {
			t.Log(o.String())
		}
	}
}
