package casefile

import (
	"fmt"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/pysrc"
)

// ONNXSlicer is the method conformtest calls for onnx_slice. axes and
// steps are nil when the case omits them.
type ONNXSlicer interface {
	ONNXSlice(data *engine.Tensor, starts, ends, axes, steps []int64) (*engine.Tensor, error)
}

// OpONNXSlice is the name of the onnx_slice op.
const OpONNXSlice = "onnx_slice"

// onnxSliceOp defines the onnx_slice op.
var onnxSliceOp = &OpDef{
	Name:     OpONNXSlice,
	Summary:  "ONNX Slice-13(data, starts, ends, axes, steps)",
	Inputs:   []string{"data"},
	Fields:   []string{"starts", "ends", "axes", "steps"},
	Types:    []FieldType{required(intListType), required(intListType), intListType, intListType},
	Method:   "ONNXSlice(data *engine.Tensor, starts, ends, axes, steps []int64) (*engine.Tensor, error)",
	Family:   "onnx",
	Variants: []engine.Variant{engine.EmptyRangeRefused, engine.DropSize1Dims},
	parse: func(c *Case) (any, error) {
		var s engine.ONNXSliceSpec
		var err error
		if s.Starts, err = c.ints("starts", true); err != nil {
			return nil, err
		}
		if s.Ends, err = c.ints("ends", true); err != nil {
			return nil, err
		}
		if s.Axes, err = c.ints("axes", false); err != nil {
			return nil, err
		}
		if s.Steps, err = c.ints("steps", false); err != nil {
			return nil, err
		}
		return s, nil
	},
	eval: func(c *Case, r engine.Rules) (*engine.Tensor, error) {
		return engine.ONNXSliceUnder(c.Inputs["data"], specOf[engine.ONNXSliceSpec](c), r)
	},
	implements: implements[ONNXSlicer],
	call: func(impl any, c *Case) (*engine.Tensor, error) {
		s := specOf[engine.ONNXSliceSpec](c)
		return impl.(ONNXSlicer).ONNXSlice(c.Inputs["data"], s.Starts, s.Ends, s.Axes, s.Steps)
	},
	snippet: func(b *strings.Builder, c *Case) {
		s := specOf[engine.ONNXSliceSpec](c)
		fmt.Fprintf(b, "# ONNX Slice-13: starts=%s, ends=%s", pysrc.Ints(s.Starts), pysrc.Ints(s.Ends))
		if s.Axes != nil {
			fmt.Fprintf(b, ", axes=%s", pysrc.Ints(s.Axes))
		}
		if s.Steps != nil {
			fmt.Fprintf(b, ", steps=%s", pysrc.Ints(s.Steps))
		}
		b.WriteString("\n")
		if plan, err := engine.ONNXSlicePlan(c.Inputs["data"].Shape, s); err == nil {
			fmt.Fprintf(b, "data[%s]  # NumPy equivalent under ONNX's clamping\n", planIndex(plan, c.Inputs["data"].Rank()))
		}
	},
}
