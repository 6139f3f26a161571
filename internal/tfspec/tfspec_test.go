package tfspec

import (
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

func input(t *testing.T, dt engine.DType, shape []int) *engine.Tensor {
	t.Helper()
	x, err := engine.FromBytes(dt, shape, make([]byte, engine.NumElements(shape)*dt.Size))
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestStrided checks the strided_slice and getitem features TFLite's
// STRIDED_SLICE reads otherwise than TF, one row per feature.
func TestStrided(t *testing.T) {
	long := make([]int64, engine.MaxSpecLength+1)
	for _, tt := range []struct {
		why                                string
		fields                             map[string]any
		zeroStride, stridesLonger, tooLong bool
	}{
		{"a zero step of a getitem slice is a zero stride", map[string]any{"op": "getitem", "index": "x[::0]"}, true, false, false},
		{"a zero stride on a new axis is none", map[string]any{"op": "strided_slice", "begin": []int64{0}, "end": []int64{1}, "strides": []int64{0}, "new_axis_mask": 1}, false, false, false},
		{"more strides than begin entries", map[string]any{"op": "strided_slice", "begin": []int64{0}, "end": []int64{1}, "strides": []int64{1, 1}}, false, true, false},
		{"a getitem spec has as many strides as entries", map[string]any{"op": "getitem", "index": "x[0, 1:]"}, false, false, false},
		{"32 entries are too many", map[string]any{"op": "strided_slice", "begin": long, "end": long}, false, false, true},
	} {
		m := casefile.New(tt.fields, map[string]*engine.Tensor{"x": input(t, engine.Int32Type, []int{2, 3})})
		s, ok := ReadStrided(m)
		if !ok {
			t.Fatalf("%s: not read", tt.why)
		}
		if s.ZeroStride() != tt.zeroStride || s.StridesLonger() != tt.stridesLonger || s.TooLong() != tt.tooLong {
			t.Errorf("%s: zero stride %v, strides longer %v, too long %v; want %v, %v, %v", tt.why,
				s.ZeroStride(), s.StridesLonger(), s.TooLong(), tt.zeroStride, tt.stridesLonger, tt.tooLong)
		}
	}
}

// TestSlice checks the slice features of TFLite's SLICE arithmetic, one
// row per feature.
func TestSlice(t *testing.T) {
	for _, tt := range []struct {
		why                   string
		begin, size           []int64
		overflow, negativeDim bool
	}{
		{"begin + size past int32 overflows", []int64{1 << 30, 0}, []int64{1 << 30, 1}, true, false},
		{"begin + size within int32 does not", []int64{1, 0}, []int64{1, 1}, false, false},
		{"size -1 with begin past the dimension gives a negative dimension", []int64{3, 0}, []int64{-1, 1}, false, true},
		{"size -1 with begin at the dimension's end gives 0", []int64{2, 0}, []int64{-1, 1}, false, false},
	} {
		m := casefile.New(map[string]any{"op": "slice", "begin": tt.begin, "size": tt.size}, map[string]*engine.Tensor{"x": input(t, engine.Int32Type, []int{2, 3})})
		s, ok := ReadSlice(m)
		if !ok {
			t.Fatalf("%s: not read", tt.why)
		}
		if s.BeginSizeOverflow() != tt.overflow || s.NegativeDim() != tt.negativeDim {
			t.Errorf("%s: overflow %v, negative dim %v; want %v, %v", tt.why, s.BeginSizeOverflow(), s.NegativeDim(), tt.overflow, tt.negativeDim)
		}
	}
}
