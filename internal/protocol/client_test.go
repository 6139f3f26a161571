package protocol

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
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

// response is an Answer as these tests read it, with the id the client
// gave its request; CrashKind is the answer's code if it is a crash.
type response struct {
	ID         int64
	Output     []byte
	ErrKind    engine.ErrorKind
	ErrMessage string
	Skip       string
	Crash      string
	CrashKind  CrashKind
}

// responseOf returns the response of answer a to the request id.
func responseOf(a Answer, id int64) response {
	r := response{ID: id}
	switch {
	case a.IsCrash():
		r.Crash, r.CrashKind = a.Reason(), CrashKind(a.Code())
	case a.IsSkip():
		r.Skip = a.Reason()
	case a.IsError():
		r.ErrKind, r.ErrMessage = a.Kind(), a.Message()
	default:
		r.Output = a.NPY()
	}
	return r
}

// do is c.Do, read as a response.
func do(c *Client, req map[string]any) response {
	a, id := c.doMap(context.Background(), req)
	return responseOf(a, id)
}

// testCase is one request to a test child and the response it should get.
type testCase struct {
	req  map[string]any
	want response // ID is ignored
}

// normalCases returns n cases with a mix of outputs, errors, skips and
// crashes the child reports.
func normalCases(n int) []testCase {
	cases := make([]testCase, n)
	for i := range cases {
		switch i % 5 {
		case 3:
			cases[i] = testCase{map[string]any{"op": "slice", "kind": "out_of_range"}, response{ErrKind: engine.OutOfRange, ErrMessage: "rejected"}}
		case 4:
			cases[i] = testCase{map[string]any{"op": "slice", "skip": fmt.Sprint("reason ", i)}, response{Skip: fmt.Sprint("reason ", i)}}
		case 2:
			if i%10 == 2 { // a crash the child reports: that case only
				cases[i] = testCase{map[string]any{"op": "slice", "report": fmt.Sprint("trap ", i)}, response{Crash: fmt.Sprint("the child reported a crash: trap ", i), CrashKind: CrashReported}}
				break
			}
			fallthrough
		default:
			v := fmt.Sprintf("value %d %s", i, strings.Repeat("x", i%50))
			cases[i] = testCase{map[string]any{"op": "getitem", "value": v, "id": -1}, response{Output: []byte(v)}}
		}
	}
	return cases
}

// runAll runs every case concurrently and returns the responses in order.
func runAll(t *testing.T, c *Client, cases []testCase) []response {
	t.Helper()
	got := make([]response, len(cases))
	var wg sync.WaitGroup
	for i := range cases {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			got[i] = do(c, cases[i].req)
		}(i)
	}
	wg.Wait()
	return got
}

