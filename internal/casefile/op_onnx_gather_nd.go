package casefile

import (
	"fmt"
	"strings"

	"github.com/conformsuite/conform/engine"
)

// ONNXGatherNDer is the method conformtest calls for onnx_gather_nd.
type ONNXGatherNDer interface {
	ONNXGatherND(data, indices *engine.Tensor, batchDims int) (*engine.Tensor, error)
}

// OpONNXGatherND is the name of the onnx_gather_nd op.
const OpONNXGatherND = "onnx_gather_nd"

// onnxGatherNDOp defines the onnx_gather_nd op.
var onnxGatherNDOp = &OpDef{
	Name:     OpONNXGatherND,
	Summary:  "ONNX GatherND-13(data, indices, batch_dims)",
	Inputs:   []string{"data", "indices"},
	Fields:   []string{"batch_dims"},
	Types:    []FieldType{int32Type},
	Method:   "ONNXGatherND(data, indices *engine.Tensor, batchDims int) (*engine.Tensor, error)",
	Family:   "onnx",
	Variants: []engine.Variant{engine.GatherFlatBounds, engine.DropSize1Dims},
	parse: func(c *Case) (any, error) {
		b, err := c.int32Field("batch_dims", 0)
		return engine.ONNXGatherNDSpec{BatchDims: b}, err
	},
	eval: func(c *Case, r engine.Rules) (*engine.Tensor, error) {
		return engine.ONNXGatherNDUnder(c.Inputs["data"], c.Inputs["indices"], specOf[engine.ONNXGatherNDSpec](c).BatchDims, r)
	},
	implements: implements[ONNXGatherNDer],
	call: func(impl any, c *Case) (*engine.Tensor, error) {
		return impl.(ONNXGatherNDer).ONNXGatherND(c.Inputs["data"], c.Inputs["indices"], specOf[engine.ONNXGatherNDSpec](c).BatchDims)
	},
	snippet: func(b *strings.Builder, c *Case) {
		s := specOf[engine.ONNXGatherNDSpec](c)
		fmt.Fprintf(b, "# ONNX GatherND-13: batch_dims=%d (negative indices wrap once)\n", s.BatchDims)
		if s.BatchDims == 0 {
			b.WriteString("data[tuple(np.moveaxis(indices, -1, 0))]  # NumPy equivalent when every index is in [-dim, dim)\n")
		}
	},
}
