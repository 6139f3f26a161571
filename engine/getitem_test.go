package engine_test

import (
	"testing"

	"github.com/conformsuite/conform/engine"
)

func idx(k int64) engine.IndexItem { return engine.IndexItem{Kind: engine.IndexInt, Index: k} }

var (
	newAxis  = engine.IndexItem{Kind: engine.IndexNewAxis}
	ellipsis = engine.IndexItem{Kind: engine.IndexEllipsis}
	all      = engine.IndexItem{Kind: engine.IndexSlice}
)

// sl builds a slice item; nil parts are omitted.
func sl(start, stop, step *int64) engine.IndexItem {
	it := engine.IndexItem{Kind: engine.IndexSlice}
	if start != nil {
		it.Start, it.HasStart = *start, true
	}
	if stop != nil {
		it.Stop, it.HasStop = *stop, true
	}
	if step != nil {
		it.Step, it.HasStep = *step, true
	}
	return it
}

func p(v int64) *int64 { return &v }

func TestGetItem(t *testing.T) {
	tests := []struct {
		rule  string
		shape []int
		items []engine.IndexItem
		want  result
	}{
		{"an integer drops the axis", []int{2, 3}, []engine.IndexItem{idx(1)}, ok([]int{3}, 3, 4, 5)},
		{"a negative integer counts from the end", []int{3}, []engine.IndexItem{idx(-1)}, ok([]int{}, 2)},
		{"an integer out of [-d, d) is out of range", []int{3}, []engine.IndexItem{idx(3)}, fails(engine.OutOfRange)},
		{"an integer below -d is out of range", []int{3}, []engine.IndexItem{idx(-4)}, fails(engine.OutOfRange)},
		{"x[::-1] reverses", []int{3}, []engine.IndexItem{sl(nil, nil, p(-1))}, ok([]int{3}, 2, 1, 0)},
		{"x[-2::-1] on [1,2,3,4] is [3,2,1]", []int{4}, []engine.IndexItem{sl(p(-2), nil, p(-1))}, ok([]int{3}, 2, 1, 0)},
		{"x[-6::-1] on a length-5 axis is empty", []int{5}, []engine.IndexItem{sl(p(-6), nil, p(-1))}, ok([]int{0})},
		{"slice bounds clamp", []int{3}, []engine.IndexItem{sl(p(-100), p(100), nil)}, ok([]int{3}, 0, 1, 2)},
		{"a zero step is invalid", []int{3}, []engine.IndexItem{sl(nil, nil, p(0))}, fails(engine.InvalidSpec)},
		{"None inserts an axis", []int{2}, []engine.IndexItem{newAxis}, ok([]int{1, 2}, 0, 1)},
		{"an ellipsis fills the middle", []int{2, 3, 2}, []engine.IndexItem{idx(1), ellipsis, idx(0)}, ok([]int{3}, 6, 8, 10)},
		{"an ellipsis may cover zero dims", []int{2}, []engine.IndexItem{ellipsis, idx(1)}, ok([]int{}, 1)},
		{"x[...] on a 0-d array is the 0-d array", []int{}, []engine.IndexItem{ellipsis}, ok([]int{}, 0)},
		{"x[()] is the identity", []int{2}, nil, ok([]int{2}, 0, 1)},
		{"two ellipses are invalid", []int{2}, []engine.IndexItem{ellipsis, ellipsis}, fails(engine.InvalidSpec)},
		{"more integers and slices than dims is invalid", []int{2}, []engine.IndexItem{idx(0), all}, fails(engine.InvalidSpec)},
		{"too many indices is checked before bounds", []int{2}, []engine.IndexItem{idx(5), all}, fails(engine.InvalidSpec)},
		{"a 33-dim result is invalid", []int{}, repeat(newAxis, 33), fails(engine.InvalidSpec)},
		{"a 32-dim result is allowed", []int{}, repeat(newAxis, 32), ok(make1s(32), 0)},
		{"the result-rank check comes before bounds", []int{2}, append([]engine.IndexItem{idx(5)}, repeat(newAxis, 33)...), fails(engine.InvalidSpec)},
		{"items are checked in order: bounds first", []int{3, 3}, []engine.IndexItem{idx(5), sl(nil, nil, p(0))}, fails(engine.OutOfRange)},
		{"items are checked in order: zero step first", []int{3, 3}, []engine.IndexItem{sl(nil, nil, p(0)), idx(5)}, fails(engine.InvalidSpec)},
		{"extreme steps select one element", []int{3}, []engine.IndexItem{sl(nil, nil, p(-(1<<63 - 1)))}, ok([]int{1}, 2)},
	}
	for _, tt := range tests {
		got, err := engine.GetItem(arange(tt.shape...), tt.items)
		checkResult(t, tt.rule, got, err, tt.want)
	}
}

func repeat(it engine.IndexItem, n int) []engine.IndexItem {
	items := make([]engine.IndexItem, n)
	for i := range items {
		items[i] = it
	}
	return items
}