// checkResponses checks every response against its case; the responses
// at the keys of crashAt must instead be crashes of the kind given there,
// whose reason contains crashWant.
func checkResponses(t *testing.T, cases []testCase, got []response, crashAt map[int]CrashKind, crashWant ...string) {
	t.Helper()
	ids := map[int64]bool{}
	for i, r := range got {
		if ids[r.ID] {
			t.Errorf("case %d: id %d used twice", i, r.ID)
		}
		ids[r.ID] = true
		if kind, ok := crashAt[i]; ok {
			if r.Crash == "" || r.CrashKind != kind {
				t.Errorf("case %d: got %+v, want a crash of kind %q", i, r, kind)
				continue
			}
			for _, w := range crashWant {
				if !strings.Contains(r.Crash, w) {
					t.Errorf("case %d: crash %q does not mention %q", i, r.Crash, w)
				}
			}
			continue
		}
		if diff := cmp.Diff(cases[i].want, r, cmpopts.IgnoreFields(response{}, "ID"), cmpopts.EquateEmpty()); diff != "" {
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
	if r := do(c, cases[0].req); r.Crash == "" {
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
		kind      CrashKind
		crashWant []string
		restarts  bool
	}{
		{"a case that kills the child is a crash naming the exit status and stderr", "ok",
			map[string]any{"crash": true}, Options{}, CrashDied, []string{"child died", "exit status 3", "fatal: crashing on request"}, true},
		{"a crash is isolated among out-of-order answers too", "reverse",
			map[string]any{"crash": true}, Options{}, CrashDied, []string{"child died", "exit status 3"}, true},
		{"a case that hangs times out; the others are re-sent", "ok",
			map[string]any{"hang": true}, Options{Timeout: 2 * time.Second}, CrashTimeout, []string{"timeout after 2s"}, true},
		{"a hang is isolated among out-of-order answers too", "reverse",
			map[string]any{"hang": true}, Options{Timeout: 2 * time.Second}, CrashTimeout, []string{"timeout after"}, true},
		{"a non-JSON line is blamed on the case that prints it", "ok",
			map[string]any{"garbage": "this is not JSON"}, Options{}, CrashGarbage, []string{"garbage response", "not a JSON object"}, true},
		{"a line without an id is blamed on the case that prints it", "ok",
			map[string]any{"garbage": `{"output": ""}`}, Options{}, CrashGarbage, []string{"garbage response", "no integer id"}, true},
		{"an answer for an id never given out is a protocol error of the case that prints it", "reverse",
			map[string]any{"garbage": `{"id": 99999999, "output": ""}`}, Options{}, CrashProtocol, []string{"protocol error: an answer for case 99999999, which was never sent"}, true},
		{"a too long line is a protocol error of the case that prints it", "ok",
			map[string]any{"garbage": strings.Repeat("y", 5000)}, Options{MaxLine: 4096}, CrashProtocol, []string{"protocol error: response line longer than 4096 bytes"}, true},
		{"a line over the bound is reported at once, not after the rest of it or a timeout", "ok",
			map[string]any{"longline": 8 << 20}, Options{MaxLine: 1 << 20, Timeout: time.Minute}, CrashProtocol, []string{"protocol error: response line longer than 1048576 bytes"}, true},
		{"a malformed answer is a crash of its case alone, without a restart", "ok",
			map[string]any{"badfield": true}, Options{}, CrashGarbage, []string{"garbage response"}, false},
		{"an answer with a bad error kind is a crash of its case alone", "ok",
			map[string]any{"kind": "weird"}, Options{}, CrashGarbage, []string{`unknown error kind "weird"`}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startChild(t, tt.mode, tt.opts)
			cases := normalCases(300)
			const culprit = 137
			cases[culprit].req = tt.bad
			start := time.Now()
			got := runAll(t, c, cases)
			checkResponses(t, cases, got, map[int]CrashKind{culprit: tt.kind}, tt.crashWant...)
			if restarted := c.Restarts() > 0; restarted != tt.restarts {
				t.Errorf("restarted = %v, want %v", restarted, tt.restarts)
			}
			if tt.opts.Timeout == time.Minute {
				if d := time.Since(start); d > 30*time.Second {
					t.Errorf("took %v: the long line waited for a timeout", d)
				}
			}
			// The client still works afterwards.
			more := normalCases(20)
			checkResponses(t, more, runAll(t, c, more), nil)
		})
	}
}

// TestSecondAnswer runs a batch in which one case is answered twice: the
// second answer is a protocol error of that case, reported exactly once,
// either as the case's crash (its caller had not received the first
// answer yet) or as a Fault that Close returns (it had); every other case
// gets its real answer and the child is not restarted.
func TestSecondAnswer(t *testing.T) {
	tests := []struct {
		rule  string
		mode  string
		twice any
	}{
		{"the same answer twice is a protocol error", "ok", true},
		{"a second, different answer is a protocol error", "ok", "another value"},
		{"a second answer is found among out-of-order answers too", "reverse", "another value"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			c := startChild(t, tt.mode, Options{})
			cases := normalCases(200)
			const twice = 50
			cases[twice].req = map[string]any{"value": "v50", "twice": tt.twice}
			cases[twice].want = response{Output: []byte("v50")}
			got := runAll(t, c, cases)
			id := got[twice].ID
			crashed := got[twice].CrashKind == CrashProtocol
			if crashed {
				cases[twice].want = got[twice] // checked below
				if want := fmt.Sprintf("protocol error: a second answer for case %d", id); !strings.Contains(got[twice].Crash, want) {
					t.Errorf("crash %q does not say %q", got[twice].Crash, want)
				}
			}
			checkResponses(t, cases, got, nil)
			// The second answer may still be on its way: a later
			// request is answered after it.
			if r := do(c, map[string]any{"value": "after"}); string(r.Output) != "after" {
				t.Errorf("a request after the batch: got %+v", r)
			}
			faults, total := c.Faults()
			t.Logf("the case crashed: %v; faults: %v", crashed, faults)
			switch {
			case crashed && total != 0:
				t.Errorf("the case crashed and %d faults were recorded (%v), want no fault", total, faults)
			case !crashed && (total != 1 || faults[0].ID != id):
				t.Errorf("the case kept its first answer and the faults are %v (%d), want one for case %d", faults, total, id)
			}
			if n := c.Restarts(); n != 0 {
				t.Errorf("%d restarts, want none", n)
			}
			err := c.Close()
			var fe *FaultError
			if isFault := errors.As(err, &fe); isFault == crashed {
				t.Errorf("Close() = %v; want a *FaultError exactly when the case kept its first answer (%v)", err, !crashed)
			}
		})
	}
}

