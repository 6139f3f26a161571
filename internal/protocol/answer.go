package protocol

import (
	"fmt"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/npy"
)

// Answer is an implementation's answer to one case: exactly one of an
// output (a tensor), an error (its kind and message), a skip (its reason
// and code) or a crash (its code and reason). It is made only by Output,
// EncodedOutput, Error, Skip and Crash, and read by its methods, so that
// an answer cannot hold two of them; the zero Answer is a crash with the
// code CrashNoAnswer.
type Answer struct {
	form   form
	tensor *engine.Tensor // an output, decoded
	npy    []byte         // an output as the bytes of a .npy file
	kind   engine.ErrorKind
	text   string // an error's message, a skip's or a crash's reason
	code   string // a skip's or a crash's code
	typ    string // an error's exception class, if given (see Type)
}

// form says which of the four an Answer is.
type form uint8

const (
	crashForm form = iota // the zero Answer
	outputForm
	errorForm
	skipForm
)

// Output returns the answer "this output".
func Output(t *engine.Tensor) Answer { return Answer{form: outputForm, tensor: t} }

// EncodedOutput returns the answer "this output", given as the bytes of a
// .npy file (as a child sends it); they are decoded when the tensor is
// asked for, and kept as they are for callers that store them.
func EncodedOutput(data []byte) Answer { return Answer{form: outputForm, npy: data} }

// Error returns the answer "the case is rejected with this kind of error".
func Error(kind engine.ErrorKind, message string) Answer {
	return Answer{form: errorForm, kind: kind, text: message}
}

// TypedError returns the answer "the case is rejected with this kind of
// error", with the class of the exception the implementation raised
// ("IndexError", "numpy.AxisError"; see Type). An empty typ is Error's
// answer.
func TypedError(kind engine.ErrorKind, message, typ string) Answer {
	return Answer{form: errorForm, kind: kind, text: message, typ: typ}
}

// Skip returns the answer "the case is not run", with the reason for
// people and a code for programs (empty if none is given).
func Skip(reason, code string) Answer { return Answer{form: skipForm, text: reason, code: code} }

// Crash returns the answer "the implementation failed on the case": died,
// hung, answered garbage or reported a crash. The code says what kind of
// failure it is, for programs (a CrashKind of the client, a code the child
// gave, or a code of the caller); the reason says it for people.
func Crash(code, reason string) Answer { return Answer{form: crashForm, code: code, text: reason} }

// CrashNoAnswer is the crash code of the zero Answer.
const CrashNoAnswer = "no-answer"

// CrashBadOutput is the crash code of an output that is not a readable
// .npy file.
const CrashBadOutput = "bad-output"

// IsOutput reports whether a is an output.
func (a Answer) IsOutput() bool { return a.form == outputForm }

// IsError reports whether a is an error.
func (a Answer) IsError() bool { return a.form == errorForm }

// IsSkip reports whether a is a skip.
func (a Answer) IsSkip() bool { return a.form == skipForm }

// IsCrash reports whether a is a crash.
func (a Answer) IsCrash() bool { return a.form == crashForm }

// Ran reports whether a is an output or an error: the implementation ran
// the case, as opposed to skipping it or crashing.
func (a Answer) Ran() bool { return a.form == outputForm || a.form == errorForm }

// Tensor returns the output, decoding it if it was given encoded, or nil
// if a is not an output.
func (a Answer) Tensor() (*engine.Tensor, error) {
	if a.form != outputForm || a.tensor != nil {
		return a.tensor, nil
	}
	return npy.Decode(a.npy)
}

// NPY returns the output as the bytes of a .npy file (as given, or
// encoded), or nil if a is not an output.
func (a Answer) NPY() []byte {
	if a.form != outputForm || a.npy != nil {
		return a.npy
	}
	return npy.Encode(a.tensor.Contiguous())
}

// Decoded returns a with its output decoded: the same answer holding the
// tensor, or, if the output is not a readable .npy file, a crash with the
// code CrashBadOutput. Other answers are returned as they are.
func (a Answer) Decoded() Answer {
	if a.form != outputForm || a.tensor != nil {
		return a
	}
	t, err := npy.Decode(a.npy)
	if err != nil {
		return Crash(CrashBadOutput, "unreadable output: "+err.Error())
	}
	return Answer{form: outputForm, tensor: t, npy: a.npy}
}

// Kind returns the kind of an error, or "" if a is not an error.
func (a Answer) Kind() engine.ErrorKind { return a.kind }

// Type returns the class of the exception an error stands for, as the
// implementation gave it in its answer's "type" ("IndexError",
// "numpy.AxisError"), or "" if none was given or a is not an error.
func (a Answer) Type() string { return a.typ }

// Message returns the message of an error, or "".
func (a Answer) Message() string {
	if a.form != errorForm {
		return ""
	}
	return a.text
}

// Reason returns the reason of a skip or a crash, or "".
func (a Answer) Reason() string {
	if a.form != skipForm && a.form != crashForm {
		return ""
	}
	if a.form == crashForm && a.text == "" && a.code == "" {
		return "no answer"
	}
	return a.text
}

// Code returns the code of a skip or a crash, or "". The code of a crash
// is never empty.
func (a Answer) Code() string {
	if a.form == crashForm && a.code == "" {
		return CrashNoAnswer
	}
	return a.code
}

// WithoutText returns a without its message or reason: what may be
// compared or classified, since nothing reads those texts.
func (a Answer) WithoutText() Answer {
	a.code = a.Code()
	a.text = ""
	return a
}

// String describes the answer in a few words: "output int32 [2 3]",
// "error out_of_range (message)", "skip: reason", "crash: reason".
func (a Answer) String() string {
	switch a.form {
	case crashForm:
		return "crash: " + a.Reason()
	case skipForm:
		return "skip: " + a.text
	case errorForm:
		if a.text == "" {
			return "error " + string(a.kind)
		}
		return fmt.Sprintf("error %s (%s)", a.kind, a.text)
	}
	t, err := a.Tensor()
	if err != nil {
		return "unreadable output: " + err.Error()
	}
	return fmt.Sprintf("output %v %v", t.DType, t.Shape)
}

// MaxTypeBytes is the longest exception class an error answer may give.
const MaxTypeBytes = 200

// ValidType reports whether t may be an error answer's "type": a dotted
// name of ASCII letters, digits and underscores ("IndexError",
// "numpy.AxisError"), at most MaxTypeBytes long.
func ValidType(t string) bool {
	if t == "" || len(t) > MaxTypeBytes {
		return false
	}
	for _, part := range strings.Split(t, ".") {
		if part == "" || (part[0] >= '0' && part[0] <= '9') {
			return false
		}
		for i := 0; i < len(part); i++ {
			c := part[i]
			if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return false
			}
		}
	}
	return true
}
