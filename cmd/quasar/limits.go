package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/quasar-verify/quasar/lts"
)

// limitFlags are the flags shared by the commands that search: a time
// limit, a state limit, a memory budget and the number of workers. The zero
// values mean no limit and the default number of workers.
type limitFlags struct {
	timeout   time.Duration
	maxStates int
	mem       string
	workers   int
}

func (f *limitFlags) register(fs *pflag.FlagSet) {
	fs.DurationVar(&f.timeout, "timeout", 0, "stop after this wall time (e.g. 30s, 5m); the verdict is then unknown")
	fs.IntVar(&f.maxStates, "max-states", 0, "stop after storing this many states; the verdict is then unknown")
	fs.StringVar(&f.mem, "mem", "", "stop when the heap exceeds this size (e.g. 4GiB); the verdict is then unknown")
	fs.IntVar(&f.workers, "workers", 0, "parallel search workers (0: the default)")
}

// limits validates the flags and returns them as lts.Limits; errors are
// usage errors.
func (f *limitFlags) limits() (lts.Limits, error) {
	l := lts.Limits{Timeout: f.timeout, MaxStates: f.maxStates}
	switch {
	case f.timeout < 0:
		return l, fmt.Errorf("--timeout must not be negative, found %s", f.timeout)
	case f.maxStates < 0:
		return l, fmt.Errorf("--max-states must not be negative, found %d", f.maxStates)
	case f.workers < 0:
		return l, fmt.Errorf("--workers must not be negative, found %d", f.workers)
	}
	if f.mem != "" {
		n, err := parseSize(f.mem)
		if err != nil {
			return l, fmt.Errorf("--mem: %v", err)
		}
		l.MaxBytes = n
	}
	return l, nil
}
