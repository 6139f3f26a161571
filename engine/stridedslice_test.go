package engine_test

import (
	"testing"

	"github.com/conformsuite/conform/engine"
)

func TestStridedSlice(t *testing.T) {
	m := engine.MaskFromInt
	tests := []struct {
		rule  string
		shape []int
		spec  engine.StridedSliceSpec
		want  result
	}{
		{"a plain range selects begin up to end", []int{6}, engine.StridedSliceSpec{Begin: []int64{1}, End: []int64{4}}, ok([]int{3}, 1, 2, 3)},
		{"negative begin and end count from the end", []int{6}, engine.StridedSliceSpec{Begin: []int64{-3}, End: []int64{-1}}, ok([]int{2}, 3, 4)},
		{"the TF doc's foo[-2::-1] on [1,2,3,4] is [3,2,1], not [4,3]", []int{4}, engine.StridedSliceSpec{Begin: []int64{-2}, End: []int64{0}, Strides: []int64{-1}, EndMask: m(1)}, ok([]int{3}, 2, 1, 0)},
		{"begin_mask with a negative stride starts at the last element", []int{4}, engine.StridedSliceSpec{Begin: []int64{0}, End: []int64{1}, Strides: []int64{-1}, BeginMask: m(1)}, ok([]int{2}, 3, 2)},
		{"end_mask with a negative stride runs past position 0 (the -1 sentinel)", []int{4}, engine.StridedSliceSpec{Begin: []int64{2}, End: []int64{0}, Strides: []int64{-1}, EndMask: m(1)}, ok([]int{3}, 2, 1, 0)},
		{"an explicit end of -1 with a negative stride is Python's -1, the last element", []int{4}, engine.StridedSliceSpec{Begin: []int64{3}, End: []int64{-1}, Strides: []int64{-1}}, ok([]int{0})},
		{"out-of-range bounds clamp", []int{4}, engine.StridedSliceSpec{Begin: []int64{-100}, End: []int64{100}}, ok([]int{4}, 0, 1, 2, 3)},
		{"a negative-stride begin below -d clamps to -1 and gives an empty result", []int{5}, engine.StridedSliceSpec{Begin: []int64{-6}, End: []int64{0}, Strides: []int64{-1}, EndMask: m(1)}, ok([]int{0})},
		{"step 2 rounds the count up", []int{5}, engine.StridedSliceSpec{Begin: []int64{0}, End: []int64{5}, Strides: []int64{2}}, ok([]int{3}, 0, 2, 4)},
		{"a spec shorter than the rank has an implicit trailing ellipsis", []int{2, 3}, engine.StridedSliceSpec{Begin: []int64{1}, End: []int64{2}}, ok([]int{1, 3}, 3, 4, 5)},
		{"an empty spec is the identity", []int{2}, engine.StridedSliceSpec{Begin: []int64{}, End: []int64{}}, ok([]int{2}, 0, 1)},
		{"shrink takes begin and drops the axis", []int{2, 3}, engine.StridedSliceSpec{Begin: []int64{0, 1}, End: []int64{0, 2}, ShrinkAxisMask: m(2)}, ok([]int{0})},
		{"shrink with a negative begin adds d once (x[-1] arrives as begin -1, end 0)", []int{3}, engine.StridedSliceSpec{Begin: []int64{-1}, End: []int64{0}, ShrinkAxisMask: m(1)}, ok([]int{}, 2)},
		{"shrink ignores end and the begin/end masks", []int{3}, engine.StridedSliceSpec{Begin: []int64{1}, End: []int64{-7}, BeginMask: m(1), EndMask: m(1), ShrinkAxisMask: m(1)}, ok([]int{}, 1)},
		{"shrink accepts stride 2", []int{3}, engine.StridedSliceSpec{Begin: []int64{2}, End: []int64{3}, Strides: []int64{2}, ShrinkAxisMask: m(1)}, ok([]int{}, 2)},
		{"shrink with a negative stride is invalid", []int{3}, engine.StridedSliceSpec{Begin: []int64{1}, End: []int64{2}, Strides: []int64{-1}, ShrinkAxisMask: m(1)}, fails(engine.InvalidSpec)},
		{"shrink outside [-d, d) is out of range", []int{3}, engine.StridedSliceSpec{Begin: []int64{3}, End: []int64{4}, ShrinkAxisMask: m(1)}, fails(engine.OutOfRange)},
		{"shrink below -d is out of range", []int{3}, engine.StridedSliceSpec{Begin: []int64{-4}, End: []int64{-3}, ShrinkAxisMask: m(1)}, fails(engine.OutOfRange)},
		{"zero stride is invalid", []int{3}, engine.StridedSliceSpec{Begin: []int64{0}, End: []int64{1}, Strides: []int64{0}}, fails(engine.InvalidSpec)},
		{"zero stride is checked before the shrink stride", []int{3}, engine.StridedSliceSpec{Begin: []int64{9}, End: []int64{1}, Strides: []int64{0}, ShrinkAxisMask: m(1)}, fails(engine.InvalidSpec)},
		{"per-dimension checks run in order: dim 0 out of range first", []int{2, 2}, engine.StridedSliceSpec{Begin: []int64{5, 0}, End: []int64{6, 1}, Strides: []int64{1, 0}, ShrinkAxisMask: m(1)}, fails(engine.OutOfRange)},
		{"per-dimension checks run in order: dim 0 zero stride first", []int{2, 2}, engine.StridedSliceSpec{Begin: []int64{0, 5}, End: []int64{1, 6}, Strides: []int64{0, 1}, ShrinkAxisMask: m(2)}, fails(engine.InvalidSpec)},
		{"new_axis inserts a size-1 axis and reads no begin/end/stride", []int{2}, engine.StridedSliceSpec{Begin: []int64{9, 0}, End: []int64{9, 2}, Strides: []int64{0, 1}, NewAxisMask: m(1)}, ok([]int{1, 2}, 0, 1)},
		{"ellipsis wins over shrink on one position", []int{2}, engine.StridedSliceSpec{Begin: []int64{1}, End: []int64{2}, EllipsisMask: m(1), ShrinkAxisMask: m(1)}, ok([]int{2}, 0, 1)},
		{"ellipsis wins over new_axis on one position", []int{2}, engine.StridedSliceSpec{Begin: []int64{0}, End: []int64{0}, EllipsisMask: m(1), NewAxisMask: m(1)}, ok([]int{2}, 0, 1)},
		{"new_axis wins over shrink on one position", []int{2}, engine.StridedSliceSpec{Begin: []int64{7}, End: []int64{8}, NewAxisMask: m(1), ShrinkAxisMask: m(1)}, ok([]int{1, 2}, 0, 1)},
		{"the ellipsis stride is never read", []int{2}, engine.StridedSliceSpec{Begin: []int64{0}, End: []int64{0}, Strides: []int64{0}, EllipsisMask: m(1)}, ok([]int{2}, 0, 1)},
		{"an ellipsis may cover zero dims", []int{2, 3}, engine.StridedSliceSpec{Begin: []int64{1, 0, 2}, End: []int64{2, 0, 3}, EllipsisMask: m(2)}, ok([]int{1, 1}, 5)},
		{"new axes after the ellipsis do not consume input dims", []int{2, 3}, engine.StridedSliceSpec{Begin: []int64{0, 0, 1}, End: []int64{0, 0, 2}, EllipsisMask: m(1), NewAxisMask: m(2)}, ok([]int{2, 1, 1}, 1, 4)},
		{"mask bits beyond the spec length are ignored", []int{3}, engine.StridedSliceSpec{Begin: []int64{1}, End: []int64{2}, ShrinkAxisMask: m(2), NewAxisMask: m(4), BeginMask: m(8)}, ok([]int{1}, 1)},
		{"a single ellipsis bit beyond the spec length is ignored", []int{3}, engine.StridedSliceSpec{Begin: []int64{1}, End: []int64{2}, EllipsisMask: m(4)}, ok([]int{1}, 1)},
		{"an ellipsis_mask of -2^31 is TF's int32 bit 31 alone: one ellipsis, past the spec, ignored", []int{3}, engine.StridedSliceSpec{Begin: []int64{1}, End: []int64{2}, EllipsisMask: m(-1 << 31)}, ok([]int{1}, 1)},
		{"two ellipsis bits are invalid even beyond the spec length", []int{3}, engine.StridedSliceSpec{Begin: []int64{1}, End: []int64{2}, EllipsisMask: m(1 | 4)}, fails(engine.InvalidSpec)},
		{"more consuming entries than dims is invalid", []int{3}, engine.StridedSliceSpec{Begin: []int64{0, 0}, End: []int64{1, 1}}, fails(engine.InvalidSpec)},
		{"begin, end and strides of different lengths are invalid", []int{3}, engine.StridedSliceSpec{Begin: []int64{0}, End: []int64{1, 2}}, fails(engine.InvalidSpec)},
		{"31 entries are allowed", []int{}, engine.StridedSliceSpec{Begin: make([]int64, 31), End: make([]int64, 31), NewAxisMask: m(1<<31 - 1)}, ok(make1s(31), 0)},
		{"32 entries are invalid (TF needs n < 32)", []int{}, engine.StridedSliceSpec{Begin: make([]int64, 32), End: make([]int64, 32), NewAxisMask: m(1<<32 - 1)}, fails(engine.InvalidSpec)},
		{"a rank-0 input with an empty spec is the identity", []int{}, engine.StridedSliceSpec{Begin: []int64{}, End: []int64{}}, ok([]int{}, 0)},
		{"a zero-size dim gives an empty output", []int{0, 2}, engine.StridedSliceSpec{Begin: []int64{0}, End: []int64{5}}, ok([]int{0, 2})},
		{"extreme int64 bounds clamp without overflow", []int{3}, engine.StridedSliceSpec{Begin: []int64{-1 << 63}, End: []int64{1<<63 - 1}, Strides: []int64{1<<63 - 1}}, ok([]int{1}, 0)},
		{"the most negative stride selects one element", []int{3}, engine.StridedSliceSpec{Begin: []int64{1<<63 - 1}, End: []int64{-1 << 63}, Strides: []int64{-1 << 63}}, ok([]int{1}, 2)},
	}
	for _, tt := range tests {
		x := arange(tt.shape...)
		got, err := engine.StridedSlice(x, tt.spec)
		checkResult(t, tt.rule, got, err, tt.want)
	}
}

