package casefile

import (
	"fmt"
	"strings"

	"github.com/conformsuite/conform/engine"
)

// OpONNXGather is the name of the onnx_gather op.
const OpONNXGather = "onnx_gather"

// ONNXGatherer is the method conformtest calls for onnx_gather.
type ONNXGatherer interface {
	ONNXGather(data, indices *engine.Tensor, spec engine.ONNXGatherSpec) (*engine.Tensor, error)
}

// onnxGatherOp defines the onnx_gather op.
var onnxGatherOp = &OpDef{
	Name:     OpONNXGather,
	Summary:  "ONNX Gather-13(data, indices, axis): negative indices wrap once",
	Inputs:   []string{"data", "indices"},
	Fields:   []string{"axis"},
	Types:    []FieldType{int32Type},
	Method:   "ONNXGather(data, indices *engine.Tensor, spec engine.ONNXGatherSpec) (*engine.Tensor, error)",
	Family:   "onnx",
	Variants: []engine.Variant{engine.DropSize1Dims},
	parse:    parseONNXGatherSpec,
	eval: func(c *Case, r engine.Rules) (*engine.Tensor, error) {
		return engine.ONNXGatherUnder(c.Inputs["data"], c.Inputs["indices"], specOf[engine.ONNXGatherSpec](c), r)
	},
	implements: implements[ONNXGatherer],
	call: func(impl any, c *Case) (*engine.Tensor, error) {
		return impl.(ONNXGatherer).ONNXGather(c.Inputs["data"], c.Inputs["indices"], specOf[engine.ONNXGatherSpec](c))
	},
	snippet: func(b *strings.Builder, c *Case) {
		axis := specOf[engine.ONNXGatherSpec](c).Axis
		fmt.Fprintf(b, "# ONNX Gather-13: axis=%d (negative indices wrap once)\n", axis)
		fmt.Fprintf(b, "np.take(data, indices, axis=%d)  # NumPy equivalent when every index is in [-dim, dim)\n", axis)
	},
}

func parseONNXGatherSpec(c *Case) (any, error) {
	axis, err := c.int32Field("axis", 0)
	return engine.ONNXGatherSpec{Axis: axis}, err
}
