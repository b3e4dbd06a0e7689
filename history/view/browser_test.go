package view

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/history/read"
	"github.com/quasar-verify/quasar/lts"
)

// The browser test renders pages in headless Chromium and checks in the DOM
// what a reader must see. It skips when no browser is found, unless
// QUASAR_BROWSER_TEST=1 (as in CI), which makes a missing browser a
// failure. QUASAR_BROWSER=path chooses the browser; QUASAR_VIEW_SHOTS=dir
// also keeps the screenshots there (they go to t.TempDir() otherwise).

func findBrowser(t *testing.T) string {
	t.Helper()
	cands := []string{os.Getenv("QUASAR_BROWSER"), "/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome", "headless-shell"}
	for _, c := range cands {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	msg := "no Chromium found (looked for $QUASAR_BROWSER, /usr/bin/chromium, chromium, chromium-browser, google-chrome, headless-shell); on Debian: apt-get install -y chromium"
	if os.Getenv("QUASAR_BROWSER_TEST") == "1" {
		t.Fatal(msg + "; QUASAR_BROWSER_TEST=1 requires the browser test")
	}
	t.Skip(msg + "; set QUASAR_BROWSER_TEST=1 to make this a failure")
	return ""
}

// browser starts one headless Chromium for the test, with flags that work
// without a network.
func browser(t *testing.T) context.Context {
	path := findBrowser(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 800),
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelC := chromedp.NewContext(actx)
	ctx, cancelT := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelT(); cancelC(); cancelA() })
	if err := chromedp.Do(ctx); err != nil { // start the browser
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// pageReport is what checkJS finds in the page.
type pageReport struct {
	FirstRenderMs float64   `json:"firstRenderMs"`
	Elements      int       `json:"elements"`
	Offscreen     []string  `json:"offscreen"`
	Labels        int       `json:"labels"`
	Overlaps      []string  `json:"overlaps"`
	AxisTicks     int       `json:"axisTicks"`
	LaneLabels    []string  `json:"laneLabels"`
	Witness       int       `json:"witness"`
	Prefix        int       `json:"prefix"`
	PageWidth     float64   `json:"pageWidth"`
	ViewWidth     float64   `json:"viewWidth"`
	Titles        []string  `json:"titles"` // tooltips of the focus operations
	ZoomInMs      float64   `json:"zoomInMs"`
	PanMs         float64   `json:"panMs"`
	FitAllMs      float64   `json:"fitAllMs"`
	FitElements   int       `json:"fitElements"`
	FitOverlaps   []string  `json:"fitOverlaps"`
	FitView       []float64 `json:"fitView"` // null entries (NaN) fail to decode
	FitBars       int       `json:"fitBars"`
}

// checkJS measures the page: focus operations inside the visible part of
// the timeline, overlapping labels, the axis, the lanes, and the time to
// render after zooming in, panning and zooming out to the whole history.
const checkJS = `(function (focus) {
  const v = window.quasarView, out = {};
  v.render();
  out.firstRenderMs = v.stats.firstRenderMs;
  const count = function () { return document.querySelectorAll('#plot *, #axis *').length; };
  out.elements = count();
  const lanes = document.getElementById('lanes').getBoundingClientRect();
  const vw = window.innerWidth, vh = window.innerHeight;
  const box = {left: lanes.left, right: Math.min(lanes.right, vw), top: Math.max(lanes.top, 0), bottom: Math.min(lanes.bottom, vh)};
  out.offscreen = []; out.titles = [];
  focus.forEach(function (id) {
    const g = document.querySelector('#plot g[data-op="' + id + '"]');
    if (!g) { out.offscreen.push(id + ': not drawn'); return; }
    out.titles.push(g.querySelector('title').textContent.split('\n')[0]);
    const b = g.querySelector('rect').getBoundingClientRect();
    if (b.left < box.left - 1 || b.right > box.right + 1 || b.top < box.top - 1 || b.bottom > box.bottom + 1)
      out.offscreen.push(id + ': ' + JSON.stringify([b.left, b.top, b.right, b.bottom]) + ' outside ' + JSON.stringify(box));
  });
  const overlaps = function () {
    const ax = document.getElementById('axis').getBoundingClientRect();
    const inside = function (b, c) { return b.right > c.left && b.left < c.right && b.bottom > c.top && b.top < c.bottom; };
    const ts = [];
    document.querySelectorAll('#plot text, #axis text').forEach(function (t) {
      const b = t.getBoundingClientRect();
      if (b.width > 0 && (inside(b, box) || inside(b, ax))) ts.push([t.textContent, b]);
    });
    const bad = [];
    for (let i = 0; i < ts.length; i++) for (let j = i + 1; j < ts.length; j++) {
      const a = ts[i][1], b = ts[j][1];
      if (a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5) bad.push(ts[i][0] + ' / ' + ts[j][0]);
    }
    return [ts.length, bad];
  };
  const ov = overlaps();
  out.labels = ov[0]; out.overlaps = ov[1];
  out.axisTicks = document.querySelectorAll('#axis .tick text').length;
  out.laneLabels = Array.from(document.querySelectorAll('#plot .lanelabel')).map(function (t) { return t.textContent; });
  out.witness = document.querySelectorAll('#plot .chain.witness').length;
  out.prefix = document.querySelectorAll('#plot .chain.prefix').length;
  out.pageWidth = document.documentElement.scrollWidth;
  out.viewWidth = vw;
  const time = function (f) { const t = performance.now(); f(); v.render(); return performance.now() - t; };
  out.zoomInMs = time(function () { v.zoom(0.5); });
  out.panMs = time(function () { const w = v.view(); v.setView(w[0] + (w[1] - w[0]) / 3, w[1] + (w[1] - w[0]) / 3); });
  out.fitAllMs = time(function () { v.setView(-Infinity, Infinity); });
  out.fitElements = count();
  out.fitView = v.view();
  out.fitBars = document.querySelectorAll('#plot .op, #plot .dense').length;
  out.fitOverlaps = overlaps()[1];
  v.showFocus(); v.render();
  return out;
})`

// browserCase is one page of the browser test.
type browserCase struct {
	name  string
	h     *history.History
	model history.Model
	valid bool // expected verdict (from the file's provenance, not the tool)
}

func readTestHistory(t *testing.T, path string) *history.History {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := read.Parse(filepath.Base(path), f)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestBrowser(t *testing.T) {
	ctx := browser(t)
	cases := []browserCase{
		// Two pops return the same pushed value: not linearizable.
		{"small", readTestHistory(t, "../testdata/localize/stack_double_pop.jsonl"), history.Stack(), false},
		// Porcupine's kv test data: c10-ok is linearizable, c10-bad is not
		// (testdata/histories/expected.tsv).
		{"kv-bad", readTestHistory(t, "../../testdata/histories/kv/c10-bad.txt"), history.KV(), false},
		{"kv-ok", readTestHistory(t, "../../testdata/histories/kv/c01-ok.txt"), history.KV(), true},
		// 12,000 register operations with a stale read planted after op 9000.
		{"large", staleRead(12000, 8, 9000, 3), history.Register(), false},
	}
	shots := os.Getenv("QUASAR_VIEW_SHOTS")
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := history.Check(context.Background(), c.h, c.model, history.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if (res.Verdict == lts.Valid) != c.valid {
				t.Fatalf("verdict %v, want valid=%v", res.Verdict, c.valid)
			}
			var loc *history.Localization
			focus := []int{}
			if !c.valid {
				if loc, err = history.Localize(context.Background(), c.h, c.model, history.Options{}); err != nil {
					t.Fatal(err)
				}
				focus = slices.Concat(loc.Sequential, loc.Core, loc.Suffix)
				if res.Failure.Blocked >= 0 && !slices.Contains(focus, res.Failure.Blocked) {
					focus = append(focus, res.Failure.Blocked)
				}
			}
			file := filepath.Join(dir, c.name+".html")
			f, err := os.Create(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := HTML(f, c.h, res, loc, Options{Model: c.model.Name()}); err != nil {
				t.Fatal(err)
			}
			f.Close()

			start := time.Now()
			if err := chromedp.Do(ctx, chromedp.EmulateViewport(1280, 800), chromedp.Navigate("file://"+file)); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Run(ctx, chromedp.Poll[bool]("window.quasarView && quasarView.stats.renders > 0", chromedp.WithPollingTimeout(30*time.Second))); err != nil {
				t.Fatalf("the page did not render: %v", err)
			}
			loaded := time.Since(start)
			shoot := func(name string) {
				png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				for _, d := range []string{dir, shots} {
					if d != "" {
						if err := os.WriteFile(filepath.Join(d, "html-"+name+".png"), png, 0o644); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
			shoot(c.name)
			fj, _ := json.Marshal(focus)
			var rep pageReport
			if rep, err = chromedp.Run(ctx, chromedp.Evaluate[pageReport](checkJS+"("+string(fj)+")")); err != nil {
				t.Fatal(err)
			}
			if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("quasarView.setView(-Infinity, Infinity), quasarView.render(), true")); err != nil {
				t.Fatal(err)
			}
			shoot(c.name + "-whole")
			t.Logf("%d ops: loaded and drawn in %v (first render at %.0f ms after navigation), %d SVG elements, %d labels; zoom in %.1f ms, pan %.1f ms, whole history %.1f ms (%d elements)",
				len(c.h.Ops), loaded.Round(time.Millisecond), rep.FirstRenderMs, rep.Elements, rep.Labels, rep.ZoomInMs, rep.PanMs, rep.FitAllMs, rep.FitElements)

			for _, s := range rep.Offscreen {
				t.Errorf("violating operation not in view on load: %s", s)
			}
			for _, s := range append(rep.Overlaps, rep.FitOverlaps...) {
				t.Errorf("labels overlap: %s", s)
			}
			if rep.AxisTicks < 2 {
				t.Errorf("the time axis has %d labelled ticks", rep.AxisTicks)
			}
			if rep.Labels == 0 {
				t.Errorf("no label is drawn")
			}
			if rep.PageWidth > rep.ViewWidth {
				t.Errorf("the page is %v px wide in a %v px window", rep.PageWidth, rep.ViewWidth)
			}
			// Lanes: only processes with operations (of the groups shown).
			procs := map[string]bool{}
			for _, o := range c.h.Ops {
				procs[fmt.Sprintf("p%d", o.Process)] = true
			}
			if len(rep.LaneLabels) == 0 {
				t.Errorf("no lane is drawn")
			}
			for _, l := range rep.LaneLabels {
				if !procs[l] {
					t.Errorf("lane %s has no operations", l)
				}
			}
			// Operations are named by their line, as the CLI names them.
			for i, id := range focus {
				if i < len(rep.Titles) && !strings.HasPrefix(rep.Titles[i], OpText(c.h, id)) {
					t.Errorf("tooltip %q, want it to start with %q", rep.Titles[i], OpText(c.h, id))
				}
			}
			if c.valid && rep.Witness == 0 {
				t.Errorf("no linearization drawn for a valid history")
			}
			if !c.valid && rep.Prefix == 0 {
				t.Errorf("no linearizable prefix drawn for an invalid history")
			}
			// The whole history: all of it in the window, as a bounded drawing.
			end := int64(0)
			for _, o := range c.h.Ops {
				end = max(end, o.Call-c.h.Ops[0].Call)
				if o.Return != history.Pending {
					end = max(end, o.Return-c.h.Ops[0].Call)
				}
			}
			if len(rep.FitView) != 2 || rep.FitView[0] > 0 || rep.FitView[1] < float64(end) {
				t.Errorf("whole history: the window is %v, want it to hold [0, %d]", rep.FitView, end)
			}
			if rep.FitBars == 0 {
				t.Errorf("whole history: no operation drawn")
			}
			if rep.FitElements > 20000 {
				t.Errorf("%d SVG elements for the whole history", rep.FitElements)
			}
		})
	}
}
