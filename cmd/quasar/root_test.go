package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A panic is a bug, reported as an internal error with exit code 4.
func TestProtect(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir) // the stack file goes there, and goes with it
	var stderr bytes.Buffer
	code := protect(&stderr, func() int { panic("boom") })
	if code != exitInternal {
		t.Errorf("code %d, want %d", code, exitInternal)
	}
	if out := stderr.String(); !strings.HasPrefix(out, "quasar: internal error: boom; this is a bug") || strings.Count(out, "\n") != 1 {
		t.Errorf("stderr %q", stderr.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "quasar-crash-*.txt"))
	if len(files) != 1 || !strings.Contains(stderr.String(), files[0]) {
		t.Errorf("stack files %v, stderr %q: want one, named", files, stderr.String())
	} else if b, _ := os.ReadFile(files[0]); !strings.Contains(string(b), "internal error: boom") || !strings.Contains(string(b), "goroutine") {
		t.Errorf("stack file:\n%s", b)
	}
	if code := protect(&stderr, func() int { return 3 }); code != 3 {
		t.Errorf("code %d without a panic, want 3", code)
	}
}
