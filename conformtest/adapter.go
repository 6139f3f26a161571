package conformtest

import (
	"context"
	"errors"
	"fmt"
	"math/bits"
	"runtime/debug"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/protocol"
)

// The crash codes of an implementation's failures that are not answers
// (the detail of a "crash" signature).
const (
	CrashPanic         = "panic"          // the method panicked
	CrashNoKind        = "no-kind"        // an error without a kind
	CrashNoResult      = "no-result"      // neither a tensor nor an error
	CrashInvalidResult = "invalid-result" // strides, offset and data do not fit
)

// adapter makes a user's implementation an impl.Impl, so that the
// loading, the comparison and the known failures are those of `conform
// check` (internal/check).
type adapter struct {
	impl     any
	name     string
	selected map[string]bool // nil: every op
	supports map[string]bool
}

func newAdapter(implementation any, selected map[string]bool) (*adapter, error) {
	if implementation == nil {
		return nil, errors.New("conformtest: the implementation is nil")
	}
	a := &adapter{impl: implementation, name: fmt.Sprintf("%T", implementation), selected: selected, supports: map[string]bool{}}
	var methods []string
	for _, d := range casefile.Defs() {
		a.supports[d.Name] = d.Implements(implementation)
		methods = append(methods, d.Method)
	}
	for _, ok := range a.supports {
		if ok {
			return a, nil
		}
	}
	return nil, fmt.Errorf("conformtest: %s has none of the methods of the ops:\n\t%s", a.name, strings.Join(methods, "\n\t"))
}

// Name implements impl.Impl: the implementation's Go type.
func (a *adapter) Name() string { return a.name }

// Version implements impl.Impl.
func (a *adapter) Version() string { return "" }

// Supports implements impl.Impl: the ops whose interface the
// implementation satisfies, among those selected.
func (a *adapter) Supports(op string) bool { return a.skipReason(op) == "" }

// Close implements impl.Impl.
func (a *adapter) Close() error { return nil }

func (a *adapter) skipReason(op string) string {
	d, known := casefile.Lookup(op)
	switch {
	case !known:
		return fmt.Sprintf("conformtest has no interface for op %q", op)
	case a.selected != nil && !a.selected[op]:
		return op + " is not selected by conformtest.Ops"
	case !a.supports[op]:
		return fmt.Sprintf("%s does not implement %s's method %s", a.name, op, d.Method)
	}
	return ""
}

// Run implements impl.Impl: it turns the case into the arguments of the
// op's method and calls it. A spec that conform itself rejects gives
// conform's error, as for the reference engine.
func (a *adapter) Run(ctx context.Context, c *casefile.Case) protocol.Answer {
	if reason := a.skipReason(c.Op); reason != "" {
		return protocol.Skip(reason, "")
	}
	if c.Err != nil {
		return protocol.ErrorAnswer(c.Err)
	}
	return a.runCase(c)
}

// runCase calls the implementation on a valid case, whose op it
// supports, with its inputs made C-contiguous (in a copy: the case is
// shared).
func (a *adapter) runCase(c *casefile.Case) protocol.Answer {
	contiguous := make(map[string]*engine.Tensor, len(c.Inputs))
	for name, t := range c.Inputs {
		contiguous[name] = t.Contiguous()
	}
	c = c.WithInputs(contiguous)
	out, crash, err := a.call(c)
	switch {
	case crash != "":
		return protocol.Crash(CrashPanic, crash)
	case err != nil:
		if errors.Is(err, errors.ErrUnsupported) {
			return protocol.Skip(err.Error(), "")
		}
		if engine.KindOf(err) == "" {
			return protocol.Crash(CrashNoKind, fmt.Sprintf("error without a kind: %v (return an *engine.Error, e.g. from engine.Errorf, or an error wrapping one)", err))
		}
		return protocol.ErrorAnswer(err)
	case out == nil:
		return protocol.Crash(CrashNoResult, "the implementation returned neither a tensor nor an error")
	}
	if err := validTensor(out); err != nil {
		return protocol.Crash(CrashInvalidResult, "invalid result tensor: "+err.Error())
	}
	return protocol.Output(out)
}

// call calls the method of c's op, turning a panic into a crash report.
func (a *adapter) call(c *casefile.Case) (out *engine.Tensor, crash string, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, nil
			crash = fmt.Sprintf("the implementation panicked: %v\n%s", p, panicStack(debug.Stack()))
		}
	}()
	out, err = c.Def.Call(a.impl, c)
	return out, "", err
}

// maxStackFrames bounds the frames a panic report shows.
const maxStackFrames = 8

// panicStack keeps, of a stack taken in a deferred recover, the frames
// between the panic and the harness: the implementation's own.
func panicStack(stack []byte) string {
	lines := strings.Split(strings.TrimRight(string(stack), "\n"), "\n")
	start := 0
	for i, l := range lines {
		if strings.HasPrefix(l, "panic(") {
			start = i + 2 // the frame's function line and its file line
		}
	}
	var b strings.Builder
	frames := 0
	for i := start; i+1 < len(lines); i += 2 {
		fn := lines[i]
		if strings.Contains(fn, "conformtest.(*adapter).call") {
			break
		}
		if strings.HasPrefix(fn, "runtime.") {
			continue
		}
		if frames == maxStackFrames {
			b.WriteString("\t...\n")
			break
		}
		frames++
		b.WriteString(fn + "\n" + lines[i+1] + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// validTensor checks that every element of t lies within t.Data, so that
// reading t cannot panic.
func validTensor(t *engine.Tensor) error {
	if t.DType.Size <= 0 {
		return fmt.Errorf("dtype %v has no size", t.DType)
	}
	if len(t.Strides) != len(t.Shape) {
		return fmt.Errorf("%d strides for %d dimensions", len(t.Strides), len(t.Shape))
	}
	n := engine.NumElements(t.Shape)
	if n < 0 {
		return fmt.Errorf("shape %v has a negative dimension or too many elements", t.Shape)
	}
	if hi, lo := bits.Mul64(uint64(n), uint64(t.DType.Size)); hi != 0 || lo > 1<<40 {
		return fmt.Errorf("shape %v of %v is too large", t.Shape, t.DType)
	}
	if n == 0 {
		return nil
	}
	if t.Offset < 0 || t.Offset > len(t.Data)-t.DType.Size {
		return fmt.Errorf("offset %d is outside a %d-byte Data", t.Offset, len(t.Data))
	}
	// The lowest and highest byte offsets of an element; each span is
	// bounded so that the sums cannot overflow.
	lo, hi := int64(t.Offset), int64(t.Offset)
	for i, d := range t.Shape {
		s := int64(t.Strides[i])
		if s < 0 {
			s = -s
		}
		if d > 1 && s > (1<<56)/int64(d-1) {
			return fmt.Errorf("stride %d is too large", t.Strides[i])
		}
		span := int64(d-1) * int64(t.Strides[i])
		if span < 0 {
			lo += span
		} else {
			hi += span
		}
	}
	if lo < 0 || hi+int64(t.DType.Size) > int64(len(t.Data)) {
		return fmt.Errorf("shape %v, strides %v and offset %d reach bytes %d to %d of a %d-byte Data",
			t.Shape, t.Strides, t.Offset, lo, hi+int64(t.DType.Size), len(t.Data))
	}
	return nil
}
