// Package view renders a checked history as one self-contained HTML page,
// made to understand a failure: it opens zoomed on the violation.
//
// The page has three parts. A header gives the verdict in the words of
// "quasar history check" (verdict, property, model, reason). A timeline
// draws every operation of the history as a bar from invocation to
// completion, one lane per process that has operations, lanes grouped by
// partition (key) for partitioned models, under a time axis; it is drawn
// by a small embedded script that keeps only the visible part of the
// history in the DOM (bars narrower than a few pixels merge into density
// bars; a label is drawn only where it fits inside its bar, everything
// else has a tooltip), so zoom and pan stay fast on histories of 10,000+
// operations. Tables then list what the CLI prints: the longest
// linearizable prefix found and the operation that cannot be linearized
// next, the minimal test case, the partitions.
//
// The timeline draws the order the engine found: for a valid history (or
// partition) its witness linearization, for an invalid one the longest
// linearizable prefix of the reported failure. Each operation of the order
// gets a linearization point inside its interval (linPoints: the midpoint
// of the interval the real-time order leaves it), and a line joins the
// points in order.
//
// Operations are named by the line of their invocation in the file, as the
// CLI names them (OpText); operations of histories built in code, which
// have no line, by their index ("op #3").
package view

import (
	"cmp"
	"embed"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/lts"
)

// Options configure HTML. The zero value works.
type Options struct {
	// Title of the page; default the history's Source.
	Title string
	// Model and Property name the check as the CLI does: "queue",
	// "linearizability" (the default) or "quasi-linearizability SPEC".
	Model, Property string
}

//go:embed page.tmpl view.css view.js
var assets embed.FS

var pageTmpl = template.Must(template.New("page.tmpl").Funcs(template.FuncMap{
	"css": func(name string) template.CSS { return template.CSS(asset(name)) },
	"js":  func(name string) template.JS { return template.JS(asset(name)) },
}).ParseFS(assets, "page.tmpl"))

func asset(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err) // embedded: cannot fail
	}
	return string(b)
}

// HTML writes a self-contained page (inline CSS and script, no external
// asset) that shows the check res of h, and the minimal test case loc if
// it is non-nil. res may be nil (the history is drawn without a verdict).
func HTML(w io.Writer, h *history.History, res *history.Result, loc *history.Localization, opt Options) error {
	return pageTmpl.Execute(w, build(h, res, loc, opt))
}

// OpText renders operation id of h as the CLI does: "p0 deq() -> 2 (line 5)".
func OpText(h *history.History, id int) string {
	if id >= 0 && id < len(h.Ops) {
		o := &h.Ops[id]
		if o.Line > 0 {
			return fmt.Sprintf("%s (line %d)", o, o.Line)
		}
		return o.String()
	}
	return fmt.Sprintf("op %d", id)
}

// ViolatingPrefix names the violating prefix of a localisation as the CLI
// does: "shortest violating prefix", unless a shorter prefix ran out of
// its budget (undecided lists such lengths, in events, increasing).
func ViolatingPrefix(undecided []int, prefixEvents int) string {
	if len(undecided) > 0 && undecided[0] < prefixEvents {
		return fmt.Sprintf("violating prefix (a shorter one may exist: the check of the first %d events ran out of budget)", undecided[0])
	}
	return "shortest violating prefix"
}

// Roles of operations, as sent to the script (Data.Role).
const (
	roleContext = iota
	roleSeq     // sequential prefix of the test case
	roleCore    // concurrent core
	roleSuffix  // revealing suffix
)

// page is what the template renders.
type page struct {
	Title    string
	Verdict  string // valid, invalid, unknown
	Summary  string // "linearizability w.r.t. queue, 3 operations"
	Reason   string
	Failure  *failureView
	Loc      *locView
	Order    *orderView // valid: the witness
	Parts    []partView // partitioned histories only
	TimeNote string
	Data     data
}

// row is one operation in a table.
type row struct {
	ID   int
	Step int // 1-based position in an order; 0 if none
	Text string
}

type failureView struct {
	Partition string
	Len       int   // operations in the prefix
	Shown     []row // its last ones
	State     string
	Blocked   *row
}

