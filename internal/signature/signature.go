// Package signature names a failure by what it is, so that failures of the
// same bug group together and different bugs stay apart: the op, the
// symptom (a crash; an error where an output was expected; an output where
// an error was expected; another error kind; a different shape, dtype or
// values) and a detail of the symptom (which error kind, whether the rank
// or the dimensions differ, whether only the byte order does).
//
// A signature is written "op/symptom" or "op/symptom/detail", for example
// "getitem/values", "slice/error-for-output/invalid_spec",
// "gather_nd/shape/rank". Every failure line of conform check and
// conformtest, every group of a report and every finding of conform fuzz
// carries one; a known-failures file may list signatures as well as case
// IDs.
package signature

import (
	"fmt"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/compare"
	"github.com/conformsuite/conform/internal/impl"
)

// Symptom is the way an answer differs from the expected one.
type Symptom string

// The symptoms, in the order Of tests them.
const (
	// Crash: the implementation died, hung or answered garbage. Detail:
	// the crash code.
	Crash Symptom = "crash"
	// ErrorForOutput: an error where an output was expected. Detail: the
	// kind returned.
	ErrorForOutput Symptom = "error-for-output"
	// OutputForError: an output where an error was expected. Detail: the
	// kind expected.
	OutputForError Symptom = "output-for-error"
	// ErrorKind: another error kind. Detail: "<got>-for-<want>".
	ErrorKind Symptom = "error-kind"
	// Shape: a different shape. Detail: "rank" if the number of
	// dimensions differs, "dims" if only their sizes do.
	Shape Symptom = "shape"
	// DType: a different dtype. Detail: "byte-order" if only the byte
	// order differs.
	DType Symptom = "dtype"
	// Values: the same dtype and shape, different element bytes.
	Values Symptom = "values"
)

// Signature identifies a kind of failure.
type Signature struct {
	Op      string
	Symptom Symptom
	Detail  string
}

// String returns the signature as "op/symptom" or "op/symptom/detail".
func (s Signature) String() string {
	if s.Detail == "" {
		return s.Op + "/" + string(s.Symptom)
	}
	return s.Op + "/" + string(s.Symptom) + "/" + s.Detail
}

// IsZero reports whether s is the zero Signature (no failure).
func (s Signature) IsZero() bool { return s == Signature{} }

// Parse reads a signature written by String.
func Parse(text string) (Signature, error) {
	parts := strings.Split(text, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return Signature{}, fmt.Errorf("%q is not a signature (op/symptom or op/symptom/detail)", text)
	}
	s := Signature{Op: parts[0], Symptom: Symptom(parts[1])}
	if len(parts) == 3 {
		s.Detail = parts[2]
	}
	switch s.Symptom {
	case Crash, ErrorForOutput, OutputForError, ErrorKind, Shape, DType, Values:
	default:
		return Signature{}, fmt.Errorf("%q: unknown symptom %q", text, s.Symptom)
	}
	return s, nil
}

// Of returns the signature of got, the answer of an implementation to a
// case of op whose expected answer is want, or the zero Signature if got
// agrees with want (or either side skipped).
func Of(op string, want, got impl.Result) Signature {
	s := Signature{Op: op}
	switch {
	case got.Crash != "":
		s.Symptom, s.Detail = Crash, crashCode(got)
	case want.Skip != "" || got.Skip != "" || want.Crash != "":
		return Signature{}
	case want.Kind != "" && got.Kind != "":
		if want.Kind == got.Kind {
			return Signature{}
		}
		s.Symptom, s.Detail = ErrorKind, string(got.Kind)+"-for-"+string(want.Kind)
	case got.Kind != "":
		s.Symptom, s.Detail = ErrorForOutput, string(got.Kind)
	case want.Kind != "":
		s.Symptom, s.Detail = OutputForError, string(want.Kind)
	default:
		return outputs(s, want.Output, got.Output)
	}
	return s
}

// outputs classifies two outputs.
func outputs(s Signature, want, got *engine.Tensor) Signature {
	switch {
	case len(want.Shape) != len(got.Shape):
		s.Symptom, s.Detail = Shape, "rank"
	case !sameShape(want.Shape, got.Shape):
		s.Symptom, s.Detail = Shape, "dims"
	case want.DType != got.DType:
		s.Symptom = DType
		if w, g := want.DType, got.DType; w.Kind == g.Kind && w.Size == g.Size {
			s.Detail = "byte-order"
		}
	case compare.Tensors(want, got) != nil:
		s.Symptom = Values
	default:
		return Signature{}
	}
	return s
}

func sameShape(a, b []int) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// crashCode returns the code of a crash: what kind of fault it was,
// without its message.
func crashCode(r impl.Result) string {
	if r.CrashCode != "" {
		return r.CrashCode
	}
	return "unknown"
}
