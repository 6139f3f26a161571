package engine_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/expr"
)

// ruleOps are the ops a rule may belong to.
var ruleOps = []string{"getitem", "take", "take_along_axis", "strided_slice", "slice", "gather", "gather_nd", "onnx_slice", "onnx_gather", "onnx_gather_nd", "onnx_gather_elements"}

// TestRuleTable checks the table's form: unique IDs of the form
// op/name, a statement and a source for each rule, a valid kind for an
// error rule and no reference error for the others, known ops, and a
// known variant for a variant's rule.
func TestRuleTable(t *testing.T) {
	seen := map[engine.RuleID]bool{}
	for _, r := range engine.RuleTable {
		if seen[r.ID] {
			t.Errorf("rule %s appears twice", r.ID)
		}
		seen[r.ID] = true
		prefix, name, ok := strings.Cut(string(r.ID), "/")
		if !ok || name == "" || strings.ContainsAny(name, "/ ") {
			t.Errorf("rule %s: an ID is op/name", r.ID)
		}
		switch {
		case r.Variant != 0:
			if prefix != r.Variant.String() {
				t.Errorf("rule %s: a variant's rule is named after the variant %s", r.ID, r.Variant)
			}
		case prefix == "common":
			if ops := slices.Sorted(slices.Values(r.Ops)); !slices.Equal(ops, slices.Sorted(slices.Values(ruleOps))) {
				t.Errorf("rule %s: a common rule belongs to every op, got %v", r.ID, r.Ops)
			}
		case !slices.Equal(r.Ops, []string{prefix}):
			t.Errorf("rule %s: belongs to %v, want [%s]", r.ID, r.Ops, prefix)
		}
		for _, op := range r.Ops {
			if !slices.Contains(ruleOps, op) {
				t.Errorf("rule %s: unknown op %q", r.ID, op)
			}
		}
		if r.Statement == "" || r.Source == "" {
			t.Errorf("rule %s: no statement or no source", r.ID)
		}
		if r.IsError() != r.Kind.Valid() {
			t.Errorf("rule %s: kind %q is not an error kind", r.ID, r.Kind)
		}
		if !r.IsError() && r.RefError != "" {
			t.Errorf("rule %s decides an output but names a reference error", r.ID)
		}
		if got, ok := engine.RuleByID(r.ID); !ok || got.ID != r.ID {
			t.Errorf("RuleByID(%s) = %v, %v", r.ID, got.ID, ok)
		}
	}
}

// getItemSrc evaluates a getitem subscript as a case does: parsed,
// its names bound to inputs, then evaluated under r.
func getItemSrc(src string, x *engine.Tensor, inputs map[string]*engine.Tensor, r engine.Rules) error {
	items, err := expr.Parse(src)
	if err != nil {
		return err
	}
	if items, err = expr.Bind(items, inputs); err != nil {
		return err
	}
	_, err = engine.GetItemUnder(x, items, r)
	return err
}

// zeros returns a tensor of zeros of the given dtype and shape.
func zeros(dt engine.DType, shape ...int) *engine.Tensor {
	z, err := engine.Zeros(dt, shape)
	if err != nil {
		panic(err)
	}
	return z
}

// hugeEmpty returns an int64 tensor of shape (0, 2**40, 2**40): no
// elements, but its dimensions that are not 0 overflow any byte count.
func hugeEmpty() *engine.Tensor {
	shape := []int{0, 1 << 40, 1 << 40}
	return &engine.Tensor{DType: engine.Int64Type, Shape: shape, Strides: engine.ContiguousStrides(shape, 8), Data: []byte{}}
}

// trues returns a tensor of the given shape whose elements all have the
// value 1 in their first byte: true, or 1 of a little-endian integer.
func trues(dt engine.DType, shape ...int) *engine.Tensor {
	z := zeros(dt, shape...)
	for i := 0; i < len(z.Data); i += dt.Size {
		z.Data[i] = 1
	}
	return z
}

// repeatItem returns n copies of item.
func repeatItem(item engine.IndexItem, n int) []engine.IndexItem {
	out := make([]engine.IndexItem, n)
	for i := range out {
		out[i] = item
	}
	return out
}