type locView struct {
	Verdict, Reason         string
	Prefix                  string // ViolatingPrefix
	PrefixOps, PrefixEvents int
	Revealing               string
	Size                    int
	Parts                   []locPart
	Recheck                 string // the re-check's reason
	Found                   bool   // a test case was found
}

type locPart struct {
	Name string // as the CLI prints it
	Role string // css class
	Rows []row
}

type orderView struct {
	Len   int
	Shown []row // its first ones
}

type partView struct {
	Name     string
	Ops      int
	Verdict  string
	Reason   string
	Reported bool // the partition of the CLI's failure
}

// data is the history as the script draws it. Times are relative to the
// first invocation so that nanosecond clocks stay exact in JavaScript
// numbers; arrays are indexed by operation ID (= index in h.Ops).
type data struct {
	Unit    string   `json:"unit"` // "ns" or "event" (the file has no times)
	End     int64    `json:"end"`  // the last time of the history
	Groups  []group  `json:"groups"`
	Lanes   []lane   `json:"lanes"`
	Lane    []int    `json:"lane"`
	Call    []int64  `json:"call"`
	Ret     []int64  `json:"ret"`    // -1: pending (info or no completion)
	Status  []int    `json:"status"` // history.Status
	Role    []int    `json:"role"`
	Line    []int    `json:"line"`
	Text    []string `json:"text"` // o.String() without the process
	Blocked []int    `json:"blocked"`
	Chains  []chain  `json:"chains"`
	Focus   [2]int64 `json:"focus"` // the time span to open on
}

type group struct {
	Title     string `json:"title"`
	Verdict   string `json:"verdict"`
	Reason    string `json:"reason,omitempty"` // why not decided
	Collapsed bool   `json:"collapsed"`
}

type lane struct {
	Group int    `json:"group"`
	Label string `json:"label"`
}

// chain is an order of operations drawn through linearization points.
type chain struct {
	Kind string  `json:"kind"` // "witness" or "prefix"
	Ops  []int   `json:"ops"`
	At   []int64 `json:"at"`
}

