package engine_test

import (
	"slices"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/expr"
)

// traceOf evaluates a getitem subscript over x with a trace and returns
// the trace. An evaluation may end in an error of the reference (an
// out-of-bounds index): the trace holds what it exercised until then.
func traceOf(t *testing.T, src string, x *engine.Tensor, inputs map[string]*engine.Tensor) *engine.Trace {
	t.Helper()
	tr := &engine.Trace{}
	if err := getItemSrc(src, x, inputs, engine.Rules{Trace: tr}); err != nil && engine.RuleOf(err) == "" {
		t.Fatalf("%s: %v", src, err)
	}
	return tr
}

// TestTraceGetItem checks the rules a getitem evaluation's trace holds,
// and some it must not hold, one row per rule.
func TestTraceGetItem(t *testing.T) {
	u8 := zeros(engine.Uint8Type, 2)
	for _, tc := range []struct {
		why    string
		src    string
		shape  []int
		inputs map[string]*engine.Tensor
		want   []engine.RuleID
		not    []engine.RuleID
	}{
		{"a negative step walks backwards", "x[::-1]", []int{3}, nil,
			[]engine.RuleID{engine.RuleGetItemNegativeStep, engine.RuleGetItemNegativeStepNoStart, engine.RuleGetItemNegativeStepNoStop}, []engine.RuleID{engine.RuleGetItemStepOver1}},
		{"a positive step does not", "x[::1]", []int{3}, nil, nil, []engine.RuleID{engine.RuleGetItemNegativeStep}},
		{"a bound past the dimension is clamped", "x[:10]", []int{3}, nil, []engine.RuleID{engine.RuleGetItemBoundClamped}, []engine.RuleID{engine.RuleGetItemEmptyRange}},
		{"a negative bound counts from the end", "x[-2:]", []int{3}, nil, []engine.RuleID{engine.RuleGetItemNegativeBound}, []engine.RuleID{engine.RuleGetItemBoundClamped}},
		{"an empty axis", "x[2:1]", []int{3}, nil, []engine.RuleID{engine.RuleGetItemEmptyRange}, nil},
		{"a start below -d with a negative step is clamped before the first position", "x[-4::-1]", []int{3}, nil,
			[]engine.RuleID{engine.RuleGetItemStartBelowRange, engine.RuleGetItemEmptyRange}, nil},
		{"a start of -d is not below", "x[-3::-1]", []int{3}, nil, nil, []engine.RuleID{engine.RuleGetItemStartBelowRange}},
		{"an ellipsis covering no dimension", "x[0, ...]", []int{3}, nil,
			[]engine.RuleID{engine.RuleGetItemEllipsis, engine.RuleGetItemEllipsisNoDims, engine.RuleGetItemIntegerIndex}, []engine.RuleID{engine.RuleGetItemImplicitEllipsis, engine.RuleGetItemScalarResult}},
		{"an implicit ellipsis", "x[0]", []int{3, 2}, nil, []engine.RuleID{engine.RuleGetItemImplicitEllipsis}, []engine.RuleID{engine.RuleGetItemEllipsis}},
		{"an integer per dimension gives a scalar", "x[-1, 0]", []int{3, 2}, nil,
			[]engine.RuleID{engine.RuleGetItemScalarResult, engine.RuleGetItemNegativeIndex}, nil},
		{"a new axis", "x[None]", []int{3}, nil, []engine.RuleID{engine.RuleGetItemNewAxis}, nil},
		{"a 0-d index array alone is an integer", "x[i]", []int{3}, map[string]*engine.Tensor{"i": zeros(engine.Int64Type)},
			[]engine.RuleID{engine.RuleGetItem0DIntArray}, []engine.RuleID{engine.RuleGetItemIntArray}},
		{"a uint8 index array is unsigned and narrower than intp", "x[i]", []int{3}, map[string]*engine.Tensor{"i": u8},
			[]engine.RuleID{engine.RuleGetItemIntArray, engine.RuleGetItemUnsignedArray, engine.RuleGetItemNarrowArray}, nil},
		{"an int32 index array is narrower than intp", "x[i]", []int{3}, map[string]*engine.Tensor{"i": zeros(engine.Int32Type, 2)},
			[]engine.RuleID{engine.RuleGetItemNarrowArray}, []engine.RuleID{engine.RuleGetItemUnsignedArray}},
		{"an int64 index array is not", "x[i]", []int{3}, map[string]*engine.Tensor{"i": zeros(engine.Int64Type, 2)},
			nil, []engine.RuleID{engine.RuleGetItemNarrowArray}},
		{"index arrays broadcast", "x[[[0], [1]], [0, 1]]", []int{3, 2}, nil,
			[]engine.RuleID{engine.RuleGetItemBroadcast}, nil},
		{"separated advanced indices go first", "x[[0], :, [1]]", []int{3, 2, 2}, nil,
			[]engine.RuleID{engine.RuleGetItemSeparatedFirst}, []engine.RuleID{engine.RuleGetItemAdjacentInPlace}},
		{"adjacent advanced indices stay in place", "x[:, [0], [1]]", []int{3, 2, 2}, nil,
			[]engine.RuleID{engine.RuleGetItemAdjacentInPlace}, []engine.RuleID{engine.RuleGetItemSeparatedFirst, engine.RuleGetItemBroadcast}},
		{"an integer among arrays", "x[[0], 1]", []int{3, 2}, nil,
			[]engine.RuleID{engine.RuleGetItemIntAmongArrays}, nil},
		{"a Python bool is a 0-d boolean", "x[True]", []int{3}, nil,
			[]engine.RuleID{engine.RuleGetItemPythonBool}, []engine.RuleID{engine.RuleGetItem0DBoolArray}},
		{"a 0-d boolean array is a 0-d boolean too", "x[b]", []int{3}, map[string]*engine.Tensor{"b": zeros(engine.BoolType)},
			[]engine.RuleID{engine.RuleGetItem0DBoolArray}, []engine.RuleID{engine.RuleGetItemPythonBool}},
		{"a 0-d uint8 index array is unsigned and narrow too", "x[i]", []int{3}, map[string]*engine.Tensor{"i": zeros(engine.Uint8Type)},
			[]engine.RuleID{engine.RuleGetItem0DIntArray, engine.RuleGetItemUnsignedArray, engine.RuleGetItemNarrowArray}, nil},
		{"a 2-d index array", "x[[[0, 1]]]", []int{3}, nil, []engine.RuleID{engine.RuleGetItemNDIndexArray}, []engine.RuleID{engine.RuleGetItemSeveralArrays}},
		{"a 2-d mask", "x[[[True, False]]]", []int{1, 2}, nil, []engine.RuleID{engine.RuleGetItemNDMask}, []engine.RuleID{engine.RuleGetItemNDIndexArray}},
		{"two index arrays", "x[[0], [True, False]]", []int{3, 2}, nil, []engine.RuleID{engine.RuleGetItemSeveralArrays}, []engine.RuleID{engine.RuleGetItemNDIndexArray}},
		{"an integer beside an index array is not a second array", "x[[0], 1]", []int{3, 2}, nil, nil, []engine.RuleID{engine.RuleGetItemSeveralArrays}},
		{"an out-of-bounds index still shows the index arrays' features", "x[[[7]], [True]]", []int{3, 1}, nil,
			[]engine.RuleID{engine.RuleGetItemNDIndexArray, engine.RuleGetItemSeveralArrays}, nil},
		{"a boolean array of the input's shape alone", "x[[True, False, True]]", []int{3}, nil,
			[]engine.RuleID{engine.RuleGetItemBoolArray, engine.RuleGetItemSingleBool}, nil},
		{"no index array value is checked in an empty result", "x[[5], 0:0]", []int{3, 2}, nil,
			[]engine.RuleID{engine.RuleGetItemEmptyUnchecked}, nil},
		{"more integers and slices than dimensions", "x[0, 1:]", []int{3}, nil, []engine.RuleID{engine.RuleGetItemExtraIndices}, nil},
		{"an index array and an integer on one dimension", "x[[0], 0]", []int{3}, nil, []engine.RuleID{engine.RuleGetItemExtraIndices}, nil},
		{"a 2-d mask addresses two dimensions", "x[[[True]], 0]", []int{1, 1}, nil, []engine.RuleID{engine.RuleGetItemExtraIndices}, nil},
		{"new axes and a Python bool address none", "x[None, True, 0, ...]", []int{3}, nil, nil, []engine.RuleID{engine.RuleGetItemExtraIndices}},
	} {
		tr := traceOf(t, tc.src, arange(tc.shape...), tc.inputs)
		for _, id := range tc.want {
			if !tr.Has(id) {
				t.Errorf("%s: %s traces %v, not %s", tc.why, tc.src, tr.Rules(), id)
			}
		}
		for _, id := range tc.not {
			if tr.Has(id) {
				t.Errorf("%s: %s traces %s", tc.why, tc.src, id)
			}
		}
	}
}

