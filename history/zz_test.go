package history

import (
	"context"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lts"
)

func TestZZBig(t *testing.T) {
	for _, n := range []int{50, 100, 200, 300} {
		h := linearizableQueue(n, 8, 1)
		st := time.Now()
		res, err := Check(context.Background(), h, Queue(), Options{Limits: lts.Limits{Timeout: 5 * time.Second}})
		t.Log(n, time.Since(st), err, res.Verdict, res.Reason, res.Stats)
	}
}
