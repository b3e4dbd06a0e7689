package csp

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/lang"
	"github.com/quasar-verify/quasar/lts"
)

var (
	hashCompact = Compaction{Mode: HashCompact}
	// 8 MiB: a hash factor above 300 for the library's largest process
	// (179215 states), whose expected number of omissions is then about
	// 1e-4.
	bigBitstate = Compaction{Mode: Bitstate, BitstateBytes: 8 << 20}
)

// sameResult compares two results of one check: verdict, reason, value,
// counts, and the counterexample (events, who, variables), and fails with
// what differs.
func sameResult(t *testing.T, what string, want, got *Result, transitions bool) {
	t.Helper()
	if got.Verdict != want.Verdict || got.Reason != want.Reason || got.Value != want.Value || got.HasValue != want.HasValue {
		t.Errorf("%s: got %v %q %d, want %v %q %d", what, got.Verdict, got.Reason, got.Value, want.Verdict, want.Reason, want.Value)
	}
	if got.Stats.States != want.Stats.States || (transitions && got.Stats.Transitions != want.Stats.Transitions) {
		t.Errorf("%s: got %d states %d transitions, want %d, %d", what, got.Stats.States, got.Stats.Transitions, want.Stats.States, want.Stats.Transitions)
	}
	if (got.Err == nil) != (want.Err == nil) || got.Err != nil && got.Err.Error() != want.Err.Error() {
		t.Errorf("%s: error %v, want %v", what, got.Err, want.Err)
	}
	if fmt.Sprint(steps(got.Trace)) != fmt.Sprint(steps(want.Trace)) {
		t.Errorf("%s: trace\n%v\nwant\n%v", what, steps(got.Trace), steps(want.Trace))
	}
}

// steps is a trace without the state ids (which differ between sets).
func steps(tr []Step) []string {
	var out []string
	for _, s := range tr {
		out = append(out, fmt.Sprintf("%s/%s/%v", s.Event, s.Who, s.Vars))
	}
	return out
}

// TestCompactStateCounts: on every process an assertion of the library
// names (the processes of testdata/lts/statecounts.golden), hash compaction
// and bitstate hashing with a large array visit exactly the states and
// transitions of the exact search; the exact counts are the golden file's,
// which TestStateCounts pins. Hash compaction runs twice, the second
// time with its grows releasing the old table's pages (a page released
// before its slots were moved would lose states).
func TestCompactStateCounts(t *testing.T) {
	min0, block0 := releaseMin, releaseBlock
	rel0 := released.Load()
	defer func() {
		if runtime.GOOS == "linux" && released.Load() == rel0 {
			t.Errorf("no page released")
		}
	}()
	for _, am := range assertedModels(t, "../models/lib/*.csp", "../models/testdata/*.csp") {
		p, err := Compile(am.checked)
		if err != nil {
			t.Fatal(err)
		}
		for i, q := range am.procs {
			what := filepath.Base(am.path) + " " + am.texts[i]
			opt := Options{Limits: lts.Limits{MaxStates: 1 << 21, Timeout: time.Minute}}
			sys, err := p.Process(q)
			if err != nil {
				t.Fatal(err)
			}
			want, err := Explore(context.Background(), sys, opt)
			if err != nil || want.Verdict != lts.Valid {
				t.Fatalf("%s: %v %v", what, err, want.Reason)
			}
			for k, c := range []Compaction{hashCompact, hashCompact, bigBitstate} {
				sys, err := p.Process(q)
				if err != nil {
					t.Fatal(err)
				}
				o := opt
				o.Compact = c
				if k == 1 {
					// The grows give the old table's pages back by
					// blocks of 512 slots as they pass them.
					releaseMin, releaseBlock = 0, 512
				}
				got, err := Explore(context.Background(), sys, o)
				releaseMin, releaseBlock = min0, block0
				if err != nil {
					t.Fatalf("%s %s: %v", what, c.Mode, err)
				}
				sameResult(t, fmt.Sprintf("%s %s (releasing %v)", what, c.Mode, k == 1), want, got, true)
				if !got.Probabilistic || got.Coverage == nil {
					t.Errorf("%s %s: a complete exploration must be labelled probabilistic, with its coverage", what, c.Mode)
				}
			}
		}
	}
}

