package engine_test

import (
	"encoding/binary"
	"fmt"
	"math"
	"testing"

	"github.com/conformsuite/conform/engine"
)

// TestOutputLimit checks that every op refuses a result over the output
// limit of its Rules, and that runs with different limits can go on at
// the same time (each subtest is parallel, with its own limit).
func TestOutputLimit(t *testing.T) {
	x := arange(4, 4) // 16 int64 elements: 128 bytes
	ops := []struct {
		name string
		run  func(r engine.Rules) (*engine.Tensor, error) // a 128-byte result
	}{
		{"slice", func(r engine.Rules) (*engine.Tensor, error) {
			return engine.SliceUnder(x, []int64{0, 0}, []int64{-1, -1}, r)
		}},
		{"getitem", func(r engine.Rules) (*engine.Tensor, error) { return engine.GetItemUnder(x, nil, r) }},
		{"strided_slice", func(r engine.Rules) (*engine.Tensor, error) {
			return engine.StridedSliceUnder(x, engine.StridedSliceSpec{Begin: []int64{}, End: []int64{}}, r)
		}},
		{"gather_nd", func(r engine.Rules) (*engine.Tensor, error) {
			indices, _ := engine.FromBytes(engine.Int64Type, []int{1, 0}, nil)
			return engine.GatherNDUnder(x, indices, 0, engine.BadIndexError, r)
		}},
		{"onnx_gather_nd", func(r engine.Rules) (*engine.Tensor, error) {
			indices, _ := engine.FromBytes(engine.Int64Type, []int{1, 0}, nil)
			return engine.ONNXGatherNDUnder(x, indices, 0, r)
		}},
	}
	limits := []struct {
		rule  string
		limit int64
		want  result
	}{
		{"a result one byte over the limit is refused before allocating", 127, fails(engine.InvalidSpec)},
		{"a result exactly at the limit is produced", 128, ok([]int{4, 4}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)},
		{"a tiny limit refuses the result", 8, fails(engine.InvalidSpec)},
		{"a limit of 0 is the default limit", 0, ok([]int{4, 4}, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)},
	}
	for _, op := range ops {
		for _, l := range limits {
			t.Run(fmt.Sprintf("%s/%d", op.name, l.limit), func(t *testing.T) {
				t.Parallel()
				r := engine.Rules{OutputLimit: l.limit}
				for range 50 { // interleave with the other limits' runs
					got, err := op.run(r)
					if op.name == "gather_nd" || op.name == "onnx_gather_nd" {
						if err == nil {
							got = squeeze0(got)
						}
					}
					checkResult(t, l.rule, got, err, l.want)
				}
			})
		}
	}
}

// squeeze0 drops the leading dimension of size 1 of a gather_nd result
// (one index row of no entries gathers all of params).
func squeeze0(t *engine.Tensor) *engine.Tensor {
	s := *t
	s.Shape, s.Strides = t.Shape[1:], t.Strides[1:]
	return &s
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
