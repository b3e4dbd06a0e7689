package history

import (
	"context"
	"fmt"
	"testing"
	"time"
)

func TestZZQuasiBig(t *testing.T) {
	for _, n := range []int{200, 400} {
		h := linearizableQueue(n, 4, 7)
		for _, k := range []int{0, 1, 2} {
			t0 := time.Now()
			res, err := Check(context.Background(), h, Queue(), Options{Quasi: deqClass(k, false)})
			fmt.Println(n, k, time.Since(t0), err, res.Verdict, res.Stats.States, res.Reason)
		}
	}
}