func build(h *history.History, res *history.Result, loc *history.Localization, opt Options) *page {
	pg := &page{Title: opt.Title, Verdict: lts.Unknown.String()}
	if pg.Title == "" {
		pg.Title = "history check"
		if h.Source != "" {
			pg.Title = h.Source
		}
	}
	prop := opt.Property
	if prop == "" {
		prop = "linearizability"
	}
	pg.Summary = prop
	if opt.Model != "" {
		pg.Summary += " w.r.t. " + opt.Model
	}
	pg.Summary += fmt.Sprintf(", %d operations", len(h.Ops))
	var parts []history.PartitionResult
	var fail *history.Failure
	if res != nil {
		pg.Verdict, pg.Reason, fail = res.Verdict.String(), res.Reason, res.Failure
		parts = res.Partitions
		if len(parts) == 0 && (res.Witness != nil || fail != nil) {
			parts = []history.PartitionResult{{Verdict: res.Verdict, Witness: res.Witness, Failure: fail}}
		}
	}
	d := &pg.Data
	d.Unit = timeUnit(h)
	pg.TimeNote = "time since the first invocation"
	if d.Unit == "event" {
		pg.TimeNote = "the file has no times: the axis counts its events"
	}
	base := int64(0)
	if len(h.Ops) > 0 {
		base = h.Ops[0].Call
	}
	n := len(h.Ops)
	d.Lane, d.Call, d.Ret = make([]int, n), make([]int64, n), make([]int64, n)
	d.Status, d.Role, d.Line, d.Text = make([]int, n), make([]int, n), make([]int, n), make([]string, n)
	for i := range h.Ops {
		o := &h.Ops[i]
		d.Call[i] = o.Call - base
		d.End = max(d.End, d.Call[i])
		d.Ret[i] = -1
		if o.Return != history.Pending {
			d.Ret[i] = o.Return - base
			d.End = max(d.End, d.Ret[i])
		}
		d.Status[i], d.Line[i] = int(o.Status), o.Line
		d.Text[i] = strings.TrimPrefix(o.String(), fmt.Sprintf("p%d ", o.Process))
	}

	// Groups: one per partition, the reported one first; collapsed when
	// another partition is the one that fails.
	reported := ""
	if fail != nil {
		reported = fail.Partition
	}
	partOf := make([]int, n) // op -> index into parts (0 if unpartitioned)
	order := make([]int, len(parts))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		ra, rb := parts[a].Name == reported, parts[b].Name == reported
		switch {
		case ra && !rb:
			return -1
		case rb && !ra:
			return 1
		}
		return 0
	})
	if len(parts) > 1 {
		for _, pi := range order {
			p := &parts[pi]
			for _, id := range p.Ops {
				if id >= 0 && id < n {
					partOf[id] = pi
				}
			}
			pv := partView{Name: p.Name, Ops: len(p.Ops), Verdict: p.Verdict.String(), Reason: p.Reason, Reported: fail != nil && p.Name == reported}
			pg.Parts = append(pg.Parts, pv)
		}
	}
	groupOf := map[int]int{} // part index -> group
	if len(parts) > 1 {
		for gi, pi := range order {
			groupOf[pi] = gi
			p := &parts[pi]
			g := group{Title: fmt.Sprintf("key %q", p.Name), Verdict: p.Verdict.String()}
			if p.Verdict == lts.Unknown {
				g.Reason = p.Reason
			}
			g.Collapsed = fail != nil && p.Name != reported
			d.Groups = append(d.Groups, g)
		}
	} else {
		d.Groups = []group{{}}
		groupOf[0] = 0
	}
	// Lanes: the processes that have operations, per group.
	type laneKey struct{ g, p int }
	lanes := map[laneKey]int{}
	var keys []laneKey
	for i := range h.Ops {
		k := laneKey{groupOf[partOf[i]], h.Ops[i].Process}
		if _, ok := lanes[k]; !ok {
			lanes[k] = 0
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b laneKey) int {
		return cmp.Or(cmp.Compare(a.g, b.g), cmp.Compare(a.p, b.p))
	})
	for i, k := range keys {
		lanes[k] = i
		d.Lanes = append(d.Lanes, lane{Group: k.g, Label: fmt.Sprintf("p%d", k.p)})
	}
	for i := range h.Ops {
		d.Lane[i] = lanes[laneKey{groupOf[partOf[i]], h.Ops[i].Process}]
	}

	// The orders the engine found.
	d.Chains = []chain{}
	for _, pi := range order {
		p := &parts[pi]
		switch {
		case p.Witness != nil:
			d.Chains = append(d.Chains, chain{Kind: "witness", Ops: p.Witness, At: linPoints(h, p.Witness, base)})
		case p.Failure != nil:
			d.Chains = append(d.Chains, chain{Kind: "prefix", Ops: p.Failure.Longest, At: linPoints(h, p.Failure.Longest, base)})
		}
	}
	if res != nil && res.Verdict == lts.Valid && res.Witness != nil {
		pg.Order = &orderView{Len: len(res.Witness)}
		for i, id := range res.Witness[:min(len(res.Witness), 10)] {
			pg.Order.Shown = append(pg.Order.Shown, row{id, i + 1, OpText(h, id)})
		}
	}

	// The failure, as the CLI prints it.
	d.Blocked = []int{}
	if fail != nil {
		fv := &failureView{Partition: fail.Partition, Len: len(fail.Longest), State: fail.State}
		for i := max(0, len(fail.Longest)-10); i < len(fail.Longest); i++ {
			fv.Shown = append(fv.Shown, row{fail.Longest[i], i + 1, OpText(h, fail.Longest[i])})
		}
		if fail.Blocked >= 0 {
			fv.Blocked = &row{ID: fail.Blocked, Text: OpText(h, fail.Blocked)}
			d.Blocked = append(d.Blocked, fail.Blocked)
		}
		pg.Failure = fv
	}
	if loc != nil {
		lv := &locView{Verdict: loc.Verdict.String(), Reason: loc.Reason, Found: loc.Verdict == lts.Invalid}
		if lv.Found {
			lv.Prefix = ViolatingPrefix(loc.Undecided, loc.PrefixEvents)
			lv.PrefixOps, lv.PrefixEvents, lv.Size = loc.PrefixOps, loc.PrefixEvents, len(loc.Sequential)+len(loc.Core)+len(loc.Suffix)
			if loc.Revealing >= 0 {
				lv.Revealing = OpText(h, loc.Revealing)
			}
			for _, part := range []struct {
				name, cls string
				role      int
				ids       []int
			}{{"sequential prefix", "seq", roleSeq, loc.Sequential}, {"concurrent core", "core", roleCore, loc.Core}, {"revealing suffix", "suffix", roleSuffix, loc.Suffix}} {
				if len(part.ids) == 0 {
					continue
				}
				lp := locPart{Name: part.name, Role: part.cls}
				for _, id := range part.ids {
					lp.Rows = append(lp.Rows, row{ID: id, Text: OpText(h, id)})
					if id >= 0 && id < n {
						d.Role[id] = part.role
					}
				}
				lv.Parts = append(lv.Parts, lp)
			}
			if loc.Result != nil {
				lv.Recheck = loc.Result.Reason
			}
		}
		pg.Loc = lv
	}
	d.Focus = focus(h, d, base)
	return pg
}

