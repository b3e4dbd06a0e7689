package main

import (
	"bytes"
	"strings"
	"testing"
)

// A panic is a bug, reported as an internal error with exit code 4.
func TestProtect(t *testing.T) {
	var stderr bytes.Buffer
	code := protect(&stderr, func() int { panic("boom") })
	if code != exitInternal {
		t.Errorf("code %d, want %d", code, exitInternal)
	}
	if out := stderr.String(); !strings.HasPrefix(out, "quasar: internal error: boom; this is a bug") || strings.Count(out, "\n") != 1 {
		t.Errorf("stderr %q", stderr.String())
	}
	if code := protect(&stderr, func() int { return 3 }); code != 3 {
		t.Errorf("code %d without a panic, want 3", code)
	}
}