// ruleRaisers holds, for every error rule of RuleTable, a smallest
// evaluation that raises it.
var ruleRaisers = map[engine.RuleID]func(t *testing.T) error{
	engine.RuleGetItemSyntax: func(t *testing.T) error { return getItemSrc("x[1", arange(2), nil, engine.Rules{}) },
	engine.RuleGetItemNotLiteral: func(t *testing.T) error {
		return getItemSrc("x[[1, y]]", arange(2), nil, engine.Rules{})
	},
	engine.RuleGetItemTooManyItems: func(t *testing.T) error {
		return getItemSrc("x["+strings.Repeat("0,", 65)+"]", arange(2), nil, engine.Rules{})
	},
	engine.RuleGetItemInvalidItem: func(t *testing.T) error { return getItemSrc("x[1.5]", arange(2), nil, engine.Rules{}) },
	engine.RuleGetItemArrayTooDeep: func(t *testing.T) error {
		return getItemSrc("x["+strings.Repeat("[", 33)+"0"+strings.Repeat("]", 33)+"]", arange(2), nil, engine.Rules{})
	},
	engine.RuleGetItemRaggedArray: func(t *testing.T) error { return getItemSrc("x[[[1], [1, 2]]]", arange(3), nil, engine.Rules{}) },
	engine.RuleGetItemIndexBeyondInt64: func(t *testing.T) error {
		return getItemSrc("x[100000000000000000000000]", arange(2), nil, engine.Rules{})
	},
	engine.RuleGetItemNameWithoutInput: func(t *testing.T) error { return getItemSrc("x[i]", arange(2), nil, engine.Rules{}) },
	engine.RuleGetItemUnboundArray: func(t *testing.T) error {
		_, err := engine.GetItem(arange(2), []engine.IndexItem{{Kind: engine.IndexArray, Name: "i"}})
		return err
	},
	engine.RuleGetItemUnknownItem: func(t *testing.T) error {
		_, err := engine.GetItem(arange(2), []engine.IndexItem{{Kind: 99}})
		return err
	},
	engine.RuleGetItemTwoEllipses: func(t *testing.T) error {
		_, err := engine.GetItem(arange(2), repeatItem(engine.IndexItem{Kind: engine.IndexEllipsis}, 2))
		return err
	},
	engine.RuleGetItemTooManyIndices: func(t *testing.T) error { return getItemSrc("x[0, 0, 0]", arange(2, 3), nil, engine.Rules{}) },
	engine.RuleGetItemArrayDType: func(t *testing.T) error {
		return getItemSrc("x[i]", arange(2), map[string]*engine.Tensor{"i": zeros(engine.Float64Type, 1)}, engine.Rules{})
	},
	engine.RuleGetItem0DOverflow: func(t *testing.T) error {
		i := zeros(engine.Uint64Type)
		for k := range i.Data {
			i.Data[k] = 0xff
		}
		return getItemSrc("x[i]", arange(2), map[string]*engine.Tensor{"i": i}, engine.Rules{})
	},
	engine.RuleGetItemBoolShape: func(t *testing.T) error {
		return getItemSrc("x[[True, False, True]]", arange(2, 3), nil, engine.Rules{})
	},
	engine.RuleGetItemIndexOutOfBounds: func(t *testing.T) error { return getItemSrc("x[5]", arange(2), nil, engine.Rules{}) },
	engine.RuleGetItemSliceBoundNotInteger: func(t *testing.T) error {
		return getItemSrc("x[1.5:]", arange(2), nil, engine.Rules{})
	},
	engine.RuleGetItemZeroStep: func(t *testing.T) error { return getItemSrc("x[::0]", arange(2), nil, engine.Rules{}) },
	engine.RuleGetItemBroadcastMismatch: func(t *testing.T) error {
		return getItemSrc("x[[0, 1], [0, 1, 2]]", arange(2, 3), nil, engine.Rules{})
	},
	engine.RuleGetItemTooManyIndexArrays: func(t *testing.T) error {
		// 33 0-d booleans and an integer array: 34 index arrays.
		items := append(repeatItem(engine.IndexItem{Kind: engine.IndexArray, Array: trues(engine.BoolType)}, 33),
			engine.IndexItem{Kind: engine.IndexArray, Array: zeros(engine.Int64Type, 1)})
		_, err := engine.GetItem(arange(2), items)
		return err
	},
	engine.RuleGetItemNoSubspaceArrays: func(t *testing.T) error {
		x := arange(slices.Repeat([]int{1}, 32)...)
		_, err := engine.GetItem(x, repeatItem(engine.IndexItem{Kind: engine.IndexArray, Array: zeros(engine.Int64Type, 1)}, 32))
		return err
	},
	engine.RuleGetItemArrayOutOfBounds: func(t *testing.T) error { return getItemSrc("x[[5]]", arange(2), nil, engine.Rules{}) },

	engine.RuleTakeMode: func(t *testing.T) error {
		_, err := engine.Take(arange(2), zeros(engine.Int64Type, 1), engine.TakeSpec{Mode: "bounce"})
		return err
	},
	engine.RuleTakeAxis: func(t *testing.T) error {
		_, err := engine.Take(arange(2), zeros(engine.Int64Type, 1), engine.TakeSpec{Axis: 5})
		return err
	},
	engine.RuleTakeIndexDType: func(t *testing.T) error {
		_, err := engine.Take(arange(2), zeros(engine.Float64Type, 1), engine.TakeSpec{})
		return err
	},
	engine.RuleTakeEmptyAxis: func(t *testing.T) error {
		_, err := engine.Take(arange(0), zeros(engine.Int64Type, 1), engine.TakeSpec{})
		return err
	},
	engine.RuleTakeOutOfBounds: func(t *testing.T) error {
		_, err := engine.Take(arange(2), intTensor(t, []int{1}, 10), engine.TakeSpec{})
		return err
	},

	engine.RuleTakeAlongAxis: func(t *testing.T) error {
		_, err := engine.TakeAlongAxis(arange(2), zeros(engine.Int64Type, 1), engine.TakeAlongAxisSpec{Axis: 5})
		return err
	},
	engine.RuleTakeAlongIndexDType: func(t *testing.T) error {
		_, err := engine.TakeAlongAxis(arange(2), zeros(engine.Float64Type, 1), engine.TakeAlongAxisSpec{})
		return err
	},
	engine.RuleTakeAlongRank: func(t *testing.T) error {
		_, err := engine.TakeAlongAxis(arange(2, 3), zeros(engine.Int64Type, 3), engine.TakeAlongAxisSpec{})
		return err
	},
	engine.RuleTakeAlongBroadcast: func(t *testing.T) error {
		_, err := engine.TakeAlongAxis(arange(2, 3), zeros(engine.Int64Type, 2, 2), engine.TakeAlongAxisSpec{})
		return err
	},
	engine.RuleTakeAlongTooManyDims: func(t *testing.T) error {
		shape := slices.Repeat([]int{1}, 32)
		_, err := engine.TakeAlongAxis(arange(shape...), zeros(engine.Int64Type, shape...), engine.TakeAlongAxisSpec{})
		return err
	},
	engine.RuleTakeAlongOutOfBounds: func(t *testing.T) error {
		_, err := engine.TakeAlongAxis(arange(2), intTensor(t, []int{1}, 9), engine.TakeAlongAxisSpec{})
		return err
	},

	engine.RuleStridedMaskList: func(t *testing.T) error {
		_, err := engine.MaskFromList([]int64{2})
		return err
	},
	engine.RuleStridedLengths: func(t *testing.T) error {
		_, err := engine.StridedSlice(arange(2), engine.StridedSliceSpec{Begin: []int64{0}})
		return err
	},
	engine.RuleStridedTooLong: func(t *testing.T) error {
		v := make([]int64, 32)
		_, err := engine.StridedSlice(arange(2), engine.StridedSliceSpec{Begin: v, End: v})
		return err
	},
	engine.RuleStridedTwoEllipses: func(t *testing.T) error {
		v := make([]int64, 2)
		_, err := engine.StridedSlice(arange(2), engine.StridedSliceSpec{Begin: v, End: v, EllipsisMask: engine.MaskFromInt(3)})
		return err
	},
	engine.RuleStridedTooManyDims: func(t *testing.T) error {
		_, err := engine.StridedSlice(arange(2), engine.StridedSliceSpec{Begin: []int64{0, 0}, End: []int64{1, 1}})
		return err
	},
	engine.RuleStridedZeroStride: func(t *testing.T) error {
		_, err := engine.StridedSlice(arange(2), engine.StridedSliceSpec{Begin: []int64{0}, End: []int64{1}, Strides: []int64{0}})
		return err
	},
	engine.RuleStridedShrinkStride: func(t *testing.T) error {
		_, err := engine.StridedSlice(arange(2), engine.StridedSliceSpec{Begin: []int64{0}, End: []int64{1}, Strides: []int64{-1}, ShrinkAxisMask: engine.MaskFromInt(1)})
		return err
	},
	engine.RuleStridedShrinkOutOfBounds: func(t *testing.T) error {
		_, err := engine.StridedSlice(arange(2), engine.StridedSliceSpec{Begin: []int64{5}, End: []int64{6}, ShrinkAxisMask: engine.MaskFromInt(1)})
		return err
	},

	engine.RuleSliceLengths: func(t *testing.T) error {
		_, err := engine.Slice(arange(2, 2), []int64{0}, []int64{1})
		return err
	},
	engine.RuleSliceEmptyDim: func(t *testing.T) error {
		_, err := engine.Slice(arange(0), []int64{1}, []int64{0})
		return err
	},
	engine.RuleSliceBegin: func(t *testing.T) error {
		_, err := engine.Slice(arange(2), []int64{-1}, []int64{1})
		return err
	},
	engine.RuleSliceSize: func(t *testing.T) error {
		_, err := engine.Slice(arange(2), []int64{0}, []int64{5})
		return err
	},

	engine.RuleGatherPolicy: func(t *testing.T) error {
		_, err := engine.Gather(arange(2), zeros(engine.Int64Type, 1), engine.GatherSpec{BadIndices: "ignore"})
		return err
	},
	engine.RuleGatherIndexDType: func(t *testing.T) error {
		_, err := engine.Gather(arange(2), zeros(engine.Int8Type, 1), engine.GatherSpec{BadIndices: engine.BadIndexError})
		return err
	},
	engine.RuleGatherParamsScalar: func(t *testing.T) error {
		_, err := engine.Gather(arange(), zeros(engine.Int64Type, 1), engine.GatherSpec{BadIndices: engine.BadIndexError})
		return err
	},
	engine.RuleGatherAxis: func(t *testing.T) error {
		_, err := engine.Gather(arange(2), zeros(engine.Int64Type, 1), engine.GatherSpec{Axis: 5, BadIndices: engine.BadIndexError})
		return err
	},
	engine.RuleGatherBatchDims: func(t *testing.T) error {
		_, err := engine.Gather(arange(2), zeros(engine.Int64Type, 1), engine.GatherSpec{BatchDims: 5, BadIndices: engine.BadIndexError})
		return err
	},
	engine.RuleGatherBatchAxis: func(t *testing.T) error {
		_, err := engine.Gather(arange(2, 3), zeros(engine.Int64Type, 2, 1), engine.GatherSpec{BatchDims: 1, BadIndices: engine.BadIndexError})
		return err
	},
	engine.RuleGatherBatchShape: func(t *testing.T) error {
		_, err := engine.Gather(arange(2, 3), zeros(engine.Int64Type, 3, 1), engine.GatherSpec{Axis: 1, BatchDims: 1, BadIndices: engine.BadIndexError})
		return err
	},
	engine.RuleGatherOutOfRange: func(t *testing.T) error {
		_, err := engine.Gather(arange(2), intTensor(t, []int{1}, 5), engine.GatherSpec{BadIndices: engine.BadIndexError})
		return err
	},

	engine.RuleGatherNDPolicy: func(t *testing.T) error {
		_, err := engine.GatherND(arange(2), zeros(engine.Int64Type, 1, 1), 0, "ignore")
		return err
	},
	engine.RuleGatherNDIndexDType: func(t *testing.T) error {
		_, err := engine.GatherND(arange(2), zeros(engine.Float64Type, 1, 1), 0, engine.BadIndexError)
		return err
	},
	engine.RuleGatherNDParamsScalar: func(t *testing.T) error {
		_, err := engine.GatherND(arange(), zeros(engine.Int64Type, 1, 0), 0, engine.BadIndexError)
		return err
	},
	engine.RuleGatherNDIndicesScalar: func(t *testing.T) error {
		_, err := engine.GatherND(arange(2), zeros(engine.Int64Type), 0, engine.BadIndexError)
		return err
	},
	engine.RuleGatherNDBatchNegative: func(t *testing.T) error {
		_, err := engine.GatherND(arange(2), zeros(engine.Int64Type, 1, 1), -1, engine.BadIndexError)
		return err
	},
	engine.RuleGatherNDBatchIndices: func(t *testing.T) error {
		_, err := engine.GatherND(arange(2, 2), zeros(engine.Int64Type, 2), 1, engine.BadIndexError)
		return err
	},
	engine.RuleGatherNDBatchParams: func(t *testing.T) error {
		_, err := engine.GatherND(arange(2), zeros(engine.Int64Type, 2, 1, 1), 1, engine.BadIndexError)
		return err
	},
	engine.RuleGatherNDBatchShape: func(t *testing.T) error {
		_, err := engine.GatherND(arange(2, 3), zeros(engine.Int64Type, 3, 1), 1, engine.BadIndexError)
		return err
	},
	engine.RuleGatherNDDepth: func(t *testing.T) error {
		_, err := engine.GatherND(arange(2), zeros(engine.Int64Type, 1, 2), 0, engine.BadIndexError)
		return err
	},
	engine.RuleGatherNDOverflow: func(t *testing.T) error {
		_, err := engine.GatherND(hugeEmpty(), zeros(engine.Int64Type, 2, 1), 0, engine.BadIndexError)
		return err
	},
	engine.RuleGatherNDEmptyParams: func(t *testing.T) error {
		_, err := engine.GatherND(arange(0), zeros(engine.Int64Type, 1, 1), 0, engine.BadIndexError)
		return err
	},
	engine.RuleGatherNDOutOfRange: func(t *testing.T) error {
		_, err := engine.GatherND(arange(2), intTensor(t, []int{1, 1}, 5), 0, engine.BadIndexError)
		return err
	},

	engine.RuleONNXSliceScalar: func(t *testing.T) error {
		_, err := engine.ONNXSlice(arange(), engine.ONNXSliceSpec{})
		return err
	},
	engine.RuleONNXSliceEnds: func(t *testing.T) error {
		_, err := engine.ONNXSlice(arange(2), engine.ONNXSliceSpec{Starts: []int64{0}})
		return err
	},
	engine.RuleONNXSliceAxesLength: func(t *testing.T) error {
		_, err := engine.ONNXSlice(arange(2), engine.ONNXSliceSpec{Starts: []int64{0}, Ends: []int64{1}, Axes: []int64{0, 0}})
		return err
	},
	engine.RuleONNXSliceStepsLength: func(t *testing.T) error {
		_, err := engine.ONNXSlice(arange(2), engine.ONNXSliceSpec{Starts: []int64{0}, Ends: []int64{1}, Steps: []int64{1, 1}})
		return err
	},
	engine.RuleONNXSliceAxis: func(t *testing.T) error {
		_, err := engine.ONNXSlice(arange(2), engine.ONNXSliceSpec{Starts: []int64{0}, Ends: []int64{1}, Axes: []int64{5}})
		return err
	},
	engine.RuleONNXSliceRepeatedAxis: func(t *testing.T) error {
		_, err := engine.ONNXSlice(arange(2), engine.ONNXSliceSpec{Starts: []int64{0, 0}, Ends: []int64{1, 1}, Axes: []int64{0, 0}})
		return err
	},
	engine.RuleONNXSliceZeroStep: func(t *testing.T) error {
		_, err := engine.ONNXSlice(arange(2), engine.ONNXSliceSpec{Starts: []int64{0}, Ends: []int64{1}, Steps: []int64{0}})
		return err
	},

	engine.RuleONNXGatherIndexDType: func(t *testing.T) error {
		_, err := engine.ONNXGather(arange(2), zeros(engine.Int8Type, 1), engine.ONNXGatherSpec{})
		return err
	},
	engine.RuleONNXGatherScalar: func(t *testing.T) error {
		_, err := engine.ONNXGather(arange(), zeros(engine.Int64Type, 1), engine.ONNXGatherSpec{})
		return err
	},
	engine.RuleONNXGatherAxis: func(t *testing.T) error {
		_, err := engine.ONNXGather(arange(2), zeros(engine.Int64Type, 1), engine.ONNXGatherSpec{Axis: 5})
		return err
	},
	engine.RuleONNXGatherOutOfRange: func(t *testing.T) error {
		_, err := engine.ONNXGather(arange(2), intTensor(t, []int{1}, 5), engine.ONNXGatherSpec{})
		return err
	},

	engine.RuleONNXElemIndexDType: func(t *testing.T) error {
		_, err := engine.ONNXGatherElements(arange(2), zeros(engine.Int8Type, 1), engine.ONNXGatherSpec{})
		return err
	},
	engine.RuleONNXElemScalar: func(t *testing.T) error {
		_, err := engine.ONNXGatherElements(arange(), zeros(engine.Int64Type), engine.ONNXGatherSpec{})
		return err
	},
	engine.RuleONNXElemRank: func(t *testing.T) error {
		_, err := engine.ONNXGatherElements(arange(2), zeros(engine.Int64Type, 1, 1), engine.ONNXGatherSpec{})
		return err
	},
	engine.RuleONNXElemAxis: func(t *testing.T) error {
		_, err := engine.ONNXGatherElements(arange(2), zeros(engine.Int64Type, 1), engine.ONNXGatherSpec{Axis: 5})
		return err
	},
	engine.RuleONNXElemShape: func(t *testing.T) error {
		_, err := engine.ONNXGatherElements(arange(2, 2), zeros(engine.Int64Type, 2, 3), engine.ONNXGatherSpec{})
		return err
	},
	engine.RuleONNXElemOutOfRange: func(t *testing.T) error {
		_, err := engine.ONNXGatherElements(arange(2), intTensor(t, []int{1}, 5), engine.ONNXGatherSpec{})
		return err
	},

	engine.RuleONNXGatherNDIndexDType: func(t *testing.T) error {
		_, err := engine.ONNXGatherND(arange(2), zeros(engine.Int32Type, 1, 1), 0)
		return err
	},
	engine.RuleONNXGatherNDRank: func(t *testing.T) error {
		_, err := engine.ONNXGatherND(arange(2), zeros(engine.Int64Type), 0)
		return err
	},
	engine.RuleONNXGatherNDBatchDims: func(t *testing.T) error {
		_, err := engine.ONNXGatherND(arange(2), zeros(engine.Int64Type, 1, 1), 5)
		return err
	},
	engine.RuleONNXGatherNDBatchShape: func(t *testing.T) error {
		_, err := engine.ONNXGatherND(arange(2, 3), zeros(engine.Int64Type, 3, 1), 1)
		return err
	},
	engine.RuleONNXGatherNDDepth: func(t *testing.T) error {
		_, err := engine.ONNXGatherND(arange(2), zeros(engine.Int64Type, 1, 2), 0)
		return err
	},
	engine.RuleONNXGatherNDOverflow: func(t *testing.T) error {
		_, err := engine.ONNXGatherND(hugeEmpty(), zeros(engine.Int64Type, 2, 1), 0)
		return err
	},
	engine.RuleONNXGatherNDOutOfRange: func(t *testing.T) error {
		_, err := engine.ONNXGatherND(arange(2), intTensor(t, []int{1, 1}, 5), 0)
		return err
	},

	engine.RuleResultRank: func(t *testing.T) error {
		return getItemSrc("x[None]", arange(slices.Repeat([]int{1}, 32)...), nil, engine.Rules{})
	},
	engine.RuleArrayTooBig: func(t *testing.T) error {
		_, err := engine.Take(hugeEmpty(), zeros(engine.Int64Type, 1), engine.TakeSpec{})
		return err
	},
	engine.RuleOutputLimit: func(t *testing.T) error {
		return getItemSrc("x[:]", arange(4), nil, engine.Rules{OutputLimit: 8})
	},
	engine.RuleInputRank: func(t *testing.T) error {
		_, err := engine.FromBytes(engine.Int8Type, slices.Repeat([]int{1}, 33), []byte{0})
		return err
	},
	engine.RuleInputDType: func(t *testing.T) error {
		_, err := engine.ParseDType("<x9")
		return err
	},
	engine.RuleInputTooBig: func(t *testing.T) error {
		_, err := engine.FromBytes(engine.Int64Type, []int{math.MaxInt / 4}, nil)
		return err
	},
	engine.RuleInputDataLength: func(t *testing.T) error {
		_, err := engine.FromBytes(engine.Int64Type, []int{2}, make([]byte, 3))
		return err
	},

	engine.RuleEmptyRangeRefused: func(t *testing.T) error {
		return getItemSrc("x[0:0]", arange(2), nil, engine.Rules{}.With(engine.EmptyRangeRefused))
	},
	engine.RuleShrinkClampedEmpty: func(t *testing.T) error {
		return getItemSrc("x[0]", arange(0, 2), nil, engine.Rules{}.With(engine.ShrinkIndexClamped))
	},
	engine.RuleMaskBitsShortInput: func(t *testing.T) error {
		_, err := engine.StridedSliceUnder(arange(2, 0), engine.StridedSliceSpec{Begin: []int64{}, End: []int64{}, NewAxisMask: engine.MaskFromInt(1)},
			engine.Rules{}.With(engine.MaskBitsPastSpecApplied))
		return err
	},
	engine.RuleGatherFlatBoundsOut: func(t *testing.T) error {
		_, err := engine.GatherNDUnder(arange(2, 2), intTensor(t, []int{1, 2}, 0, 5), 0, engine.BadIndexError, engine.Rules{}.With(engine.GatherFlatBounds))
		return err
	},
	engine.RuleNegativeStepRefused: func(t *testing.T) error {
		return getItemSrc("x[::-1]", arange(2), nil, engine.Rules{}.With(engine.NegativeStepRefused))
	},
	engine.RuleInt64IndicesOnly: func(t *testing.T) error {
		_, err := engine.TakeAlongAxisUnder(arange(2), zeros(engine.Int32Type, 1), engine.TakeAlongAxisSpec{}, engine.Rules{}.With(engine.Int64IndicesOnly))
		return err
	},
	engine.RuleNegativeIndexOut: func(t *testing.T) error {
		_, err := engine.TakeAlongAxisUnder(arange(2), intTensor(t, []int{1}, -1), engine.TakeAlongAxisSpec{}, engine.Rules{}.With(engine.NegativeIndicesRefused))
		return err
	},
	engine.RuleBoolAsIntegerOut: func(t *testing.T) error {
		return getItemSrc("x[True]", arange(1), nil, engine.Rules{}.With(engine.BoolAsInteger))
	},
	engine.RuleBoolAsIntegerTooMany: func(t *testing.T) error {
		return getItemSrc("x[0, True]", arange(2), nil, engine.Rules{}.With(engine.BoolAsInteger))
	},
	engine.Rule0DIndexArrayRefused: func(t *testing.T) error {
		return getItemSrc("x[i]", arange(2), map[string]*engine.Tensor{"i": intTensor(t, []int{}, 0)}, engine.Rules{}.With(engine.ZeroDIndexArrayRefused))
	},
	engine.RuleOneIndexArrayOnly: func(t *testing.T) error {
		return getItemSrc("x[[0], [0]]", arange(2, 2), nil, engine.Rules{}.With(engine.OneIndexArrayOnly))
	},
	engine.RuleNDIndexArrayRefused: func(t *testing.T) error {
		return getItemSrc("x[[[0]]]", arange(2), nil, engine.Rules{}.With(engine.NDIndexArrayRefused))
	},
}

