package protocol

import (
	"encoding/json"
	"testing"

	"github.com/conformsuite/conform/engine"
)

// TestErrorType checks that an error answer's optional "type" is read
// into the Answer, and refused when it is not a class name.
func TestErrorType(t *testing.T) {
	tests := []struct {
		rule     string
		line     string
		wantType string
		wantBad  bool
	}{
		{"an error without type has none", `{"id":1,"error":{"kind":"out_of_range","message":"m"}}`, "", false},
		{"a builtin class is kept", `{"id":1,"error":{"kind":"out_of_range","message":"m","type":"IndexError"}}`, "IndexError", false},
		{"a dotted class is kept", `{"id":1,"error":{"kind":"invalid_spec","type":"numpy.AxisError"}}`, "numpy.AxisError", false},
		{"an empty type is garbage", `{"id":1,"error":{"kind":"invalid_spec","type":""}}`, "", true},
		{"a type with spaces is garbage", `{"id":1,"error":{"kind":"invalid_spec","type":"Index Error"}}`, "", true},
		{"a type that is not a string is garbage", `{"id":1,"error":{"kind":"invalid_spec","type":3}}`, "", true},
	}
	for _, tc := range tests {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal([]byte(tc.line), &fields); err != nil {
			t.Fatal(err)
		}
		a, bad := parseResponse(fields, false)
		if (bad != "") != tc.wantBad {
			t.Errorf("%s: bad = %q, want bad %v", tc.rule, bad, tc.wantBad)
			continue
		}
		if !tc.wantBad && (!a.IsError() || a.Type() != tc.wantType) {
			t.Errorf("%s: got %v type %q, want an error of type %q", tc.rule, a, a.Type(), tc.wantType)
		}
	}
}

// TestCompareIgnoresTypeByDefault checks that Compare keeps comparing
// errors by kind: the exception class neither makes nor breaks agreement.
func TestCompareIgnoresTypeByDefault(t *testing.T) {
	tests := []struct {
		rule      string
		want, got Answer
		agree     bool
	}{
		{"same kind, different classes agree", TypedError(engine.InvalidSpec, "", "IndexError"), TypedError(engine.InvalidSpec, "", "ValueError"), true},
		{"same kind, one class missing agree", TypedError(engine.InvalidSpec, "", "IndexError"), Error(engine.InvalidSpec, ""), true},
		{"same class, different kinds differ", TypedError(engine.InvalidSpec, "", "IndexError"), TypedError(engine.OutOfRange, "", "IndexError"), false},
	}
	for _, tc := range tests {
		if got := Compare(tc.want, tc.got).Agree(); got != tc.agree {
			t.Errorf("%s: Agree() = %v, want %v", tc.rule, got, tc.agree)
		}
	}
}
