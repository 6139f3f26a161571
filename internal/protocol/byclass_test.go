package protocol

import (
	"testing"

	"github.com/conformsuite/conform/engine"
)

// TestSubclassOf checks the exception class table against Python's and
// NumPy's documented hierarchy.
func TestSubclassOf(t *testing.T) {
	tests := []struct {
		rule       string
		sub, class string
		want       bool
	}{
		{"a class is its own subclass", "IndexError", "IndexError", true},
		{"numpy.AxisError is an IndexError", "numpy.AxisError", "IndexError", true},
		{"numpy.AxisError is a ValueError", "numpy.AxisError", "ValueError", true},
		{"numpy.AxisError is a LookupError through IndexError", "numpy.AxisError", "LookupError", true},
		{"an IndexError is no numpy.AxisError", "IndexError", "numpy.AxisError", false},
		{"a ValueError is no IndexError", "ValueError", "IndexError", false},
		{"OverflowError is an ArithmeticError", "OverflowError", "ArithmeticError", true},
		{"an unknown class is only itself", "torch.SomeError", "Exception", false},
	}
	for _, tc := range tests {
		if got := SubclassOf(tc.sub, tc.class); got != tc.want {
			t.Errorf("%s: SubclassOf(%q, %q) = %v, want %v", tc.rule, tc.sub, tc.class, got, tc.want)
		}
	}
}

// TestCompareByClass checks that errors giving their classes are compared
// by class, subclasses agreeing, and that everything else is compared as
// Compare does, by kind.
func TestCompareByClass(t *testing.T) {
	is, oor := engine.InvalidSpec, engine.OutOfRange
	tests := []struct {
		rule      string
		want, got Answer
		symptom   Symptom
		level     string
	}{
		{"the same class agrees whatever the kinds", TypedError(is, "", "IndexError"), TypedError(oor, "", "IndexError"), "", LevelClass},
		{"a subclass of the expected class agrees", TypedError(is, "", "IndexError"), TypedError(is, "", "numpy.AxisError"), "", LevelClass},
		{"AxisError is also a ValueError", TypedError(is, "", "ValueError"), TypedError(is, "", "numpy.AxisError"), "", LevelClass},
		{"a base class of the expected class differs", TypedError(is, "", "numpy.AxisError"), TypedError(is, "", "IndexError"), SymptomErrorClass, LevelClass},
		{"another class differs even of the same kind", TypedError(is, "", "IndexError"), TypedError(is, "", "ValueError"), SymptomErrorClass, LevelClass},
		{"an answer without class is compared by kind", TypedError(is, "", "IndexError"), Error(oor, ""), SymptomErrorKind, LevelKind},
		{"an expectation without class is compared by kind", Error(is, ""), TypedError(is, "", "ValueError"), "", LevelKind},
		{"an output for an error is no class comparison", TypedError(is, "", "IndexError"), Output(tensorOf(t, "<f4", []int{1}, 0, 0, 0, 0)), SymptomOutputForError, ""},
	}
	for _, tc := range tests {
		a := CompareByClass(tc.want, tc.got)
		if !a.Compared || a.Symptom != tc.symptom || a.Level != tc.level {
			t.Errorf("%s: got %+v, want symptom %q level %q", tc.rule, a, tc.symptom, tc.level)
		}
	}
}

// TestHelloErrors checks that a hello's "errors" is read when it is
// "python" and ignored otherwise.
func TestHelloErrors(t *testing.T) {
	tests := []struct {
		rule, line, want string
	}{
		{"errors python is read", `{"hello":{"name":"a","version":"1","ops":[],"errors":"python"}}`, ErrorsPython},
		{"no errors field is kinds", `{"hello":{"name":"a","version":"1","ops":[]}}`, ""},
		{"another value is ignored", `{"hello":{"name":"a","version":"1","ops":[],"errors":"java"}}`, ""},
	}
	for _, tc := range tests {
		h, err := parseHello([]byte(tc.line))
		if err != nil || h.Errors != tc.want {
			t.Errorf("%s: got %+v, %v, want errors %q", tc.rule, h, err, tc.want)
		}
	}
}
