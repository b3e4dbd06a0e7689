package models

import (
	"bufio"
	"bytes"
	"strings"

	"github.com/quasar-verify/quasar/lts"
)

// Expect is the expected verdict of one #assert of a model.
type Expect struct {
	Line int    `json:"line"` // 1-based line of `#assert`
	Text string `json:"text"` // the assertion, from `#assert` to its `;`
	// Verdict is Valid or Invalid as the comment says, or Unknown when the
	// assertion has no `// expect:` comment (or an unreadable one).
	Verdict lts.Verdict `json:"verdict"`
}

// Expectations reads the `// expect: valid` or `// expect: invalid` comment of
// every #assert in src: on the assertion's own line, or alone on the line just
// above it. It returns one Expect per #assert, in source order.
func Expectations(src []byte) []Expect {
	var out []Expect
	above := lts.Unknown // the expectation of a comment-only line just read
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	var open *Expect // an assertion whose `;` is on a later line
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		code, comment, _ := strings.Cut(line, "//")
		if open != nil {
			open.Text += " " + strings.TrimSpace(code)
			if strings.Contains(code, ";") {
				open.Text = open.Text[:strings.Index(open.Text, ";")+1]
				open = nil
			}
			if v := expectIn(comment); v != lts.Unknown && out[len(out)-1].Verdict == lts.Unknown {
				out[len(out)-1].Verdict = v
			}
			continue
		}
		i := strings.Index(code, "#assert")
		if i < 0 {
			above = lts.Unknown
			if strings.TrimSpace(code) == "" {
				above = expectIn(comment)
			}
			continue
		}
		e := Expect{Line: n, Text: strings.TrimSpace(code[i:]), Verdict: expectIn(comment)}
		if e.Verdict == lts.Unknown {
			e.Verdict = above
		}
		above = lts.Unknown
		if j := strings.Index(e.Text, ";"); j >= 0 {
			e.Text = e.Text[:j+1]
		}
		out = append(out, e)
		if !strings.Contains(code, ";") {
			open = &out[len(out)-1]
		}
	}
	return out
}

// expectIn reads "expect: valid" or "expect: invalid" in a comment's text.
func expectIn(comment string) lts.Verdict {
	_, rest, ok := strings.Cut(comment, "expect:")
	if !ok {
		return lts.Unknown
	}
	f := strings.Fields(rest)
	if len(f) == 0 {
		return lts.Unknown
	}
	switch strings.TrimRight(f[0], ".,;:") {
	case "valid":
		return lts.Valid
	case "invalid":
		return lts.Invalid
	}
	return lts.Unknown
}
