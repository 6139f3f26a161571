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
	features: []Feature{
		{"onnx-axes", "onnx", "ONNX Slice with explicit axes (negative axes count from the end)"},
		{"onnx-negative-step-start-clamp", "onnx", "ONNX Slice with a negative step: the start clamps into [0, d-1], not [-1, d-1]"},
	},
	tag: tagONNXSlice,
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

func tagONNXSlice(c *Case, add func(string)) {
	s := specOf[engine.ONNXSliceSpec](c)
	data := c.Inputs["data"]
	if s.Axes != nil {
		add("onnx-axes")
	}
	for i := range s.Starts {
		if i >= len(s.Ends) {
			break
		}
		step := int64(1)
		if i < len(s.Steps) {
			step = s.Steps[i]
		}
		axis := int64(i)
		if i < len(s.Axes) {
			axis = s.Axes[i]
			if axis < 0 {
				axis += int64(data.Rank())
			}
		}
		d := int64(0)
		if axis >= 0 && axis < int64(data.Rank()) {
			d = int64(data.Shape[axis])
		}
		if step < 0 {
			add("onnx-negative-step-start-clamp")
		}
		if step != 0 {
			tagRange(d, s.Starts[i], s.Ends[i], step, false, false, add)
		}
	}
}
