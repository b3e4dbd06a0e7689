package read

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quasar-verify/quasar/history"
	"github.com/quasar-verify/quasar/lts"
)

func TestParseJSONL(t *testing.T) {
	src := `{"process": 0, "type": "invoke", "f": "enq", "value": 3, "time": 1200}
{"process": 1, "type": "invoke", "f": "deq", "value": null, "time": 1300}
{"process": 0, "type": "ok", "f": "enq", "value": 3, "time": 1500}
{"process": 1, "type": "ok", "f": "deq", "value": null, "time": 1600}
{"process": 2, "type": "invoke", "f": "cas", "key": "x", "value": [1, 2], "time": 1700}
{"process": 2, "type": "info", "f": "cas", "time": 1800}
`
	h, err := Parse("h.jsonl", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range h.Ops {
		got = append(got, o.String()+" @"+itoa64(o.Call)+","+itoa64(o.Return)+" line "+itoa64(int64(o.Line)))
	}
	want := []string{
		"p0 enq(3) -> 3 @1200,1500 line 1",
		"p1 deq() -> null @1300,1600 line 2",
		`p2 cas("x", 1, 2) -> ? @1700,9223372036854775807 line 5`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func itoa64(n int64) string { return history.Int(n).String() }

func TestParseJepsenAndEDN(t *testing.T) {
	h, err := Parse("j.log", strings.NewReader("INFO  jepsen.util - 0\t:invoke\t:cas\t[3 0]\nINFO  jepsen.util - 1   :invoke :read   nil\nINFO  jepsen.util - 0\t:fail\t:cas\t[3 0]\nINFO  jepsen.util - 1\t:fail\t:read\t:timed-out\nINFO  jepsen.util - 2\t:invoke\t:write\t4\nINFO  jepsen.util - 2\t:info\t:write\t:timed-out\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"p0 cas(3, 0) -> false", "p1 read() -> fail", "p2 write(4) -> ?"}
	for i, o := range h.Ops {
		if o.String() != want[i] {
			t.Errorf("op %d: got %s, want %s", i, o.String(), want[i])
		}
	}
	h, err = Parse("k.edn", strings.NewReader(`{:process 0, :type :invoke, :f :get, :key "0", :value nil}
{:process :nemesis, :type :info, :f :start}
{:process 0, :type :ok, :f :get, :key "0", :value "x 1 y"}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Ops) != 1 || h.Ops[0].String() != `p0 get("0") -> "x 1 y"` {
		t.Fatalf("got %v", h.Ops)
	}
}

// TestParseErrors checks positioned errors: file:line:col: message.
func TestParseErrors(t *testing.T) {
	cases := []struct{ name, src, want string }{
		{"bad-start", "hello\n", `f:1:1: expected a JSON object, an EDN map or a jepsen.util log line, found "hello"`},
		{"response-without-invoke", `{"process": 0, "type": "ok", "f": "enq", "value": 1}`, "f:1:1: completion ok enq of process 0 without an invocation"},
		{"two-open", `{"process": 0, "type": "invoke", "f": "enq", "value": 1}` + "\n" + `{"process": 0, "type": "invoke", "f": "deq"}`, "f:2:1: process 0 invokes deq while its enq from line 1 is still open"},
		{"negative-then-backwards", `{"process": 0, "type": "invoke", "f": "enq", "value": 1, "time": -5}` + "\n" + `{"process": 0, "type": "ok", "f": "enq", "time": -6}`, "f:2:1: time goes backwards: -6 after -5"},
		{"time-backwards", `{"process": 0, "type": "invoke", "f": "enq", "value": 1, "time": 5}` + "\n" + `{"process": 0, "type": "ok", "f": "enq", "time": 4}`, "f:2:1: time goes backwards: 4 after 5"},
		{"missing-time", `{"process": 0, "type": "invoke", "f": "enq", "value": 1, "time": 5}` + "\n" + `{"process": 0, "type": "ok", "f": "enq"}`, "f:2:1: expected a time, as on earlier lines"},
		{"bad-type", `{"process": 0, "type": "done", "f": "enq"}`, `f:1:24: expected type invoke, ok, fail or info, found "done"`},
		{"float", `{"process": 0, "type": "invoke", "f": "enq", "value": 1.5}`, `f:1:55: expected an integer, found "1.5}"`},
		{"missing-comma", `{"process": 0 "type": "invoke"}`, `f:1:15: expected ',' or '}', found "\"type\": \"invoke\"}"`},
		{"missing-field", `{"process": 0, "type": "invoke"}`, `f:1:1: missing field "f"`},
		{"wrong-completion", `{"process": 0, "type": "invoke", "f": "enq", "value": 1}` + "\n" + `{"process": 0, "type": "ok", "f": "deq"}`, "f:2:1: completion of deq, but process 0 invoked enq on line 1"},
		{"unterminated", `{"process": 0, "type": "invoke", "f": "enq", "value": "abc}`, "f:1:55: unterminated string"},
		{"edn-bad", `{:process 0, :type :invoke, :f :get, :key "0", :value nil` + "\n", "f:1:58: expected '}', found end of line"},
		{"jepsen-bad-proc", "INFO  jepsen.util - x\t:invoke\t:read\tnil\n", `f:1:21: expected a process number, found "x"`},
		{"jepsen-bad-type", "INFO  jepsen.util - 1\t:begin\t:read\tnil\n", `f:1:23: expected :invoke, :ok, :fail or :info, found ":begin"`},
		{"jepsen-bad-value", "INFO  jepsen.util - 1\t:invoke\t:write\t[1\n", "f:1:40: expected ']', found end of line"},
		{"jepsen-orphan", "INFO  jepsen.util - 1\t:ok\t:read\t3\n", "f:1:21: completion ok read of process 1 without an invocation"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("f", strings.NewReader(c.src))
			if err == nil {
				t.Fatalf("no error, want %s", c.want)
			}
			if err.Error() != c.want {
				t.Fatalf("got  %s\nwant %s", err, c.want)
			}
		})
	}
}

// dataDir holds the repository's copy of Porcupine's histories (see its SOURCE.md).
const dataDir = "../../testdata/histories"

// historyFiles lists the history files under testdata/histories (not the
// notes and tables beside them).
func historyFiles() []string {
	var files []string
	filepath.WalkDir(dataDir, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Dir(path) != dataDir && !strings.HasSuffix(path, ".md") && !strings.HasSuffix(path, ".tsv") {
			files = append(files, path)
		}
		return nil
	})
	return files
}

func TestParseAllTestdata(t *testing.T) {
	files := historyFiles()
	if len(files) < 100 {
		t.Fatalf("only %d files", len(files))
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		h, err := Parse(f, strings.NewReader(string(data)))
		if notHistory(f) {
			// Transcribed as written, with a completion that has no
			// invocation (jepsen-queue/SOURCE.md): a positioned error.
			if _, ok := err.(*Error); !ok {
				t.Fatalf("%s: want a positioned error, got %v", f, err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if len(data) > 0 && len(h.Ops) == 0 {
			t.Fatalf("%s: no operations", f)
		}
	}
}

// notHistory reports whether the expected.tsv beside file lists it as "not
// a history".
func notHistory(file string) bool {
	data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "expected.tsv"))
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Split(line, "\t"); len(f) == 3 && f[0] == filepath.Base(file) {
			return f[2] == "not a history"
		}
	}
	return false
}

func fuzzSeeds(f *testing.F) {
	files := historyFiles()
	for i, file := range files {
		if i%10 != 0 && !strings.Contains(file, "kv/") {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		if len(data) > 4096 {
			data = data[:4096]
		}
		f.Add(data)
	}
	f.Add([]byte(`{"process": 0, "type": "invoke", "f": "cas", "key": "x", "value": [1, [2, {"a": null}]], "time": 1}` + "\n" + `{"process": 0, "type": "ok", "f": "cas", "value": true, "time": 2}`))
	f.Add([]byte("{:process 0, :type :invoke, :f :read, :value #{1 2}, :index 3N}\n"))
}

// fuzzCheck: any input either fails to parse with a positioned error or
// gives a history every model can check without panicking.
func fuzzCheck(t *testing.T, h *history.History, err error) {
	if err != nil {
		if _, ok := err.(*Error); !ok {
			t.Fatalf("error without position: %v", err)
		}
		return
	}
	if len(h.Ops) > 12 {
		h.Ops = h.Ops[:12]
	}
	for _, name := range history.ModelNames() {
		m, _ := history.ModelByName(name)
		history.CheckOps(t.Context(), h.Ops, m, history.Options{Limits: limitsForFuzz})
	}
}

func FuzzParse(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := Parse("fuzz", strings.NewReader(string(data)))
		fuzzCheck(t, h, err)
	})
}

func FuzzParseJSONL(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := JSONL("fuzz", strings.NewReader(string(data)))
		fuzzCheck(t, h, err)
	})
}

func FuzzParseEDN(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := EDN("fuzz", strings.NewReader(string(data)))
		fuzzCheck(t, h, err)
	})
}

