package signature

import (
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/protocol"
)

func tensor(t *testing.T, dt engine.DType, shape []int, data ...byte) *engine.Tensor {
	t.Helper()
	x, err := engine.FromBytes(dt, shape, data)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestOf(t *testing.T) {
	u8 := engine.DType{Kind: engine.Uint, Size: 1}
	le := engine.DType{Kind: engine.Int, Size: 2}
	be := engine.DType{Kind: engine.Int, Size: 2, BigEndian: true}
	a := protocol.Output(tensor(t, u8, []int{2}, 1, 2))
	tests := []struct {
		rule      string
		want, got protocol.Answer
		sig       string // "" for agreement
	}{
		{"the same output agrees", a, protocol.Output(tensor(t, u8, []int{2}, 1, 2)), ""},
		{"the same error kind agrees, whatever the message", protocol.Error(engine.OutOfRange, "x"), protocol.Error(engine.OutOfRange, "y"), ""},
		{"a skip is never a failure", a, protocol.Skip("no", ""), ""},
		{"a crash is named by its code", a, protocol.Crash("died", "died"), "slice/crash/died"},
		{"an error for an output names the kind returned", a, protocol.Error(engine.InvalidSpec, ""), "slice/error-for-output/invalid_spec"},
		{"an output for an error names the kind expected", protocol.Error(engine.OutOfRange, ""), a, "slice/output-for-error/out_of_range"},
		{"another error kind names both", protocol.Error(engine.OutOfRange, ""), protocol.Error(engine.InvalidSpec, ""), "slice/error-kind/invalid_spec-for-out_of_range"},
		{"a different rank is a rank symptom", a, protocol.Output(tensor(t, u8, []int{1, 2}, 1, 2)), "slice/shape/rank"},
		{"different sizes of the same rank are a dims symptom", a, protocol.Output(tensor(t, u8, []int{1}, 1)), "slice/shape/dims"},
		{"only the byte order differing is named", protocol.Output(tensor(t, le, []int{1}, 1, 0)), protocol.Output(tensor(t, be, []int{1}, 0, 1)), "slice/dtype/byte-order"},
		{"another dtype is a dtype symptom", a, protocol.Output(tensor(t, engine.DType{Kind: engine.Int, Size: 1}, []int{2}, 1, 2)), "slice/dtype"},
		{"other element bytes are a values symptom", a, protocol.Output(tensor(t, u8, []int{2}, 1, 3)), "slice/values"},
	}
	for _, tt := range tests {
		s := Of("slice", tt.want, tt.got)
		got := ""
		if !s.IsZero() {
			got = s.String()
		}
		if got != tt.sig {
			t.Errorf("%s: %q, want %q", tt.rule, got, tt.sig)
			continue
		}
		if got == "" {
			continue
		}
		if back, err := Parse(got); err != nil || back != s {
			t.Errorf("%s: Parse(%q) = %v, %v", tt.rule, got, back, err)
		}
	}
}

func TestParseRejects(t *testing.T) {
	for _, text := range []string{
		"getitem",                 // no symptom
		"getitem/123",             // a case ID, not a symptom
		"getitem/values/a/b",      // too many parts
		"/values",                 // no op
		"seeds/tf_doc_1",          // a case ID
		"getitem/crash/died/more", // too many parts
		"getitem/values@no-such",  // an unknown variant
	} {
		if s, err := Parse(text); err == nil {
			t.Errorf("Parse(%q) = %v, want an error", text, s)
		}
	}
}

// memory builds a case in memory over an int32 arange of the given shape
// (big-endian if be).
func memory(t *testing.T, spec map[string]any, be bool, shape ...int) *casefile.Case {
	t.Helper()
	dt := engine.DType{Kind: engine.Int, Size: 4, BigEndian: be}
	n := engine.NumElements(shape)
	data := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		if be {
			data[4*i+3] = byte(i + 1)
		} else {
			data[4*i] = byte(i + 1)
		}
	}
	return casefile.New(spec, map[string]*engine.Tensor{"x": tensor(t, dt, shape, data...)})
}

