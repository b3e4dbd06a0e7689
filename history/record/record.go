package record

import (
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// Kinds of events.
const (
	kindInvoke uint8 = iota + 1
	kindOk
	kindFail
	kindInfo
)

const (
	chunkBits = 10
	chunkSize = 1 << chunkBits
)

type event struct {
	ns      int64
	ref     uint64 // completion: ticket of its invocation
	process int
	f       string
	value   any
	kind    uint8
	done    atomic.Bool // the fields above are written (publishes them)
}

type chunk [chunkSize]event

// Recorder records one history. The zero value is not usable: call New.
type Recorder struct {
	w      io.Writer
	start  time.Time
	next   atomic.Uint64            // next ticket
	dir    atomic.Pointer[[]*chunk] // immutable once published; replaced on growth
	mu     sync.Mutex               // serialises growth of dir
	closed atomic.Bool
}

// Token identifies an invoked operation; pass it to exactly one of Return,
// Fail or Info (from any goroutine, once the Token was handed over).
type Token struct{ ticket uint64 }

// New returns an empty recorder. If w is not nil, Close writes the history
// to it in JSON Lines.
func New(w io.Writer) *Recorder {
	r := &Recorder{w: w, start: time.Now()}
	d := make([]*chunk, 0, 16)
	r.dir.Store(&d)
	return r
}

// Invoke records the invocation of f with arguments value by process (a
// thread or client id; a process runs one operation at a time). Call it
// just before the operation starts.
func (r *Recorder) Invoke(process int, f string, value any) Token {
	t := r.append(kindInvoke, 0, process, f, value)
	return Token{t}
}

// Return records that the operation of tok completed with result value
// (nil when the operation returns nothing). Call it just after the
// operation returned.
func (r *Recorder) Return(tok Token, value any) { r.complete(kindOk, tok, value) }

// Fail records that the operation of tok certainly did not take effect.
func (r *Recorder) Fail(tok Token, value any) { r.complete(kindFail, tok, value) }

// Info records that the outcome of the operation of tok is unknown: it may
// or may not have taken effect (a timeout). The checker keeps it open to
// the end of the history.
func (r *Recorder) Info(tok Token, value any) { r.complete(kindInfo, tok, value) }

func (r *Recorder) complete(kind uint8, tok Token, value any) {
	inv := r.slot(tok.ticket)
	r.append(kind, tok.ticket, inv.process, inv.f, value)
}

func (r *Recorder) append(kind uint8, ref uint64, process int, f string, value any) uint64 {
	t := r.next.Add(1) - 1
	ns := int64(time.Since(r.start))
	e := r.slot(t)
	e.ns, e.ref, e.process, e.f, e.value, e.kind = ns, ref, process, f, value, kind
	e.done.Store(true)
	return t
}

// slot returns the event of ticket t, growing the directory if needed.
func (r *Recorder) slot(t uint64) *event {
	c := int(t >> chunkBits)
	d := *r.dir.Load()
	if c < len(d) && d[c] != nil {
		return &d[c][t&(chunkSize-1)]
	}
	return &r.grow(c)[t&(chunkSize-1)]
}

func (r *Recorder) grow(c int) *chunk {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := *r.dir.Load()
	if c < len(d) && d[c] != nil {
		return d[c]
	}
	n := len(d)
	if c >= n {
		n = max(2*len(d), c+1)
	}
	nd := make([]*chunk, n)
	copy(nd, d)
	for i := 0; i <= c; i++ {
		if nd[i] == nil {
			nd[i] = new(chunk) // fill gaps too: tickets are dense
		}
	}
	r.dir.Store(&nd)
	return nd[c]
}

// Len is the number of events recorded so far.
func (r *Recorder) Len() int { return int(r.next.Load()) }

// Close writes the history to the writer given to New, if any. Events
// recorded after Close are still kept.
func (r *Recorder) Close() error {
	if r.w == nil || r.closed.Swap(true) {
		return nil
	}
	_, err := r.WriteTo(r.w)
	return err
}
