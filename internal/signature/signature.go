// Package signature names a failure by what it is, so that failures of the
// same bug group together and different bugs stay apart: the op, the
// symptom (a crash; an error where an output was expected; an output where
// an error was expected; another error kind; a different shape, dtype or
// values) and a detail of the symptom (which error kind, whether the rank
// or the dimensions differ, whether only the byte order does).
//
// Classify also names the rule variant the answer follows, when the
// variant's own rule (engine.Variants) decides the answer — the engine
// under it gives the same output exactly, or raises the error by a rule of
// the variant, never an error of the same kind by chance: "slice/shape/rank@drop-size-1-dims". That is the
// strongest statement a signature makes — the implementation follows
// another rule, and which one.
//
// For an implementation the golden corpus defines divergence classes for
// (its oracles), the signature also names the class, after "#".
//
// A signature is written "op/symptom", "op/symptom/detail", either
// followed by "@variant" and "#class", for example "getitem/values",
// "slice/error-for-output/invalid_spec",
// "gather_nd/output-for-error/out_of_range@negative-gather-indices-wrap". Every failure line of conform check and
// conformtest, every group of a report and every finding of conform fuzz
// carries one; a known-failures file may list signatures as well as case
// IDs.
package signature

import (
	"fmt"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/protocol"
)

// Symptom is the way an answer differs from the expected one
// (protocol.Compare says which).
type Symptom = protocol.Symptom

// The symptoms, in the order protocol.Compare tests them.
const (
	// Crash: the implementation died, hung or answered garbage. Detail:
	// the crash code.
	Crash = protocol.SymptomCrash
	// ErrorForOutput: an error where an output was expected. Detail: the
	// kind returned.
	ErrorForOutput = protocol.SymptomErrorForOutput
	// OutputForError: an output where an error was expected. Detail: the
	// kind expected.
	OutputForError = protocol.SymptomOutputForError
	// ErrorKind: another error kind. Detail: "<got>-for-<want>".
	ErrorKind = protocol.SymptomErrorKind
	// ErrorClass: an exception of another class than the reference's,
	// nor of a subclass of it (protocol.CompareByClass). Detail:
	// "<got>-for-<want>".
	ErrorClass = protocol.SymptomErrorClass
	// Shape: a different shape. Detail: "rank" if the number of
	// dimensions differs, "dims" if only their sizes do.
	Shape = protocol.SymptomShape
	// DType: a different dtype. Detail: "byte-order" if only the byte
	// order differs.
	DType = protocol.SymptomDType
	// Values: the same dtype and shape, different element bytes.
	Values = protocol.SymptomValues
)

// Signature identifies a kind of failure.
type Signature struct {
	Op      string
	Symptom Symptom
	Detail  string
	// Variant names the engine variant that reproduces the answer
	// (engine.VariantInfo.Name), or is empty.
	Variant string
	// Class names the divergence class the golden corpus defines for
	// the implementation (its oracles: "tfjs-slice-rank0"), or is empty.
	Class string
}

// String returns the signature as "op/symptom" or "op/symptom/detail",
// followed by "@variant" if a variant reproduces the answer.
func (s Signature) String() string {
	text := s.Op + "/" + string(s.Symptom)
	if s.Detail != "" {
		text += "/" + s.Detail
	}
	if s.Variant != "" {
		text += "@" + s.Variant
	}
	if s.Class != "" {
		text += "#" + s.Class
	}
	return text
}

// symptoms explains each symptom in a few words.
var symptoms = map[Symptom]string{
	Crash:          "the implementation crashed (died, hung, answered garbage or broke the protocol)",
	ErrorForOutput: "an error where an output was expected",
	OutputForError: "an output where an error was expected",
	ErrorKind:      "another error kind",
	ErrorClass:     "an exception of another class",
	Shape:          "an output of another shape",
	DType:          "an output of another dtype",
	Values:         "an output of the same dtype and shape with other element bytes",
}

// Explain says in one line what the signature means, and names the
// variant's rule when a variant reproduces the answer.
func (s Signature) Explain() string {
	text := s.Op + ": " + symptoms[s.Symptom]
	if s.Detail != "" {
		text += " (" + s.Detail + ")"
	}
	if v, ok := engine.VariantByName(s.Variant); ok {
		text += "; the engine reproduces the answer under the variant " + s.Variant + ": " + v.Info().Explanation
	}
	return text
}

