package lang

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestTmpSlow(t *testing.T) {
	for _, pat := range []string{"(", "(a.(", "[", "e.(", "{", "a->", "(a,", "[]i:{0..1}@", "if(x){", "c?[", "x=(", "#define A ("} {
		for _, n := range []int{8, 12, 16, 20} {
			src := "A=" + strings.Repeat(pat, n)
			if strings.HasPrefix(pat, "#") {
				src = strings.Repeat(pat, n)
			}
			start := time.Now()
			Parse("x.csp", []byte(src))
			if d := time.Since(start); d > 20*time.Millisecond {
				fmt.Println(pat, n, d)
			}
		}
	}
}
