package protocol

import (
	"fmt"
	"slices"

	"github.com/conformsuite/conform/internal/compare"
)

// Symptom is the way an answer differs from the expected one.
type Symptom string

// The symptoms, in the order Compare tests them.
const (
	// SymptomCrash: the implementation crashed. Detail: the crash code.
	SymptomCrash Symptom = "crash"
	// SymptomErrorForOutput: an error where an output was expected.
	// Detail: the kind returned.
	SymptomErrorForOutput Symptom = "error-for-output"
	// SymptomOutputForError: an output where an error was expected.
	// Detail: the kind expected.
	SymptomOutputForError Symptom = "output-for-error"
	// SymptomErrorKind: another error kind. Detail: "<got>-for-<want>".
	SymptomErrorKind Symptom = "error-kind"
	// SymptomErrorClass: an exception of another class than the
	// reference's, or of none of its subclasses (CompareByClass).
	// Detail: "<got>-for-<want>".
	SymptomErrorClass Symptom = "error-class"
	// SymptomShape: a different shape. Detail: "rank" if the number of
	// dimensions differs, "dims" if only their sizes do.
	SymptomShape Symptom = "shape"
	// SymptomDType: a different dtype. Detail: "byte-order" if only the
	// byte order differs.
	SymptomDType Symptom = "dtype"
	// SymptomValues: the same dtype and shape, different element bytes.
	SymptomValues Symptom = "values"
)

// Agreement is how an answer stands against the expected one.
type Agreement struct {
	// Compared is false when there is nothing to compare: either answer
	// is a skip, or the expected answer is a crash (and the answer is
	// not).
	Compared bool
	// Symptom and Detail say how the answers differ; Symptom is empty if
	// they agree or were not compared.
	Symptom Symptom
	Detail  string
	// Text describes the first difference for people, or is empty.
	Text string
	// Level says how two errors were compared: LevelKind (by conform's
	// kind) or LevelClass (by exception class, CompareByClass); empty
	// unless both answers are errors.
	Level string
}

// The levels at which two errors are compared (Agreement.Level).
const (
	LevelKind  = "kind"
	LevelClass = "class"
)

// Agree reports whether the answers were compared and agree.
func (a Agreement) Agree() bool { return a.Compared && a.Symptom == "" }

// Compare compares got with want, the expected answer, exactly: errors
// agree if their kinds are equal (messages are never compared), outputs
// if their dtypes, shapes and element bytes are. The rules for the other
// answers, stated once:
//
//   - an answer that is a crash never agrees (SymptomCrash), whatever
//     was expected; an output that is not a readable .npy file is a crash
//     with the code CrashBadOutput;
//   - otherwise, if either answer is a skip, or the expected answer is a
//     crash, nothing is compared (Compared is false).
func Compare(want, got Answer) Agreement {
	want, got = want.Decoded(), got.Decoded()
	switch {
	case got.IsCrash():
		return Agreement{Compared: true, Symptom: SymptomCrash, Detail: got.Code(), Text: "crash: " + got.Reason()}
	case want.IsSkip() || got.IsSkip() || want.IsCrash():
		return Agreement{}
	case want.IsError() && got.IsError():
		if want.kind == got.kind {
			return Agreement{Compared: true, Level: LevelKind}
		}
		a := differ(want, got, SymptomErrorKind, string(got.kind)+"-for-"+string(want.kind))
		a.Level = LevelKind
		return a
	case got.IsError():
		return differ(want, got, SymptomErrorForOutput, string(got.kind))
	case want.IsError():
		return differ(want, got, SymptomOutputForError, string(want.kind))
	}
	w, g := want.tensor, got.tensor
	err := compare.Tensors(w, g)
	if err == nil {
		return Agreement{Compared: true}
	}
	a := Agreement{Compared: true, Text: err.Error()}
	switch {
	case len(w.Shape) != len(g.Shape):
		a.Symptom, a.Detail = SymptomShape, "rank"
	case !slices.Equal(w.Shape, g.Shape):
		a.Symptom, a.Detail = SymptomShape, "dims"
	case w.DType != g.DType:
		a.Symptom = SymptomDType
		if w.DType.Kind == g.DType.Kind && w.DType.Size == g.DType.Size {
			a.Detail = "byte-order"
		}
	default:
		a.Symptom = SymptomValues
	}
	return a
}

// differ is the Agreement of two answers that differ in their error kind
// or in being an error at all.
func differ(want, got Answer, s Symptom, detail string) Agreement {
	return Agreement{Compared: true, Symptom: s, Detail: detail, Text: fmt.Sprintf("got %v, want %v", got, want)}
}

// CompareByClass compares got with want as Compare does, except two
// errors that both give their exception class (Answer.Type): those agree
// if got's class is want's or one of its subclasses (SubclassOf), whatever
// their kinds, and Level is LevelClass. It is how errors of an
// implementation whose errors are Python exceptions (Hello.Errors) are
// compared on NumPy-defined ops, whose expected errors record the class
// NumPy raised.
func CompareByClass(want, got Answer) Agreement {
	if !want.IsError() || !got.IsError() || want.typ == "" || got.typ == "" {
		return Compare(want, got)
	}
	if SubclassOf(got.typ, want.typ) {
		return Agreement{Compared: true, Level: LevelClass}
	}
	return Agreement{Compared: true, Symptom: SymptomErrorClass, Detail: got.typ + "-for-" + want.typ, Level: LevelClass,
		Text: fmt.Sprintf("got %s, want %s (compared by class)", got.typ, want.typ)}
}
