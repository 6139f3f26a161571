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
	features: []Feature{
		{"gather-depth-0", "gather", "gather_nd with index depth 0 (whole slices)"},
		{"gather-full-depth", "gather", "gather_nd with index depth == rank (scalars)"},
		{"gather-batch-dims", "gather", "a gather with batch_dims >= 1"},
		{"gather-bad-row", "gather", "gather_nd with an out-of-range index row"},
		{"gather-negative-index", "gather", "a gather with a negative index (no wrap in TF)"},
		{"gather-empty-rows", "gather", "gather_nd selecting no rows"},
		{"gather-empty-params", "gather", "a gather from params with no elements"},
		{"gather-zero-mode", "gather", "a gather with bad_indices=zero (TF GPU behaviour)"},
		{"gather-index-dtype", "gather", "gather indices of a dtype other than int32/int64"},
	},
	tag: tagGatherND,
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

func tagGatherND(c *Case, add func(string)) {
	s := specOf[engine.GatherNDSpec](c)
	p, idx := c.Inputs["params"], c.Inputs["indices"]
	if s.BatchDims > 0 {
		add("gather-batch-dims")
	}
	if s.BadIndices == engine.BadIndexZero {
		add("gather-zero-mode")
	}
	if idx.DType != engine.Int32Type && idx.DType != engine.Int64Type {
		add("gather-index-dtype")
	}
	if p.Len() == 0 {
		add("gather-empty-params")
	}
	if idx.Rank() == 0 {
		return
	}
	depth := idx.Shape[idx.Rank()-1]
	if depth == 0 {
		add("gather-depth-0")
	}
	if depth > 0 && depth == p.Rank()-s.BatchDims {
		add("gather-full-depth")
	}
	if engine.NumElements(idx.Shape[:idx.Rank()-1]) == 0 {
		add("gather-empty-rows")
	}
	if !idx.DType.IsInteger() || depth == 0 {
		return
	}
	for i, v := range intValues(idx) {
		dim := s.BatchDims + i%depth
		if v < 0 {
			add("gather-negative-index")
		}
		if dim >= 0 && dim < p.Rank() && (v < 0 || v >= int64(p.Shape[dim])) {
			add("gather-bad-row")
		}
	}
}
