package stress_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/quasar-verify/quasar/history/examples"
	"github.com/quasar-verify/quasar/history/stress"
)

type stack struct{ s *examples.TreiberStack }

func (o stack) Do(f string, arg any) any {
	if f == "push" {
		o.s.Push(int64(arg.(int)))
		return nil
	}
	if v, ok := o.s.Pop(); ok {
		return v
	}
	return nil
}

// Line-Up style: no model is given, so each generated 3×2 test is first
// run serially in all 90 orders to derive the specification, then
// concurrently and checked against it.
func ExampleRun() {
	rep, err := stress.Run(context.Background(), stress.Config{
		Goroutines: 3, OpsPerGoroutine: 2, Rounds: 4, RunsPerTest: 10, Seed: 1,
		New: func() stress.Object { return stack{examples.NewTreiberStack()} },
		Ops: []stress.OpGen{
			{F: "push", Arg: func(_ *rand.Rand, seq int) any { return seq }},
			{F: "pop"},
		},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(rep.Verdict, rep.Runs, "runs,", rep.Serial, "serial histories")
	// Output: valid 40 runs, 360 serial histories
}
