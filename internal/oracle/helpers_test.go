package oracle

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/casefile/casefiletest"
	"github.com/conformsuite/conform/internal/protocol"
)

// What the oracle tests share: starting an oracle, running requests
// concurrently, and the checks of malformed requests.

// startOracle starts the oracle impl (see Command) with its stderr in the
// test's log; it is closed when the test ends.
func startOracle(t *testing.T, impl string) *protocol.Client {
	t.Helper()
	argv, err := Command(impl)
	if err != nil {
		t.Fatal(err)
	}
	c, err := protocol.Start(argv, protocol.Options{Stderr: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// checkHelloOps reports each of ops that the hello h does not list.
func checkHelloOps(t *testing.T, h protocol.Hello, ops []string) {
	t.Helper()
	listed := map[string]bool{}
	for _, op := range h.Ops {
		listed[op] = true
	}
	for _, op := range ops {
		if !listed[op] {
			t.Errorf("hello lists ops %v, without %s", h.Ops, op)
		}
	}
}

// doAll sends the requests req(0), ..., req(n-1) to c from workers
// goroutines and returns the responses, in that order.
func doAll(c *protocol.Client, n, workers int, req func(i int) map[string]any) []response {
	results := make([]response, n)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i] = do(c, req(i))
			}
		}()
	}
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	return results
}

// doCases runs cases through c, 64 at a time, and returns the responses
// in order.
func doCases(c *protocol.Client, cases []*casefile.Case) []response {
	return doAll(c, len(cases), 64, func(i int) map[string]any { return cases[i].Request(0) })
}

// benchRequests sends b.N requests req(i) to c, 256 in flight, reports
// the throughput in cases/s, and fails the benchmark if failed holds for
// some responses ("%d of %d cases <what>").
func benchRequests(b *testing.B, c *protocol.Client, req func(i int) map[string]any, failed func(response) bool, what string) {
	b.ResetTimer()
	var wg sync.WaitGroup
	next := make(chan int, 256)
	var mu sync.Mutex
	n := 0
	for w := 0; w < 256; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if failed(do(c, req(i))) {
					mu.Lock()
					n++
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < b.N; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "cases/s")
	if n > 0 {
		b.Errorf("%d of %d cases %s", n, b.N, what)
	}
}

// literalRequests decodes requests written as JSON, keeping each number as
// written (a json.Number is sent as written): integers beyond int64 and
// non-integers.
func literalRequests(t *testing.T, docs ...string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, r := range docs {
		dec := json.NewDecoder(strings.NewReader(r))
		dec.UseNumber()
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// engineAnswer returns req as JSON and what the engine makes of it: the
// error kind, or the output.
func engineAnswer(req map[string]any) (doc []byte, want outcome) {
	doc, _ = json.Marshal(req)
	if cs, err := casefile.Parse(doc, casefile.Base64Inputs); err != nil {
		want.kind = engine.KindOf(err)
	} else if out, err := cs.Eval(); err != nil {
		want.kind = engine.KindOf(err)
	} else {
		want.tensor = out
	}
	return doc, want
}

// checkMalformed sends reqs to c and requires for each no crash, an output
// where the engine gives one, and the engine's error kind or a skip where
// it does not; and that c was never restarted.
func checkMalformed(t *testing.T, c *protocol.Client, reqs []map[string]any) {
	t.Helper()
	for _, req := range reqs {
		data, w := engineAnswer(req)
		want := w.kind
		r := do(c, req)
		switch {
		case r.Crash != "":
			t.Errorf("%s: crash %s", data, r.Crash)
		case want == "" && r.ErrKind != "":
			t.Errorf("%s: got %s (%s), want an output", data, r.ErrKind, r.ErrMessage)
		case want != "" && r.ErrKind != want && r.Skip == "":
			t.Errorf("%s: got %+v, want error kind %q", data, r, want)
		}
	}
	checkNoRestarts(t, c)
}

// checkNoRestarts requires that c was never restarted.
func checkNoRestarts(t *testing.T, c *protocol.Client) {
	t.Helper()
	if n := c.Restarts(); n != 0 {
		t.Errorf("%d restarts", n)
	}
}

// coreOps are the ops of conform's first corpus, which every oracle but
// ONNX Runtime runs.
var coreOps = []string{casefile.OpGetItem, casefile.OpStridedSlice, casefile.OpSlice, casefile.OpGatherND}

// opSpec is the spec of a case of op with the fields given as name,
// value pairs.
func opSpec(op string, fields ...any) map[string]any {
	s := map[string]any{"op": op}
	for i := 0; i+1 < len(fields); i += 2 {
		s[fields[i].(string)] = fields[i+1]
	}
	return s
}

// response is a protocol.Answer as these tests read it: CrashKind is the
// client's kind of a crash (CrashReported for a crash the child reported)
// and ReasonCode the child's code for a skip or a reported crash.
type response struct {
	Output     []byte
	ErrKind    engine.ErrorKind
	ErrMessage string
	Skip       string
	Crash      string
	CrashKind  protocol.CrashKind
	ReasonCode string
}

// clientKinds are the crash codes the client gives crashes it detects.
var clientKinds = []protocol.CrashKind{protocol.CrashReported, protocol.CrashDied, protocol.CrashTimeout, protocol.CrashGarbage, protocol.CrashProtocol, protocol.CrashCanceled, protocol.CrashUnavailable, protocol.CrashBadRequest}

// respOf returns the response a is.
func respOf(a protocol.Answer) response {
	switch {
	case a.IsCrash():
		r := response{Crash: a.Reason(), CrashKind: protocol.CrashKind(a.Code())}
		if !slices.Contains(clientKinds, r.CrashKind) {
			r.CrashKind, r.ReasonCode = protocol.CrashReported, a.Code()
		}
		return r
	case a.IsSkip():
		return response{Skip: a.Reason(), ReasonCode: a.Code()}
	case a.IsError():
		return response{ErrKind: a.Kind(), ErrMessage: a.Message()}
	}
	return response{Output: a.NPY()}
}

// do is c.Do, read as a response.
func do(c *protocol.Client, req map[string]any) response {
	return respOf(c.Do(context.Background(), req))
}

// wire is casefiletest.Wire: the fields of a case as written, decoded.
var wire = casefiletest.Wire
