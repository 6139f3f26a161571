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
	features: []Feature{
		{"shrink-stride-over-1", "masks", "a shrink axis with stride 2 or more (accepted by TF)"},
		{"conflicting-mask-bits", "masks", "several mask bits on one spec position (ellipsis > new axis > shrink)"},
		{"mask-bits-beyond-spec", "masks", "mask bits at positions beyond the spec length (ignored)"},
		{"openvino-list-masks", "masks", "masks as OpenVINO 0/1 lists"},
	},
	tag:     tagStridedSlice,
	snippet: stridedSliceSnippet,
}

func tagStridedSlice(c *Case, add func(string)) {
	for _, name := range []string{"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"} {
		if raw, ok := c.Fields[name]; ok && len(raw) > 0 && raw[0] == '[' {
			add("openvino-list-masks")
		}
	}
	spec := specOf[engine.StridedSliceSpec](c)
	n := len(spec.Begin)
	masks := []engine.Mask{spec.BeginMask, spec.EndMask, spec.EllipsisMask, spec.NewAxisMask, spec.ShrinkAxisMask}
	for _, m := range masks {
		if m.Bits>>uint(min(n, 63)) != 0 || m.Extra > 0 {
			add("mask-bits-beyond-spec")
		}
	}
	for i := 0; i < n && i < 64; i++ {
		special := 0
		for _, m := range []engine.Mask{spec.EllipsisMask, spec.NewAxisMask, spec.ShrinkAxisMask} {
			if m.Has(i) {
				special++
			}
		}
		if special > 1 {
			add("conflicting-mask-bits")
		}
	}
	x := c.Inputs["x"]
	_, err := engine.StridedSlicePlan(x.Shape, spec)
	sizes := entrySizes(x, spec)
	ellipsisAt := -1
	for i := 0; i < n; i++ {
		if spec.EllipsisMask.Has(i) {
			ellipsisAt = i
			add("ellipsis")
		}
	}
	for i := 0; i < n; i++ {
		if spec.EllipsisMask.Has(i) {
			continue
		}
		if spec.NewAxisMask.Has(i) {
			add("new-axis")
			if ellipsisAt >= 0 && i > ellipsisAt {
				add("new-axis-after-ellipsis")
			}
			continue
		}
		s := int64(1)
		if spec.Strides != nil && i < len(spec.Strides) {
			s = spec.Strides[i]
		}
		if spec.ShrinkAxisMask.Has(i) {
			add("shrink")
			if spec.Begin[i] < 0 {
				add("shrink-negative-index")
			}
			if s > 1 {
				add("shrink-stride-over-1")
			}
			continue
		}
		if s != 0 && i < len(spec.End) {
			tagRange(sizes[i], spec.Begin[i], spec.End[i], s, spec.BeginMask.Has(i), spec.EndMask.Has(i), add)
		}
	}
	if err == nil && ellipsisAt < 0 && n < x.Rank() {
		add("implicit-ellipsis")
	}
	if err == nil && ellipsisAt >= 0 {
		consumed := 0
		for i := 0; i < n; i++ {
			if !spec.EllipsisMask.Has(i) && !spec.NewAxisMask.Has(i) {
				consumed++
			}
		}
		if consumed == x.Rank() {
			add("ellipsis-zero-dims")
		}
	}
}

// entrySizes returns the size of the input dimension each spec entry
// addresses, as the engine expands the spec (engine.StridedSliceEntryDims);
// 0 for an entry that addresses none, and all 0 if the spec does not
// expand.
func entrySizes(x *engine.Tensor, spec engine.StridedSliceSpec) []int64 {
	sizes := make([]int64, len(spec.Begin))
	dims, err := engine.StridedSliceEntryDims(x.Shape, spec)
	if err != nil {
		return sizes
	}
	for i, d := range dims {
		if d >= 0 {
			sizes[i] = int64(x.Shape[d])
		}
	}
	return sizes
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
			fmt.Fprintf(b, ", %s=%d", mk.name, int64(mk.m.Bits))
		}
	}
	b.WriteString(")  # TensorFlow\n")
	if plan, err := engine.StridedSlicePlan(c.Inputs["x"].Shape, spec); err == nil {
		fmt.Fprintf(b, "x[%s]  # NumPy equivalent\n", planIndex(plan, c.Inputs["x"].Rank()))
	}
}
