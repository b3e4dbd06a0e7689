// Package budget enforces the limits of a search: cancellation, wall time,
// stored states and heap memory. It is the one limits mechanism of every
// search (csp's exploration, refine's product search and the relaxed
// specification it drives, history's partitions): each polls Exceeded
// every few thousand steps, which is cheap (an atomic load, and a
// runtime/metrics sample at most every 50 ms).
//
// Cancellation and the deadline also set a flag (Halted) from a timer and
// a context callback, so that a search whose single steps can be slow
// (a quasi search over a large heap) can look at it at every step instead
// of overshooting between polls.
package budget

import (
	"context"
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Budget tracks one search; it is safe for concurrent use (partitions of a
// history check share one). The zero limits mean "no limit".
type Budget struct {
	ctx       context.Context
	start     time.Time
	deadline  time.Time
	maxStates int
	maxBytes  int64

	halt  atomic.Bool
	stops []func() bool

	mu         sync.Mutex // guards the heap sample
	lastSample time.Time
	lastGC     time.Time // the last collection Exceeded forced
	peak       int64
	sample     []metrics.Sample
}

// New starts the clock of a search. Close releases its timer.
func New(ctx context.Context, timeout time.Duration, maxStates int, maxBytes int64) *Budget {
	b := &Budget{
		ctx: ctx, start: time.Now(), maxStates: maxStates, maxBytes: maxBytes,
		sample: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}},
	}
	if timeout > 0 {
		b.deadline = b.start.Add(timeout)
		b.stops = append(b.stops, time.AfterFunc(timeout, func() { b.halt.Store(true) }).Stop)
	}
	if ctx != nil && ctx.Done() != nil {
		b.stops = append(b.stops, context.AfterFunc(ctx, func() { b.halt.Store(true) }))
	}
	rearm()
	b.readHeap()
	return b
}

// Close releases the timer and the context callback.
func (b *Budget) Close() {
	for _, stop := range b.stops {
		stop()
	}
	b.stops = nil
}

// Halted is set once the deadline passes or the context is done; Exceeded
// then says which.
func (b *Budget) Halted() *atomic.Bool { return &b.halt }

// Exceeded reports a reason ("cancelled", "time limit 2s", "state limit 1000",
// "memory limit 1.0 GiB") when the search must stop, or "".
func (b *Budget) Exceeded(states int) string {
	if b.ctx != nil {
		select {
		case <-b.ctx.Done():
			if b.ctx.Err() == context.DeadlineExceeded {
				return "time limit"
			}
			return "cancelled"
		default:
		}
	}
	if b.maxStates > 0 && states >= b.maxStates {
		return "state limit " + itoa(int64(b.maxStates))
	}
	now := time.Now()
	if !b.deadline.IsZero() && (b.halt.Load() || now.After(b.deadline)) {
		return "time limit " + b.deadline.Sub(b.start).String()
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.Sub(b.lastSample) > 50*time.Millisecond {
		b.lastSample = now
		h := b.readHeap()
		slowDown(h)
		if b.maxBytes > 0 && h > b.maxBytes && now.Sub(b.lastGC) > time.Second {
			// The sample counts garbage too (an earlier search's tables,
			// say): collect and look again before giving up.
			b.lastGC = now
			runtime.GC()
			h = b.readHeap()
		}
		if b.maxBytes > 0 && h > b.maxBytes {
			return "memory limit " + FormatBytes(b.maxBytes)
		}
	}
	return ""
}

// Seconds since the start.
func (b *Budget) Seconds() float64 { return time.Since(b.start).Seconds() }

// Peak is the highest heap size sampled.
func (b *Budget) Peak() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.readHeap()
	return b.peak
}

// readHeap samples the heap; b.mu is held (or b is not shared yet).
func (b *Budget) readHeap() int64 {
	metrics.Read(b.sample)
	var h int64
	if b.sample[0].Value.Kind() == metrics.KindUint64 {
		h = int64(b.sample[0].Value.Uint64())
	}
	if h > b.peak {
		b.peak = h
	}
	return h
}

// FormatBytes renders n as "512 B", "3.2 MiB", "1.0 GiB".
func FormatBytes(n int64) string {
	f, exp := float64(n), -1
	// 1023.95 and up would print as "1024.0": use the next unit.
	for f >= 1023.95 && exp < 4 {
		f /= 1024
		exp++
	}
	if exp < 0 {
		return itoa(n) + " B"
	}
	return strconv.FormatFloat(f, 'f', 1, 64) + " " + string("KMGTP"[exp]) + "iB"
}

func itoa(n int64) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
