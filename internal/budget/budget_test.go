package budget

import (
	"context"
	"strings"
	"testing"
	"time"
)

func TestExceeded(t *testing.T) {
	if r := New(context.Background(), 0, 0, 0).Exceeded(1 << 30); r != "" {
		t.Errorf("no limits: %q", r)
	}
	if r := New(context.Background(), 0, 100, 0).Exceeded(100); r != "state limit 100" {
		t.Errorf("state limit: %q", r)
	}
	b := New(context.Background(), time.Nanosecond, 0, 0)
	time.Sleep(time.Millisecond)
	if r := b.Exceeded(0); !strings.HasPrefix(r, "time limit") {
		t.Errorf("time limit: %q", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r := New(ctx, 0, 0, 0).Exceeded(0); r != "cancelled" {
		t.Errorf("cancelled: %q", r)
	}
	// A budget of one byte is exceeded by any heap at the first sample.
	if r := New(context.Background(), 0, 0, 1).Exceeded(0); !strings.HasPrefix(r, "memory limit") {
		t.Errorf("memory limit: %q", r)
	}
}

func TestFormatBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB",
		3 << 20: "3.0 MiB", 1<<30 - 1: "1.0 GiB", 5 << 40: "5.0 TiB"} {
		if got := FormatBytes(n); got != want {
			t.Errorf("FormatBytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestHalted: the deadline and cancellation set the flag without a poll,
// and Exceeded then names the limit; Close stops the timer.
func TestHalted(t *testing.T) {
	b := New(context.Background(), 20*time.Millisecond, 0, 0)
	defer b.Close()
	for deadline := time.Now().Add(5 * time.Second); !b.Halted().Load(); {
		if time.Now().After(deadline) {
			t.Fatal("the deadline did not set the flag")
		}
		time.Sleep(time.Millisecond)
	}
	if r := b.Exceeded(0); !strings.HasPrefix(r, "time limit") {
		t.Errorf("after the deadline: %q", r)
	}

	ctx, cancel := context.WithCancel(context.Background())
	c := New(ctx, 0, 0, 0)
	defer c.Close()
	cancel()
	for deadline := time.Now().Add(5 * time.Second); !c.Halted().Load(); {
		if time.Now().After(deadline) {
			t.Fatal("cancellation did not set the flag")
		}
		time.Sleep(time.Millisecond)
	}
	if r := c.Exceeded(0); r != "cancelled" {
		t.Errorf("after cancel: %q", r)
	}

	d := New(context.Background(), time.Hour, 0, 0)
	d.Close()
	if d.Halted().Load() || d.Exceeded(0) != "" {
		t.Error("a closed budget within its deadline reports a limit")
	}
}

// TestConcurrent: partitions of a history check share one budget (run
// with -race).
func TestConcurrent(t *testing.T) {
	b := New(context.Background(), time.Hour, 1000, 1<<40)
	defer b.Close()
	done := make(chan bool)
	for w := range 4 {
		go func() {
			for i := range 2000 {
				b.Exceeded(i * w)
				b.Peak()
			}
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
}
