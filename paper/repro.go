package paper

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/quasar-verify/quasar/internal/budget"
	"github.com/quasar-verify/quasar/lts"
	"github.com/quasar-verify/quasar/models"
)

// Tables that Run knows.
const (
	Table1 = "1"
	Table3 = "3"
	Table4 = "4"
	Fig8   = "fig8"
)

// Options configure a reproduction. The zero value runs everything with the
// default limits.
type Options struct {
	// Tables selects "1", "3", "4" and/or "fig8"; empty means all of them.
	Tables []string
	// MaxSeconds is the time limit of one row (default 60). A row that hits
	// it is reported unknown with its figures so far.
	MaxSeconds float64
	// MaxBytes is the memory budget of one row (default 4 GiB, the paper's
	// limit).
	MaxBytes int64
	// Filter, if set, keeps only the rows it accepts (before they run).
	Filter func(*Row) bool
	// Workers is the number of search workers of each row (default 1: PAT
	// searches with one thread, and on the shared 2-core machine of our
	// runs a second worker made the rows slower, not faster).
	Workers int
	// Progress, if set, is called before and after each row.
	Progress func(r *Row, done bool)
}

// Row is one line of a reproduced table.
type Row struct {
	Table  string `json:"table"`           // "1", "3", "4" or "fig8"
	Class  string `json:"class,omitempty"` // Table 3's class
	Model  string `json:"model"`           // the library model
	Params string `json:"params"`          // its parameters, "qf=2 seg=1"
	QF     int    `json:"qf"`
	Seg    int    `json:"seg,omitempty"`
	// Method: "manual" (refines ClusterSpec), "exact", "window", or "lin"
	// (linearizability: the invocation/response model refines its spec).
	Method string `json:"method"`
	Assert string `json:"assert"` // the assertion checked
	// Expected is the model's `// expect:` verdict; Paper is the paper's
	// verdict (Table 3, or valid for Table 1: the paper reports success).
	Expected lts.Verdict `json:"expected"`
	Paper    lts.Verdict `json:"paper_verdict"`

	Verdict     lts.Verdict `json:"verdict"`
	Reason      string      `json:"reason,omitempty"`
	States      int64       `json:"states"`
	Transitions int64       `json:"transitions"`
	Seconds     float64     `json:"seconds"`
	// Runs is the number of runs whose median is Seconds (1: a single run).
	Runs      int   `json:"runs,omitempty"`
	PeakBytes int64 `json:"peak_bytes"`
	// Symmetry is the number of threads whose renamings the refinement
	// search factored out (States then counts orbits), or 0.
	Symmetry int `json:"symmetry,omitempty"`
	// PaperFigures are the paper's time, states and transitions (PAT).
	PaperFigures Figures `json:"paper"`
	Err          string  `json:"error,omitempty"`

	params map[string]int
}

// Speedup is the paper's time over ours: 0 when either is missing or when
// the verdicts differ (the two checks then did different work).
func (r *Row) Speedup() float64 {
	if r.PaperFigures.MOut || r.PaperFigures.Seconds == 0 || r.Verdict == lts.Unknown || r.Err != "" || r.Verdict != r.Paper {
		return 0
	}
	return r.PaperFigures.Seconds / max(r.Seconds, 1e-6)
}

// Report is the outcome of a reproduction.
type Report struct {
	Machine string `json:"machine"`
	// Load is the system load average when the run started: the machine
	// may be shared, and the times depend on it.
	Load       string  `json:"load,omitempty"`
	Go         string  `json:"go"`
	Date       string  `json:"date"`
	MaxSeconds float64 `json:"max_seconds"`
	Workers    int     `json:"workers"`
	MaxBytes   int64   `json:"max_bytes"`
	Rows       []*Row  `json:"rows"`
}

