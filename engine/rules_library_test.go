package engine_test

import (
	"encoding/binary"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/expr"
)

// typedInts returns a tensor of the integer dtype dt (little-endian, or
// bool) with the given shape and values.
func typedInts(t *testing.T, dt engine.DType, shape []int, values ...int64) *engine.Tensor {
	t.Helper()
	data := make([]byte, dt.Size*len(values))
	for i, v := range values {
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		copy(data[dt.Size*i:], b[:dt.Size])
	}
	x, err := engine.FromBytes(dt, shape, data)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// getItemBound returns the getitem of src over x with its names bound to
// inputs, under the variants it is given.
func getItemBound(t *testing.T, src string, x *engine.Tensor, inputs map[string]*engine.Tensor) func(engine.Rules) (*engine.Tensor, error) {
	items, err := expr.Parse(src)
	if err == nil {
		items, err = expr.Bind(items, inputs)
	}
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return func(r engine.Rules) (*engine.Tensor, error) { return engine.GetItemUnder(x, items, r) }
}

// TestLibraryVariants has one row per rule of the variants that follow a
// real library (PyTorch, Dask, XLA): each a small case that the variant
// decides otherwise than the reference, with the reference's answer, the
// answer under the variant and, for an error, the variant's rule that
// raises it (an error by a reference rule would name no variant).
func TestLibraryVariants(t *testing.T) {
	i8 := engine.DType{Kind: engine.Int, Size: 1}
	u8 := engine.DType{Kind: engine.Uint, Size: 1}
	i32 := engine.Int32Type
	take := func(a, idx *engine.Tensor, spec engine.TakeSpec) func(engine.Rules) (*engine.Tensor, error) {
		return func(r engine.Rules) (*engine.Tensor, error) { return engine.TakeUnder(a, idx, spec, r) }
	}
	along := func(a, idx *engine.Tensor, axis int) func(engine.Rules) (*engine.Tensor, error) {
		return func(r engine.Rules) (*engine.Tensor, error) {
			return engine.TakeAlongAxisUnder(a, idx, engine.TakeAlongAxisSpec{Axis: axis}, r)
		}
	}
	elems := func(a, idx *engine.Tensor, axis int) func(engine.Rules) (*engine.Tensor, error) {
		return func(r engine.Rules) (*engine.Tensor, error) {
			return engine.ONNXGatherElementsUnder(a, idx, engine.ONNXGatherSpec{Axis: axis}, r)
		}
	}
	gatherND := func(params, idx *engine.Tensor) func(engine.Rules) (*engine.Tensor, error) {
		return func(r engine.Rules) (*engine.Tensor, error) {
			return engine.GatherNDUnder(params, idx, 0, engine.BadIndexError, r)
		}
	}
	gather := func(params, idx *engine.Tensor) func(engine.Rules) (*engine.Tensor, error) {
		return func(r engine.Rules) (*engine.Tensor, error) {
			return engine.GatherUnder(params, idx, engine.GatherSpec{BadIndices: engine.BadIndexError}, r)
		}
	}
	none := map[string]*engine.Tensor(nil)
	tests := []struct {
		rule    string
		variant engine.Variant
		run     func(engine.Rules) (*engine.Tensor, error)
		ref     result // under the reference rules
		want    result // under the variant
		wantID  engine.RuleID
	}{
		// negative-step-refused (PyTorch).
		{"a negative step is refused", engine.NegativeStepRefused, getItemBound(t, "x[::-1]", arange(3), none),
			ok([]int{3}, 2, 1, 0), fails(engine.InvalidSpec), engine.RuleNegativeStepRefused},
		{"a negative step beside an index array is refused too", engine.NegativeStepRefused, getItemBound(t, "x[[0], ::-2]", arange(2, 3), none),
			ok([]int{1, 2}, 2, 0), fails(engine.InvalidSpec), engine.RuleNegativeStepRefused},
		{"an integer out of bounds before the step is checked first (item order)", engine.NegativeStepRefused, getItemBound(t, "x[5, ::-1]", arange(2, 3), none),
			fails(engine.OutOfRange), fails(engine.OutOfRange), engine.RuleGetItemIndexOutOfBounds},

		// int64-indices-only (PyTorch).
		{"getitem: an int32 index array is refused", engine.Int64IndicesOnly, getItemBound(t, "x[i]", arange(3), map[string]*engine.Tensor{"i": typedInts(t, i32, []int{1}, 2)}),
			ok([]int{1}, 2), fails(engine.OutOfRange), engine.RuleInt64IndicesOnly},
		{"getitem: a uint8 index array is taken (as PyTorch's byte tensors)", engine.Int64IndicesOnly, getItemBound(t, "x[i]", arange(3), map[string]*engine.Tensor{"i": typedInts(t, u8, []int{1}, 2)}),
			ok([]int{1}, 2), ok([]int{1}, 2), ""},
		{"take: int32 indices along an axis are taken (index_select)", engine.Int64IndicesOnly, take(arange(3), typedInts(t, i32, []int{1}, 2), engine.TakeSpec{}),
			ok([]int{1}, 2), ok([]int{1}, 2), ""},
		{"take: int32 indices on the flattened input are refused (torch.take)", engine.Int64IndicesOnly, take(arange(3), typedInts(t, i32, []int{1}, 2), engine.TakeSpec{Flatten: true}),
			ok([]int{1}, 2), fails(engine.OutOfRange), engine.RuleInt64IndicesOnly},
		{"take: int8 indices along an axis are refused", engine.Int64IndicesOnly, take(arange(3), typedInts(t, i8, []int{1}, 2), engine.TakeSpec{}),
			ok([]int{1}, 2), fails(engine.OutOfRange), engine.RuleInt64IndicesOnly},
		{"take: bool indices are not integer indices: left to the reference", engine.Int64IndicesOnly, take(arange(3), typedInts(t, engine.BoolType, []int{1}, 1), engine.TakeSpec{}),
			ok([]int{1}, 1), ok([]int{1}, 1), ""},
		{"take_along_axis: int32 indices are refused", engine.Int64IndicesOnly, along(arange(3), typedInts(t, i32, []int{1}, 2), 0),
			ok([]int{1}, 2), fails(engine.OutOfRange), engine.RuleInt64IndicesOnly},
		{"onnx_gather_elements: int32 indices are refused", engine.Int64IndicesOnly, elems(arange(3), typedInts(t, i32, []int{1}, 2), 0),
			ok([]int{1}, 2), fails(engine.OutOfRange), engine.RuleInt64IndicesOnly},

		// negative-indices-refused (PyTorch).
		{"take along an axis: a negative index is refused", engine.NegativeIndicesRefused, take(arange(3), intTensor(t, []int{1}, -1), engine.TakeSpec{}),
			ok([]int{1}, 2), fails(engine.OutOfRange), engine.RuleNegativeIndexOut},
		{"take on the flattened input: a negative index counts from the end (torch.take)", engine.NegativeIndicesRefused, take(arange(3), intTensor(t, []int{1}, -1), engine.TakeSpec{Flatten: true}),
			ok([]int{1}, 2), ok([]int{1}, 2), ""},
		{"take: an index below -n is the reference's error", engine.NegativeIndicesRefused, take(arange(3), intTensor(t, []int{1}, -4), engine.TakeSpec{}),
			fails(engine.OutOfRange), fails(engine.OutOfRange), engine.RuleTakeOutOfBounds},
		{"take_along_axis: a negative index is refused", engine.NegativeIndicesRefused, along(arange(3), intTensor(t, []int{1}, -1), 0),
			ok([]int{1}, 2), fails(engine.OutOfRange), engine.RuleNegativeIndexOut},
		{"onnx_gather_elements: a negative index is refused", engine.NegativeIndicesRefused, elems(arange(3), intTensor(t, []int{1}, -1), 0),
			ok([]int{1}, 2), fails(engine.OutOfRange), engine.RuleNegativeIndexOut},

		// bool-as-integer (Dask).
		{"True is the integer 1", engine.BoolAsInteger, getItemBound(t, "x[True]", arange(2, 2), none),
			ok([]int{1, 2, 2}, 0, 1, 2, 3), ok([]int{2}, 2, 3), ""},
		{"False beside a slice is the integer 0", engine.BoolAsInteger, getItemBound(t, "x[:, False]", arange(2, 2), none),
			ok([]int{2, 0, 2}), ok([]int{2}, 0, 2), ""},
		{"True beside an index array is the integer 1", engine.BoolAsInteger, getItemBound(t, "x[True, [0]]", arange(2, 2), none),
			ok([]int{1, 2}, 0, 1), ok([]int{1}, 2), ""},
		{"True out of bounds for its dimension is the variant's error", engine.BoolAsInteger, getItemBound(t, "x[True]", arange(1), none),
			ok([]int{1, 1}, 0), fails(engine.OutOfRange), engine.RuleBoolAsIntegerOut},
		{"True out of bounds beside an index array is the variant's error", engine.BoolAsInteger, getItemBound(t, "x[[0], True]", arange(2, 1), none),
			ok([]int{1, 1}, 0), fails(engine.OutOfRange), engine.RuleBoolAsIntegerOut},
		{"True using one dimension too many is the variant's error", engine.BoolAsInteger, getItemBound(t, "x[0, True]", arange(2), none),
			ok([]int{1}, 0), fails(engine.OutOfRange), engine.RuleBoolAsIntegerTooMany},
		{"an integer too many beside a bool is the reference's error", engine.BoolAsInteger, getItemBound(t, "x[0, 0, True]", arange(2), none),
			fails(engine.InvalidSpec), fails(engine.InvalidSpec), engine.RuleGetItemTooManyIndices},
		{"a 0-d boolean array input stays a 0-d mask", engine.BoolAsInteger, getItemBound(t, "x[b]", arange(2), map[string]*engine.Tensor{"b": typedInts(t, engine.BoolType, []int{}, 1)}),
			ok([]int{1, 2}, 0, 1), ok([]int{1, 2}, 0, 1), ""},

		// 0d-index-array-refused (Dask).
		{"getitem: a 0-d integer array is refused", engine.ZeroDIndexArrayRefused, getItemBound(t, "x[i]", arange(3), map[string]*engine.Tensor{"i": intTensor(t, []int{}, 1)}),
			ok([]int{}, 1), fails(engine.OutOfRange), engine.Rule0DIndexArrayRefused},
		{"getitem: a 0-d boolean array is refused", engine.ZeroDIndexArrayRefused, getItemBound(t, "x[b]", arange(3), map[string]*engine.Tensor{"b": typedInts(t, engine.BoolType, []int{}, 1)}),
			ok([]int{1, 3}, 0, 1, 2), fails(engine.OutOfRange), engine.Rule0DIndexArrayRefused},
		{"getitem: a Python True is not an array input", engine.ZeroDIndexArrayRefused, getItemBound(t, "x[True]", arange(2), none),
			ok([]int{1, 2}, 0, 1), ok([]int{1, 2}, 0, 1), ""},
		{"take along the axis of a 0-d input: no variant applies", engine.NegativeIndicesRefused, take(arange(), intTensor(t, []int{1}, -1), engine.TakeSpec{}),
			ok([]int{1}, 0), ok([]int{1}, 0), ""},
		{"take: 0-d indices are refused", engine.ZeroDIndexArrayRefused, take(arange(3), intTensor(t, []int{}, 1), engine.TakeSpec{}),
			ok([]int{}, 1), fails(engine.OutOfRange), engine.Rule0DIndexArrayRefused},

		// nd-index-array-refused (Dask).
		{"getitem: a 2-d integer array is refused", engine.NDIndexArrayRefused, getItemBound(t, "x[[[0, 1]]]", arange(3), none),
			ok([]int{1, 2}, 0, 1), fails(engine.InvalidSpec), engine.RuleNDIndexArrayRefused},
		{"getitem: an empty 2-d integer array is taken", engine.NDIndexArrayRefused, getItemBound(t, "x[i]", arange(3), map[string]*engine.Tensor{"i": intTensor(t, []int{1, 0})}),
			ok([]int{1, 0}), ok([]int{1, 0}), ""},
		{"getitem: a 2-d mask is not an integer array", engine.NDIndexArrayRefused, getItemBound(t, "x[[[True, False]]]", arange(1, 2), none),
			ok([]int{1}, 0), ok([]int{1}, 0), ""},
		{"take: 2-d indices are refused", engine.NDIndexArrayRefused, take(arange(3), intTensor(t, []int{1, 2}, 0, 1), engine.TakeSpec{}),
			ok([]int{1, 2}, 0, 1), fails(engine.InvalidSpec), engine.RuleNDIndexArrayRefused},

		// one-index-array-only (Dask).
		{"two integer arrays are refused", engine.OneIndexArrayOnly, getItemBound(t, "x[[0, 1], [0, 1]]", arange(2, 2), none),
			ok([]int{2}, 0, 3), fails(engine.OutOfRange), engine.RuleOneIndexArrayOnly},
		{"a mask and an integer array are refused, before they broadcast", engine.OneIndexArrayOnly, getItemBound(t, "x[[True, True], [0, 1, 0]]", arange(2, 2), none),
			fails(engine.InvalidSpec), fails(engine.OutOfRange), engine.RuleOneIndexArrayOnly},
		{"one array beside integers is taken", engine.OneIndexArrayOnly, getItemBound(t, "x[0, [0, 1]]", arange(2, 2), none),
			ok([]int{2}, 0, 1), ok([]int{2}, 0, 1), ""},

		// integers-beside-arrays-basic (PyTorch, Dask).
		{"an array an integer separates keeps its place", engine.IntegersBesideArraysBasic, getItemBound(t, "x[0, :, [0]]", arange(1, 3, 2), none),
			ok([]int{1, 3}, 0, 2, 4), ok([]int{3, 1}, 0, 2, 4), ""},
		{"arrays only an integer separates stay adjacent", engine.IntegersBesideArraysBasic, getItemBound(t, "x[:, [0], 0, [1]]", arange(2, 2, 2, 2), none),
			ok([]int{2, 1}, 1, 9), ok([]int{2, 1}, 1, 9), ""},
		{"arrays a slice separates still go first", engine.IntegersBesideArraysBasic, getItemBound(t, "x[[0], :, [1]]", arange(2, 3, 2), none),
			ok([]int{1, 3}, 1, 3, 5), ok([]int{1, 3}, 1, 3, 5), ""},

		// gather-indices-clamped (XLA).
		{"gather_nd: a component beyond its axis is clamped to the last position", engine.GatherIndicesClamped, gatherND(arange(2, 3), intTensor(t, []int{1, 2}, 1, 5)),
			fails(engine.OutOfRange), ok([]int{1}, 5), ""},
		{"gather_nd: a negative component is clamped to 0", engine.GatherIndicesClamped, gatherND(arange(2, 3), intTensor(t, []int{1, 2}, -1, 2)),
			fails(engine.OutOfRange), ok([]int{1}, 2), ""},
		{"gather: an index beyond its axis is clamped to the last position", engine.GatherIndicesClamped, gather(arange(3), intTensor(t, []int{2}, 7, -2)),
			fails(engine.OutOfRange), ok([]int{2}, 2, 0), ""},
	}
	for _, tt := range tests {
		got, err := tt.run(engine.Rules{})
		checkResult(t, tt.rule+" (reference)", got, err, tt.ref)
		got, err = tt.run(engine.Rules{}.With(tt.variant))
		checkResult(t, tt.rule+" (under "+tt.variant.String()+")", got, err, tt.want)
		if id := engine.RuleOf(err); id != tt.wantID {
			t.Errorf("%s: raised by rule %q, want %q", tt.rule, id, tt.wantID)
		}
	}
}
