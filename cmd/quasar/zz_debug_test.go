package main

import (
	"os"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

func TestZZDebug(t *testing.T) {
	src, _ := os.ReadFile("/tmp/h/demo.csp")
	ch, err := checkSource("demo.csp", src)
	if err != nil {
		t.Fatal(err)
	}
	prog, err := lts.Compile(ch)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := prog.ProcessByName("Queue")
	if err != nil {
		t.Fatal(err)
	}
	a := lts.NewTauClosed(sys)
	st := a.Start(nil)
	en, err := a.Enabled(st[0], nil)
	t.Logf("start %v enabled %v err %v", st, en, err)
	for _, e := range en {
		t.Logf("  %s", a.Events().Name(e))
	}
	e := a.Events().Intern("enq", 1)
	nx, err := a.Step(st[0], e, nil)
	t.Logf("enq.1 (%d) -> %v %v", e, nx, err)
}