// Rows lists the rows of the selected tables without running them.
func Rows(opt Options) []*Row {
	want := map[string]bool{}
	for _, t := range opt.Tables {
		want[t] = true
	}
	all := len(want) == 0
	var rows []*Row
	if all || want[Table1] {
		for _, t := range table1 {
			// track=1: the data-independence reduction, whose verdict is
			// the verdict for any number of distinct values (docs/models.md).
			rows = append(rows, &Row{Table: Table1, Model: "segqueue", QF: t.QF, Seg: t.Seg, Method: "manual",
				Paper: lts.Valid, PaperFigures: t.Figures, params: map[string]int{"qf": t.QF, "seg": t.Seg, "track": 1}})
		}
	}
	if all || want[Table3] {
		for _, t := range table4 {
			paper := lts.Unknown // not in Table 3
			switch t.Lin {
			case 1:
				paper = lts.Valid
			case 0:
				paper = lts.Invalid
			}
			rows = append(rows, &Row{Table: Table3, Class: t.Class, Model: t.Model, QF: t.QF, Seg: t.Params["seg"], Method: "lin",
				Paper: paper, params: t.Params})
		}
	}
	if all || want[Table4] {
		for _, method := range []string{"exact", "window"} {
			for _, t := range table4 {
				paper := lts.Invalid
				switch {
				case t.Lin < 0:
					paper = lts.Unknown // not in Table 3
				case t.Quasi:
					paper = lts.Valid
				}
				r := &Row{Table: Table4, Class: t.Class, Model: t.Model, QF: t.QF, Seg: t.Params["seg"], Method: method,
					Paper: paper, params: t.Params}
				if method == "exact" {
					r.PaperFigures = t.Figures // the paper has one algorithm; its figures go beside exact mode
				}
				rows = append(rows, r)
			}
		}
	}
	if all || want[Fig8] {
		for seg := 1; seg <= 4; seg++ {
			for _, method := range []string{"manual", "exact", "window"} {
				rows = append(rows, &Row{Table: Fig8, Model: "segqueue", QF: 2, Seg: seg, Method: method,
					Paper: lts.Valid, PaperFigures: fig8Paper(method, seg), params: map[string]int{"qf": 2, "seg": seg}})
			}
		}
	}
	for _, r := range rows {
		r.Params = formatParams(r.params)
	}
	if opt.Filter != nil {
		kept := rows[:0]
		for _, r := range rows {
			if opt.Filter(r) {
				kept = append(kept, r)
			}
		}
		rows = kept
	}
	return rows
}

// fig8Paper returns the paper's time for Fig. 8: Table 1 (QF 2) for the
// manual approach and Table 4 (Quasi queue (3), (6), (9)) for the automatic one.
func fig8Paper(method string, seg int) Figures {
	switch method {
	case "manual":
		for _, t := range table1 {
			if t.QF == 2 && t.Seg == seg {
				return t.Figures
			}
		}
	case "exact":
		for _, t := range table4 {
			if t.Model == "segqueue" && t.QF == 2 && t.Params["seg"] == seg {
				return t.Figures
			}
		}
	}
	return Figures{}
}

// Run checks the rows of the selected tables, one after the other (each
// check may use every core).
func Run(ctx context.Context, opt Options) (*Report, error) {
	if opt.MaxSeconds <= 0 {
		opt.MaxSeconds = 60
	}
	if opt.MaxBytes <= 0 {
		opt.MaxBytes = 4 << 30
	}
	if opt.Workers <= 0 {
		opt.Workers = 1
	}
	rep := &Report{Machine: machine(), Go: runtime.Version() + " " + runtime.GOOS + "/" + runtime.GOARCH,
		Load: loadAverage(), Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), MaxSeconds: opt.MaxSeconds, MaxBytes: opt.MaxBytes, Workers: opt.Workers}
	limits := lts.Limits{Timeout: time.Duration(opt.MaxSeconds * float64(time.Second)), MaxBytes: opt.MaxBytes}
	workers := opt.Workers
	// The collector as `quasar check` sets it, so that rows time the CLI.
	defer budget.TuneGC(opt.MaxBytes)()
	// Fig. 8 repeats rows of Tables 1 and 4: a check is run once.
	done := map[string]*Row{}
	for _, r := range Rows(opt) {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		if opt.Progress != nil {
			opt.Progress(r, false)
		}
		key := r.Model + " " + r.Params + " " + r.Method
		if d, ok := done[key]; ok {
			r.Assert, r.Expected, r.Verdict, r.Reason, r.Err = d.Assert, d.Expected, d.Verdict, d.Reason, d.Err
			r.States, r.Transitions, r.Seconds, r.Runs, r.PeakBytes, r.Symmetry = d.States, d.Transitions, d.Seconds, d.Runs, d.PeakBytes, d.Symmetry
		} else {
			// Start each row from a collected heap, so that its peak memory
			// is its own.
			runtime.GC()
			debug.FreeOSMemory()
			runRow(ctx, r, limits, workers)
			done[key] = r
		}
		rep.Rows = append(rep.Rows, r)
		if opt.Progress != nil {
			opt.Progress(r, true)
		}
	}
	return rep, nil
}