// TestCompactVerdicts: every single-process check (deadlock freedom,
// non-termination, determinism; with symmetry where CheckAssertion uses
// it) of every process the library's assertions name, and every
// single-process assertion of the library and of the pipeline's test
// models, gives under hash compaction and bitstate hashing (where
// supported) the verdict, the counts and the counterexample of the exact
// search, with 1 and 2 workers.
func TestCompactVerdicts(t *testing.T) {
	ctx := context.Background()
	models := assertedModels(t, "../models/lib/*.csp", "../models/testdata/*.csp", "../testdata/pipeline/*.csp")
	checks := []struct {
		kind lang.AssertKind
		f    func(context.Context, lts.System, Options) (*Result, error)
	}{
		{lang.KindDeadlockFree, DeadlockFree},
		{lang.KindNonTerminating, NonTerminating},
		{lang.KindDeterministic, Deterministic},
	}
	runs := 0
	for _, am := range models {
		p, err := Compile(am.checked)
		if err != nil {
			continue // the pipeline's models include bad ones
		}
		opt := Options{Limits: lts.Limits{MaxStates: 1 << 20, Timeout: time.Minute}}
		for i, q := range am.procs {
			what := filepath.Base(am.path) + " " + am.texts[i]
			for _, c := range checks {
				for _, sym := range []bool{false, true} {
					build := func() *Proc {
						if sym {
							s, _, err := p.SymmetricProcess(q)
							if err != nil {
								t.Fatal(err)
							}
							return s
						}
						s, err := p.Process(q)
						if err != nil {
							t.Fatal(err)
						}
						return s
					}
					if sym && build().Symmetry() == 0 {
						continue
					}
					want, err := c.f(ctx, build(), opt)
					if err != nil {
						t.Fatal(err)
					}
					for _, mode := range []Compaction{hashCompact, bigBitstate} {
						for _, w := range []int{1, 2} {
							o := opt
							o.Compact, o.Workers = mode, w
							got, err := c.f(ctx, build(), o)
							label := fmt.Sprintf("%s %s sym=%v %s w=%d", what, c.kind, sym, mode.Mode, w)
							if CompactSupports(c.kind, mode.Mode) != nil {
								if err == nil {
									t.Errorf("%s: want an error (unsupported)", label)
								}
								continue
							}
							if err != nil {
								t.Fatalf("%s: %v", label, err)
							}
							runs++
							// Bitstate's targets of visited states are not
							// their ids: the counts agree, the transitions too.
							sameResult(t, label, want, got, true)
							wantProb := want.Verdict == lts.Valid && want.Err == nil
							if got.Probabilistic != wantProb || got.Coverage == nil {
								t.Errorf("%s: probabilistic %v, want %v (verdict %v)", label, got.Probabilistic, wantProb, got.Verdict)
							}
						}
					}
				}
			}
		}
		// The model's own single-process assertions, through CheckAssertion.
		for _, a := range am.checked.Info.Asserts {
			if a.Kind == lang.KindDivergenceFree || CompactSupports(a.Kind, Bitstate) != nil && CompactSupports(a.Kind, HashCompact) != nil {
				continue
			}
			want, err := CheckAssertion(ctx, p, a, opt)
			if err != nil {
				continue
			}
			for _, mode := range []Compaction{hashCompact, bigBitstate} {
				o := opt
				o.Compact = mode
				got, err := CheckAssertion(ctx, p, a, o)
				label := fmt.Sprintf("%s:%d %s %s", filepath.Base(am.path), a.Pos().Line, a.Kind, mode.Mode)
				if CompactSupports(a.Kind, mode.Mode) != nil {
					if err == nil {
						t.Errorf("%s: want an error (unsupported)", label)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%s: %v", label, err)
				}
				runs++
				sameResult(t, label, want, got, true)
				exhaustive := want.Err == nil && (len(want.Trace) == 0 && want.Verdict != lts.Unknown || want.Verdict == lts.Valid && want.HasValue)
				if got.Probabilistic != exhaustive {
					t.Errorf("%s: probabilistic %v, want %v (verdict %v)", label, got.Probabilistic, exhaustive, got.Verdict)
				}
			}
		}
	}
	if runs < 300 {
		t.Errorf("only %d compact runs compared", runs)
	}
}

// A model with a deadlock deep in a state space of a few thousand states,
// and a reaches assertion with an optimum.
const compactModel = `
var x = 0;
var y = 0;
var z = 0;
P() = [x < 30] incx{x = x + 1} -> P() [] [x >= 30 && y < 40] incy{y = y + 1} -> P()
   [] [y > 0 && y < 40] decy{y = y - 1} -> P();
Q() = [z < 9] up{z = z + 1} -> Q() [] [z > 0] down{z = z - 1} -> Q() [] [y == 40] stuck -> Stop;
Sys() = P() ||| Q();
#define mid x == 30 && y == 17;
#define never y == 99;
#define always x >= 0;
#assert Sys() deadlockfree;
#assert Sys() reaches mid;
#assert Sys() reaches never;
#assert Sys() reaches always with max(y);
`

// TestCompactCounterexample: the deadlock of compactModel, found by both
// compact searches after their levels' bytes were released, is rebuilt to
// the exact search's counterexample; reaches' witness too, and reaches'
// negative answer and optimum are labelled probabilistic.
func TestCompactCounterexample(t *testing.T) {
	p := compileSrc(t, compactModel)
	as := p.info.Asserts
	ctx := context.Background()
	for k, a := range as {
		want, err := CheckAssertion(ctx, p, a, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, mode := range []Compaction{hashCompact, bigBitstate} {
			got, err := CheckAssertion(ctx, p, a, Options{Compact: mode})
			if err != nil {
				t.Fatal(err)
			}
			label := fmt.Sprintf("assertion %d %s", k+1, mode.Mode)
			sameResult(t, label, want, got, true)
			wantProb := []bool{false, false, true, true}[k]
			if got.Probabilistic != wantProb {
				t.Errorf("%s: probabilistic %v, want %v", label, got.Probabilistic, wantProb)
			}
		}
	}
	r, _ := CheckAssertion(ctx, p, as[0], Options{Compact: hashCompact})
	if r.Verdict != lts.Invalid || len(r.Trace) < 70 {
		t.Errorf("want a deadlock after at least 70 steps, got %v with %d", r.Verdict, len(r.Trace))
	}
}

// TestCompactRebuildFails: a path that does not replay (a wrong successor
// index, as a corrupted parent tree would give) is refused, never printed.
func TestCompactRebuildFails(t *testing.T) {
	p := compileSrc(t, compactModel)
	sys, err := p.Process(p.info.Asserts[0].Left)
	if err != nil {
		t.Fatal(err)
	}
	cp, err := sys.Compacted(hashCompact)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Explore(context.Background(), cp, Options{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cp.rebuild([]lts.State{cp.Initial(), 1}, []int{0, 7}); err == nil || !strings.Contains(err.Error(), "transitions") {
		t.Errorf("an index past the successors: got %v", err)
	}
	// A state outside the set: rebuild on a fresh set that holds only the
	// initial state.
	cp2, _ := sys.Compacted(hashCompact)
	if _, err := cp2.rebuild([]lts.State{cp2.Initial(), 1}, []int{0, 0}); err == nil || !strings.Contains(err.Error(), "not in the visited set") {
		t.Errorf("a state outside the set: got %v", err)
	}
}

// TestCompactOmissions: with 12-bit fingerprints or a 64-byte bit array,
// the compact searches of LinQueue() (3026 states) miss states, as the
// estimates say they would, and label the valid verdict probabilistic
// with the probability of an omission near 1.
func TestCompactOmissions(t *testing.T) {
	am := assertedModels(t, "../models/lib/demo.csp")[0]
	p, err := Compile(am.checked)
	if err != nil {
		t.Fatal(err)
	}
	q := am.procs[slices.Index(am.texts, "LinQueue()")]
	exact := func() int64 {
		sys, _ := p.Process(q)
		return explore(t, sys).Stats.States
	}()
	for _, c := range []Compaction{{Mode: HashCompact, FingerprintBits: 12}, {Mode: Bitstate, BitstateBytes: 64, Hashes: 2}} {
		sys, _ := p.Process(q)
		r, err := DeadlockFree(context.Background(), sys, Options{Compact: c})
		if err != nil {
			t.Fatal(err)
		}
		if r.Stats.States >= exact {
			t.Errorf("%s: %d states, want fewer than %d", c.Mode, r.Stats.States, exact)
		}
		if r.Verdict != lts.Valid || !r.Probabilistic || r.Coverage == nil || r.Coverage.Omission < 0.99 {
			t.Errorf("%s: %v probabilistic=%v coverage %+v", c.Mode, r.Verdict, r.Probabilistic, r.Coverage)
		}
		t.Logf("%s: %d of %d states, coverage %+v", c.Mode, r.Stats.States, exact, *r.Coverage)
	}
}

// TestCompactEstimates checks the assumption behind the printed
// probabilities, that the hash behaves as a random function on real state
// encodings: the fingerprint collisions among the exact states of the
// library's largest processes, at widths where a few hundred are expected,
// number C(n,2)/2^b within 5 standard deviations (Poisson); and inserting
// them into small bit arrays finds as many already-set states as the
// bitstate estimate E (the sum of (1-e^{-ki/m})^k) says.
func TestCompactEstimates(t *testing.T) {
	am := assertedModels(t, "../models/testdata/segqueue-buggy2.csp")[0]
	p, err := Compile(am.checked)
	if err != nil {
		t.Fatal(err)
	}
	sys, err := p.Process(am.procs[slices.Index(am.texts, "ImplIR()")])
	if err != nil {
		t.Fatal(err)
	}
	explore(t, sys)
	n := sys.NumStates()
	states := make([][]byte, n)
	for i := range n {
		states[i] = sys.raw(lts.State(i), nil)
	}
	within := func(what string, got, want float64) {
		t.Helper()
		if math.Abs(got-want) > 5*math.Sqrt(want)+1 {
			t.Errorf("%s: %v, expected %.1f", what, got, want)
		} else {
			t.Logf("%s: %v, expected %.1f", what, got, want)
		}
	}
	for _, b := range []int{24, 26, 28} {
		seen := map[uint64]int{}
		collisions := 0
		mask := uint64(1)<<b - 1
		for _, s := range states {
			fp := compactHash(s) & mask
			collisions += seen[fp]
			seen[fp]++
		}
		within(fmt.Sprintf("%d-bit fingerprints of %d states: colliding pairs", b, n), float64(collisions), float64(n)*float64(n-1)/2/math.Ldexp(1, b))
	}
	for _, c := range []struct {
		bytes int64
		k     int
	}{{1 << 16, 3}, {1 << 17, 2}, {1 << 15, 1}} {
		cs, err := newCompactStore(Compaction{Mode: Bitstate, BitstateBytes: c.bytes, Hashes: c.k})
		if err != nil {
			t.Fatal(err)
		}
		hits := 0
		for _, s := range states {
			before := cs.n
			cs.Intern(s)
			if cs.n == before {
				hits++
			}
			cs.forget(uint32(cs.n)) // keep no bytes
		}
		// The estimate counts over the insertions made (the new states).
		within(fmt.Sprintf("bitstate %d bytes k=%d: false hits", c.bytes, c.k), float64(hits), cs.coverage().ExpectedOmitted)
	}
}

// TestCompactLimits: the limits still end a compact search in unknown,
// with the statistics so far, and neither label is set then.
func TestCompactLimits(t *testing.T) {
	am := assertedModels(t, "../models/testdata/segqueue-buggy2.csp")[0]
	p, err := Compile(am.checked)
	if err != nil {
		t.Fatal(err)
	}
	q := am.procs[slices.Index(am.texts, "ImplIR()")]
	ctx := context.Background()
	for _, c := range []Compaction{hashCompact, bigBitstate} {
		for _, lim := range []lts.Limits{{MaxStates: 5000}, {Timeout: time.Millisecond}, {MaxBytes: 1 << 20}} {
			sys, _ := p.Process(q)
			r, err := DeadlockFree(ctx, sys, Options{Limits: lim, Compact: c})
			if err != nil {
				t.Fatal(err)
			}
			if r.Verdict != lts.Unknown || r.Reason == "" || r.Probabilistic || r.Stats.States == 0 {
				t.Errorf("%s %+v: %v %q probabilistic=%v %d states", c.Mode, lim, r.Verdict, r.Reason, r.Probabilistic, r.Stats.States)
			}
		}
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		sys, _ := p.Process(q)
		if r, _ := DeadlockFree(cctx, sys, Options{Compact: c}); r.Verdict != lts.Unknown {
			t.Errorf("%s cancelled: %v", c.Mode, r.Verdict)
		}
	}
}

// TestCompactRefusals: the checks a compact set cannot do say so.
func TestCompactRefusals(t *testing.T) {
	p := compileSrc(t, compactModel+"#assert Sys() divergencefree;\n#assert Sys() deterministic;\n")
	as := p.info.Asserts
	for _, c := range []struct {
		a    *lang.AssertDecl
		mode Compaction
		ok   bool
	}{
		{as[4], hashCompact, false}, {as[4], bigBitstate, false},
		{as[5], hashCompact, true}, {as[5], bigBitstate, false},
	} {
		_, err := CheckAssertion(context.Background(), p, c.a, Options{Compact: c.mode})
		if (err == nil) != c.ok {
			t.Errorf("%s %s: err %v, want ok=%v", c.a.Kind, c.mode.Mode, err, c.ok)
		}
		if err != nil && !strings.Contains(err.Error(), "applies to deadlockfree") {
			t.Errorf("%s %s: the error does not say what is supported: %v", c.a.Kind, c.mode.Mode, err)
		}
	}
	for _, c := range []Compaction{{Mode: Bitstate, BitstateBytes: 4}, {Mode: Bitstate, BitstateBytes: 64, Hashes: 99}, {Mode: HashCompact, FingerprintBits: 65}} {
		sys, _ := p.Process(as[0].Left)
		if _, err := sys.Compacted(c); err == nil {
			t.Errorf("%+v: want an error", c)
		}
	}
}
