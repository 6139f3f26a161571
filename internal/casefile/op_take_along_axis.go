package casefile

import (
	"fmt"
	"strings"

	"github.com/conformsuite/conform/engine"
)

// OpTakeAlongAxis is the name of the take_along_axis op.
const OpTakeAlongAxis = "take_along_axis"

// TakeAlongAxiser is the method conformtest calls for take_along_axis.
type TakeAlongAxiser interface {
	TakeAlongAxis(arr, indices *engine.Tensor, spec engine.TakeAlongAxisSpec) (*engine.Tensor, error)
}

// takeAlongAxisOp defines the take_along_axis op.
var takeAlongAxisOp = &OpDef{
	Name:     OpTakeAlongAxis,
	Summary:  "np.take_along_axis(arr, indices, axis) of NumPy: axis an integer or null (arr flattened)",
	Inputs:   []string{"arr", "indices"},
	Fields:   []string{"axis"},
	Types:    []FieldType{required(int32OrNullType)},
	Method:   "TakeAlongAxis(arr, indices *engine.Tensor, spec engine.TakeAlongAxisSpec) (*engine.Tensor, error)",
	Family:   "numpy",
	Variants: []engine.Variant{engine.Int64IndicesOnly, engine.NegativeIndicesRefused, engine.DropSize1Dims},
	parse: func(c *Case) (any, error) {
		var s engine.TakeAlongAxisSpec
		var err error
		s.Axis, s.Flatten, err = c.axisOrNone("axis", false)
		return s, err
	},
	eval: func(c *Case, r engine.Rules) (*engine.Tensor, error) {
		return engine.TakeAlongAxisUnder(c.Inputs["arr"], c.Inputs["indices"], specOf[engine.TakeAlongAxisSpec](c), r)
	},
	implements: implements[TakeAlongAxiser],
	call: func(impl any, c *Case) (*engine.Tensor, error) {
		return impl.(TakeAlongAxiser).TakeAlongAxis(c.Inputs["arr"], c.Inputs["indices"], specOf[engine.TakeAlongAxisSpec](c))
	},
	snippet: func(b *strings.Builder, c *Case) {
		s := specOf[engine.TakeAlongAxisSpec](c)
		axis := "None"
		if !s.Flatten {
			axis = fmt.Sprint(s.Axis)
		}
		fmt.Fprintf(b, "np.take_along_axis(arr, indices, axis=%s)  # NumPy\n", axis)
	},
}