// TestTraceOps checks a rule of each other op's trace, one row per rule.
func TestTraceOps(t *testing.T) {
	neg := func() *engine.Tensor { return intTensor(t, []int{1}, -1) }
	for _, tc := range []struct {
		why  string
		run  func(r engine.Rules) error
		want engine.RuleID
	}{
		{"strided_slice: a negative stride", func(r engine.Rules) error {
			_, err := engine.StridedSliceUnder(arange(3), engine.StridedSliceSpec{Begin: []int64{0}, End: []int64{0}, Strides: []int64{-1}, BeginMask: engine.MaskFromInt(1), EndMask: engine.MaskFromInt(1)}, r)
			return err
		}, engine.RuleStridedEndSentinel},
		{"strided_slice: a shrink axis", func(r engine.Rules) error {
			_, err := engine.StridedSliceUnder(arange(3), engine.StridedSliceSpec{Begin: []int64{-1}, End: []int64{0}, ShrinkAxisMask: engine.MaskFromInt(1)}, r)
			return err
		}, engine.RuleStridedShrinkNegative},
		{"strided_slice: an ellipsis covering no dimension", func(r engine.Rules) error {
			_, err := engine.StridedSliceUnder(arange(3), engine.StridedSliceSpec{Begin: []int64{0, 0}, End: []int64{1, 1}, EllipsisMask: engine.MaskFromInt(2)}, r)
			return err
		}, engine.RuleStridedEllipsisNoDims},
		{"slice: size -1", func(r engine.Rules) error {
			_, err := engine.SliceUnder(arange(3), []int64{1}, []int64{-1}, r)
			return err
		}, engine.RuleSliceSizeToEnd},
		{"take: a negative index", func(r engine.Rules) error {
			_, err := engine.TakeUnder(arange(3), neg(), engine.TakeSpec{}, r)
			return err
		}, engine.RuleTakeNegativeIndex},
		{"take: mode clip", func(r engine.Rules) error {
			_, err := engine.TakeUnder(arange(3), neg(), engine.TakeSpec{Mode: engine.TakeClip}, r)
			return err
		}, engine.RuleTakeClip},
		{"take: int8 indices are narrower than intp", func(r engine.Rules) error {
			_, err := engine.TakeUnder(arange(3), zeros(engine.Int8Type, 2), engine.TakeSpec{}, r)
			return err
		}, engine.RuleTakeNarrow},
		{"take: uint16 indices are narrower than intp too", func(r engine.Rules) error {
			_, err := engine.TakeUnder(arange(3), zeros(engine.Uint16Type, 2), engine.TakeSpec{}, r)
			return err
		}, engine.RuleTakeNarrow},
		{"take: 0-d indices drop the axis", func(r engine.Rules) error {
			_, err := engine.TakeUnder(arange(3), zeros(engine.Int64Type), engine.TakeSpec{}, r)
			return err
		}, engine.RuleTake0DIndices},
		{"take: 2-d indices put both dimensions in the result", func(r engine.Rules) error {
			_, err := engine.TakeUnder(arange(3), zeros(engine.Int64Type, 1, 2), engine.TakeSpec{}, r)
			return err
		}, engine.RuleTakeNDIndices},
		{"take_along_axis: int32 indices are narrower than intp", func(r engine.Rules) error {
			_, err := engine.TakeAlongAxisUnder(arange(3), zeros(engine.Int32Type, 2), engine.TakeAlongAxisSpec{}, r)
			return err
		}, engine.RuleTakeAlongNarrow},
		{"gather: int32 indices", func(r engine.Rules) error {
			_, err := engine.GatherUnder(arange(3), zeros(engine.Int32Type, 2), engine.GatherSpec{BadIndices: engine.BadIndexError}, r)
			return err
		}, engine.RuleGatherInt32Indices},
		{"gather_nd: int16 indices are narrower than int64", func(r engine.Rules) error {
			_, err := engine.GatherNDUnder(arange(3), zeros(engine.Int16Type, 2, 1), 0, engine.BadIndexError, r)
			return err
		}, engine.RuleGatherNDNarrow},
		{"onnx_gather: int32 indices", func(r engine.Rules) error {
			_, err := engine.ONNXGatherUnder(arange(3), zeros(engine.Int32Type, 2), engine.ONNXGatherSpec{}, r)
			return err
		}, engine.RuleONNXGatherInt32},
		{"onnx_gather_elements: int32 indices", func(r engine.Rules) error {
			_, err := engine.ONNXGatherElementsUnder(arange(3), zeros(engine.Int32Type, 2), engine.ONNXGatherSpec{}, r)
			return err
		}, engine.RuleONNXElemInt32},
		{"take_along_axis: broadcast", func(r engine.Rules) error {
			_, err := engine.TakeAlongAxisUnder(arange(3, 2), zeros(engine.Int64Type, 1, 1), engine.TakeAlongAxisSpec{}, r)
			return err
		}, engine.RuleTakeAlongBroadcasts},
		{"gather: zeros for a bad index", func(r engine.Rules) error {
			_, err := engine.GatherUnder(arange(3), neg(), engine.GatherSpec{BadIndices: engine.BadIndexZero}, r)
			return err
		}, engine.RuleGatherZeroMode},
		{"gather_nd: depth 0", func(r engine.Rules) error {
			_, err := engine.GatherNDUnder(arange(3), zeros(engine.Int64Type, 2, 0), 0, engine.BadIndexError, r)
			return err
		}, engine.RuleGatherNDDepth0},
		{"onnx_slice: a start below -d with a negative step", func(r engine.Rules) error {
			_, err := engine.ONNXSliceUnder(arange(3), engine.ONNXSliceSpec{Starts: []int64{-5}, Ends: []int64{-10}, Steps: []int64{-1}}, r)
			return err
		}, engine.RuleONNXSliceReverseStart},
		{"onnx_gather: a negative index wraps", func(r engine.Rules) error {
			_, err := engine.ONNXGatherUnder(arange(3), neg(), engine.ONNXGatherSpec{}, r)
			return err
		}, engine.RuleONNXGatherNegative},
		{"onnx_gather_elements: indices smaller than data", func(r engine.Rules) error {
			_, err := engine.ONNXGatherElementsUnder(arange(3, 2), zeros(engine.Int64Type, 3, 1), engine.ONNXGatherSpec{}, r)
			return err
		}, engine.RuleONNXElemSmaller},
		{"onnx_gather_nd: a negative index wraps", func(r engine.Rules) error {
			_, err := engine.ONNXGatherNDUnder(arange(3), intTensor(t, []int{1, 1}, -1), 0, r)
			return err
		}, engine.RuleONNXGatherNDNegative},
	} {
		tr := &engine.Trace{}
		if err := tc.run(engine.Rules{Trace: tr}); err != nil {
			t.Fatalf("%s: %v", tc.why, err)
		}
		if !tr.Has(tc.want) {
			t.Errorf("%s: traces %v, not %s", tc.why, tr.Rules(), tc.want)
		}
		if err := tc.run(engine.Rules{}); err != nil {
			t.Errorf("%s without a trace: %v", tc.why, err)
		}
	}
}

