package sched

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/quasar-verify/quasar/history/stress"
)

// Schedule is a replayable execution: the thread chosen at each step and,
// when the test was reduced, which calls of the test were kept.
//
// Its text form is the run-length encoded choices, "0x3,1x2,0" (thread 0
// three steps, thread 1 two, thread 0 one), with the choices that a replay
// makes anyway (the running thread continues, or the lowest runnable one
// when it cannot) dropped from the end; "" is the schedule of no
// preemption at all. A reduced test appends "@" and, per thread, the
// indices of the kept calls joined by "." with threads separated by "/"
// and "-" for none: "1x2,0@0.1/-/0".
type Schedule struct {
	Choices []int
	Keep    [][]int // nil: the whole test
}

// String encodes s.
func (s Schedule) String() string {
	var sb strings.Builder
	for i := 0; i < len(s.Choices); {
		j := i
		for j < len(s.Choices) && s.Choices[j] == s.Choices[i] {
			j++
		}
		if sb.Len() > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Itoa(s.Choices[i]))
		if j-i > 1 {
			fmt.Fprintf(&sb, "x%d", j-i)
		}
		i = j
	}
	if s.Keep != nil {
		sb.WriteByte('@')
		for g, ks := range s.Keep {
			if g > 0 {
				sb.WriteByte('/')
			}
			if len(ks) == 0 {
				sb.WriteByte('-')
			}
			for i, k := range ks {
				if i > 0 {
					sb.WriteByte('.')
				}
				sb.WriteString(strconv.Itoa(k))
			}
		}
	}
	return sb.String()
}

const maxScheduleLen = 1 << 20

// ParseSchedule reads the text form of a Schedule.
func ParseSchedule(text string) (Schedule, error) {
	var s Schedule
	text = strings.TrimSpace(text)
	steps, keep, hasKeep := strings.Cut(text, "@")
	if steps != "" {
		for _, run := range strings.Split(steps, ",") {
			ts, ns, rep := strings.Cut(strings.TrimSpace(run), "x")
			t, err := strconv.Atoi(ts)
			if err != nil || t < 0 || t >= 64 {
				return Schedule{}, fmt.Errorf("sched: schedule %q: %q is not a thread index (0..63)", text, ts)
			}
			n := 1
			if rep {
				if n, err = strconv.Atoi(ns); err != nil || n < 1 {
					return Schedule{}, fmt.Errorf("sched: schedule %q: bad repeat count %q", text, ns)
				}
			}
			if len(s.Choices)+n > maxScheduleLen {
				return Schedule{}, fmt.Errorf("sched: schedule %q: longer than %d steps", text, maxScheduleLen)
			}
			for range n {
				s.Choices = append(s.Choices, t)
			}
		}
	}
	if hasKeep {
		s.Keep = [][]int{}
		for _, g := range strings.Split(keep, "/") {
			ks := []int{}
			if g != "-" {
				for _, x := range strings.Split(g, ".") {
					k, err := strconv.Atoi(x)
					if err != nil || k < 0 || (len(ks) > 0 && k <= ks[len(ks)-1]) {
						return Schedule{}, fmt.Errorf("sched: schedule %q: bad kept calls %q (increasing call indices joined by '.')", text, g)
					}
					ks = append(ks, k)
				}
			}
			s.Keep = append(s.Keep, ks)
		}
	}
	return s, nil
}

// apply returns the sub-test of test that s keeps.
func (s Schedule) apply(test stress.Test) (stress.Test, error) {
	if s.Keep == nil {
		return test, nil
	}
	if len(s.Keep) != len(test) {
		return nil, fmt.Errorf("sched: the schedule keeps calls of %d threads, the test has %d", len(s.Keep), len(test))
	}
	sub := make(stress.Test, len(test))
	for g, ks := range s.Keep {
		sub[g] = []stress.Call{}
		for _, k := range ks {
			if k >= len(test[g]) {
				return nil, fmt.Errorf("sched: the schedule keeps call %d of thread %d, which has %d", k, g, len(test[g]))
			}
			sub[g] = append(sub[g], test[g][k])
		}
	}
	return sub, nil
}

// trim drops the trailing choices that a replay makes by default.
func trim(choices []int, enabledAt func(i int) uint64) []int {
	end := len(choices)
	for end > 0 {
		cur := -1
		if end >= 2 {
			cur = choices[end-2]
		}
		if choices[end-1] != defaultChoice(cur, enabledAt(end-1)) {
			break
		}
		end--
	}
	return choices[:end]
}
