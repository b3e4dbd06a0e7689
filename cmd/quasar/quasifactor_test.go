package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/quasar-verify/quasar/models"
	"github.com/quasar-verify/quasar/pipeline"
)

// quasi-factor's figures for the check at K are those check prints for the
// same assertion at K: implementation states and product pairs apart.
func TestQuasiFactorStatsAsCheck(t *testing.T) {
	name, src, err := models.Generate("demo", nil)
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, src, 0o644); err != nil {
		t.Fatal(err)
	}
	var fr pipeline.FactorReport
	jsonOut(t, &fr, "quasi-factor", "--json", "--workers", "1", file)
	if fr.K != 1 {
		t.Fatalf("least factor %d, want 1 (the demo's expectation)", fr.K)
	}
	var rep pipeline.Report
	jsonOut(t, &rep, "check", "--json", "--workers", "1", "--assert", "quasi 1", file)
	if len(rep.Assertions) != 1 {
		t.Fatalf("%d assertions checked, want 1", len(rep.Assertions))
	}
	want, got := rep.Assertions[0].Stats, fr.Stats
	if got.States != want.States || got.Pairs != want.Pairs || got.Transitions != want.Transitions ||
		got.SpecStates != want.SpecStates || got.Symmetry != want.Symmetry {
		t.Errorf("quasi-factor stats %+v, check %+v", got, want)
	}
	if got.Pairs < got.States {
		t.Errorf("%d pairs for %d implementation states", got.Pairs, got.States)
	}
}

func jsonOut(t *testing.T, v any, args ...string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := execute(context.Background(), args, nil, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("quasar %v: exit %d: %s", args, code, stderr.String())
	}
	if err := json.Unmarshal(stdout.Bytes(), v); err != nil {
		t.Fatalf("quasar %v: %v", args, err)
	}
}