// TestClassify checks that a failing answer is attributed to the engine
// variant that reproduces it exactly, and to none otherwise.
func TestClassify(t *testing.T) {
	getitem := func(index string) map[string]any { return map[string]any{"op": "getitem", "index": index} }
	tests := []struct {
		rule string
		m    *casefile.Case
		bug  func(t *testing.T, m *casefile.Case, ref protocol.Answer) protocol.Answer // the answer under test
		sig  string
	}{
		{"size-1 dimensions dropped are drop-size-1-dims",
			memory(t, getitem("x[:, 0:1]"), false, 2, 3),
			func(t *testing.T, m *casefile.Case, ref protocol.Answer) protocol.Answer {
				return protocol.Output(tensor(t, output(ref).DType, []int{2}, output(ref).Bytes()...))
			}, "getitem/shape/rank@drop-size-1-dims"},
		{"an empty range refused is empty-range-refused",
			memory(t, getitem("x[2:1]"), false, 3),
			func(t *testing.T, m *casefile.Case, ref protocol.Answer) protocol.Answer {
				return protocol.Error(engine.InvalidSpec, "")
			}, "getitem/error-for-output/invalid_spec@empty-range-refused"},
		{"a scalar in the input's byte order is input-byte-order",
			memory(t, getitem("x[1, 2]"), true, 2, 3),
			func(t *testing.T, m *casefile.Case, ref protocol.Answer) protocol.Answer {
				b := output(ref).Bytes()
				return protocol.Output(tensor(t, engine.DType{Kind: engine.Int, Size: 4, BigEndian: true}, []int{}, b[3], b[2], b[1], b[0]))
			}, "getitem/dtype/byte-order@input-byte-order"},
		{"another check order names no variant: a zero step refused before the integer's bounds are checked, which shrink-index-clamped reaches only by clamping the integer",
			memory(t, getitem("x[5, ::0]"), false, 3, 4),
			func(t *testing.T, m *casefile.Case, ref protocol.Answer) protocol.Answer {
				return protocol.Error(engine.InvalidSpec, "")
			}, "getitem/error-kind/invalid_spec-for-out_of_range"},
		{"an answer no variant reproduces names none",
			memory(t, getitem("x[1]"), false, 3),
			func(t *testing.T, m *casefile.Case, ref protocol.Answer) protocol.Answer {
				return protocol.Output(tensor(t, output(ref).DType, []int{}, 9, 9, 9, 9))
			}, "getitem/values"},
	}
	for _, tt := range tests {
		c := tt.m
		if err := c.Err; err != nil {
			t.Fatalf("%s: %v", tt.rule, err)
		}
		ref := impl.Of(c.Eval())
		got := Classify(tt.m, ref, tt.bug(t, tt.m, ref))
		if got.String() != tt.sig {
			t.Errorf("%s: %s, want %s", tt.rule, got, tt.sig)
		}
		if back, err := Parse(got.String()); err != nil || back != got {
			t.Errorf("%s: Parse(%q) = %v, %v", tt.rule, got, back, err)
		}
	}
}

// output returns the tensor of an answer that is an output.
func output(a protocol.Answer) *engine.Tensor {
	t, _ := a.Tensor()
	return t
}

// TestErrorClassSignature checks that a failure by exception class is
// named by both classes and that its signature parses back (a
// known-failures file may list it).
func TestErrorClassSignature(t *testing.T) {
	tests := []struct {
		rule      string
		want, got protocol.Answer
		sig       string
	}{
		{"a base class where NumPy raised AxisError names both", protocol.TypedError(engine.InvalidSpec, "", "numpy.AxisError"), protocol.TypedError(engine.InvalidSpec, "", "IndexError"), "take/error-class/IndexError-for-numpy.AxisError"},
		{"a subclass agrees", protocol.TypedError(engine.InvalidSpec, "", "ValueError"), protocol.TypedError(engine.OutOfRange, "", "numpy.AxisError"), ""},
	}
	for _, tc := range tests {
		s := FromAgreement("take", protocol.CompareByClass(tc.want, tc.got))
		got := ""
		if !s.IsZero() {
			got = s.String()
		}
		if got != tc.sig {
			t.Errorf("%s: %q, want %q", tc.rule, got, tc.sig)
			continue
		}
		if got == "" {
			continue
		}
		if back, err := Parse(got); err != nil || back != s {
			t.Errorf("%s: Parse(%q) = %v, %v", tc.rule, got, back, err)
		}
	}
}
