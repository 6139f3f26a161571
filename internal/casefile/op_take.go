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
	features: append([]Feature{
		{"take-flattened", "gather", "take with axis=None: the input flattened first"},
		{"take-mode-wrap", "gather", "take with mode=wrap: indices taken modulo the dimension"},
		{"take-mode-clip", "gather", "take with mode=clip: indices clipped into [0, d-1], negative ones to 0"},
		{"gather-axis", "gather", "a gather along an axis other than 0 (negative axes count from the end)"},
	}, indexFeatures...),
	tag: func(c *Case, add func(string)) {
		s := specOf[engine.TakeSpec](c)
		a := c.Inputs["a"]
		d := axisSize(a, s.Axis)
		if s.Flatten {
			add("take-flattened")
			d = a.Len()
		} else if s.Axis != 0 {
			add("gather-axis")
		}
		switch s.Mode {
		case engine.TakeWrap:
			add("take-mode-wrap")
		case engine.TakeClip:
			add("take-mode-clip")
		}
		tagIndices(c.Inputs["indices"], d, add)
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