func FuzzParseJepsenLog(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := JepsenLog("fuzz", strings.NewReader(string(data)))
		fuzzCheck(t, h, err)
	})
}

var limitsForFuzz = lts.Limits{MaxStates: 10000}

// TestKnossosVerdicts: Knossos's own histories (cas-register, its test
// suite's multi-register, the etcd mutex), read as they are, get Knossos's
// verdicts (good/: linearizable, bad/: not) with its conventions:
// (cas-register 0) where an ok read of nil reads anything, a multi-register
// whose keys start at 0 and whose nil reads are always legal, a mutex that
// may not be acquired twice or released free
// (testdata/histories/knossos/SOURCE.md).
func TestKnossosVerdicts(t *testing.T) {
	models := map[string]history.Model{
		"cas-register":   history.CASRegisterWith(history.RegisterOptions{Init: history.Int(0), AnyNilRead: true}),
		"multi-register": history.MultiRegister(history.Int(0)),
		"mutex":          history.Mutex(),
	}
	n := 0
	for _, pat := range []string{"*/good/*.edn", "*/bad/*.edn"} {
		files, _ := filepath.Glob(filepath.Join(dataDir, "knossos", pat))
		for _, file := range files {
			want := filepath.Base(filepath.Dir(file))
			m := models[filepath.Base(filepath.Dir(filepath.Dir(file)))]
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			h, err := Parse(filepath.Base(file), bytes.NewReader(data))
			if err != nil {
				t.Fatal(err)
			}
			res, err := history.Check(context.Background(), h, m, history.Options{Limits: lts.Limits{Timeout: 30 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			if (res.Verdict == lts.Valid) != (want == "good") || res.Verdict == lts.Unknown {
				t.Errorf("%s: %v, Knossos: %s", file, res.Verdict, want)
			}
			n++
		}
	}
	if n < 32 {
		t.Errorf("only %d Knossos histories", n)
	}
}

// TestEDNCollection: Knossos's layout (one collection over many lines, with
// comments), sets (elements, not pairs: #{2 1} is [1, 2]), nemesis lines
// with set values, keyword values and times that go backwards.
func TestEDNCollection(t *testing.T) {
	src := `; a Knossos history
[{:process 0, :type :invoke, :f :add, :value #{2 1}, :time 50}
 {:process 0, :type :ok, :f :add, :value #{1 2 2}, :time 10}
 ; the nemesis partitions the network
 {:process :nemesis, :type :info, :f :start, :value {"n1" #{"n2" "n3"}}}
 {:process 1, :type :invoke, :f :enqueue, :value :hung}
 {:process 1, :type :ok, :f :enqueue, :value :hung}]
`
	h, err := Parse("k.edn", strings.NewReader(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Ops) != 2 {
		t.Fatalf("%d ops, want 2 (the nemesis is not a client)", len(h.Ops))
	}
	if got := h.Ops[0].Input.String(); got != "[1, 2]" {
		t.Errorf("set #{2 1} read as %s, want [1, 2]", got)
	}
	if !h.Ops[0].Output.Equal(h.Ops[0].Input) {
		t.Errorf("#{1 2 2} = %s, want the same set as #{2 1}", h.Ops[0].Output)
	}
	if h.Ops[0].Line != 2 || h.Ops[1].Line != 6 || h.Ops[1].Input.String() != `"hung"` {
		t.Errorf("ops %+v", h.Ops)
	}
	if h.Ops[0].Call >= h.Ops[0].Return || h.Ops[0].Return >= h.Ops[1].Call {
		t.Errorf("times %d..%d, %d: want the file's order", h.Ops[0].Call, h.Ops[0].Return, h.Ops[1].Call)
	}
	_, err = Parse("bad.edn", strings.NewReader("[{:process 0, :type :invoke, :f :read}\n {:process 0 :type :ok :f :read :value}\n]"))
	if err == nil || !strings.HasPrefix(err.Error(), "bad.edn:2:") {
		t.Errorf("error %v, want one on line 2", err)
	}
}

// TestNegativeTimes: times may start below zero (they were refused on the
// first line).
func TestNegativeTimes(t *testing.T) {
	h, err := JSONL("n.jsonl", strings.NewReader(`{"process": 0, "type": "invoke", "f": "enq", "value": 1, "time": -10}`+"\n"+`{"process": 0, "type": "ok", "f": "enq", "time": -5}`))
	if err != nil || len(h.Ops) != 1 || h.Ops[0].Call != -10 || h.Ops[0].Return != -5 {
		t.Fatalf("%v %+v", err, h)
	}
}
