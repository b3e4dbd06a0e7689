package main

import (
	"context"
	"testing"
	"time"
)

// The deadline holds as soon as the clock passes it, before any timer runs.
func TestClockDeadline(t *testing.T) {
	// A parent whose timer has not fired (here: none at all).
	late := clockDeadline{context.Background(), time.Now().Add(-time.Millisecond)}
	if late.Err() != context.DeadlineExceeded {
		t.Errorf("Err() = %v, want %v", late.Err(), context.DeadlineExceeded)
	}
	ctx, cancel := withClockDeadline(context.Background(), time.Now().Add(time.Hour))
	defer cancel()
	if ctx.Err() != nil {
		t.Errorf("Err() = %v before the deadline", ctx.Err())
	}
	cancel()
	if ctx.Err() != context.Canceled {
		t.Errorf("Err() = %v after cancel, want %v", ctx.Err(), context.Canceled)
	}
}
