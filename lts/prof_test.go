package lts

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
)

func TestProfSmall(t *testing.T) {
	if os.Getenv("LTS_PROF") == "" {
		t.Skip()
	}
	src, _ := os.ReadFile("../testdata/lts/bench/segqueue.csp")
	s := string(src)
	for _, kv := range strings.Fields(os.Getenv("LTS_DEF")) {
		k, v, _ := strings.Cut(kv, "=")
		s = strings.Replace(s, "#define "+k+" ", "#define "+k+" "+v+"; //", 1)
	}
	p := compileSrc(t, s)
	sys, _ := p.ProcessByName("Queue")
	r, err := Explore(context.Background(), sys, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
	t.Logf("cpu %.2fs rate/cpu %.0f", cpu, float64(r.Stats.States)/cpu)
	t.Logf("states %d trans %d secs %.2f rate %.0f", r.Stats.States, r.Stats.Transitions, r.Stats.Seconds, float64(r.Stats.States)/r.Stats.Seconds)
}
