package lts

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// Event is an interned event label. Event 0 is tau (invisible); every other
// event is visible and has a name with dotted integer data: deq.1.3.
type Event uint32

// Tau is the invisible event.
const Tau Event = 0

// EventTable interns events: Event <-> "deq.1.3". All systems compiled from one
// model share one table, so their events compare by id. It is safe for
// concurrent use.
type EventTable struct {
	mu    sync.RWMutex
	names []string // full text, "tau" at 0
	bases []string // name without data
	data  [][]int
	index map[string]Event
}

// NewEventTable returns a table holding only tau.
func NewEventTable() *EventTable {
	return &EventTable{
		names: []string{"tau"},
		bases: []string{"tau"},
		data:  [][]int{nil},
		index: map[string]Event{"tau": Tau},
	}
}

// Intern returns the event base.d1.d2..., adding it if new.
func (t *EventTable) Intern(base string, data ...int) Event {
	var sb strings.Builder
	sb.WriteString(base)
	for _, d := range data {
		sb.WriteByte('.')
		sb.WriteString(strconv.Itoa(d))
	}
	name := sb.String()
	t.mu.RLock()
	e, ok := t.index[name]
	t.mu.RUnlock()
	if ok {
		return e
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if e, ok := t.index[name]; ok {
		return e
	}
	e = Event(len(t.names))
	t.names = append(t.names, name)
	t.bases = append(t.bases, base)
	t.data = append(t.data, append([]int(nil), data...))
	t.index[name] = e
	return e
}

// InternName interns an event given as text, "deq.1.-3". Components after the
// first that are integers become data; a non-integer component is kept in
// the base name ("a.b.1" has base "a.b" and data [1]).
func (t *EventTable) InternName(name string) Event {
	base, data := SplitName(name)
	return t.Intern(base, data...)
}

// SplitName splits "deq.1.3" into "deq" and [1 3]: the longest run of integer
// components at the end is the data.
func SplitName(name string) (string, []int) {
	parts := strings.Split(name, ".")
	i := len(parts)
	for i > 1 {
		if _, err := strconv.Atoi(parts[i-1]); err != nil {
			break
		}
		i--
	}
	var data []int
	for _, p := range parts[i:] {
		n, _ := strconv.Atoi(p)
		data = append(data, n)
	}
	return strings.Join(parts[:i], "."), data
}

// Lookup returns the event with the given full name, if interned.
func (t *EventTable) Lookup(name string) (Event, bool) {
	t.mu.RLock()
	defer t.mu.RUnlock()
	e, ok := t.index[name]
	return e, ok
}

// Name is the full text of e.
func (t *EventTable) Name(e Event) string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	if int(e) >= len(t.names) {
		return fmt.Sprintf("event#%d", e)
	}
	return t.names[e]
}

// Base is e's name without its data.
func (t *EventTable) Base(e Event) string {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.bases[e]
}

// Data is e's data; do not modify it.
func (t *EventTable) Data(e Event) []int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.data[e]
}

// Len is the number of events, tau included.
func (t *EventTable) Len() int {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return len(t.names)
}

// Pattern matches events by name and a prefix of their data: "deq" matches
// deq and every deq.…; "deq.0" matches deq.0 and deq.0.… (docs/verdicts.md §2).
type Pattern struct {
	Base string
	Data []int
}

// ParsePattern reads a pattern written like an event, "deq.0".
func ParsePattern(s string) Pattern {
	base, data := SplitName(s)
	return Pattern{Base: base, Data: data}
}

func (p Pattern) String() string {
	var sb strings.Builder
	sb.WriteString(p.Base)
	for _, d := range p.Data {
		sb.WriteByte('.')
		sb.WriteString(strconv.Itoa(d))
	}
	return sb.String()
}

// Match reports whether event e of table t matches p. Tau matches nothing.
func (p Pattern) Match(t *EventTable, e Event) bool {
	if e == Tau {
		return false
	}
	t.mu.RLock()
	base, data := t.bases[e], t.data[e]
	t.mu.RUnlock()
	if base != p.Base || len(data) < len(p.Data) {
		return false
	}
	for i, d := range p.Data {
		if data[i] != d {
			return false
		}
	}
	return true
}
