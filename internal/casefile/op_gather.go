package casefile

import (
	"fmt"
	"strings"

	"github.com/conformsuite/conform/engine"
)

// OpGather is the name of the gather op.
const OpGather = "gather"

// Gatherer is the method conformtest calls for gather.
type Gatherer interface {
	Gather(params, indices *engine.Tensor, spec engine.GatherSpec) (*engine.Tensor, error)
}

// gatherOp defines the gather op.
var gatherOp = &OpDef{
	Name:     OpGather,
	Summary:  "tf.gather(params, indices, axis, batch_dims), bad indices an error (CPU) or zeros (GPU)",
	Inputs:   []string{"params", "indices"},
	Fields:   []string{"axis", "batch_dims", "bad_indices"},
	Types:    []FieldType{int32Type, int32Type, enumType(string(engine.BadIndexError), string(engine.BadIndexZero))},
	Method:   "Gather(params, indices *engine.Tensor, spec engine.GatherSpec) (*engine.Tensor, error)",
	Family:   "tf",
	Variants: []engine.Variant{engine.NegativeGatherIndicesWrap, engine.GatherIndicesClamped, engine.GatherFlatBounds, engine.DropSize1Dims},
	parse: func(c *Case) (any, error) {
		var s engine.GatherSpec
		var err error
		if s.BatchDims, err = c.int32Field("batch_dims", 0); err != nil {
			return nil, err
		}
		// tf.gather's axis defaults to batch_dims, the first
		// dimension that is not a batch dimension.
		if s.Axis, err = c.int32Field("axis", s.BatchDims); err != nil {
			return nil, err
		}
		s.BadIndices, err = c.badIndices()
		return s, err
	},
	eval: func(c *Case, r engine.Rules) (*engine.Tensor, error) {
		return engine.GatherUnder(c.Inputs["params"], c.Inputs["indices"], specOf[engine.GatherSpec](c), r)
	},
	implements: implements[Gatherer],
	call: func(impl any, c *Case) (*engine.Tensor, error) {
		return impl.(Gatherer).Gather(c.Inputs["params"], c.Inputs["indices"], specOf[engine.GatherSpec](c))
	},
	snippet: func(b *strings.Builder, c *Case) {
		s := specOf[engine.GatherSpec](c)
		fmt.Fprintf(b, "tf.gather(params, indices, axis=%d, batch_dims=%d)  # TensorFlow (CPU)\n", s.Axis, s.BatchDims)
	},
}
