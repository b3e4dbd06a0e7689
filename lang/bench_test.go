package lang

import (
	"fmt"
	"strings"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the user+system CPU time of this process: on a shared machine
// it measures the work better than the wall clock.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// bigModel generates a model of about n lines that uses the common
// constructs: defines, arrays, event blocks, guards, choices, channels,
// indexed parallel composition and assertions.
func bigModel(n int) []byte {
	var sb strings.Builder
	sb.WriteString("#define N 4;\nvar buf[N];\nvar head = 0;\nvar tail = 0;\nchannel c 1;\n")
	lines := 5
	for i := 0; lines < n; i++ {
		fmt.Fprintf(&sb, "// worker %d\n", i)
		fmt.Fprintf(&sb, "W%d(t) = [head < N] enq.t.%d{buf[tail %% N] = %d; tail = tail + 1;} -> W%d(t)\n", i, i%7, i, i)
		fmt.Fprintf(&sb, "\t[] [head != tail] deq.t.(buf[head %% N]){head = head + 1;} -> W%d(t)\n", i)
		fmt.Fprintf(&sb, "\t[] c!t.%d -> c?x -> if (x > %d) { a.x -> Skip } else { b -> Stop }\n", i, i%5)
		fmt.Fprintf(&sb, "\t[] (a, b) -> atomic { e.1 -> e.2 -> Skip }; W%d(t);\n", i)
		fmt.Fprintf(&sb, "Sys%d() = ||| t:{0..N-1} @ W%d(t) \\ {c};\n", i, i)
		fmt.Fprintf(&sb, "#assert Sys%d() deadlockfree;\n", i)
		lines += 7
	}
	return []byte(sb.String())
}

func BenchmarkParseCheck(b *testing.B) {
	src := bigModel(5000)
	lines := strings.Count(string(src), "\n")
	b.ReportAllocs()
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		m, err := Parse("big.csp", src)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Check(m); err != nil {
			b.Fatal(err)
		}
	}
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(lines)*float64(b.N)/b.Elapsed().Seconds(), "lines/s")
	if cpu > 0 {
		// CPU time includes the garbage collector's background work.
		b.ReportMetric(float64(lines)*float64(b.N)/cpu.Seconds(), "lines/cpu-s")
	}
}
