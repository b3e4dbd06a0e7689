package paper

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/quasar-verify/quasar/lts"
)

// SVG draws Fig. 8: time against the number of segments (QF 2), ours (manual,
// exact, window) and the paper's (manual, automatic), on a log scale.
func (rep *Report) SVG() ([]byte, error) { return rep.figure("svg") }

// figure renders Fig. 8 in a format gonum/plot knows ("svg", "png", ...):
// the plot on top, its legend below it (so that no curve hides under it),
// the y range fitted to the data, one tick per segment count. Points where
// Quasar found a counterexample are circled; the paper's "MOut" (PAT ran
// out of memory) is a cross on the top edge.
func (rep *Report) figure(format string) ([]byte, error) {
	p := plot.New()
	p.Title.Text = "Fig. 8: manual vs automatic relaxation, quasi queue, QF 2"
	p.X.Label.Text = "segments"
	p.Y.Label.Text = "time (s, log scale)"
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())

	ss, marks := rep.fig8Series()
	leg := plot.NewLegend()
	leg.Top, leg.Left = true, true
	lo, hi, segs := math.Inf(1), math.Inf(-1), map[int]bool{}
	for _, s := range ss {
		for _, pt := range s.pts {
			lo, hi = min(lo, pt.Y), max(hi, pt.Y)
			segs[int(pt.X)] = true
		}
	}
	if len(segs) == 0 {
		return nil, fmt.Errorf("fig8: no data")
	}
	p.Y.Min, p.Y.Max = lo/2, hi*2
	p.X.Tick.Marker = segmentTicks(segs)
	for _, s := range ss {
		if len(s.pts) == 0 {
			continue
		}
		l, pts, err := plotter.NewLinePoints(s.pts)
		if err != nil {
			return nil, fmt.Errorf("fig8: %v", err)
		}
		l.Color, pts.Color = s.col, s.col
		if s.dash {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			pts.Shape = draw.BoxGlyph{}
		}
		p.Add(l, pts)
		leg.Add(s.label, l, pts)
	}
	for _, m := range marks {
		if len(m.pts) == 0 {
			continue
		}
		if m.top {
			for i := range m.pts {
				m.pts[i].Y = p.Y.Max
			}
		}
		sc, err := plotter.NewScatter(m.pts)
		if err != nil {
			return nil, fmt.Errorf("fig8: %v", err)
		}
		sc.Shape, sc.Color, sc.Radius = m.glyph, m.col, vg.Points(5)
		p.Add(sc)
		leg.Add(m.label, sc)
	}
	// Room for the marks at both ends (after the plotters set the range).
	p.X.Min, p.X.Max = p.X.Min-0.2, p.X.Max+0.2
	leg.Padding = vg.Points(3)
	return render(p, &leg, len(ss)+len(marks), format)
}

// fig8Series collects the curves of Fig. 8 and its marks: counterexamples
// (Quasar) and out-of-memory runs (the paper's PAT).
func (rep *Report) fig8Series() ([]*series, []*series) {
	blue := color.RGBA{0x1f, 0x77, 0xb4, 0xff}
	orange := color.RGBA{0xff, 0x7f, 0x0e, 0xff}
	green := color.RGBA{0x2c, 0xa0, 0x2c, 0xff}
	red := color.RGBA{0xd6, 0x27, 0x28, 0xff}
	ss := []*series{
		{label: "Quasar, manual (refines ClusterSpec)", col: blue},
		{label: "Quasar, automatic exact", col: orange},
		{label: "Quasar, automatic window", col: green},
		{label: "PAT (paper), manual", col: blue, dash: true},
		{label: "PAT (paper), automatic", col: orange, dash: true},
	}
	invalid := &series{label: "Quasar: invalid (the time to a counterexample)", col: red, glyph: draw.RingGlyph{}}
	mout := &series{label: "PAT (paper): out of memory", col: red, glyph: draw.CrossGlyph{}, top: true}
	idx := map[string]int{"manual": 0, "exact": 1, "window": 2}
	for _, r := range rep.Rows {
		if r.Table != Fig8 {
			continue
		}
		i, x := idx[r.Method], float64(r.Seg)
		if r.Err == "" && r.Verdict != lts.Unknown {
			pt := plotter.XY{X: x, Y: max(r.Seconds, 0.001)}
			ss[i].pts = append(ss[i].pts, pt)
			if r.Verdict == lts.Invalid {
				invalid.pts = append(invalid.pts, pt)
			}
		}
		if i < 2 {
			if f := r.PaperFigures; f.MOut {
				mout.pts = append(mout.pts, plotter.XY{X: x})
			} else if f.Seconds > 0 {
				ss[3+i].pts = append(ss[3+i].pts, plotter.XY{X: x, Y: f.Seconds})
			}
		}
	}
	return ss, []*series{invalid, mout}
}

// series is one curve (or set of marks) of Fig. 8.
type series struct {
	label string
	pts   plotter.XYs
	dash  bool
	col   color.Color
	glyph draw.GlyphDrawer // marks only
	top   bool             // marks drawn on the top edge (no y value)
}

// segmentTicks labels each segment count that has data, and nothing else.
func segmentTicks(segs map[int]bool) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ts []plot.Tick
		for s := int(math.Ceil(lo)); s <= int(hi); s++ {
			if segs[s] {
				ts = append(ts, plot.Tick{Value: float64(s), Label: strconv.Itoa(s)})
			}
		}
		return ts
	})
}

// render draws p with leg (of at most entries lines) below it.
func render(p *plot.Plot, leg *plot.Legend, entries int, format string) ([]byte, error) {
	const w, h = 7 * vg.Inch, 5.5 * vg.Inch
	c, err := draw.NewFormattedCanvas(w, h, format)
	if err != nil {
		return nil, err
	}
	dc := draw.New(c)
	legendH := vg.Points(float64(16*entries + 12))
	p.Draw(draw.Crop(dc, 0, 0, legendH, 0))
	leg.Draw(draw.Crop(dc, vg.Points(48), 0, vg.Points(4), legendH-h))
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
