package casefile

import (
	"fmt"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/pysrc"
)

// StridedSlicer is the method conformtest calls for strided_slice. The
// spec's Strides are never nil: omitted strides are all 1.
type StridedSlicer interface {
	StridedSlice(x *engine.Tensor, spec engine.StridedSliceSpec) (*engine.Tensor, error)
}

// OpStridedSlice is the name of the strided_slice op.
const OpStridedSlice = "strided_slice"

// stridedSliceOp defines the strided_slice op.
var stridedSliceOp = &OpDef{
	Name:     OpStridedSlice,
	Summary:  "tf.strided_slice(x, begin, end, strides, masks), masks as TF bitmasks or OpenVINO 0/1 lists",
	Inputs:   []string{"x"},
	Fields:   []string{"begin", "end", "strides", "begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"},
	Types:    []FieldType{required(intListType), required(intListType), intListType, maskType, maskType, maskType, maskType, maskType},
	Method:   "StridedSlice(x *engine.Tensor, spec engine.StridedSliceSpec) (*engine.Tensor, error)",
	Family:   "tf",
	Variants: []engine.Variant{engine.Int32Arithmetic, engine.ExtraEntriesIgnored, engine.MaskBitsPastSpecApplied, engine.EllipsisCoversOneDim, engine.ShrinkIndexClamped, engine.EmptyRangeRefused, engine.DropSize1Dims},
	parse: func(c *Case) (any, error) {
		var s engine.StridedSliceSpec
		var err error
		if s.Begin, err = c.ints("begin", true); err != nil {
			return nil, err
		}
		if s.End, err = c.ints("end", true); err != nil {
			return nil, err
		}
		if s.Strides, err = c.ints("strides", false); err != nil {
			return nil, err
		}
		for _, m := range []struct {
			name string
			dst  *engine.Mask
		}{
			{"begin_mask", &s.BeginMask}, {"end_mask", &s.EndMask}, {"ellipsis_mask", &s.EllipsisMask},
			{"new_axis_mask", &s.NewAxisMask}, {"shrink_axis_mask", &s.ShrinkAxisMask},
		} {
			if *m.dst, err = c.mask(m.name); err != nil {
				return nil, err
			}
		}
		return s, nil
	},
	eval: func(c *Case, r engine.Rules) (*engine.Tensor, error) {
		return engine.StridedSliceUnder(c.Inputs["x"], specOf[engine.StridedSliceSpec](c), r)
	},
	implements: implements[StridedSlicer],
	call: func(impl any, c *Case) (*engine.Tensor, error) {
		spec := specOf[engine.StridedSliceSpec](c)
		if spec.Strides == nil {
			spec.Strides = make([]int64, len(spec.Begin))
			for i := range spec.Strides {
				spec.Strides[i] = 1
			}
		}
		return impl.(StridedSlicer).StridedSlice(c.Inputs["x"], spec)
	},
	snippet: stridedSliceSnippet,
}

func stridedSliceSnippet(b *strings.Builder, c *Case) {
	spec := specOf[engine.StridedSliceSpec](c)
	masks := []struct {
		name string
		m    engine.Mask
	}{{"begin_mask", spec.BeginMask}, {"end_mask", spec.EndMask}, {"ellipsis_mask", spec.EllipsisMask}, {"new_axis_mask", spec.NewAxisMask}, {"shrink_axis_mask", spec.ShrinkAxisMask}}
	strides := spec.Strides
	if strides == nil {
		strides = make([]int64, len(spec.Begin))
		for i := range strides {
			strides[i] = 1
		}
	}
	fmt.Fprintf(b, "tf.strided_slice(x, %s, %s, %s", pysrc.Ints(spec.Begin), pysrc.Ints(spec.End), pysrc.Ints(strides))
	for _, mk := range masks {
		if mk.m.Bits != 0 {
			fmt.Fprintf(b, ", %s=%d", mk.name, mk.m.Int())
		}
	}
	b.WriteString(")  # TensorFlow\n")
	if plan, err := engine.StridedSlicePlan(c.Inputs["x"].Shape, spec); err == nil {
		fmt.Fprintf(b, "x[%s]  # NumPy equivalent\n", planIndex(plan, c.Inputs["x"].Rank()))
	}
}
