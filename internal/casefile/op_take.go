package casefile

import (
	"fmt"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/pysrc"
)

// OpTake is the name of the take op.
const OpTake = "take"

// Taker is the method conformtest calls for take.
type Taker interface {
	Take(a, indices *engine.Tensor, spec engine.TakeSpec) (*engine.Tensor, error)
}

// takeOp defines the take op.
var takeOp = &OpDef{
	Name:     OpTake,
	Summary:  "np.take(a, indices, axis, mode) of NumPy: axis an integer or null (the input flattened), mode raise, wrap or clip",
	Inputs:   []string{"a", "indices"},
	Fields:   []string{"axis", "mode"},
	Types:    []FieldType{int32OrNullType, enumType(string(engine.TakeRaise), string(engine.TakeWrap), string(engine.TakeClip))},
	Method:   "Take(a, indices *engine.Tensor, spec engine.TakeSpec) (*engine.Tensor, error)",
	Family:   "numpy",
	Variants: []engine.Variant{engine.InputByteOrder, engine.Int64IndicesOnly, engine.NegativeIndicesRefused, engine.ZeroDIndexArrayRefused, engine.NDIndexArrayRefused, engine.DropSize1Dims},
	parse: func(c *Case) (any, error) {
		var s engine.TakeSpec
		var err error
		if s.Axis, s.Flatten, err = c.axisOrNone("axis", true); err != nil {
			return nil, err
		}
		mode, err := c.enumField("mode", string(engine.TakeRaise), string(engine.TakeWrap), string(engine.TakeClip))
		s.Mode = engine.TakeMode(mode)
		return s, err
	},
	eval: func(c *Case, r engine.Rules) (*engine.Tensor, error) {
		return engine.TakeUnder(c.Inputs["a"], c.Inputs["indices"], specOf[engine.TakeSpec](c), r)
	},
	implements: implements[Taker],
	call: func(impl any, c *Case) (*engine.Tensor, error) {
		return impl.(Taker).Take(c.Inputs["a"], c.Inputs["indices"], specOf[engine.TakeSpec](c))
	},
	snippet: func(b *strings.Builder, c *Case) {
		s := specOf[engine.TakeSpec](c)
		axis := "None"
		if !s.Flatten {
			axis = fmt.Sprint(s.Axis)
		}
		fmt.Fprintf(b, "np.take(a, indices, axis=%s, mode=%s)  # NumPy\n", axis, pysrc.String(string(s.Mode)))
	},
}