// sendEmpty sends the request "{}" to c's child as the client sends any
// request, and returns the child and the call, whose answer a test then
// gives with c.onLine.
func sendEmpty(c *Client) (*child, *call) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := c.child
	c.nextID++
	cl := &call{id: c.nextID, line: []byte("{}\n"), done: make(chan Answer, 1)}
	c.sendLocked(ch, cl)
	return ch, cl
}

// TestSecondAnswerReplacesUntakenResponse: a second answer that comes
// while the first is still waiting for its caller replaces it, so the
// caller sees the protocol error rather than either answer.
func TestSecondAnswerReplacesUntakenResponse(t *testing.T) {
	c := startChild(t, "hangall", Options{CloseTimeout: 100 * time.Millisecond})
	ch, cl := sendEmpty(c)
	answer := []byte(fmt.Sprintf(`{"id":%d,"output":"YWJj"}`, cl.id))
	c.onLine(ch, answer)
	c.onLine(ch, answer) // nobody has received the first one yet
	r := responseOf(<-cl.done, cl.id)
	if r.CrashKind != CrashProtocol || !strings.Contains(r.Crash, fmt.Sprintf("a second answer for case %d", cl.id)) {
		t.Errorf("got %+v, want a protocol error naming the second answer", r)
	}
	if _, total := c.Faults(); total != 0 {
		t.Errorf("%d faults recorded, want none: the case's crash reports it", total)
	}
	// A third answer finds the crash taken: now it is a fault.
	c.onLine(ch, answer)
	if faults, total := c.Faults(); total != 1 || faults[0].ID != cl.id {
		t.Errorf("after a third answer: faults %v (%d), want one for case %d", faults, total, cl.id)
	}
}

// TestAnswerForCaseNeverSent: an answer naming a case the client gave to
// an earlier child (never to this one) is a protocol error, charged to
// the request that makes the child write it.
func TestAnswerForCaseNeverSent(t *testing.T) {
	c := startChild(t, "ok", Options{})
	first := do(c, map[string]any{"crash": true})
	if first.CrashKind != CrashDied {
		t.Fatalf("got %+v, want the child to die", first)
	}
	r := do(c, map[string]any{"value": "v", "garbage": fmt.Sprintf(`{"id": %d, "output": ""}`, first.ID)})
	want := fmt.Sprintf("protocol error: an answer for case %d, which was never sent to this child", first.ID)
	if r.CrashKind != CrashProtocol || !strings.Contains(r.Crash, want) {
		t.Errorf("got %+v, want a protocol error saying %q", r, want)
	}
	if r := do(c, map[string]any{"value": "w"}); string(r.Output) != "w" {
		t.Errorf("afterwards: got %+v", r)
	}
}

