package engine_test

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/conformsuite/conform/engine"
)

func TestOutputLimit(t *testing.T) {
	defer engine.SetOutputLimit(engine.SetOutputLimit(64))
	x := arange(4, 4) // 16 int64 elements: 128 bytes
	tests := []struct {
		rule string
		run  func() (*engine.Tensor, error)
		want result
	}{
		{"a result within the limit is produced", func() (*engine.Tensor, error) { return engine.Slice(x, []int64{0, 0}, []int64{2, 4}) }, ok([]int{2, 4}, 0, 1, 2, 3, 4, 5, 6, 7)},
		{"a slice over the limit is refused before allocating", func() (*engine.Tensor, error) { return engine.Slice(x, []int64{0, 0}, []int64{-1, -1}) }, fails(engine.InvalidSpec)},
		{"getitem over the limit is refused", func() (*engine.Tensor, error) { return engine.GetItem(x, nil) }, fails(engine.InvalidSpec)},
		{"strided_slice over the limit is refused", func() (*engine.Tensor, error) {
			return engine.StridedSlice(x, engine.StridedSliceSpec{Begin: []int64{}, End: []int64{}})
		}, fails(engine.InvalidSpec)},
	}
	for _, tt := range tests {
		got, err := tt.run()
		checkResult(t, tt.rule, got, err, tt.want)
	}
}

// TestHugeEmptyGathers checks that index tensors of billions of empty rows
// cost nothing: the result is empty and there is nothing to check.
func TestHugeEmptyGathers(t *testing.T) {
	data, _ := engine.Zeros(engine.Int64Type, []int{2, 0})
	indices, _ := engine.FromBytes(engine.Int64Type, []int{1 << 34, 0}, nil)
	got, err := engine.ONNXGatherND(data, indices, 0)
	checkResult(t, "ONNX GatherND of 2^34 empty rows is an empty result", got, err, ok([]int{1 << 34, 2, 0}))
	got, err = engine.GatherND(data, indices, 0, engine.BadIndexError)
	checkResult(t, "tf.gather_nd of 2^34 rows from empty params is out of range (TF)", got, err, fails(engine.OutOfRange))
}

func TestGatherNDOutputLimit(t *testing.T) {
	defer engine.SetOutputLimit(engine.SetOutputLimit(64))
	params := arange(4, 4)
	indices, _ := engine.FromBytes(engine.Int64Type, []int{2, 0}, nil)
	got, err := engine.GatherND(params, indices, 0, engine.BadIndexError)
	checkResult(t, "gather_nd whose result (2 x 128 bytes) exceeds the limit is refused", got, err, fails(engine.InvalidSpec))
	got, err = engine.ONNXGatherND(params, indices, 0)
	checkResult(t, "ONNX GatherND whose result exceeds the limit is refused", got, err, fails(engine.InvalidSpec))
}

// TestShapeFits checks NumPy's rule for the size of an array, each row as
// NumPy 1.24 decides it (np.empty(shape, dtype)).
func TestShapeFits(t *testing.T) {
	tests := []struct {
		rule     string
		shape    []int
		itemSize int
		want     bool
	}{
		{"2^20 x 2^20 x 2^20 x 0 float64 is too big although empty", []int{1 << 20, 1 << 20, 1 << 20, 0}, 8, false},
		{"the same shape of uint8 fits: 2^60 bytes", []int{1 << 20, 1 << 20, 1 << 20, 0}, 1, true},
		{"a zero dimension first does not hide the others", []int{0, 1 << 62, 2}, 1, false},
		{"2^59 x 0 float64 fits: 2^62 bytes", []int{1 << 59, 0}, 8, true},
		{"2^60 x 0 float64 is too big: 2^63 bytes", []int{1 << 60, 0}, 8, false},
		{"2^30 x 2^30 x 7 x 0 uint8 fits: below 2^63", []int{1 << 30, 1 << 30, 7, 0}, 1, true},
		{"2^30 x 2^30 x 8 x 0 uint8 is too big: 2^63", []int{1 << 30, 1 << 30, 8, 0}, 1, false},
		{"the largest int of uint8 by 0 fits", []int{math.MaxInt, 0}, 1, true},
		{"a 0-d array fits", nil, 16, true},
		{"a negative dimension never fits", []int{-1}, 1, false},
	}
	for _, tt := range tests {
		if got := engine.ShapeFits(tt.shape, tt.itemSize); got != tt.want {
			t.Errorf("%s: ShapeFits(%v, %d) = %v, want %v", tt.rule, tt.shape, tt.itemSize, got, tt.want)
		}
	}
}

// TestTooBigResults checks that every op refuses a result shape NumPy
// cannot create (invalid_spec) also when the result is empty, before
// looking at any index value.
func TestTooBigResults(t *testing.T) {
	// broadcast returns an int64 index array of the given shape whose
	// elements all share one value (zero strides), as np.broadcast_to.
	broadcast := func(v int64, shape ...int) *engine.Tensor {
		data := make([]byte, 8)
		binary.LittleEndian.PutUint64(data, uint64(v))
		return &engine.Tensor{DType: engine.Int64Type, Shape: shape, Strides: make([]int, len(shape)), Data: data}
	}
	arr := func(a *engine.Tensor) engine.IndexItem { return engine.IndexItem{Kind: engine.IndexArray, Array: a} }
	f64, _ := engine.Zeros(engine.Float64Type, []int{2, 2, 2, 2})
	u8, _ := engine.Zeros(engine.Uint8Type, []int{2, 2, 2, 2})
	wide, _ := engine.Zeros(engine.Float64Type, []int{4, 1 << 20})
	const m = 1 << 20
	pile := func(v int64) []engine.IndexItem {
		return []engine.IndexItem{arr(broadcast(0, m, 1, 1, 1)), arr(broadcast(0, 1, m, 1, 1)), arr(broadcast(0, 1, 1, m, 1)), arr(broadcast(v, 1, 1, 1, 0))}
	}
	tests := []struct {
		rule string
		run  func() (*engine.Tensor, error)
		want result
	}{
		{"x[i, j, k, l] broadcast to 2^20 x 2^20 x 2^20 x 0 over float64 is too big", func() (*engine.Tensor, error) { return engine.GetItem(f64, pile(0)) }, fails(engine.InvalidSpec)},
		{"the same with an index out of bounds: no index of an empty result is checked", func() (*engine.Tensor, error) { return engine.GetItem(f64, pile(5)) }, fails(engine.InvalidSpec)},
		{"the same over uint8 is an empty result (2^60 bytes)", func() (*engine.Tensor, error) { return engine.GetItem(u8, pile(0)) }, ok([]int{m, m, m, 0})},
		{"np.take to 2^20 x 2^20 x 0 x 2^20 float64 is too big", func() (*engine.Tensor, error) {
			return engine.Take(wide, broadcast(0, m, m, 0), engine.TakeSpec{Axis: 0})
		}, fails(engine.InvalidSpec)},
		{"tf.gather to the same shape is too big", func() (*engine.Tensor, error) {
			return engine.Gather(wide, broadcast(0, m, m, 0), engine.GatherSpec{})
		}, fails(engine.InvalidSpec)},
	}
	for _, tt := range tests {
		got, err := tt.run()
		checkResult(t, tt.rule, got, err, tt.want)
	}
}
