package history

import (
	"context"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lts"
)

func TestDbgBig(t *testing.T) {
	for _, procs := range []int{2, 4, 8} {
		h := locBigQueue(10000, procs, 100, 1)
		st := time.Now()
		res, err := Check(context.Background(), h, Queue(), Options{Limits: lts.Limits{Timeout: 10 * time.Second, MaxBytes: 2 << 30}})
		t.Log(procs, time.Since(st), err, res.Verdict, res.Reason, res.Stats)
		st = time.Now()
		res, err = CheckOps(context.Background(), h.Ops[:600], Queue(), Options{Limits: lts.Limits{Timeout: 10 * time.Second, MaxBytes: 2 << 30}})
		t.Log(procs, time.Since(st), err, res.Verdict, res.Reason, res.Stats)
	}
}
