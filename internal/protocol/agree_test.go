package protocol

import (
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/npy"
)

// tensorOf builds a tensor of dtype descr and shape over data.
func tensorOf(t *testing.T, descr string, shape []int, data ...byte) *engine.Tensor {
	t.Helper()
	dt, err := engine.ParseDType(descr)
	if err != nil {
		t.Fatal(err)
	}
	x, err := engine.FromBytes(dt, shape, data)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestCompare checks the one statement of when two answers agree.
func TestCompare(t *testing.T) {
	f4 := func(shape []int, data ...byte) Answer { return Output(tensorOf(t, "<f4", shape, data...)) }
	zero := []byte{0, 0, 0, 0}
	negZero := []byte{0, 0, 0, 0x80}
	one := []byte{0, 0, 0x80, 0x3f}
	outOfRange := Error(engine.OutOfRange, "index 5 is out of bounds")
	tests := []struct {
		rule      string
		want, got Answer
		compared  bool
		symptom   Symptom
		detail    string
	}{
		{"equal outputs agree", f4([]int{1}, one...), f4([]int{1}, one...), true, "", ""},
		{"an encoded output agrees with the same tensor", EncodedOutput(npy.Encode(tensorOf(t, "<f4", []int{1}, one...))), f4([]int{1}, one...), true, "", ""},
		{"element bits compare exactly: -0.0 is not 0.0", f4([]int{1}, zero...), f4([]int{1}, negZero...), true, SymptomValues, ""},
		{"a different rank is a shape symptom", f4([]int{1}, one...), f4([]int{1, 1}, one...), true, SymptomShape, "rank"},
		{"different sizes of the same rank", f4([]int{1}, one...), f4([]int{0}), true, SymptomShape, "dims"},
		{"only the byte order differs", f4([]int{1}, one...), Output(tensorOf(t, ">f4", []int{1}, 0x3f, 0x80, 0, 0)), true, SymptomDType, "byte-order"},
		{"another dtype of the same shape", f4([]int{1}, one...), Output(tensorOf(t, "<i4", []int{1}, one...)), true, SymptomDType, ""},
		{"errors agree by kind, never by message", outOfRange, Error(engine.OutOfRange, "another message"), true, "", ""},
		{"another error kind", outOfRange, Error(engine.InvalidSpec, "x"), true, SymptomErrorKind, "invalid_spec-for-out_of_range"},
		{"an error where an output was expected", f4([]int{1}, one...), outOfRange, true, SymptomErrorForOutput, "out_of_range"},
		{"an output where an error was expected", outOfRange, f4([]int{1}, one...), true, SymptomOutputForError, "out_of_range"},
		{"a crash never agrees", outOfRange, Crash("died", "exit status 2"), true, SymptomCrash, "died"},
		{"a crash never agrees, even where a crash was expected", Crash("died", ""), Crash("died", ""), true, SymptomCrash, "died"},
		{"an unreadable output is a bad-output crash", f4([]int{1}, one...), EncodedOutput([]byte("not npy")), true, SymptomCrash, CrashBadOutput},
		{"a skip is not compared", f4([]int{1}, one...), Skip("unsupported", "unsupported-dtype"), false, "", ""},
		{"an expected skip is not compared", Skip("unsupported", ""), outOfRange, false, "", ""},
		{"an expected crash is not compared", Crash("timeout", ""), outOfRange, false, "", ""},
	}
	for _, tc := range tests {
		a := Compare(tc.want, tc.got)
		if a.Compared != tc.compared || a.Symptom != tc.symptom || a.Detail != tc.detail {
			t.Errorf("%s: got compared=%v symptom=%q detail=%q, want %v %q %q", tc.rule, a.Compared, a.Symptom, a.Detail, tc.compared, tc.symptom, tc.detail)
		}
		if a.Agree() != (tc.compared && tc.symptom == "") {
			t.Errorf("%s: Agree() = %v", tc.rule, a.Agree())
		}
	}
}

// TestAnswerForms checks that every constructor makes exactly one form.
func TestAnswerForms(t *testing.T) {
	tests := []struct {
		rule                          string
		a                             Answer
		output, err, skip, crash, ran bool
	}{
		{"an output ran", Output(tensorOf(t, "|u1", []int{0})), true, false, false, false, true},
		{"an encoded output ran", EncodedOutput([]byte{1}), true, false, false, false, true},
		{"an error ran", Error(engine.BadInput, "m"), false, true, false, false, true},
		{"a skip did not run", Skip("r", "c"), false, false, true, false, false},
		{"a crash did not run", Crash("c", "r"), false, false, false, true, false},
	}
	for _, tc := range tests {
		got := [5]bool{tc.a.IsOutput(), tc.a.IsError(), tc.a.IsSkip(), tc.a.IsCrash(), tc.a.Ran()}
		want := [5]bool{tc.output, tc.err, tc.skip, tc.crash, tc.ran}
		if got != want {
			t.Errorf("%s: output, error, skip, crash, ran = %v, want %v", tc.rule, got, want)
		}
	}
}