// runRow generates the row's model, finds its assertion and checks it.
func runRow(ctx context.Context, r *Row, limits lts.Limits, workers int) {
	name, src, err := models.Generate(r.Model, r.params)
	if err != nil {
		r.Err, r.Verdict = err.Error(), lts.Unknown
		return
	}
	want := assertionFor(r)
	index, found := findAssert(src, want)
	if found == nil && r.Method == "window" {
		// The model asserts no window check (its verdict was not reasoned
		// out, see the model): check the exact assertion's processes in
		// window mode anyway, with no expectation.
		if _, exact := findAssert(src, assertionFor(&Row{Method: "exact", QF: r.QF})); exact != nil {
			i, j := strings.Index(exact.Text, "<quasi"), strings.Index(exact.Text, ">")
			text := exact.Text[:i] + fmt.Sprintf("<quasi %d window>", r.QF) + exact.Text[j+1:]
			src = append(append(append([]byte(nil), src...), '\n'), text+"\n"...)
			index, found = findAssert(src, text)
		}
	}
	if found == nil {
		r.Err, r.Verdict = fmt.Sprintf("%s has no assertion containing %q", name, want), lts.Unknown
		return
	}
	r.Assert, r.Expected = found.Text, found.Verdict
	out, err := check(ctx, name, src, index, limits, workers)
	if err != nil {
		r.Err, r.Verdict = err.Error(), lts.Unknown
		return
	}
	r.Verdict, r.Reason = out.Verdict, out.Reason
	r.States, r.Transitions, r.Seconds, r.PeakBytes, r.Symmetry = out.States, out.Transitions, out.Seconds, out.PeakBytes, out.Symmetry
	if r.Verdict == lts.Unknown || out.Seconds >= shortRow {
		return
	}
	// A short row is timed again and reported with the median: one run of
	// a few milliseconds measures the machine's noise more than the check.
	times := []float64{out.Seconds}
	for total := out.Seconds; len(times) < maxRepeats && total < repeatBudget; {
		again, err := check(ctx, name, src, index, limits, workers)
		if err != nil || again.Verdict != out.Verdict || again.States != out.States || again.Transitions != out.Transitions {
			r.Err = fmt.Sprintf("a repeated run differs: %v, %d states, %d transitions (error %v)", again.Verdict, again.States, again.Transitions, err)
			return
		}
		times = append(times, again.Seconds)
		total += again.Seconds
	}
	sort.Float64s(times)
	r.Seconds, r.Runs = times[len(times)/2], len(times)
}

// Rows that take less than shortRow seconds are run again, up to maxRepeats
// times in all or until repeatBudget seconds are spent, and report the median.
const (
	shortRow     = 0.25
	maxRepeats   = 21
	repeatBudget = 1.0
)

// findAssert returns the first assertion of src whose text contains want,
// and its 1-based index among the assertions.
func findAssert(src []byte, want string) (int, *models.Expect) {
	for i, e := range models.Expectations(src) {
		if strings.Contains(e.Text, want) {
			return i + 1, &e
		}
	}
	return 0, nil
}

// assertionFor is the text that identifies the row's assertion in the model.
func assertionFor(r *Row) string {
	switch r.Method {
	case "manual":
		return "refines ClusterSpec()"
	case "window":
		return fmt.Sprintf("refines<quasi %d window>", r.QF)
	case "lin":
		return "ImplIR() refines"
	}
	return fmt.Sprintf("refines<quasi %d on", r.QF)
}

// outcome is what a check reports for one assertion.
type outcome struct {
	Verdict     lts.Verdict
	Reason      string
	States      int64
	Transitions int64
	Seconds     float64
	PeakBytes   int64
	Symmetry    int
}

func formatParams(p map[string]int) string {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, p[k]))
	}
	return strings.Join(parts, " ")
}

// machine describes the hardware the figures were measured on.
func machine() string {
	cpu := ""
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && k == "MemTotal" {
				var kb int64
				fmt.Sscan(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), &kb)
				mem = fmt.Sprintf(", %.0f GB RAM", float64(kb)/(1<<20))
				break
			}
		}
	}
	if cpu == "" {
		cpu = "unknown CPU"
	}
	return fmt.Sprintf("%s, %d logical CPUs%s, %s", cpu, runtime.NumCPU(), mem, runtime.GOOS)
}

// loadAverage is the 1-, 5- and 15-minute load averages, if the system says.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}
