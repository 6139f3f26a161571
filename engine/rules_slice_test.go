package engine_test

import (
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/expr"
)

// sliceOp is one call of a slicing op under a set of variants.
type sliceOp func(x *engine.Tensor, r engine.Rules) (*engine.Tensor, error)

func stridedOp(spec engine.StridedSliceSpec) sliceOp {
	return func(x *engine.Tensor, r engine.Rules) (*engine.Tensor, error) {
		return engine.StridedSliceUnder(x, spec, r)
	}
}

func sliceOpOf(begin, size []int64) sliceOp {
	return func(x *engine.Tensor, r engine.Rules) (*engine.Tensor, error) {
		return engine.SliceUnder(x, begin, size, r)
	}
}

func getItemOp(t *testing.T, index string) sliceOp {
	items, err := expr.Parse(index)
	if err != nil {
		t.Fatalf("%s: %v", index, err)
	}
	return func(x *engine.Tensor, r engine.Rules) (*engine.Tensor, error) {
		return engine.GetItemUnder(x, items, r)
	}
}

// TestSliceVariants runs one small case per slicing variant with the
// reference rules and with the variant: the case is one the variant
// decides differently.
func TestSliceVariants(t *testing.T) {
	m := engine.MaskFromInt
	tests := []struct {
		rule      string
		variant   engine.Variant
		shape     []int
		op        sliceOp
		reference result // Rules{}
		under     result // Rules{}.With(variant)
	}{
		{"int32 arithmetic: a tf.slice begin of 2^32+1 is 1", engine.Int32Arithmetic,
			[]int{4}, sliceOpOf([]int64{1<<32 + 1}, []int64{2}), fails(engine.OutOfRange), ok([]int{2}, 1, 2)},
		{"int32 arithmetic: a tf.slice begin of -2^63 is 0", engine.Int32Arithmetic,
			[]int{3}, sliceOpOf([]int64{-1 << 63}, []int64{-1}), fails(engine.OutOfRange), ok([]int{3}, 0, 1, 2)},
		{"int32 arithmetic: a strided_slice end of 2^32+3 is 3, not clamped to the dimension", engine.Int32Arithmetic,
			[]int{4}, stridedOp(engine.StridedSliceSpec{Begin: []int64{0}, End: []int64{1<<32 + 3}}), ok([]int{4}, 0, 1, 2, 3), ok([]int{3}, 0, 1, 2)},
		{"a short tf.slice spec is padded with begin 0, size -1", engine.ShortSliceSpecPadded,
			[]int{2, 3}, sliceOpOf([]int64{1}, []int64{1}), fails(engine.InvalidSpec), ok([]int{1, 3}, 3, 4, 5)},
		{"tf.slice entries past the rank are ignored", engine.ExtraEntriesIgnored,
			[]int{3}, sliceOpOf([]int64{1, 7}, []int64{1, 9}), fails(engine.InvalidSpec), ok([]int{1}, 1)},
		{"strided_slice entries past the last dimension are ignored, strides unchecked", engine.ExtraEntriesIgnored,
			[]int{3}, stridedOp(engine.StridedSliceSpec{Begin: []int64{1, 5}, End: []int64{2, 6}, Strides: []int64{1, 0}}), fails(engine.InvalidSpec), ok([]int{1}, 1)},
		{"getitem indices past the last dimension are ignored", engine.ExtraEntriesIgnored,
			[]int{3}, getItemOp(t, "x[1:2, 5]"), fails(engine.InvalidSpec), ok([]int{1}, 1)},
		{"a new_axis bit past the spec inserts an axis; the last dimension falls off, the input read as its leading dimensions", engine.MaskBitsPastSpecApplied,
			[]int{2, 3}, stridedOp(engine.StridedSliceSpec{Begin: []int64{0}, End: []int64{2}, NewAxisMask: m(2)}), ok([]int{2, 3}, 0, 1, 2, 3, 4, 5), ok([]int{2, 1}, 0, 1)},
		{"an ellipsis bit past the spec stops the mask bits after it", engine.MaskBitsPastSpecApplied,
			[]int{2, 3}, stridedOp(engine.StridedSliceSpec{Begin: []int64{0}, End: []int64{2}, EllipsisMask: m(2), NewAxisMask: m(4)}), ok([]int{2, 3}, 0, 1, 2, 3, 4, 5), ok([]int{2, 3}, 0, 1, 2, 3, 4, 5)},
		{"mask bits past the spec have no effect after an explicit ellipsis", engine.MaskBitsPastSpecApplied,
			[]int{2}, stridedOp(engine.StridedSliceSpec{Begin: []int64{0}, End: []int64{0}, EllipsisMask: m(1), NewAxisMask: m(2)}), ok([]int{2}, 0, 1), ok([]int{2}, 0, 1)},
		{"a strided_slice ellipsis covers one dimension and pushes the last entry off", engine.EllipsisCoversOneDim,
			[]int{2, 3}, stridedOp(engine.StridedSliceSpec{Begin: []int64{0, 1, 0}, End: []int64{0, 2, 1}, EllipsisMask: m(1)}), ok([]int{1, 1}, 3), ok([]int{2, 1}, 1, 4)},
		{"a getitem ellipsis covers one dimension and pushes the last index off", engine.EllipsisCoversOneDim,
			[]int{2, 3}, getItemOp(t, "x[..., 1, 2]"), ok([]int{}, 5), ok([]int{2}, 1, 4)},
		{"an implicit trailing ellipsis still covers nothing", engine.EllipsisCoversOneDim,
			[]int{2}, stridedOp(engine.StridedSliceSpec{Begin: []int64{1}, End: []int64{2}}), ok([]int{1}, 1), ok([]int{1}, 1)},
		{"a shrink index below -d is clamped to the first element", engine.ShrinkIndexClamped,
			[]int{3}, stridedOp(engine.StridedSliceSpec{Begin: []int64{-5}, End: []int64{-4}, ShrinkAxisMask: m(1)}), fails(engine.OutOfRange), ok([]int{}, 0)},
		{"a shrink index at or past d is clamped to the last element", engine.ShrinkIndexClamped,
			[]int{3}, stridedOp(engine.StridedSliceSpec{Begin: []int64{7}, End: []int64{8}, ShrinkAxisMask: m(1)}), fails(engine.OutOfRange), ok([]int{}, 2)},
		{"a getitem integer index out of bounds is clamped", engine.ShrinkIndexClamped,
			[]int{2, 2}, getItemOp(t, "x[:, -9]"), fails(engine.OutOfRange), ok([]int{2}, 0, 2)},
		{"an index into an empty dimension is accepted when the result is empty", engine.ShrinkIndexClamped,
			[]int{0, 0}, getItemOp(t, "x[0]"), fails(engine.OutOfRange), ok([]int{0})},
		{"an index into an empty dimension has no element to take for a non-empty result", engine.ShrinkIndexClamped,
			[]int{0, 2}, getItemOp(t, "x[0]"), fails(engine.OutOfRange), fails(engine.OutOfRange)},
	}
	for _, tt := range tests {
		x := arange(tt.shape...)
		got, err := tt.op(x, engine.Rules{})
		checkResult(t, tt.rule+" (reference)", got, err, tt.reference)
		got, err = tt.op(x, engine.Rules{}.With(tt.variant))
		checkResult(t, tt.rule+" (under "+tt.variant.String()+")", got, err, tt.under)
	}
}