// TestEveryErrorRuleIsRaised checks that every error rule of RuleTable is
// raised by some evaluation, and that the error it returns names the rule
// and has the rule's kind; and that no rule that decides an output raises
// an error.
func TestEveryErrorRuleIsRaised(t *testing.T) {
	for _, r := range engine.RuleTable {
		raise, ok := ruleRaisers[r.ID]
		switch {
		case !r.IsError() && ok:
			t.Errorf("rule %s decides an output, but has an error case", r.ID)
			continue
		case !r.IsError():
			continue
		case !ok:
			t.Errorf("error rule %s: no case raises it", r.ID)
			continue
		}
		t.Run(string(r.ID), func(t *testing.T) {
			err := raise(t)
			if got := engine.RuleOf(err); got != r.ID {
				t.Errorf("raised %v (rule %q), want rule %s", err, got, r.ID)
			}
			if got := engine.KindOf(err); got != r.Kind {
				t.Errorf("raised kind %q, want %q", got, r.Kind)
			}
		})
	}
	for id := range ruleRaisers {
		if _, ok := engine.RuleByID(id); !ok {
			t.Errorf("case for %s, which is not in RuleTable", id)
		}
	}
}

// TestRuleErrorf checks that an error raised by a rule keeps the kind of
// the rule and the message it is given, and that Errorf names no rule.
func TestRuleErrorf(t *testing.T) {
	e := engine.RuleGetItemZeroStep.Errorf("slice step cannot be zero (axis %d)", 1)
	if e.Kind != engine.InvalidSpec || e.Message != "slice step cannot be zero (axis 1)" || e.Rule != engine.RuleGetItemZeroStep {
		t.Errorf("RuleGetItemZeroStep.Errorf = %+v", e)
	}
	if e := engine.Errorf(engine.OutOfRange, "x"); e.Rule != "" {
		t.Errorf("Errorf names rule %q", e.Rule)
	}
	if got := engine.RuleOf(nil); got != "" {
		t.Errorf("RuleOf(nil) = %q", got)
	}
}
