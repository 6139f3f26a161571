// Package impl runs implementations under test: the in-process reference
// engine, or any program speaking the conform/1 protocol (the oracles
// included), behind one interface.
package impl

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/conformsuite/conform/casefile"
	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/engine/npy"
	"github.com/conformsuite/conform/internal/compare"
	"github.com/conformsuite/conform/internal/protocol"
	"github.com/conformsuite/conform/oracle"
)

// Result is what an implementation did with one case: exactly one of an
// output, an error kind, a skip, or a crash (died, hung, answered garbage).
type Result struct {
	Output  *engine.Tensor
	Kind    engine.ErrorKind
	Message string
	Skip    string
	Crash   string
	// CrashCode says what kind of crash Crash is, as a code: one of the
	// protocol.CrashKind values, the code a child gave a crash it reported
	// (its "code"), or the codes of this package (CrashEnginePanic,
	// CrashBadOutput). Nothing reads Crash's text to tell crashes apart.
	CrashCode string
}

// Crash codes of failures this package detects itself.
const (
	// CrashEnginePanic: the engine panicked (a bug in conform).
	CrashEnginePanic = "engine-panic"
	// CrashBadOutput: the implementation's output is not a readable .npy
	// file.
	CrashBadOutput = "bad-output"
	// CrashNoKind: the engine returned an error without a kind.
	CrashNoKind = "no-kind"
)

// Ran reports whether the result is an output or an error, as opposed to
// a skip or a crash.
func (r Result) Ran() bool { return r.Skip == "" && r.Crash == "" }

// String describes the result in a few words.
func (r Result) String() string {
	switch {
	case r.Crash != "":
		return "crash: " + r.Crash
	case r.Skip != "":
		return "skip: " + r.Skip
	case r.Kind != "" && r.Message == "":
		return "error " + string(r.Kind)
	case r.Kind != "":
		return fmt.Sprintf("error %s (%s)", r.Kind, r.Message)
	}
	return fmt.Sprintf("output %v %v", r.Output.DType, r.Output.Shape)
}

// Diff returns "" if got agrees exactly with want (the same error kind, or
// the same dtype, shape and element bytes) and otherwise describes the
// first difference. A crash never agrees; skips are not compared (Diff
// returns "" if either side skipped).
func Diff(want, got Result) string {
	switch {
	case got.Crash != "":
		return "crash: " + got.Crash
	case want.Skip != "" || got.Skip != "" || want.Crash != "":
		return ""
	case want.Kind != "" || got.Kind != "":
		if want.Kind == got.Kind {
			return ""
		}
		return fmt.Sprintf("got %v, want %v", got, want)
	}
	if err := compare.Tensors(want.Output, got.Output); err != nil {
		return err.Error()
	}
	return ""
}

// Impl is an implementation under test.
type Impl interface {
	// Name and Version identify the implementation (from its hello).
	Name() string
	Version() string
	// Supports reports whether the implementation runs op.
	Supports(op string) bool
	// Run evaluates one case. It is safe for concurrent use.
	Run(ctx context.Context, m casefile.Memory) Result
	// Close stops the implementation.
	Close() error
}

// Open starts an implementation: "engine" (the in-process reference
// engine), an oracle name ("numpy", "tfjs", "ort", "tflite"), or a command line that
// starts a conform/1 child (e.g. "python3 my_adapter.py").
func Open(spec string, timeout time.Duration) (Impl, error) {
	if spec == "engine" {
		return Engine{}, nil
	}
	argv, err := oracle.Command(spec)
	if err != nil {
		return nil, err
	}
	c, err := protocol.Start(argv, protocol.Options{Timeout: timeout})
	if err != nil {
		return nil, fmt.Errorf("starting %q: %w", spec, err)
	}
	return NewProtocol(c), nil
}

// EngineVersion is the version the reference engine reports.
const EngineVersion = "0.1.0"

// Engine is the in-process reference engine.
type Engine struct{}

// Name implements Impl.
func (Engine) Name() string { return "engine" }

// Version implements Impl.
func (Engine) Version() string { return EngineVersion }

// Supports implements Impl: the engine runs every op.
func (Engine) Supports(op string) bool { return true }