// Forms returns the ways a known-failures list may name s: s itself, and
// s without its class, without its variant, and without both (an entry
// that leaves them out covers every class and variant), each once.
func (s Signature) Forms() []Signature {
	forms := []Signature{s}
	add := func(f Signature) {
		for _, g := range forms {
			if g == f {
				return
			}
		}
		forms = append(forms, f)
	}
	noClass := s
	noClass.Class = ""
	add(noClass)
	noVariant := s
	noVariant.Variant = ""
	add(noVariant)
	noVariant.Class = ""
	add(noVariant)
	return forms
}

// IsZero reports whether s is the zero Signature (no failure).
func (s Signature) IsZero() bool { return s == Signature{} }

// Parse reads a signature written by String.
func Parse(text string) (Signature, error) {
	text, class, _ := strings.Cut(text, "#")
	text, variant, hasVariant := strings.Cut(text, "@")
	if hasVariant {
		if _, ok := engine.VariantByName(variant); !ok {
			return Signature{}, fmt.Errorf("%q: unknown variant %q", text+"@"+variant, variant)
		}
	}
	parts := strings.Split(text, "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" {
		return Signature{}, fmt.Errorf("%q is not a signature (op/symptom or op/symptom/detail)", text)
	}
	s := Signature{Op: parts[0], Symptom: Symptom(parts[1]), Variant: variant, Class: class}
	if len(parts) == 3 {
		s.Detail = parts[2]
	}
	switch s.Symptom {
	case Crash, ErrorForOutput, OutputForError, ErrorKind, ErrorClass, Shape, DType, Values:
	default:
		return Signature{}, fmt.Errorf("%q: unknown symptom %q", text, s.Symptom)
	}
	return s, nil
}

// Of returns the signature of got, the answer of an implementation to a
// case of op whose expected answer is want, or the zero Signature if got
// agrees with want or they are not compared (protocol.Compare's rules).
func Of(op string, want, got protocol.Answer) Signature {
	return FromAgreement(op, protocol.Compare(want, got))
}

// FromAgreement returns the signature of an answer to a case of op that
// stands against the expected one as a says, or the zero Signature if
// they agree or were not compared.
func FromAgreement(op string, a protocol.Agreement) Signature {
	if a.Symptom == "" {
		return Signature{}
	}
	return Signature{Op: op, Symptom: a.Symptom, Detail: a.Detail}
}

// Classify returns the signature of got, as Of does, for the case c, and
// names the first variant of the engine (in engine.Variants order) whose
// own rule decides got on this case (see Attribute). A crash is never
// attributed.
func Classify(c *casefile.Case, want, got protocol.Answer) Signature {
	return Attribute(c, FromAgreement(c.Op, protocol.Compare(want, got)), got)
}

// Attribute returns s, the signature of got on the case c, with the first
// variant named whose own rule decides got: the engine under the variant
// answers otherwise than under the reference rules, and
//   - for an output, gives exactly got (dtype, shape and element bytes:
//     it differs from the reference exactly where the variant changes it);
//   - for an error, raises it by a rule of the variant itself
//     (engine.Rule.Variant), of got's kind.
//
// An error kind that merely matches names nothing: an implementation that
// checks the reference's rules in another order raises another rule's
// error, which some variant may happen to reach too (by clamping away the
// first rule's error), but no variant's own rule raised it. No variant
// is named for a case that is not valid (casefile.Case.Err).
func Attribute(c *casefile.Case, s Signature, got protocol.Answer) Signature {
	if s.IsZero() || s.Symptom == Crash || c.Err != nil {
		return s
	}
	ref := evalUnder(c, engine.Rules{})
	for _, info := range engine.Variants {
		if c.Def.HasVariant(info.Variant) && decides(c, info.Variant, s.Op, ref, got) {
			s.Variant = info.Name
			break
		}
	}
	return s
}

// decides reports whether the variant v's own rule decides got on the
// case c, whose reference answer is ref (see Attribute).
func decides(c *casefile.Case, v engine.Variant, op string, ref, got protocol.Answer) bool {
	out, err, ok := c.EvalSafely(engine.Rules{}.With(v))
	if !ok {
		return false // a panic, a bug of the variant, reproduces nothing
	}
	under := impl.Of(out, err)
	// A variant that changes nothing on this case explains nothing.
	if Of(op, ref, under).IsZero() || !Of(op, under, got).IsZero() {
		return false
	}
	if err == nil {
		return true
	}
	rule, known := engine.RuleByID(engine.RuleOf(err))
	return known && rule.Variant == v
}

// evalUnder runs the case on the engine under r; a panic, a bug of a
// variant, reproduces nothing.
func evalUnder(c *casefile.Case, r engine.Rules) protocol.Answer {
	out, err, ok := c.EvalSafely(r)
	if !ok {
		return protocol.Crash(impl.CrashEnginePanic, "engine panic")
	}
	return impl.Of(out, err)
}
