package casefile

import "testing"

// TestExpectedFrom checks how an expected answer's source is said.
func TestExpectedFrom(t *testing.T) {
	tests := []struct {
		op, source, want string
	}{
		// A TF op computed by NumPy: the TF reference, then the oracle.
		{"gather", "numpy 1.24.2", "tf.gather (TF semantics), computed with numpy 1.24.2"},
		// An ONNX op: ONNX's operator and semantics.
		{"onnx_gather", "numpy 1.24.2", "ONNX Gather-13 (ONNX semantics), computed with numpy 1.24.2"},
		// Another oracle is named as it is.
		{"strided_slice", "tfjs 4.22.0", "tf.strided_slice (TF semantics), computed with tfjs 4.22.0"},
		// An op of NumPy's: the source as it is.
		{"getitem", "numpy 1.24.2", "numpy 1.24.2"},
		// A document is no oracle: as it is.
		{"gather", "tf.gather API docstring", "tf.gather API docstring"},
		// An unknown op: as it is.
		{"frobnicate", "numpy 1.24.2", "numpy 1.24.2"},
	}
	for _, tt := range tests {
		if got := ExpectedFrom(tt.op, tt.source); got != tt.want {
			t.Errorf("ExpectedFrom(%q, %q) = %q, want %q", tt.op, tt.source, got, tt.want)
		}
	}
}
