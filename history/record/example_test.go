package record_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/history/examples"
	"github.com/quasar-verify/quasar/history/record"
)

// Record a few concurrent operations on a Treiber stack and check them.
func Example() {
	s := examples.NewTreiberStack()
	r := record.New(nil)
	var wg sync.WaitGroup
	for p := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := r.Invoke(p, "push", p+1)
			s.Push(int64(p + 1))
			r.Return(tok, nil)
			tok = r.Invoke(p, "pop", nil)
			v, ok := s.Pop()
			if ok {
				r.Return(tok, v)
			} else {
				r.Return(tok, nil)
			}
		}()
	}
	wg.Wait()
	h := r.History()
	res, err := history.Check(context.Background(), h, history.Stack(), history.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(len(h.Ops), "operations:", res.Verdict)
	// Output: 6 operations: valid
}
