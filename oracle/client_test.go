package oracle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/conformsuite/conform/engine"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		runChild(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startChild starts the test binary as a child with the given behaviour.
func startChild(t *testing.T, mode string, opts Options) *Client {
	t.Helper()
	c, err := startChildErr(mode, opts)
	if err != nil {
		t.Fatalf("Start(%s): %v", mode, err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func startChildErr(mode string, opts Options) (*Client, error) {
	opts.Env = append(append(os.Environ(), childEnv+"="+mode), opts.Env...)
	return Start([]string{os.Args[0]}, opts)
}

// testCase is one request to a test child and the response it should get.
type testCase struct {
	req  map[string]any
	want Response // ID is ignored
}

// normalCases returns n cases with a mix of outputs, errors, skips and
// crashes the child reports.
func normalCases(n int) []testCase {
	cases := make([]testCase, n)
	for i := range cases {
		switch i % 5 {
		case 3:
			cases[i] = testCase{map[string]any{"op": "slice", "kind": "out_of_range"}, Response{ErrKind: engine.OutOfRange, ErrMessage: "rejected"}}
		case 4:
			cases[i] = testCase{map[string]any{"op": "slice", "skip": fmt.Sprint("reason ", i)}, Response{Skip: fmt.Sprint("reason ", i)}}
		case 2:
			if i%10 == 2 { // a crash the child reports: that case only
				cases[i] = testCase{map[string]any{"op": "slice", "report": fmt.Sprint("trap ", i)}, Response{Crash: fmt.Sprint("the child reported a crash: trap ", i)}}
				break
			}
			fallthrough
		default:
			v := fmt.Sprintf("value %d %s", i, strings.Repeat("x", i%50))
			cases[i] = testCase{map[string]any{"op": "getitem", "value": v, "id": -1}, Response{Output: []byte(v)}}
		}
	}
	return cases
}

// runAll runs every case concurrently and returns the responses in order.
func runAll(t *testing.T, c *Client, cases []testCase) []Response {
	t.Helper()
	got := make([]Response, len(cases))
	var wg sync.WaitGroup
	for i := range cases {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			got[i] = c.Do(context.Background(), cases[i].req)
		}(i)
	}
	wg.Wait()
	return got
}

// checkResponses checks every response against its case; the responses
// at crashAt must instead be crashes whose reason contains crashWant.
func checkResponses(t *testing.T, cases []testCase, got []Response, crashAt map[int]bool, crashWant ...string) {
	t.Helper()
	ids := map[int64]bool{}
	for i, r := range got {
		if ids[r.ID] {
			t.Errorf("case %d: id %d used twice", i, r.ID)
		}
		ids[r.ID] = true
		if crashAt[i] {
			if r.Crash == "" {
				t.Errorf("case %d: got %+v, want a crash", i, r)
				continue
			}
			for _, w := range crashWant {
				if !strings.Contains(r.Crash, w) {
					t.Errorf("case %d: crash %q does not mention %q", i, r.Crash, w)
				}
			}
			continue
		}
		if diff := cmp.Diff(cases[i].want, r, cmpopts.IgnoreFields(Response{}, "ID"), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("case %d (%v): response mismatch (-want +got):\n%s", i, cases[i].req, diff)
		}
	}
}

func TestWellBehavedChild(t *testing.T) {
	c := startChild(t, "ok", Options{})
	want := Hello{Name: "testchild", Version: "1.0", Ops: []string{"getitem", "slice"}}
	if diff := cmp.Diff(want, c.Hello()); diff != "" {
		t.Errorf("Hello() mismatch (-want +got):\n%s", diff)
	}
	cases := normalCases(1000)
	checkResponses(t, cases, runAll(t, c, cases), nil)
	if n := c.Restarts(); n != 0 {
		t.Errorf("Restarts() = %d, want 0", n)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close() = %v, want nil", err)
	}
	if r := c.Do(context.Background(), cases[0].req); r.Crash == "" {
		t.Errorf("Do after Close = %+v, want a crash", r)
	}
}

func TestOutOfOrderAnswers(t *testing.T) {
	c := startChild(t, "reverse", Options{})
	cases := normalCases(1000)
	checkResponses(t, cases, runAll(t, c, cases), nil)
}

// TestMisbehavingChild runs a batch in which one case makes the child
// misbehave: only that case may fail, every other one must get its real
// answer.
func TestMisbehavingChild(t *testing.T) {
	tests := []struct {
		name      string
		mode      string
		bad       map[string]any
		opts      Options
		crashWant []string
		restarts  bool
	}{
		{"a case that kills the child is a crash naming the exit status and stderr", "ok",
			map[string]any{"crash": true}, Options{}, []string{"child died", "exit status 3", "fatal: crashing on request"}, true},
		{"a crash is isolated among out-of-order answers too", "reverse",
			map[string]any{"crash": true}, Options{}, []string{"child died", "exit status 3"}, true},
		{"a case that hangs times out; the others are re-sent", "ok",
			map[string]any{"hang": true}, Options{Timeout: 2 * time.Second}, []string{"timeout after 2s"}, true},
		{"a hang is isolated among out-of-order answers too", "reverse",
			map[string]any{"hang": true}, Options{Timeout: 2 * time.Second}, []string{"timeout after"}, true},
		{"a non-JSON line is blamed on the case that prints it", "ok",
			map[string]any{"garbage": "this is not JSON"}, Options{}, []string{"garbage response", "not a JSON object"}, true},
		{"a line without an id is blamed on the case that prints it", "ok",
			map[string]any{"garbage": `{"output": ""}`}, Options{}, []string{"garbage response", "no integer id"}, true},
		{"an unknown id is blamed on the case that prints it", "reverse",
			map[string]any{"garbage": `{"id": 99999999, "output": ""}`}, Options{}, []string{"garbage response", "unknown id"}, true},
		{"a too long line is blamed on the case that prints it", "ok",
			map[string]any{"garbage": strings.Repeat("y", 5000)}, Options{MaxLine: 4096}, []string{"longer than 4096 bytes"}, true},
		{"a malformed answer is a crash of its case alone, without a restart", "ok",
			map[string]any{"badfield": true}, Options{}, []string{"garbage response"}, false},
		{"an answer with a bad error kind is a crash of its case alone", "ok",
			map[string]any{"kind": "weird"}, Options{}, []string{`unknown error kind "weird"`}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startChild(t, tt.mode, tt.opts)
			cases := normalCases(300)
			const culprit = 137
			cases[culprit].req = tt.bad
			got := runAll(t, c, cases)
			checkResponses(t, cases, got, map[int]bool{culprit: true}, tt.crashWant...)
			if restarted := c.Restarts() > 0; restarted != tt.restarts {
				t.Errorf("restarted = %v, want %v", restarted, tt.restarts)
			}
			// The client still works afterwards.
			more := normalCases(20)
			checkResponses(t, more, runAll(t, c, more), nil)
		})
	}
}

func TestSecondAnswerRestartsWithoutBlame(t *testing.T) {
	c := startChild(t, "ok", Options{})
	cases := normalCases(200)
	cases[50].req = map[string]any{"value": "v50", "twice": true}
	cases[50].want = Response{Output: []byte("v50")}
	checkResponses(t, cases, runAll(t, c, cases), nil)
	if c.Restarts() == 0 {
		t.Errorf("a second answer did not restart the child")
	}
}

func TestSeveralCulprits(t *testing.T) {
	c := startChild(t, "ok", Options{Timeout: 2 * time.Second})
	cases := normalCases(400)
	bad := map[int]bool{10: true, 11: true, 200: true, 201: true, 399: true}
	cases[10].req = map[string]any{"crash": true}
	cases[11].req = map[string]any{"crash": true}
	cases[200].req = map[string]any{"hang": true}
	cases[201].req = map[string]any{"garbage": "junk"}
	cases[399].req = map[string]any{"crash": true}
	checkResponses(t, cases, runAll(t, c, cases), bad)
}

func TestStartErrors(t *testing.T) {
	tests := []struct {
		name string
		mode string
		opts Options
		want string
	}{
		{"a wrong first line is named in the error", "badhello", Options{}, `{\"greeting\": \"hi\"}`},
		{"a child that exits before its hello reports status and stderr", "nohello", Options{}, "(exit status 7); stderr: cannot start: missing library"},
		{"a child that never says hello times out", "slowhello", Options{HelloTimeout: 200 * time.Millisecond}, "no hello line within 200ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := startChildErr(tt.mode, tt.opts)
			if err == nil {
				c.Close()
				t.Fatalf("Start succeeded, want an error")
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Start error %q does not contain %q", err, tt.want)
			}
		})
	}
	if _, err := Start([]string{filepath.Join(t.TempDir(), "no-such-program")}, Options{}); err == nil {
		t.Errorf("Start of a missing program succeeded")
	}
}

