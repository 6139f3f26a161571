package engine

import "testing"

// TestRefClass checks that a rule's RefClass is the Python exception
// class its RefError names first, and "" where it names none.
func TestRefClass(t *testing.T) {
	tests := []struct {
		rule string
		id   RuleID
		want string
	}{
		{"a quoted IndexError message gives IndexError", RuleGetItemTooManyIndices, "IndexError"},
		{"numpy.AxisError keeps its module", RuleTakeAxis, "numpy.AxisError"},
		{"a bare class is the class", RuleGetItem0DOverflow, "OverflowError"},
		{"a class with (NumPy) after it is the class", RuleInputRank, "ValueError"},
		{"a TF status is no Python class", RuleGatherAxis, ""},
		{"an ONNX Runtime message is no Python class", RuleONNXGatherAxis, ""},
		{"conform's own rule has no class", RuleOutputLimit, ""},
	}
	for _, tc := range tests {
		r, ok := RuleByID(tc.id)
		if !ok {
			t.Fatalf("%s: no rule %s", tc.rule, tc.id)
		}
		if got := r.RefClass(); got != tc.want {
			t.Errorf("%s: %s RefClass() = %q, want %q", tc.rule, tc.id, got, tc.want)
		}
	}
}