// blockingReader supplies n bytes of "x" and then blocks until closed, as
// a child that writes a long line without a newline and hangs.
type blockingReader struct {
	n, read int
	stop    chan struct{}
}

func (r *blockingReader) Read(p []byte) (int, error) {
	if r.read >= r.n {
		<-r.stop
		return 0, io.EOF
	}
	k := min(len(p), r.n-r.read)
	for i := range p[:k] {
		p[i] = 'x'
	}
	r.read += k
	return k, nil
}

// TestReadLineBound checks that the reader gives up on a line as soon as
// it is longer than the bound, without waiting for its end and without
// reading (or holding) much more than the bound.
func TestReadLineBound(t *testing.T) {
	tests := []struct {
		rule    string
		max     int
		written int
		wantErr error
	}{
		{"a line over the bound is refused before its end arrives", 1 << 20, 100 << 20, errLineTooLong},
		{"a line one byte over the bound is refused", 1 << 20, 1<<20 + 1, errLineTooLong},
		{"a line exactly at the bound waits for its newline", 1 << 20, 1 << 20, nil},
	}
	for _, tt := range tests {
		r := &blockingReader{n: tt.written, stop: make(chan struct{})}
		ch := &child{stdout: bufio.NewReaderSize(r, 1<<16), max: tt.max}
		done := make(chan error, 1)
		go func() {
			_, err := ch.readLine()
			done <- err
		}()
		wait := 5 * time.Second
		if tt.wantErr == nil {
			wait = 500 * time.Millisecond
		}
		select {
		case err := <-done:
			if err != tt.wantErr {
				t.Errorf("%s: readLine() = %v, want %v", tt.rule, err, tt.wantErr)
			}
			if r.read > tt.max+1<<16 {
				t.Errorf("%s: read %d bytes for a bound of %d", tt.rule, r.read, tt.max)
			}
		case <-time.After(wait):
			if tt.wantErr != nil {
				t.Errorf("%s: readLine still waiting after %v (read %d bytes)", tt.rule, wait, r.read)
			}
		}
		close(r.stop)
	}
}

// TestMaxLineDefault: the default bound on a line fits the base64 of the
// largest output the engine's output limit allows, with slack.
func TestMaxLineDefault(t *testing.T) {
	if got, want := int64(DefaultMaxLine), int64(engine.DefaultOutputLimit)*4/3+LineSlack; got < want {
		t.Errorf("DefaultMaxLine = %d, want at least %d", got, want)
	}
	if got := MaxLineFor(engine.DefaultOutputLimit); got != DefaultMaxLine {
		t.Errorf("MaxLineFor(DefaultOutputLimit) = %d, want DefaultMaxLine %d", got, DefaultMaxLine)
	}
	if got := (Options{}).withDefaults().MaxLine; got != DefaultMaxLine {
		t.Errorf("the default MaxLine is %d, want DefaultMaxLine %d", got, DefaultMaxLine)
	}
	if got, want := MaxLineFor(3000), 4000+LineSlack; got != want {
		t.Errorf("MaxLineFor(3000) = %d, want %d", got, want)
	}
}

