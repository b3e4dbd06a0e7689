package lang

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

func TestTmpMutate(t *testing.T) {
	b, _ := os.ReadFile(os.Getenv("INPUT"))
	lines := strings.SplitN(string(b), "\n", 3)
	src, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
	if err != nil {
		t.Fatal(err)
	}
	run := func(s string) {
		start := time.Now()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before := ms.TotalAlloc
		fsys := fstest.MapFS{"fuzz.csp": {Data: []byte(s)}}
		m, err := ParseFS(fsys, "fuzz.csp")
		if err == nil {
			Check(m)
			out := Format(m)
			m2, err := Parse("fuzz.csp", out)
			if err != nil {
				fmt.Printf("ROUNDTRIP PARSE %v\n%q\n%s\n", err, s, out)
			} else if Dump(m) != Dump(m2) {
				fmt.Printf("ROUNDTRIP DIFF %q\n", s)
			}
		}
		runtime.ReadMemStats(&ms)
		if d := time.Since(start); d > 200*time.Millisecond || ms.TotalAlloc-before > 200<<20 {
			fmt.Printf("SLOW %v %dMB %q\n", d, (ms.TotalAlloc-before)>>20, s)
		}
	}
	n := len(src)
	for size := n / 2; size >= 1; size /= 2 {
		for i := 0; i+size <= n; i += max(1, size/2) {
			run(src[:i] + src[i+size:])
		}
	}
	for i := 0; i < n; i++ {
		run(src[:i] + src[i+1:])
	}
}
