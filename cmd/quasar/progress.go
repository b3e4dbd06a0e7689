package main

import (
	"fmt"
	"io"
	"os"
	"runtime/metrics"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/internal/budget"
	"github.com/quasar-verify/quasar/pipeline"
)

// progressDelay is how long a run stays quiet before the progress line
// appears: short checks print nothing but their result.
const progressDelay = time.Second

// progressTick is how often the line is redrawn.
const progressTick = 200 * time.Millisecond

// progress draws a live status line on a terminal:
//
//	Impl() refines Spec(): 1.2M states, 310.0k states/s, depth 42, 1.1 GiB, 4.1s
//
// It is redrawn in place with \r from its own goroutine and erased before
// the results are printed. The figures come from the search (update); until
// the search reports any, the line shows the elapsed time and the heap. On
// anything but a terminal there is no progress (nil) and nothing is written.
type progress struct {
	w     *os.File
	start time.Time
	stop  chan struct{}
	done  chan struct{}

	mu    sync.Mutex
	last  *pipeline.Progress
	text  string // setText's line, if no pipeline figures
	width int    // columns of the line shown, 0 if none
}

// startProgress starts the line on w if w is a terminal; otherwise it
// returns nil, whose methods do nothing.
func startProgress(w io.Writer) *progress {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return nil
	}
	p := &progress{w: f, start: time.Now(), stop: make(chan struct{}), done: make(chan struct{})}
	go p.loop()
	return p
}

// update is pipeline.Options.Progress: the search's latest figures.
func (p *progress) update(s pipeline.Progress) {
	p.mu.Lock()
	p.last = &s
	p.mu.Unlock()
}

// setText sets the line's figures (the elapsed time is added), for runs
// that are not pipeline searches (history checks).
func (p *progress) setText(line string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.text = line
	p.mu.Unlock()
}

// historyUpdate is history.Options.Progress: operations linearized,
// partitions decided, states.
func (p *progress) historyUpdate(s history.Progress) {
	line := fmt.Sprintf("history: %d/%d operations linearized", s.Linearized, s.Ops)
	if s.Partitions > 1 {
		line += fmt.Sprintf(", %d/%d partitions done", s.Done, s.Partitions)
	}
	p.setText(line + fmt.Sprintf(", %s states", human(float64(s.States))))
}

func (p *progress) loop() {
	defer close(p.done)
	t := time.NewTicker(progressTick)
	defer t.Stop()
	heap := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
		elapsed := time.Since(p.start)
		if elapsed < progressDelay {
			continue
		}
		p.mu.Lock()
		var line string
		if s := p.last; s == nil && p.text != "" {
			line = p.text
		} else if s != nil {
			rate := ""
			if s.Seconds > 0 {
				rate = fmt.Sprintf(", %s states/s", human(float64(s.States)/s.Seconds))
			}
			line = fmt.Sprintf("%s: %s states%s, depth %d, %s", s.Assertion, human(float64(s.States)), rate, s.Depth, budget.FormatBytes(s.Bytes))
		} else {
			metrics.Read(heap)
			line = fmt.Sprintf("checking: heap %s", budget.FormatBytes(int64(heap[0].Value.Uint64())))
		}
		line += fmt.Sprintf(", %s", elapsed.Round(100*time.Millisecond))
		if cols, _, err := term.GetSize(int(p.w.Fd())); err == nil && cols > 1 && len(line) >= cols {
			line = line[:cols-1]
		}
		pad := ""
		if n := p.width - len(line); n > 0 {
			pad = strings.Repeat(" ", n)
		}
		fmt.Fprintf(p.w, "\r%s%s", line, pad)
		p.width = len(line)
		p.mu.Unlock()
	}
}

// finish stops the line and erases it, so that results start on a clean
// line.
func (p *progress) finish() {
	if p == nil {
		return
	}
	close(p.stop)
	<-p.done
	if p.width > 0 {
		fmt.Fprintf(p.w, "\r%s\r", strings.Repeat(" ", p.width))
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