// focus is the time span the page opens on: the operations of the test
// case and the blocked one; else the end of the failed prefix and the
// blocked one; else (no violation) the first 12 operations.
func focus(h *history.History, d *data, base int64) [2]int64 {
	var ids []int
	for id, r := range d.Role {
		if r != roleContext {
			ids = append(ids, id)
		}
	}
	ids = append(ids, d.Blocked...)
	if len(ids) == len(d.Blocked) {
		for _, c := range d.Chains {
			if c.Kind == "prefix" {
				ids = append(ids, c.Ops[max(0, len(c.Ops)-3):]...)
			}
		}
	}
	if len(ids) == 0 {
		for i := range min(len(h.Ops), 12) {
			ids = append(ids, i)
		}
	}
	lo, hi := int64(1<<62), int64(-1<<62)
	for _, id := range ids {
		if id < 0 || id >= len(h.Ops) {
			continue
		}
		lo = min(lo, d.Call[id])
		end := d.Ret[id]
		if end < 0 { // pending: its invocation is what matters
			end = d.Call[id]
		}
		hi = max(hi, end)
	}
	if lo > hi {
		return [2]int64{0, d.End}
	}
	return [2]int64{lo, hi}
}

// linPoints gives each operation of order (a sequence that respects real
// time) a linearization point inside its interval, non-decreasing along the
// order: point i may lie anywhere between lo_i, the latest invocation among
// operations 0..i, and hi_i, the earliest completion among operations i..;
// lo_i <= hi_i because an operation placed before another cannot have been
// invoked after the other completed. The midpoint keeps points away from
// the bars' ends. Pending operations complete at end; times are relative
// to base.
func linPoints(h *history.History, order []int, base int64) []int64 {
	n := len(order)
	at := make([]int64, n)
	if n == 0 {
		return at
	}
	end := int64(0)
	for i := range h.Ops {
		end = max(end, h.Ops[i].Call-base)
		if h.Ops[i].Return != history.Pending {
			end = max(end, h.Ops[i].Return-base)
		}
	}
	call := func(id int) int64 { return h.Ops[id].Call - base }
	ret := func(id int) int64 {
		if r := h.Ops[id].Return; r != history.Pending {
			return r - base
		}
		return end
	}
	lo := make([]int64, n)
	run := int64(-1 << 62)
	for i, id := range order {
		run = max(run, call(id))
		lo[i] = run
	}
	run = 1 << 62
	for i := n - 1; i >= 0; i-- {
		run = min(run, ret(order[i]))
		// Clamp: a sequence that breaks real time still gets points in
		// its intervals (never expected from the engine).
		l, hi := max(lo[i], call(order[i])), max(run, lo[i])
		at[i] = min(max(l+(hi-l)/2, call(order[i])), ret(order[i]))
	}
	return at
}

// timeUnit tells a file without times (the reader numbers its events
// 1, 2, ...: every time is a distinct integer in 1..2n) from one with
// nanosecond times.
func timeUnit(h *history.History) string {
	n := int64(len(h.Ops))
	seen := map[int64]bool{}
	for i := range h.Ops {
		o := &h.Ops[i]
		for _, t := range []int64{o.Call, o.Return} {
			if t == history.Pending {
				continue
			}
			if t < 1 || t > 2*n || seen[t] {
				return "ns"
			}
			seen[t] = true
		}
	}
	if n == 0 {
		return "ns"
	}
	return "event"
}
