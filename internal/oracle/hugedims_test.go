package oracle

import (
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/protocol"
)

// hugeDimsCase is a case over an input with no elements and one large
// dimension, and what the oracle must answer: an output or a skip code.
type hugeDimsCase struct {
	rule string
	spec map[string]any // with "op"; the input is "x", or "data" for ONNX ops
	dim  int
	skip string // "" for an output
}

// runHugeDims runs the cases on c: an input of shape [0, dim] holds no
// element, so what an oracle cannot feed its runtime is a skip with a
// code, never an error kind of its own or an internal error.
func runHugeDims(t *testing.T, c *protocol.Client, tests []hugeDimsCase) {
	t.Helper()
	for _, tt := range tests {
		x, err := engine.Zeros(engine.Int32Type, []int{0, tt.dim})
		if err != nil {
			t.Fatal(err)
		}
		name := "x"
		if op, _ := tt.spec["op"].(string); strings.HasPrefix(op, "onnx_") {
			name = "data"
		}
		r := do(c, casefile.New(tt.spec, map[string]*engine.Tensor{name: x}).Request(0))
		switch {
		case tt.skip == "" && r.Output == nil:
			t.Errorf("%s: got %+v, want an output", tt.rule, r)
		case tt.skip != "":
			if why := checkLibAnswer(gotSkip(tt.skip), r); why != "" {
				t.Errorf("%s: %s", tt.rule, why)
			}
		}
	}
	checkNoRestarts(t, c)
}

// TestORTHugeDimensions: onnxruntime-node's binding takes tensor
// dimensions up to 2^32-1 ("Tensor.dims[i] is invalid" beyond), and its
// Tensor only safe integers: an input with a larger dimension is skipped.
func TestORTHugeDimensions(t *testing.T) {
	c := startORT(t)
	slice := opSpec("onnx_slice", "starts", []int64{0}, "ends", []int64{1})
	runHugeDims(t, c, []hugeDimsCase{
		{"a dimension of 2^32-1 runs", slice, 1<<32 - 1, ""},
		{"a dimension of 2^32 is beyond onnxruntime-node's binding: skipped", slice, 1 << 32, "int32-limit"},
		{"a dimension beyond 2^53 is beyond a safe JavaScript integer: skipped", slice, 1<<60 + 1, "int32-limit"},
	})
}

// TestTFLiteHugeDimensions: TFLite's tensor shapes are int32, so an input
// with a dimension beyond 2^31-1 is skipped.
func TestTFLiteHugeDimensions(t *testing.T) {
	c := startTFLite(t)
	ss := opSpec("strided_slice", "begin", []int64{0}, "end", []int64{1})
	runHugeDims(t, c, []hugeDimsCase{
		{"a dimension of 5 runs", ss, 5, ""},
		{"a dimension of 2^31 does not fit TFLite's int32 shapes: skipped", ss, 1 << 31, "int32-limit"},
		{"a dimension of 10^12 does not fit either", opSpec("slice", "begin", []int64{0, 0}, "size", []int64{-1, -1}), 1e12, "int32-limit"},
	})
}