// Close implements Impl.
func (Engine) Close() error { return nil }

// Run implements Impl. A panic (a bug) is reported as a crash.
func (Engine) Run(ctx context.Context, m casefile.Memory) (r Result) {
	defer func() {
		if p := recover(); p != nil {
			r = Result{Crash: fmt.Sprintf("engine panic: %v", p), CrashCode: CrashEnginePanic}
		}
	}()
	c, err := m.Case()
	var out *engine.Tensor
	if err == nil {
		out, err = c.Eval()
	}
	return FromError(out, err)
}

// FromError makes a Result of an output or an error.
func FromError(out *engine.Tensor, err error) Result {
	if err != nil {
		kind := engine.KindOf(err)
		msg := err.Error()
		if e, ok := err.(*engine.Error); ok {
			msg = e.Message
		}
		if kind == "" {
			return Result{Crash: msg, CrashCode: CrashNoKind}
		}
		return Result{Kind: kind, Message: msg}
	}
	return Result{Output: out}
}

// Protocol is an implementation running as a conform/1 child process.
type Protocol struct {
	client *protocol.Client
	hello  protocol.Hello
	ops    map[string]bool

	mu       sync.Mutex
	reasons  map[string]string // skip reasons, each held once (see share)
	unlisted map[string]string // op -> the reason its cases are skipped
}

// NewProtocol returns the implementation that client runs.
func NewProtocol(client *protocol.Client) *Protocol {
	p := &Protocol{client: client, hello: client.Hello(), ops: map[string]bool{}, reasons: map[string]string{}, unlisted: map[string]string{}}
	for _, op := range p.hello.Ops {
		p.ops[op] = true
	}
	return p
}

// Name implements Impl.
func (p *Protocol) Name() string { return p.hello.Name }

// Version implements Impl.
func (p *Protocol) Version() string { return p.hello.Version }

// Supports implements Impl: the ops listed in the child's hello.
func (p *Protocol) Supports(op string) bool { return p.ops[op] }

// maxReasons bounds how many distinct skip reasons a Protocol shares.
const maxReasons = 1024

// share returns reason as a string already held for an equal reason, so
// that the cases skipped for one reason (every case of an op the child
// does not list, say) all refer to one string instead of a copy each.
// Up to maxReasons distinct reasons are kept; the others are returned
// as they are.
func (p *Protocol) share(reason string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.reasons[reason]; ok {
		return r
	}
	if len(p.reasons) < maxReasons {
		p.reasons[reason] = reason
	}
	return reason
}

// notListed returns the skip reason of the cases of op, which the child
// does not list in its hello: one string per op, shared by its cases.
func (p *Protocol) notListed(op string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.unlisted[op]; ok {
		return r
	}
	r := fmt.Sprintf("%s does not list %s in its hello", p.Name(), op)
	if len(p.unlisted) < maxReasons {
		p.unlisted[op] = r
	}
	return r
}

// Close implements Impl.
func (p *Protocol) Close() error { return p.client.Close() }

// Run implements Impl. An output that is not a readable .npy file is a
// crash of that case.
func (p *Protocol) Run(ctx context.Context, m casefile.Memory) Result {
	if !p.Supports(m.Op()) {
		return Result{Skip: p.notListed(m.Op())}
	}
	// The request is encoded once the client has room for it.
	resp := p.client.DoAppend(ctx, m.RequestSize(), m.AppendRequest)
	switch {
	case resp.Crash != "":
		code := string(resp.CrashKind)
		if resp.CrashKind == protocol.CrashReported && resp.ReasonCode != "" {
			code = resp.ReasonCode // the child's own code for its crash
		}
		return Result{Crash: resp.Crash, CrashCode: code}
	case resp.Skip != "":
		return Result{Skip: p.share(resp.Skip)}
	case resp.ErrKind != "":
		return Result{Kind: resp.ErrKind, Message: resp.ErrMessage}
	}
	t, err := npy.Decode(resp.Output)
	if err != nil {
		return Result{Crash: "unreadable output: " + err.Error(), CrashCode: CrashBadOutput}
	}
	return Result{Output: t}
}
