package main

import (
	"bytes"
	"context"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHistoryHTMLSpeaksLikeTheCLI: every line "history check --localize"
// prints (the verdict without the file and the statistics, the reason, the
// failure, the test case) appears word for word in the page it writes with
// --html, so that the two never disagree.
func TestHistoryHTMLSpeaksLikeTheCLI(t *testing.T) {
	tags := regexp.MustCompile(`<[^>]*>`)
	space := regexp.MustCompile(`\s+`)
	step := regexp.MustCompile(`^\d+ +`)
	stats := regexp.MustCompile(`  \([^()]*\)$`)
	for _, file := range []string{
		"../../history/testdata/localize/stack_double_pop.jsonl",
		"../../history/testdata/localize/queue_lost.jsonl",
		"../../testdata/histories/kv/c10-bad.txt",
		"../../testdata/histories/kv/c01-ok.txt",
	} {
		t.Run(filepath.Base(file), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "page.html")
			var stdout, stderr bytes.Buffer
			code := execute(context.Background(), []string{"history", "check", "--localize", "--html", out, file}, nil, &stdout, &stderr)
			if code > 1 {
				t.Fatalf("exit %d: %s", code, stderr.String())
			}
			page, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			body := string(page[:bytes.Index(page, []byte("<script>"))])
			text := space.ReplaceAllString(html.UnescapeString(tags.ReplaceAllString(body, " ")), " ")
			lines := strings.Split(strings.TrimRight(stdout.String(), "\n"), "\n")
			lines[0] = stats.ReplaceAllString(strings.TrimPrefix(lines[0], file+": "), "")
			for _, l := range lines {
				l = strings.TrimSuffix(step.ReplaceAllString(strings.TrimSpace(l), ""), ":")
				l = space.ReplaceAllString(l, " ")
				if !strings.Contains(text, l) {
					t.Errorf("the page lacks the CLI's line %q", l)
				}
			}
		})
	}
}
