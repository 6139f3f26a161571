package golden

import (
	"fmt"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/engine/npy"
	"github.com/conformsuite/conform/internal/compare"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/protocol"
)

// Outcome is what one implementation did with one case: an output (.npy
// bytes), an error kind, a skip, or a crash (died, hung, garbage).
type Outcome struct {
	Output  []byte
	Kind    engine.ErrorKind
	Message string
	Skip    string
	Crash   string
	// Code is the oracle's reason for a skip or a crash as a code
	// (protocol.Response.ReasonCode; oracle/README.md lists them), or empty.
	Code string
}

// fromResponse converts a protocol response.
func fromResponse(r protocol.Response) Outcome {
	return Outcome{Output: r.Output, Kind: r.ErrKind, Message: r.ErrMessage, Skip: r.Skip, Crash: r.Crash, Code: r.ReasonCode}
}

// outcomeOf converts a result of package impl; a crash's code becomes
// the outcome's code.
func outcomeOf(r impl.Result) Outcome {
	o := Outcome{Kind: r.Kind, Message: r.Message, Skip: r.Skip, Crash: r.Crash, Code: r.CrashCode}
	if r.Output != nil {
		o.Output = npy.Encode(r.Output.Contiguous())
	}
	return o
}

// CodeInvalidTensor is the skip code of an oracle whose implementation
// returned a tensor no .npy can hold (a negative dimension, fewer values
// than its shape): a disagreement, not a skip.
const CodeInvalidTensor = "invalid-tensor"

// answer returns what a divergence class may see of o: everything but its
// messages.
func (o Outcome) answer() Answer {
	return Answer{Output: o.Output, Kind: o.Kind, Skipped: o.Skip != "", Crashed: o.Crash != "", Code: o.Code}
}

// result converts o to the form signature.Classify reads, without its
// messages: the crash code is the oracle's reason code.
func (o Outcome) result() impl.Result {
	switch {
	case o.Crash != "":
		return impl.Result{Crash: "crash", CrashCode: o.Code}
	case o.Skip != "":
		return impl.Result{Skip: "skip"}
	case o.Kind != "":
		return impl.Result{Kind: o.Kind}
	}
	t, err := npy.Decode(o.Output)
	if err != nil {
		return impl.Result{Crash: "unreadable output", CrashCode: impl.CrashBadOutput}
	}
	return impl.Result{Output: t}
}

// ran reports whether the implementation produced a result to compare
// (an output or an error, not a skip or a crash).
func (o Outcome) ran() bool { return o.Skip == "" && o.Crash == "" }

// String describes the outcome in a few words.
func (o Outcome) String() string {
	switch {
	case o.Crash != "":
		return "crash: " + o.Crash
	case o.Skip != "":
		return "skip: " + o.Skip
	case o.Kind != "":
		return fmt.Sprintf("error %s: %s", o.Kind, o.Message)
	}
	t, err := npy.Decode(o.Output)
	if err != nil {
		return "unreadable output: " + err.Error()
	}
	return fmt.Sprintf("output %v %v", t.DType, t.Shape)
}

// differ returns "" if a and b agree exactly (same error kind, or same
// dtype, shape and element bytes), and otherwise a description of the
// first difference. Skips and crashes never agree with anything.
func differ(want, got Outcome) string {
	switch {
	case !want.ran() || !got.ran():
		return fmt.Sprintf("%v vs %v", want, got)
	case want.Kind != "" || got.Kind != "":
		if want.Kind == got.Kind {
			return ""
		}
		return fmt.Sprintf("%v vs %v", want, got)
	}
	w, err := npy.Decode(want.Output)
	if err != nil {
		return "reference output unreadable: " + err.Error()
	}
	g, err := npy.Decode(got.Output)
	if err != nil {
		return "output unreadable: " + err.Error()
	}
	if err := compare.Tensors(w, g); err != nil {
		return err.Error()
	}
	return ""
}
