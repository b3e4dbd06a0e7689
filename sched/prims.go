package sched

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// active is the controlled run in progress, nil outside one. Every marking
// call loads it once (a plain MOV on amd64, arm64 needs an LDAR): outside a
// controlled run a marked operation costs that load, a predictable branch
// and the sync/atomic operation itself.
var active atomic.Pointer[run]

// kind is the kind of a marked step, for the dependence relation of sleep
// sets.
type kind uint8

const (
	kLoad kind = iota
	kStore
	kRMW // Add, Swap, CompareAndSwap
	kLock
	kUnlock
	kTryLock
	kWait
	kSignal
	kYield
)

var kindNames = [...]string{"load", "store", "rmw", "lock", "unlock", "trylock", "wait", "signal", "yield"}

func (k kind) String() string { return kindNames[k] }

// access is the step a parked goroutine will perform when scheduled.
type access struct {
	v uintptr // the variable (address); 0 for Yield
	k kind
	m *Mutex // for kLock: the mutex to acquire (enabledness)
	// first: the step is its operation's first, so its quantum stamps
	// the operation's call.
	first bool
}

// dependent reports whether two steps may not commute: the same variable
// and not both loads. Yield, Wait and Signal are dependent with every step
// (conservative: a Yield stands for any shared access; a Cond step touches
// both its mutex and its waiter queue).
func (a access) dependent(b access) bool {
	switch {
	case a.k == kYield || b.k == kYield, a.k == kWait || b.k == kWait, a.k == kSignal || b.k == kSignal:
		return true
	case a.v != b.v:
		return false
	}
	return a.k != kLoad || b.k != kLoad
}

// point is the slow path of a marking call: park the running goroutine
// before its step and let the scheduler choose who goes next.
//
//go:noinline
func point(p unsafe.Pointer, k kind) {
	if r := active.Load(); r != nil {
		r.step(access{v: uintptr(p), k: k})
	}
}

// Yield marks a shared-memory access that is not made through this
// package's types (a plain field read by several goroutines, a
// channel-free hand-off): it is a scheduling point dependent with every
// other step. Outside a controlled run it does nothing.
func Yield() {
	if active.Load() != nil {
		point(nil, kYield)
	}
}

// Int64 is an atomic int64 (as sync/atomic.Int64) whose operations are
// scheduling points of a controlled run. The zero value is 0.
type Int64 struct{ v atomic.Int64 }

// Load atomically loads x.
func (x *Int64) Load() int64 {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kLoad)
	}
	return x.v.Load()
}

// Store atomically stores n into x.
func (x *Int64) Store(n int64) {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kStore)
	}
	x.v.Store(n)
}

// Add atomically adds d to x and returns the new value.
func (x *Int64) Add(d int64) int64 {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kRMW)
	}
	return x.v.Add(d)
}

// Swap atomically stores n into x and returns the old value.
func (x *Int64) Swap(n int64) int64 {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kRMW)
	}
	return x.v.Swap(n)
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Int64) CompareAndSwap(old, n int64) bool {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kRMW)
	}
	return x.v.CompareAndSwap(old, n)
}

// Uint64 is an atomic uint64 whose operations are scheduling points.
type Uint64 struct{ v atomic.Uint64 }

// Load atomically loads x.
func (x *Uint64) Load() uint64 {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kLoad)
	}
	return x.v.Load()
}

// Store atomically stores n into x.
func (x *Uint64) Store(n uint64) {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kStore)
	}
	x.v.Store(n)
}

// Add atomically adds d to x and returns the new value.
func (x *Uint64) Add(d uint64) uint64 {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kRMW)
	}
	return x.v.Add(d)
}

// Swap atomically stores n into x and returns the old value.
func (x *Uint64) Swap(n uint64) uint64 {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kRMW)
	}
	return x.v.Swap(n)
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Uint64) CompareAndSwap(old, n uint64) bool {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kRMW)
	}
	return x.v.CompareAndSwap(old, n)
}

// Int32 is an atomic int32 whose operations are scheduling points.
type Int32 struct{ v atomic.Int32 }

// Load atomically loads x.
func (x *Int32) Load() int32 {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kLoad)
	}
	return x.v.Load()
}