// TestTraceBeforeChecks checks the rules an evaluation records before
// any check, so that a spec refused for another fault first still shows
// them, one row per rule (and rows where the rule must not be recorded).
func TestTraceBeforeChecks(t *testing.T) {
	strided := func(shape []int, spec engine.StridedSliceSpec) func(engine.Rules) error {
		return func(r engine.Rules) error {
			_, err := engine.StridedSliceUnder(arange(shape...), spec, r)
			return err
		}
	}
	slice := func(begin, size []int64) func(engine.Rules) error {
		return func(r engine.Rules) error {
			_, err := engine.SliceUnder(arange(3), begin, size, r)
			return err
		}
	}
	m := engine.MaskFromInt
	for _, tc := range []struct {
		why  string
		run  func(r engine.Rules) error
		rule engine.RuleID
		has  bool
	}{
		{"strided_slice: more entries consume a dimension than the input has", strided([]int{3}, engine.StridedSliceSpec{Begin: []int64{0, 0}, End: []int64{1, 1}}),
			engine.RuleStridedExtraIndices, true},
		{"strided_slice: extra entries in a spec refused for its lengths first", strided([]int{3}, engine.StridedSliceSpec{Begin: []int64{0, 0}, End: []int64{1}}),
			engine.RuleStridedExtraIndices, true},
		{"strided_slice: a new axis consumes no dimension", strided([]int{3}, engine.StridedSliceSpec{Begin: []int64{0, 0}, End: []int64{1, 1}, NewAxisMask: m(1)}),
			engine.RuleStridedExtraIndices, false},
		{"strided_slice: with two ellipses TF expands nothing", strided([]int{3}, engine.StridedSliceSpec{Begin: []int64{0, 0, 0, 0}, End: []int64{1, 1, 1, 1}, EllipsisMask: m(9)}),
			engine.RuleStridedExtraIndices, false},
		{"strided_slice: an ellipsis consumes none of its own", strided([]int{3}, engine.StridedSliceSpec{Begin: []int64{0, 0}, End: []int64{1, 1}, EllipsisMask: m(2)}),
			engine.RuleStridedExtraIndices, false},
		{"strided_slice: begin_mask on a shrink axis", strided([]int{3}, engine.StridedSliceSpec{Begin: []int64{1}, End: []int64{2}, BeginMask: m(1), ShrinkAxisMask: m(1)}),
			engine.RuleStridedShrinkBeginMask, true},
		{"strided_slice: begin_mask on a shrink axis after an out-of-range shrink index", strided([]int{3, 2}, engine.StridedSliceSpec{Begin: []int64{5, 0}, End: []int64{6, 1}, BeginMask: m(2), ShrinkAxisMask: m(3)}),
			engine.RuleStridedShrinkBeginMask, true},
		{"strided_slice: begin_mask on a range", strided([]int{3}, engine.StridedSliceSpec{Begin: []int64{1}, End: []int64{2}, BeginMask: m(1)}),
			engine.RuleStridedShrinkBeginMask, false},
		{"strided_slice: an ellipsis bit wins over the shrink bit", strided([]int{3}, engine.StridedSliceSpec{Begin: []int64{1}, End: []int64{2}, BeginMask: m(1), EllipsisMask: m(1), ShrinkAxisMask: m(1)}),
			engine.RuleStridedShrinkBeginMask, false},
		{"slice: a negative begin", slice([]int64{-1}, []int64{1}), engine.RuleSliceNegativeBegin, true},
		{"slice: a negative begin in a spec refused for its length first", slice([]int64{-1, 0}, []int64{1, 1}), engine.RuleSliceNegativeBegin, true},
		{"slice: a begin past the dimension is not negative", slice([]int64{4}, []int64{0}), engine.RuleSliceNegativeBegin, false},
	} {
		tr := &engine.Trace{}
		if err := tc.run(engine.Rules{Trace: tr}); err != nil && engine.RuleOf(err) == "" {
			t.Fatalf("%s: %v", tc.why, err)
		}
		if tr.Has(tc.rule) != tc.has {
			t.Errorf("%s: traces %v; holds %s: %v, want %v", tc.why, tr.Rules(), tc.rule, !tc.has, tc.has)
		}
	}
}

