package relax

import (
	"errors"
	"strings"
	"testing"

	"github.com/quasar-verify/quasar/lts"
)

func TestParseConfig(t *testing.T) {
	cases := []struct {
		text string
		want string // canonical rendering (Config.String)
	}{
		{"2", "2"},
		{"0", "0"},
		{"2 on {deq}", "2 on {deq}"},
		{"2 on {deq} barrier {deq.0}", "2 on {deq} barrier {deq.0}"},
		{"2 barrier {deq.0} on {deq}", "2 on {deq} barrier {deq.0}"},
		{"{deq: 2, pop: 1} barrier {deq.0}", "{deq: 2, pop: 1} barrier {deq.0}"},
		{"{deq: 2, {pop, push.1}: 1}", "{deq: 2, {pop, push.1}: 1}"},
		{"2 window", "2 window"},
		{"  1 on { deq , enq.-1 }  window ", "1 on {deq, enq.-1} window"},
		{"1 on {deq} barrier {deq.0} complete", "1 on {deq} barrier {deq.0} complete"},
		{"1 exact", "1"},
	}
	for _, c := range cases {
		cfg, err := ParseConfig(c.text)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if got := cfg.String(); got != c.want {
			t.Errorf("%q: got %q, want %q", c.text, got, c.want)
		}
		again, err := ParseConfig(cfg.String())
		if err != nil || again.String() != cfg.String() {
			t.Errorf("%q: round trip gives %q, %v", c.text, again.String(), err)
		}
	}
	// Structure of one config.
	cfg := mustParse(t, "{deq: 2, pop: 1} barrier {deq.0}")
	if len(cfg.Classes) != 2 || cfg.Classes[0].Bound != 2 || cfg.Classes[1].Patterns[0].Base != "pop" ||
		len(cfg.Barriers) != 1 || cfg.Barriers[0].Data[0] != 0 || cfg.Mode != Exact {
		t.Errorf("parsed %+v", cfg)
	}
}

func TestParseConfigErrors(t *testing.T) {
	cases := []struct {
		text string
		col  int
		msg  string
	}{
		{"", 1, "expected quasi factor"},
		{"x", 1, "expected quasi factor"},
		{"2 on", 5, "expected \"{\""},
		{"2 on {}", 7, "expected an event pattern"},
		{"2 on {deq", 10, "expected \"}\""},
		{"2 on {deq} on {enq}", 12, "repeated on"},
		{"2 sideways", 3, "expected on, barrier, window, exact or complete"},
		{"{deq 2}", 6, "expected \":\""},
		{"{deq: 2} on {x}", 10, "needs a single quasi factor"},
		{"2 window exact", 10, "window and exact both given"},
		{"{deq: 1, pop: 2} window", 1, "window mode takes one quasi factor"},
		{"1 window complete", 1, "complete mode applies to exact mode only"},
		{"9 window", 1, "too large"},
		{"2 on {deq.}", 7, "malformed event pattern"},
		{"2 ; 3", 3, "expected on, barrier"},
		{"99999999999999999999", 1, "too large"},
	}
	for _, c := range cases {
		_, err := ParseConfig(c.text)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: error %v, want a SyntaxError", c.text, err)
			continue
		}
		if se.Col != c.col || !strings.Contains(se.Msg, c.msg) {
			t.Errorf("%q: got col %d %q, want col %d containing %q", c.text, se.Col, se.Msg, c.col, c.msg)
		}
	}
}

func TestValidate(t *testing.T) {
	bad := []Config{
		{All: -1},
		{All: 1, Classes: []Class{{Bound: 1}}},
		{Classes: []Class{{Bound: 1}}},
		{Mode: 7},
		{All: MaxExactBound + 1},
	}
	for _, c := range bad {
		if err := c.Validate(); err == nil {
			t.Errorf("%+v: no error", c)
		}
		if _, err := New(nil, c); err == nil {
			t.Errorf("%+v: New accepted it", c)
		}
	}
	if err := (Config{}).Validate(); err != nil {
		t.Errorf("zero config: %v", err)
	}
}

// FuzzParseConfig: errors are fine, panics are bugs; what parses prints
// back to itself.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{"2", "2 on {deq}", "2 on {deq} barrier {deq.0}", "{deq: 2, pop: 1} barrier {deq.0}",
		"{deq: 2, {pop, push.1}: 1}", "2 window", "1 on {deq} barrier {deq.0} complete", "{", "2 on {a.-1}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		cfg, err := ParseConfig(text)
		if err != nil {
			return
		}
		again, err := ParseConfig(cfg.String())
		if err != nil || again.String() != cfg.String() {
			t.Fatalf("%q -> %q -> %q, %v", text, cfg.String(), again.String(), err)
		}
	})
}

// TestBadInput: foreign events and unknown states give no panic.
func TestBadInput(t *testing.T) {
	table := lts.NewEventTable()
	spec := queueSpec(table, 2, 2)
	for _, text := range []string{"1 on {deq} barrier {deq.0}", "1 window"} {
		r := mustNew(t, spec, mustParse(t, text))
		s := r.Start(nil)[0]
		for _, e := range []lts.Event{lts.Tau, 9999} {
			if ts, err := r.Step(s, e, nil); err != nil || len(ts) != 0 {
				t.Errorf("%s: Step(start, %d) = %v, %v", text, e, ts, err)
			}
			if ok, err := Admits(spec, r.Config(), []lts.Event{e}); ok || err != nil {
				t.Errorf("%s: Admits(%d) = %v, %v", text, e, ok, err)
			}
		}
		if _, err := r.Step(12345, 1, nil); err == nil {
			t.Errorf("%s: Step on an unknown state: no error", text)
		}
		if _, err := r.Enabled(12345, nil); err == nil {
			t.Errorf("%s: Enabled on an unknown state: no error", text)
		}
	}
}

// TestExpansionLimit: an expansion that is too large ends in an error
// wrapping lts.ErrLimit, not a hang.
func TestExpansionLimit(t *testing.T) {
	defer func(n int) { maxExpansion = n }(maxExpansion)
	maxExpansion = 1000
	defer func(n int) { maxAdmitsSteps = n }(maxAdmitsSteps)
	maxAdmitsSteps = 1000
	// Window mode reads the start state's events after pulling up to 3
	// events: 9^4 spec paths with 8 values.
	for _, c := range []struct {
		text string
		vals int
	}{{"3 window", 8}, {"40", 3}} {
		table := lts.NewEventTable()
		spec := queueSpec(table, c.vals, 3)
		tr := trace(table, "enq1 enq2 enq3 deq3 deq2 deq1 enq1 enq2 enq3 deq1 deq3 deq2 deq.0 deq7")
		text := c.text
		cfg := mustParse(t, text)
		r := mustNew(t, spec, cfg)
		_, err := r.Enabled(r.Start(nil)[0], nil)
		if !errors.Is(err, lts.ErrLimit) {
			t.Errorf("%s: error %v, want one wrapping lts.ErrLimit", text, err)
		}
		_, err = Admits(spec, cfg, tr)
		if !errors.Is(err, lts.ErrLimit) {
			t.Errorf("%s: Admits error %v, want one wrapping lts.ErrLimit", text, err)
		}
	}
}
