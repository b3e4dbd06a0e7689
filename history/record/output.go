package record

import (
	"bufio"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/quasar-verify/quasar/history"
)

// snapshot returns the tickets of the completely written events in history
// order: by clock stamp, ties by ticket (see the package doc).
func (r *Recorder) snapshot() []uint64 {
	n := r.next.Load()
	ts := make([]uint64, 0, n)
	for t := uint64(0); t < n; t++ {
		if r.slot(t).done.Load() {
			ts = append(ts, t)
		}
	}
	slices.SortStableFunc(ts, func(a, b uint64) int {
		return cmp.Compare(r.slot(a).ns, r.slot(b).ns)
	})
	return ts
}

// History returns the operations recorded so far, in invocation order, with
// Call and Return in nanoseconds since New. An operation without a
// completion (or completed by Info) is pending. Values are converted by
// Value. Call it once the recorded goroutines are done: events still being
// written are left out.
func (r *Recorder) History() *history.History {
	ts := r.snapshot()
	h := &history.History{Source: "recorder"}
	index := make(map[uint64]int, len(ts)/2+1)
	for _, t := range ts {
		e := r.slot(t)
		if e.kind == kindInvoke {
			index[t] = len(h.Ops)
			h.Ops = append(h.Ops, history.Op{
				ID: len(h.Ops), Process: e.process, F: e.f, Input: Value(e.value),
				Status: history.Info, Call: e.ns, Return: history.Pending,
			})
			continue
		}
		i, ok := index[e.ref]
		if !ok {
			continue // the invocation is still being written
		}
		op := &h.Ops[i]
		switch e.kind {
		case kindOk:
			op.Status, op.Return, op.Output = history.Ok, e.ns, Value(e.value)
		case kindFail:
			op.Status, op.Return = history.Fail, e.ns
		case kindInfo:
			op.Status = history.Info // stays pending
		}
	}
	return h
}

// WriteTo writes the events recorded so far in our JSON Lines format, one
// event per line in history order:
//
//	{"process": 0, "type": "invoke", "f": "enq", "value": 3, "time": 1200}
//	{"process": 0, "type": "ok", "f": "enq", "value": null, "time": 1500}
func (r *Recorder) WriteTo(w io.Writer) (int64, error) {
	cw := &countWriter{w: w}
	bw := bufio.NewWriter(cw)
	var buf []byte
	for _, t := range r.snapshot() {
		e := r.slot(t)
		buf = buf[:0]
		buf = append(buf, `{"process": `...)
		buf = strconv.AppendInt(buf, int64(e.process), 10)
		buf = append(buf, `, "type": "`...)
		buf = append(buf, kindName[e.kind]...)
		buf = append(buf, `", "f": `...)
		buf = appendString(buf, e.f)
		buf = append(buf, `, "value": `...)
		buf = AppendJSON(buf, Value(e.value))
		buf = append(buf, `, "time": `...)
		buf = strconv.AppendInt(buf, e.ns, 10)
		buf = append(buf, "}\n"...)
		if _, err := bw.Write(buf); err != nil {
			return cw.n, err
		}
	}
	err := bw.Flush()
	return cw.n, err
}

var kindName = [...]string{kindInvoke: "invoke", kindOk: "ok", kindFail: "fail", kindInfo: "info"}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// AppendJSON appends v in JSON: null, 3, "x", true, [1, 2].
func AppendJSON(buf []byte, v history.Value) []byte {
	switch v.Kind() {
	case history.IntKind:
		n, _ := v.Int()
		return strconv.AppendInt(buf, n, 10)
	case history.StringKind:
		s, _ := v.Str()
		return appendString(buf, s)
	case history.BoolKind:
		b, _ := v.Bool()
		return strconv.AppendBool(buf, b)
	case history.ListKind:
		l, _ := v.List()
		buf = append(buf, '[')
		for i, e := range l {
			if i > 0 {
				buf = append(buf, ", "...)
			}
			buf = AppendJSON(buf, e)
		}
		return append(buf, ']')
	}
	return append(buf, "null"...)
}

func appendString(buf []byte, s string) []byte {
	b, _ := json.Marshal(s) // a string always marshals
	return append(buf, b...)
}

// Value converts a Go value given to Invoke or Return: nil; signed and
// unsigned integers (unsigned ones above MaxInt64 become strings); strings;
// booleans; history.Value; slices of these (lists). Anything else becomes
// the string fmt.Sprint gives.
func Value(v any) history.Value {
	switch x := v.(type) {
	case nil:
		return history.Nil()
	case history.Value:
		return x
	case int:
		return history.Int(int64(x))
	case int8:
		return history.Int(int64(x))
	case int16:
		return history.Int(int64(x))
	case int32:
		return history.Int(int64(x))
	case int64:
		return history.Int(x)
	case uint:
		return fromUint(uint64(x))
	case uint8:
		return history.Int(int64(x))
	case uint16:
		return history.Int(int64(x))
	case uint32:
		return history.Int(int64(x))
	case uint64:
		return fromUint(x)
	case string:
		return history.Str(x)
	case bool:
		return history.Bool(x)
	case []any:
		return listOf(x)
	case []int:
		return listOf(x)
	case []int64:
		return listOf(x)
	case []string:
		return listOf(x)
	case []history.Value:
		return history.List(x...)
	}
	return history.Str(fmt.Sprint(v))
}

func fromUint(u uint64) history.Value {
	if u > 1<<63-1 {
		return history.Str(strconv.FormatUint(u, 10))
	}
	return history.Int(int64(u))
}

func listOf[T any](xs []T) history.Value {
	l := make([]history.Value, len(xs))
	for i, x := range xs {
		l[i] = Value(x)
	}
	return history.List(l...)
}
