package casefile

import (
	"fmt"
	"strings"

	"github.com/conformsuite/conform/engine"
)

// GatherNDer is the method conformtest calls for gather_nd.
type GatherNDer interface {
	GatherND(params, indices *engine.Tensor, batchDims int, policy engine.BadIndexPolicy) (*engine.Tensor, error)
}

// OpGatherND is the name of the gather_nd op.
const OpGatherND = "gather_nd"

// gatherNDOp defines the gather_nd op.
var gatherNDOp = &OpDef{
	Name:     OpGatherND,
	Summary:  "tf.gather_nd(params, indices, batch_dims), bad index rows an error (CPU) or zeros (GPU)",
	Inputs:   []string{"params", "indices"},
	Fields:   []string{"batch_dims", "bad_indices"},
	Types:    []FieldType{int32Type, enumType(string(engine.BadIndexError), string(engine.BadIndexZero))},
	Method:   "GatherND(params, indices *engine.Tensor, batchDims int, policy engine.BadIndexPolicy) (*engine.Tensor, error)",
	Family:   "tf",
	Variants: []engine.Variant{engine.NegativeGatherIndicesWrap, engine.GatherIndicesClamped, engine.GatherFlatBounds, engine.DropSize1Dims},
	parse: func(c *Case) (any, error) {
		var s engine.GatherNDSpec
		var err error
		if s.BatchDims, err = c.int32Field("batch_dims", 0); err != nil {
			return nil, err
		}
		if s.BadIndices, err = c.badIndices(); err != nil {
			return nil, err
		}
		return s, nil
	},
	eval: func(c *Case, r engine.Rules) (*engine.Tensor, error) {
		s := specOf[engine.GatherNDSpec](c)
		return engine.GatherNDUnder(c.Inputs["params"], c.Inputs["indices"], s.BatchDims, s.BadIndices, r)
	},
	implements: implements[GatherNDer],
	call: func(impl any, c *Case) (*engine.Tensor, error) {
		s := specOf[engine.GatherNDSpec](c)
		return impl.(GatherNDer).GatherND(c.Inputs["params"], c.Inputs["indices"], s.BatchDims, s.BadIndices)
	},
	snippet: func(b *strings.Builder, c *Case) {
		s := specOf[engine.GatherNDSpec](c)
		extra := ""
		if s.BatchDims != 0 {
			extra = fmt.Sprintf(", batch_dims=%d", s.BatchDims)
		}
		fmt.Fprintf(b, "tf.gather_nd(params, indices%s)  # TensorFlow (CPU)\n", extra)
		if s.BatchDims == 0 {
			b.WriteString("params[tuple(np.moveaxis(indices, -1, 0))]  # NumPy equivalent\n")
		}
	},
}

// badIndices reads the bad_indices field of TF's gathers.
func (c *Case) badIndices() (engine.BadIndexPolicy, error) {
	v, err := c.enumField("bad_indices", string(engine.BadIndexError), string(engine.BadIndexZero))
	return engine.BadIndexPolicy(v), err
}
