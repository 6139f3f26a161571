package casefile

import (
	"fmt"
	"strings"

	"github.com/conformsuite/conform/engine"
)

// OpONNXGatherElements is the name of the onnx_gather_elements op.
const OpONNXGatherElements = "onnx_gather_elements"

// ONNXGatherElementser is the method conformtest calls for
// onnx_gather_elements.
type ONNXGatherElementser interface {
	ONNXGatherElements(data, indices *engine.Tensor, spec engine.ONNXGatherSpec) (*engine.Tensor, error)
}

// onnxGatherElementsOp defines the onnx_gather_elements op.
var onnxGatherElementsOp = &OpDef{
	Name:     OpONNXGatherElements,
	Summary:  "ONNX GatherElements-13(data, indices, axis): negative indices wrap once",
	Inputs:   []string{"data", "indices"},
	Fields:   []string{"axis"},
	Types:    []FieldType{int32Type},
	Method:   "ONNXGatherElements(data, indices *engine.Tensor, spec engine.ONNXGatherSpec) (*engine.Tensor, error)",
	Family:   "onnx",
	Variants: []engine.Variant{engine.Int64IndicesOnly, engine.NegativeIndicesRefused, engine.DropSize1Dims},
	parse:    parseONNXGatherSpec,
	eval: func(c *Case, r engine.Rules) (*engine.Tensor, error) {
		return engine.ONNXGatherElementsUnder(c.Inputs["data"], c.Inputs["indices"], specOf[engine.ONNXGatherSpec](c), r)
	},
	implements: implements[ONNXGatherElementser],
	call: func(impl any, c *Case) (*engine.Tensor, error) {
		return impl.(ONNXGatherElementser).ONNXGatherElements(c.Inputs["data"], c.Inputs["indices"], specOf[engine.ONNXGatherSpec](c))
	},
	snippet: func(b *strings.Builder, c *Case) {
		axis := specOf[engine.ONNXGatherSpec](c).Axis
		fmt.Fprintf(b, "# ONNX GatherElements-13: axis=%d (negative indices wrap once)\n", axis)
		fmt.Fprintf(b, "np.take_along_axis(data, indices, axis=%d)  # NumPy equivalent when indices match data off the axis and every index is in [-dim, dim)\n", axis)
	},
}