func TestRestartLimit(t *testing.T) {
	state := filepath.Join(t.TempDir(), "starts")
	c := startChild(t, "flaky", Options{Env: []string{childStateEnv + "=" + state}, MaxStartFailures: 2})
	r := c.Do(context.Background(), map[string]any{"crash": true})
	if !strings.Contains(r.Crash, "child died") {
		t.Fatalf("crashing case: got %+v, want a crash", r)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		r = c.Do(context.Background(), map[string]any{"value": "v"})
		if strings.Contains(r.Crash, "cannot restart") || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(r.Crash, "cannot restart the child (2 failures in a row)") || !strings.Contains(r.Crash, "refusing to start again") {
		t.Errorf("after failed restarts: got %+v, want a crash naming the restart failures", r)
	}
	if err := c.Close(); err == nil || !strings.Contains(err.Error(), "cannot restart") {
		t.Errorf("Close() = %v, want the restart error", err)
	}
}

func TestCancel(t *testing.T) {
	c := startChild(t, "ok", Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	r := c.Do(ctx, map[string]any{"hang": true})
	if !strings.Contains(r.Crash, "canceled") {
		t.Errorf("canceled request: got %+v, want a crash saying canceled", r)
	}
	// The child is still hung on that request; Close must not wait forever.
	start := time.Now()
	c.opts.CloseTimeout = 200 * time.Millisecond
	if err := c.Close(); err == nil || !strings.Contains(err.Error(), "killed") {
		t.Errorf("Close() = %v, want an error saying the child was killed", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
}

func TestCloseReportsExitStatus(t *testing.T) {
	c := startChild(t, "exitdirty", Options{})
	if r := c.Do(context.Background(), map[string]any{"value": "a"}); string(r.Output) != "a" {
		t.Fatalf("got %+v", r)
	}
	if err := c.Close(); err == nil || !strings.Contains(err.Error(), "exit status 9") {
		t.Errorf("Close() = %v, want exit status 9", err)
	}
}

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		rule string
		in   string
		want []string
	}{
		{"words split at white space", "node  oracle.js\t-x", []string{"node", "oracle.js", "-x"}},
		{"single quotes keep everything", `sh -c 'echo "a b" \x'`, []string{"sh", "-c", `echo "a b" \x`}},
		{"double quotes keep spaces and unescape \\\"", `prog "a b" "c\"d" "e\f"`, []string{"prog", "a b", `c"d`, `e\f`}},
		{"an unquoted backslash keeps the next character", `prog a\ b`, []string{"prog", "a b"}},
		{"quotes join with adjacent text", `prog x'y'"z"`, []string{"prog", "xyz"}},
		{"an empty quoted word is a word", `prog ''`, []string{"prog", ""}},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.in)
		if err != nil {
			t.Errorf("%s: SplitCommand(%q): %v", tt.rule, tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: SplitCommand(%q) mismatch (-want +got):\n%s", tt.rule, tt.in, diff)
		}
	}
	for _, in := range []string{"", "   ", `prog 'open`, `prog "open`, `prog \`} {
		if got, err := SplitCommand(in); err == nil {
			t.Errorf("SplitCommand(%q) = %q, want an error", in, got)
		}
	}
}

func TestCommand(t *testing.T) {
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rule string
		impl string
		want []string
	}{
		{"numpy runs Debian's python3", "numpy", []string{"/usr/bin/python3", filepath.Join(dir, "numpy", "oracle.py")}},
		{"tfjs runs node", "tfjs", []string{"node", filepath.Join(dir, "tfjs", "oracle.js")}},
		{"anything else is a command line", "./impl --fast 'a b'", []string{"./impl", "--fast", "a b"}},
	}
	for _, tt := range tests {
		got, err := Command(tt.impl)
		if err != nil {
			t.Errorf("%s: Command(%q): %v", tt.rule, tt.impl, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: Command(%q) mismatch (-want +got):\n%s", tt.rule, tt.impl, diff)
		}
	}
	t.Setenv("CONFORM_ORACLE_DIR", t.TempDir())
	if got, err := Command("numpy"); err == nil {
		t.Errorf("Command(numpy) with an empty CONFORM_ORACLE_DIR = %q, want an error", got)
	}
}
