package engine_test

import (
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
