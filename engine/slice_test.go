package engine_test

import (
	"testing"

	"github.com/conformsuite/conform/engine"
)

func TestSlice(t *testing.T) {
	tests := []struct {
		rule        string
		shape       []int
		begin, size []int64
		want        result
	}{
		{"begin and size select a block", []int{2, 3}, []int64{1, 1}, []int64{1, 2}, ok([]int{1, 2}, 4, 5)},
		{"size -1 runs to the end", []int{2, 3}, []int64{0, 1}, []int64{-1, -1}, ok([]int{2, 2}, 1, 2, 4, 5)},
		{"begin == d with size 0 is allowed", []int{3}, []int64{3}, []int64{0}, ok([]int{0})},
		{"begin == d with size -1 gives size 0", []int{3}, []int64{3}, []int64{-1}, ok([]int{0})},
		{"size -2 is out of range (only -1 is special)", []int{3}, []int64{0}, []int64{-2}, fails(engine.OutOfRange)},
		{"a negative begin is out of range (no wrap)", []int{3}, []int64{-1}, []int64{1}, fails(engine.OutOfRange)},
		{"begin beyond d is out of range", []int{3}, []int64{4}, []int64{0}, fails(engine.OutOfRange)},
		{"begin + size beyond d is out of range (no clamping)", []int{3}, []int64{2}, []int64{2}, fails(engine.OutOfRange)},
		{"a huge size does not overflow begin + size", []int{3}, []int64{2}, []int64{1<<63 - 1}, fails(engine.OutOfRange)},
		{"a zero dim needs begin 0 and size 0", []int{0}, []int64{0}, []int64{0}, ok([]int{0})},
		{"a zero dim accepts size -1", []int{0}, []int64{0}, []int64{-1}, ok([]int{0})},
		{"a zero dim rejects begin 1", []int{0}, []int64{1}, []int64{0}, fails(engine.OutOfRange)},
		{"a zero dim rejects size 1", []int{0, 2}, []int64{0, 0}, []int64{1, 1}, fails(engine.OutOfRange)},
		{"begin shorter than the rank is invalid", []int{2, 3}, []int64{0}, []int64{1, 1}, fails(engine.InvalidSpec)},
		{"size longer than the rank is invalid", []int{2}, []int64{0}, []int64{1, 1}, fails(engine.InvalidSpec)},
		{"a rank-0 input with empty begin and size is the identity", []int{}, []int64{}, []int64{}, ok([]int{}, 0)},
		{"checks run per dimension in order", []int{2, 2}, []int64{3, 0}, []int64{1, 1}, fails(engine.OutOfRange)},
	}
	for _, tt := range tests {
		got, err := engine.Slice(arange(tt.shape...), tt.begin, tt.size)
		checkResult(t, tt.rule, got, err, tt.want)
	}
}