func make1s(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

// TestMaskFromInt checks how an integer mask reads as mask bits: within
// int32 as TF's int32 attribute, beyond it as the 64-bit pattern.
func TestMaskFromInt(t *testing.T) {
	tests := []struct {
		rule string
		v    int64
		want uint64
	}{
		{"bit i of the integer is bit i", 6, 6},
		{"a value in the int32 range is TF's int32 mask: -2^31 is bit 31 alone", -1 << 31, 1 << 31},
		{"a negative value in the int32 range sets bits up to 31 only", -2, 1<<32 - 2},
		{"a value beyond int32 keeps its 64-bit pattern", 1 << 40, 1 << 40},
		{"2^31, beyond int32, is bit 31 too (Int spells it -2^31, as TF takes it)", 1 << 31, 1 << 31},
		{"a negative value beyond int32 keeps its 64-bit two's complement", -1<<31 - 1, 1<<64 - 1<<31 - 1},
	}
	for _, tt := range tests {
		got := engine.MaskFromInt(tt.v)
		if got != (engine.Mask{Bits: tt.want}) {
			t.Errorf("%s: MaskFromInt(%d) = %+v, want bits %#x", tt.rule, tt.v, got, tt.want)
		}
		if back := got.Int(); engine.MaskFromInt(back) != got || (tt.v >= -1<<31 && tt.v < 1<<31 && back != tt.v) {
			t.Errorf("%s: MaskFromInt(%d).Int() = %d, which does not read back as the same mask (or is not TF's int32 spelling)", tt.rule, tt.v, back)
		}
	}
}

func TestMaskFromList(t *testing.T) {
	tests := []struct {
		rule string
		list []int64
		want engine.Mask
		err  bool
	}{
		{"entry i of the list is bit i", []int64{0, 1, 1}, engine.Mask{Bits: 6}, false},
		{"an empty list is no bits", nil, engine.Mask{}, false},
		{"entries beyond 63 are counted apart", append(make([]int64, 64), 1), engine.Mask{Extra: 1}, false},
		{"entries other than 0 and 1 are invalid", []int64{0, 2}, engine.Mask{}, true},
	}
	for _, tt := range tests {
		got, err := engine.MaskFromList(tt.list)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("%s: MaskFromList(%v) = %+v, %v; want %+v, error %v", tt.rule, tt.list, got, err, tt.want, tt.err)
		}
	}
}
