package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/quasar-verify/quasar/internal/budget"
	"github.com/quasar-verify/quasar/internal/run"
)

// progressDelay is how long a run stays quiet before the progress line
// appears: short checks print nothing but their result.
const progressDelay = time.Second

// progress draws a live status line on a terminal:
//
//	Impl() refines Spec(): 1.2M states, 310k states/s, depth 42, 1.1 GiB
//
// It is redrawn in place with \r and erased before the results are printed.
// On anything but a terminal it is nil and prints nothing.
type progress struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	width int // columns of the last line drawn, 0 if none is shown
}

// newProgress returns a progress line on w, or nil if w is not a terminal.
func newProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	return &progress{w: w, start: time.Now()}
}

// update is run.Options.Progress: called by the search about every 100 ms.
func (p *progress) update(s run.Progress) {
	if time.Since(p.start) < progressDelay {
		return
	}
	rate := ""
	if s.Seconds > 0 {
		rate = fmt.Sprintf(", %s states/s", human(float64(s.States)/s.Seconds))
	}
	line := fmt.Sprintf("%s: %s states%s, depth %d, %s", s.Assertion, human(float64(s.States)), rate, s.Depth, budget.FormatBytes(s.Bytes))
	p.mu.Lock()
	defer p.mu.Unlock()
	if cols, _, err := term.GetSize(int(p.w.(*os.File).Fd())); err == nil && cols > 1 && len(line) >= cols {
		line = line[:cols-1]
	}
	pad := ""
	if n := p.width - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	fmt.Fprintf(p.w, "\r%s%s", line, pad)
	p.width = len(line)
}

// clear erases the line, so that results start on a clean line.
func (p *progress) clear() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
		p.width = 0
	}
}

// human renders a count as 950, 12.3k, 4.5M.
func human(x float64) string {
	switch {
	case x < 1e4:
		return fmt.Sprintf("%.0f", x)
	case x < 1e6:
		return fmt.Sprintf("%.1fk", x/1e3)
	case x < 1e9:
		return fmt.Sprintf("%.1fM", x/1e6)
	}
	return fmt.Sprintf("%.1fG", x/1e9)
}
