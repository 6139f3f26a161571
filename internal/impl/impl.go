// Package impl runs implementations under test: the in-process reference
// engine, or any program speaking the conform/1 protocol (the oracles
// included), behind one interface.
package impl

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/pool"
	"github.com/conformsuite/conform/internal/protocol"
)

// CrashEnginePanic is the crash code of a panic of the engine (a bug in
// conform).
const CrashEnginePanic = "engine-panic"

// Impl is an implementation under test.
type Impl interface {
	// Name and Version identify the implementation (from its hello).
	Name() string
	Version() string
	// Supports reports whether the implementation runs op.
	Supports(op string) bool
	// Run evaluates one case. It is safe for concurrent use.
	Run(ctx context.Context, c *casefile.Case) protocol.Answer
	// Close stops the implementation.
	Close() error
}

// Start starts a conform/1 child with the command line argv, each case
// given up to timeout (protocol.Options.Timeout; 0 is its default), for
// results of up to outputLimit bytes (0 or less:
// engine.DefaultOutputLimit): the child's response lines may be as long
// as the largest result needs (see protocol.MaxLineFor). The
// implementation runs up to jobs such children as the work needs them
// (see package pool); its results are those of one child.
func Start(argv []string, timeout time.Duration, outputLimit int64, jobs int) (Impl, error) {
	if outputLimit <= 0 {
		outputLimit = engine.DefaultOutputLimit
	}
	c, err := pool.Start(argv, protocol.Options{Timeout: timeout, MaxLine: protocol.MaxLineFor(outputLimit)}, jobs)
	if err != nil {
		return nil, err
	}
	return NewProtocol(c), nil
}

// EngineVersion is the version the reference engine reports.
const EngineVersion = "0.1.0"

// Engine is the in-process reference engine.
type Engine struct {
	// OutputLimit is the largest result in bytes (see
	// engine.Rules.OutputLimit); 0 means engine.DefaultOutputLimit.
	OutputLimit int64
}

// Name implements Impl.
func (Engine) Name() string { return "engine" }

// Version implements Impl.
func (Engine) Version() string { return EngineVersion }

// Supports implements Impl: the engine runs every op.
func (Engine) Supports(op string) bool { return true }

// Close implements Impl.
func (Engine) Close() error { return nil }

// Run implements Impl: a case that is not valid gives its error (see
// casefile.Case.Err). A panic (a bug) is reported as a crash.
func (e Engine) Run(ctx context.Context, c *casefile.Case) (a protocol.Answer) {
	defer func() {
		if p := recover(); p != nil {
			a = protocol.Crash(CrashEnginePanic, fmt.Sprintf("engine panic: %v", p))
		}
	}()
	return Of(c.EvalUnder(engine.Rules{OutputLimit: e.OutputLimit}))
}

// Of returns the answer of an evaluation that returned out and err: the
// output, or the error (protocol.ErrorAnswer).
func Of(out *engine.Tensor, err error) protocol.Answer {
	if err != nil {
		return protocol.ErrorAnswer(err)
	}
	return protocol.Output(out)
}

// Caller runs the requests of a Protocol: a protocol.Client (one child)
// or a pool.Pool (several children of one command).
type Caller interface {
	Hello() protocol.Hello
	DoAppend(ctx context.Context, size int, appendObj func(dst []byte) ([]byte, error)) protocol.Answer
	Close() error
}

// Protocol is an implementation running as conform/1 child processes.
type Protocol struct {
	client Caller
	hello  protocol.Hello
	ops    map[string]bool

	mu       sync.Mutex
	reasons  map[string]string // skip reasons, each held once (see share)
	unlisted map[string]string // op -> the reason its cases are skipped
}

// NewProtocol returns the implementation that client runs.
func NewProtocol(client Caller) *Protocol {
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

// ErrorClasses implements ClassErrors: whether the child's hello says its
// errors are Python exceptions (protocol.ErrorsPython).
func (p *Protocol) ErrorClasses() bool { return p.hello.Errors == protocol.ErrorsPython }

// ClassErrors is implemented by an implementation that can say whether
// its errors are Python exceptions, each giving its class: such errors
// are compared by class on NumPy-defined ops (see CompareFor).
type ClassErrors interface {
	ErrorClasses() bool
}

// CompareFor compares im's answer got with want on a case of op: by
// exception class (protocol.CompareByClass) if op is NumPy-defined and
// im's errors are Python exceptions, otherwise by kind (protocol.Compare).
func CompareFor(im Impl, op string, want, got protocol.Answer) protocol.Agreement {
	if ce, ok := im.(ClassErrors); ok && ce.ErrorClasses() && slices.Contains(casefile.FamilyOps("numpy"), op) {
		return protocol.CompareByClass(want, got)
	}
	return protocol.Compare(want, got)
}

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
// crash of that case (protocol.CrashBadOutput).
func (p *Protocol) Run(ctx context.Context, c *casefile.Case) protocol.Answer {
	if !p.Supports(c.Op) {
		return protocol.Skip(p.notListed(c.Op), "")
	}
	// The request is encoded once the client has room for it. A case
	// that is not valid is sent as written: the child must refuse it.
	var appendRequest func([]byte) ([]byte, error)
	if p.hello.Arrays == protocol.ArraysRaw {
		appendRequest = c.AppendRawRequest
	} else {
		appendRequest = c.AppendRequest
	}
	a := p.client.DoAppend(ctx, c.RequestSize(), appendRequest)
	if a.IsSkip() {
		return protocol.Skip(p.share(a.Reason()), a.Code())
	}
	return a.Decoded()
}