func TestSeveralCulprits(t *testing.T) {
	c := startChild(t, "ok", Options{Timeout: 2 * time.Second})
	cases := normalCases(400)
	bad := map[int]CrashKind{10: CrashDied, 11: CrashDied, 200: CrashTimeout, 201: CrashGarbage, 399: CrashDied}
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
		{"a child that exits before its hello reports status and stderr", "nohello", Options{}, "child exited with status 7 before its hello; stderr: cannot start: missing library"},
		{"a child that exits with status 0 before its hello says so, not that it was killed", "exit0", Options{}, "child exited with status 0 before its hello; stderr: nothing to do here"},
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
	r := killAndWaitUnavailable(t, c)
	if !strings.Contains(r.Crash, "cannot restart the child (2 failures in a row)") || !strings.Contains(r.Crash, "refusing to start again") {
		t.Errorf("after failed restarts: crash %q does not name the restart failures", r.Crash)
	}
	if err := c.Close(); err == nil || !strings.Contains(err.Error(), "cannot restart") {
		t.Errorf("Close() = %v, want the restart error", err)
	}
}

// killAndWaitUnavailable kills c's child with a crashing case and sends
// cases until one finds that the child cannot be restarted (for 10 s at
// most), returning that case's response.
func killAndWaitUnavailable(t *testing.T, c *Client) response {
	t.Helper()
	if r := do(c, map[string]any{"crash": true}); r.CrashKind != CrashDied {
		t.Fatalf("crashing case: got %+v, want the child to die", r)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		r := do(c, map[string]any{"value": "v"})
		if r.CrashKind == CrashUnavailable {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("after restarts that failed: got %+v, want a crash of kind %q", r, CrashUnavailable)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestRestartWithAnotherHello checks that a restarted child whose hello
// is not the first child's is not used: the requests are encoded, and
// the answers read, by what the first said (here raw arrays).
func TestRestartWithAnotherHello(t *testing.T) {
	state := filepath.Join(t.TempDir(), "starts")
	c := startChild(t, "rawonce", Options{Env: []string{childStateEnv + "=" + state}, MaxStartFailures: 2})
	killAndWaitUnavailable(t, c)
	if !c.Hello().Same(Hello{Name: "testchild", Version: "1.0", Ops: []string{"getitem", "slice"}, Arrays: ArraysRaw}) {
		t.Errorf("Hello() = %+v, want the first child's", c.Hello())
	}
}

// TestHelloSame checks that two hellos are the same only when every
// field is.
func TestHelloSame(t *testing.T) {
	base := Hello{Name: "n", Version: "1", Ops: []string{"getitem", "take"}, Errors: ErrorsPython, Arrays: ArraysRaw}
	tests := []struct {
		name string
		edit func(*Hello)
		want bool
	}{
		{"an identical hello is the same", func(*Hello) {}, true},
		{"another name differs", func(h *Hello) { h.Name = "m" }, false},
		{"another version differs", func(h *Hello) { h.Version = "2" }, false},
		{"ops in another order differ", func(h *Hello) { h.Ops = []string{"take", "getitem"} }, false},
		{"fewer ops differ", func(h *Hello) { h.Ops = []string{"getitem"} }, false},
		{"errors by kind differ from Python errors", func(h *Hello) { h.Errors = "" }, false},
		{".npy arrays differ from raw arrays", func(h *Hello) { h.Arrays = "" }, false},
	}
	for _, tt := range tests {
		h := base
		h.Ops = slices.Clone(base.Ops)
		tt.edit(&h)
		if got := h.Same(base); got != tt.want {
			t.Errorf("%s: Same = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestCancel(t *testing.T) {
	c := startChild(t, "ok", Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	a, id := c.doMap(ctx, map[string]any{"hang": true})
	r := responseOf(a, id)
	if r.CrashKind != CrashCanceled {
		t.Errorf("canceled request: got %+v, want a crash of kind %q", r, CrashCanceled)
	}
	// The child is still hung on that request: Close kills it at once,
	// without waiting for CloseTimeout, and the child did nothing wrong
	// that Close could report.
	start := time.Now()
	c.opts.CloseTimeout = time.Minute
	if err := c.Close(); err != nil {
		t.Errorf("Close() = %v, want nil", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
}

func TestCloseReportsExitStatus(t *testing.T) {
	c := startChild(t, "exitdirty", Options{})
	if r := do(c, map[string]any{"value": "a"}); string(r.Output) != "a" {
		t.Fatalf("got %+v", r)
	}
	if err := c.Close(); err == nil || !strings.Contains(err.Error(), "exit status 9") {
		t.Errorf("Close() = %v, want exit status 9", err)
	}
}

// TestOnLineKeepsNothingOfTheLine checks that the answer onLine gives a
// case holds nothing of the line it read: the reader reuses its buffer
// for the next line as soon as onLine returns.
func TestOnLineKeepsNothingOfTheLine(t *testing.T) {
	c := startChild(t, "hangall", Options{CloseTimeout: 100 * time.Millisecond})
	tests := []struct {
		rule string
		line string
		want response
	}{
		{"an output in the common form", `{"id":%d,"output":"YWJj"}`, response{Output: []byte("abc")}},
		{"an output the general way", `{"output": "YWJj", "id": %d}`, response{Output: []byte("abc")}},
		{"an error in the common form", `{"id":%d,"error":{"kind":"out_of_range","message":"m"}}`, response{ErrKind: "out_of_range", ErrMessage: "m"}},
		{"an error the general way", `{"id": %d, "error": {"kind": "out_of_range", "message": "m"}}`, response{ErrKind: "out_of_range", ErrMessage: "m"}},
	}
	for _, tt := range tests {
		ch, cl := sendEmpty(c)
		line := []byte(fmt.Sprintf(tt.line, cl.id))
		c.onLine(ch, line)
		for i := range line {
			line[i] = 'x'
		}
		tt.want.ID = cl.id
		if diff := cmp.Diff(tt.want, responseOf(<-cl.done, cl.id)); diff != "" {
			t.Errorf("%s: the answer after its line was overwritten (-want +got):\n%s", tt.rule, diff)
		}
	}
}

// TestPlainOutputErrors checks which error answers plainOutput reads
// without the JSON decoder: the compact form a child writes, with or
// without a type; anything else (escapes in the message, an unknown kind,
// an invalid type, another field) is left to the general reader.
func TestPlainOutputErrors(t *testing.T) {
	tests := []struct {
		rule     string
		line     string
		ok       bool
		kind     engine.ErrorKind
		msg, typ string
	}{
		{"an error without a type", `{"id":3,"error":{"kind":"out_of_range","message":"index 5"}}`, true, engine.OutOfRange, "index 5", ""},
		{"an error with a type", `{"id":3,"error":{"kind":"bad_input","message":"m","type":"numpy.AxisError"}}`, true, engine.BadInput, "m", "numpy.AxisError"},
		{"a message in UTF-8 is read as written", `{"id":3,"error":{"kind":"invalid_spec","message":"é"}}`, true, engine.InvalidSpec, "é", ""},
		{"a message with an escape is left to the decoder", `{"id":3,"error":{"kind":"invalid_spec","message":"a\"b"}}`, false, "", "", ""},
		{"an unknown kind is left to the decoder", `{"id":3,"error":{"kind":"nope","message":"m"}}`, false, "", "", ""},
		{"an invalid type is left to the decoder", `{"id":3,"error":{"kind":"bad_input","message":"m","type":"1x"}}`, false, "", "", ""},
		{"another field is left to the decoder", `{"id":3,"error":{"kind":"bad_input","message":"m"},"skip":""}`, false, "", "", ""},
	}
	for _, tt := range tests {
		id, a, ok := plainOutput([]byte(tt.line), false)
		if ok != tt.ok {
			t.Errorf("%s: accepted %v, want %v", tt.rule, ok, tt.ok)
			continue
		}
		if ok && (id != 3 || !a.IsError() || a.Kind() != tt.kind || a.Message() != tt.msg || a.Type() != tt.typ) {
			t.Errorf("%s: id %d, answer %+v", tt.rule, id, a)
		}
	}
}