// Store atomically stores n into x.
func (x *Int32) Store(n int32) {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kStore)
	}
	x.v.Store(n)
}

// Add atomically adds d to x and returns the new value.
func (x *Int32) Add(d int32) int32 {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kRMW)
	}
	return x.v.Add(d)
}

// Swap atomically stores n into x and returns the old value.
func (x *Int32) Swap(n int32) int32 {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kRMW)
	}
	return x.v.Swap(n)
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Int32) CompareAndSwap(old, n int32) bool {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kRMW)
	}
	return x.v.CompareAndSwap(old, n)
}

// Pointer is an atomic *T whose operations are scheduling points.
type Pointer[T any] struct{ v atomic.Pointer[T] }

// Load atomically loads x.
func (x *Pointer[T]) Load() *T {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kLoad)
	}
	return x.v.Load()
}

// Store atomically stores p into x.
func (x *Pointer[T]) Store(p *T) {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kStore)
	}
	x.v.Store(p)
}

// Swap atomically stores p into x and returns the old value.
func (x *Pointer[T]) Swap(p *T) *T {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kRMW)
	}
	return x.v.Swap(p)
}

// CompareAndSwap executes the compare-and-swap operation for x.
func (x *Pointer[T]) CompareAndSwap(old, p *T) bool {
	if active.Load() != nil {
		point(unsafe.Pointer(x), kRMW)
	}
	return x.v.CompareAndSwap(old, p)
}

// Mutex is a mutual exclusion lock. Outside a controlled run it is a
// sync.Mutex; inside one, Lock, Unlock and TryLock are scheduling points, a
// goroutine waiting in Lock is not runnable until the holder unlocks, and
// goroutines all waiting forever are reported as a deadlock. Do not start a
// controlled run while a Mutex it uses is held outside it.
type Mutex struct {
	mu   sync.Mutex
	held bool // controlled mode only
}

// Lock locks m.
func (m *Mutex) Lock() {
	if r := active.Load(); r != nil {
		r.lock(m)
		return
	}
	m.mu.Lock()
}

// Unlock unlocks m. Unlocking an unlocked mutex panics in a controlled run
// (the panic is reported as a failure) and is fatal outside one.
func (m *Mutex) Unlock() {
	if r := active.Load(); r != nil {
		r.step(access{v: uintptr(unsafe.Pointer(m)), k: kUnlock})
		if !m.held {
			panic("sched: unlock of unlocked Mutex")
		}
		m.held = false
		return
	}
	m.mu.Unlock()
}

// TryLock tries to lock m and reports whether it succeeded.
func (m *Mutex) TryLock() bool {
	if r := active.Load(); r != nil {
		r.step(access{v: uintptr(unsafe.Pointer(m)), k: kTryLock})
		if m.held {
			return false
		}
		m.held = true
		return true
	}
	return m.mu.TryLock()
}

// Cond is a condition variable on a Mutex, like sync.Cond. L must be set
// before use. Inside a controlled run Signal wakes the longest waiting
// goroutine (FIFO, so runs stay deterministic); a goroutine waiting for a
// signal that never comes is reported as stuck.
type Cond struct {
	L       *Mutex
	once    sync.Once
	c       *sync.Cond
	waiters []int // controlled mode: waiting threads, FIFO
}

func (c *Cond) sync() *sync.Cond {
	c.once.Do(func() { c.c = sync.NewCond(&c.L.mu) })
	return c.c
}

// Wait atomically unlocks c.L and suspends the goroutine; once woken by
// Signal or Broadcast it locks c.L again before returning.
func (c *Cond) Wait() {
	if r := active.Load(); r != nil {
		r.wait(c)
		return
	}
	c.sync().Wait()
}

// Signal wakes one goroutine waiting on c, if there is any.
func (c *Cond) Signal() {
	if r := active.Load(); r != nil {
		r.signal(c, false)
		return
	}
	c.sync().Signal()
}

// Broadcast wakes all goroutines waiting on c.
func (c *Cond) Broadcast() {
	if r := active.Load(); r != nil {
		r.signal(c, true)
		return
	}
	c.sync().Broadcast()
}