// TestTracedRules checks that every traced rule is a rule of the table
// that decides an output, and that a trace lists its rules in table
// order and is empty after Reset.
func TestTracedRules(t *testing.T) {
	for _, id := range engine.TracedRules() {
		if r, ok := engine.RuleByID(id); !ok || r.IsError() {
			t.Errorf("traced rule %s is not an output rule of the table", id)
		}
	}
	tr := traceOf(t, "x[::-2, None]", arange(3), nil)
	got := tr.Rules()
	order := func(id engine.RuleID) int {
		return slices.IndexFunc(engine.RuleTable, func(r engine.Rule) bool { return r.ID == id })
	}
	if !slices.IsSortedFunc(got, func(a, b engine.RuleID) int { return order(a) - order(b) }) {
		t.Errorf("Trace.Rules() = %v, not in table order", got)
	}
	tr.Reset()
	if r := tr.Rules(); r != nil {
		t.Errorf("after Reset the trace holds %v", r)
	}
	var nilTrace *engine.Trace
	if nilTrace.Has(engine.RuleGetItemNegativeStep) || nilTrace.Rules() != nil {
		t.Error("a nil trace holds rules")
	}
}

// BenchmarkSmallOps measures ops on small inputs, where the per-call
// work (spec checks, planning, tracing when asked) is most of the cost:
// the sub-benchmarks .../untraced run as the gate and fuzz do, with no
// trace, and .../traced with one.
func BenchmarkSmallOps(b *testing.B) {
	x := arange(4, 5, 6)
	items := mustParse(b, "x[1:, ::-2, None, -1]")
	adv := mustParse(b, "x[[0, 1], :, [2, 3]]")
	idx := intTensor(b, []int{3}, 0, -1, 2)
	spec := engine.StridedSliceSpec{Begin: []int64{1, 0, -1}, End: []int64{3, 0, 0}, Strides: []int64{1, -1, 1}, EndMask: engine.MaskFromInt(2), ShrinkAxisMask: engine.MaskFromInt(4)}
	ops := []struct {
		name string
		run  func(r engine.Rules) error
	}{
		{"getitem", func(r engine.Rules) error { _, err := engine.GetItemUnder(x, items, r); return err }},
		{"advanced", func(r engine.Rules) error { _, err := engine.GetItemUnder(x, adv, r); return err }},
		{"strided_slice", func(r engine.Rules) error { _, err := engine.StridedSliceUnder(x, spec, r); return err }},
		{"take", func(r engine.Rules) error {
			_, err := engine.TakeUnder(x, idx, engine.TakeSpec{Axis: 1}, r)
			return err
		}},
	}
	for _, op := range ops {
		for _, traced := range []bool{false, true} {
			name := op.name + "/untraced"
			if traced {
				name = op.name + "/traced"
			}
			b.Run(name, func(b *testing.B) {
				var r engine.Rules
				if traced {
					r.Trace = &engine.Trace{}
				}
				for b.Loop() {
					if err := op.run(r); err != nil {
						b.Fatal(err)
					}
					r.Trace.Reset()
				}
			})
		}
	}
}

// mustParse parses a getitem subscript or fails the benchmark.
func mustParse(b *testing.B, src string) []engine.IndexItem {
	items, err := expr.Parse(src)
	if err != nil {
		b.Fatal(err)
	}
	return items
}
