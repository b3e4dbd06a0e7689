package lts

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lang"
)

func TestTmpModels(t *testing.T) {
	if os.Getenv("LTS_MODELS") == "" {
		t.Skip()
	}
	var files []string
	for _, g := range []string{"../models/lib/*.csp", "../models/testdata/*.csp", "../testdata/run/*.csp", "../testdata/lang/constructs/*.csp"} {
		f, _ := filepath.Glob(g)
		files = append(files, f...)
	}
	for _, f := range files {
		m, err := lang.ParseFile(f)
		if err != nil {
			t.Logf("%s: parse: %v", f, err)
			continue
		}
		c, err := lang.Check(m)
		if err != nil {
			t.Logf("%s: check: %v", f, err)
			continue
		}
		p, err := Compile(c)
		if err != nil {
			t.Errorf("%s: compile: %v", f, err)
			continue
		}
		if os.Getenv("LTS_DEFS") != "" {
			for name, pd := range c.Info.Procs {
				args := make([]int64, len(pd.Params))
				sys, err := p.ProcessByName(name, args...)
				if err != nil {
					t.Errorf("%s: %s: %v", f, name, err)
					continue
				}
				r, err := Explore(context.Background(), sys, Options{Limits: Limits{Timeout: time.Second, MaxStates: 100000}})
				if err != nil {
					t.Logf("%s: %s: explore: %v", f, name, err)
					continue
				}
				t.Logf("%s %s: %d states %v %s", filepath.Base(f), name, r.Stats.States, r.Verdict, r.Reason)
			}
			continue
		}
		for _, a := range c.Info.Asserts {
			sys, err := p.Process(a.Left)
			if err != nil {
				t.Errorf("%s: %v: process: %v", f, a.Pos(), err)
				continue
			}
			r, err := Explore(context.Background(), sys, Options{Limits: Limits{Timeout: 5 * time.Second, MaxStates: 2000000}})
			if err != nil {
				t.Errorf("%s: %v: explore: %v", f, a.Pos(), err)
				continue
			}
			t.Logf("%s %v %s: %d states %d trans %.2fs %v %s", filepath.Base(f), a.Pos(), a.Kind, r.Stats.States, r.Stats.Transitions, r.Stats.Seconds, r.Verdict, r.Reason)
			if a.Right != nil {
				sys, err := p.Process(a.Right)
				if err != nil {
					t.Errorf("%s: right: %v", f, err)
					continue
				}
				r, err := Explore(context.Background(), sys, Options{Limits: Limits{Timeout: 5 * time.Second, MaxStates: 2000000}})
				if err != nil {
					t.Errorf("%s: right explore: %v", f, err)
					continue
				}
				t.Logf("   right: %d states", r.Stats.States)
			}
		}
	}
}
