package engine_test

import (
	"bytes"
	"math"
	"math/rand"
	"testing"

	"github.com/conformsuite/conform/engine"
)

// TestGatherVariants has one row per rule of the gather variants, each
// with a small case under the variant and without it.
func TestGatherVariants(t *testing.T) {
	wrap := engine.Rules{}.With(engine.NegativeGatherIndicesWrap)
	flat := engine.Rules{}.With(engine.GatherFlatBounds)
	both := wrap.With(engine.GatherFlatBounds)
	const onnx = "onnx"     // op: ONNX GatherND; otherwise gather_nd
	const gather = "gather" // op: tf.gather along axis batchDims
	tests := []struct {
		rule       string
		op         string
		r          engine.Rules
		params     []int // arange of this shape
		indexShape []int
		index      []int64
		batchDims  int
		policy     engine.BadIndexPolicy
		want       result
	}{
		// params arange(2, 3): [[0, 1, 2], [3, 4, 5]].
		{"the reference: a negative index is out of range", "", engine.Rules{}, []int{2, 3}, []int{1, 2}, []int64{0, -1}, 0, "error", fails(engine.OutOfRange)},
		{"wrap: -1 counts from the end of its axis", "", wrap, []int{2, 3}, []int{1, 2}, []int64{0, -1}, 0, "error", ok([]int{1}, 2)},
		{"wrap: -dim is the axis' first position", "", wrap, []int{2, 3}, []int{1, 2}, []int64{-2, 0}, 0, "error", ok([]int{1}, 0)},
		{"wrap: below -dim is still out of range", "", wrap, []int{2, 3}, []int{1, 2}, []int64{0, -4}, 0, "error", fails(engine.OutOfRange)},
		{"wrap: dim is still out of range", "", wrap, []int{2, 3}, []int{1, 2}, []int64{0, 3}, 0, "error", fails(engine.OutOfRange)},
		{"wrap: a wrapped row selects a slice at partial depth", "", wrap, []int{2, 3}, []int{1, 1}, []int64{-1}, 0, "error", ok([]int{1, 3}, 3, 4, 5)},
		{"wrap: with bad_indices zero a row still outside is zeros", "", wrap, []int{2, 3}, []int{2, 2}, []int64{-1, -1, 0, -4}, 0, "zero", ok([]int{2}, 5, 0)},
		{"the reference: a component beyond its axis is out of range", "", engine.Rules{}, []int{2, 3}, []int{1, 2}, []int64{0, 4}, 0, "error", fails(engine.OutOfRange)},
		{"flat: a component beyond its axis reads where its offset lands", "", flat, []int{2, 3}, []int{1, 2}, []int64{0, 4}, 0, "error", ok([]int{1}, 4)},
		{"flat: a negative component whose offset is inside reads there", "", flat, []int{2, 3}, []int{1, 2}, []int64{1, -1}, 0, "error", ok([]int{1}, 2)},
		{"flat: an offset before params is out of range", "", flat, []int{2, 3}, []int{1, 2}, []int64{0, -1}, 0, "error", fails(engine.OutOfRange)},
		{"flat: an offset at the number of elements is out of range", "", flat, []int{2, 3}, []int{1, 2}, []int64{1, 3}, 0, "error", fails(engine.OutOfRange)},
		{"flat: at partial depth the whole block must be inside", "", flat, []int{3, 2}, []int{2, 1}, []int64{2, 3}, 0, "error", fails(engine.OutOfRange)},
		{"flat: with bad_indices zero a row outside by offset is zeros", "", flat, []int{2, 3}, []int{2, 2}, []int64{1, 3, 0, 4}, 0, "zero", ok([]int{2}, 0, 4)},
		{"flat: the offset is checked within the batch entry, not all of params", "", flat, []int{2, 3}, []int{2, 1}, []int64{3, 0}, 1, "error", fails(engine.OutOfRange)},
		{"flat: within its batch entry a too-large component reads there", "", flat, []int{2, 2, 2}, []int{2, 1, 2}, []int64{0, 3, 0, 2}, 1, "error", ok([]int{2, 1}, 3, 6)},
		{"flat: the offset is exact, int64 terms that overflow and cancel land inside", "", flat, []int{2, 3, 1}, []int{1, 3}, []int64{1 << 62, -(1 << 62), math.MinInt64 + 4}, 0, "error", ok([]int{1}, 4)},
		{"flat: params with no elements are still out of range (TF's rule first)", "", flat, []int{2, 0}, []int{1, 1}, []int64{0}, 0, "error", fails(engine.OutOfRange)},
		{"wrap and flat: components wrap first, then the offset is checked", "", both, []int{2, 3}, []int{1, 2}, []int64{0, -1}, 0, "error", ok([]int{1}, 2)},
		{"ONNX: negative indices wrap in the reference (gather_nd's wrap rule)", onnx, engine.Rules{}, []int{2, 3}, []int{1, 2}, []int64{0, -1}, 0, "", ok([]int{1}, 2)},
		{"ONNX: a component beyond its axis is out of range in the reference", onnx, engine.Rules{}, []int{2, 3}, []int{1, 2}, []int64{0, 3}, 0, "", fails(engine.OutOfRange)},
		{"ONNX flat: a component beyond its axis reads where its offset lands", onnx, flat, []int{2, 3}, []int{1, 2}, []int64{0, 3}, 0, "", ok([]int{1}, 3)},
		{"ONNX flat: a component below -dim wraps once and is read by its offset", onnx, flat, []int{2, 3}, []int{1, 2}, []int64{1, -4}, 0, "", ok([]int{1}, 2)},
		{"ONNX flat: an offset before data is out of range", onnx, flat, []int{2, 3}, []int{1, 2}, []int64{0, -4}, 0, "", fails(engine.OutOfRange)},
		{"ONNX: on data with no elements a component beyond its axis is out of range", onnx, engine.Rules{}, []int{2, 0}, []int{1, 1}, []int64{5}, 0, "", fails(engine.OutOfRange)},
		{"ONNX flat: an empty block is inside whatever the row (offset + block <= size)", onnx, flat, []int{2, 0}, []int{1, 1}, []int64{5}, 0, "", ok([]int{1, 0})},
		// tf.gather with batch_dims 1 along axis 1 of arange(2, 3).
		{"gather: an index beyond its axis is out of range in the reference", gather, engine.Rules{}, []int{2, 3}, []int{2, 1}, []int64{3, 0}, 1, "error", fails(engine.OutOfRange)},
		{"gather flat: an index beyond its axis reads where its offset into params lands, in another batch entry", gather, flat, []int{2, 3}, []int{2, 1}, []int64{3, 0}, 1, "error", ok([]int{2, 1}, 3, 3)},
		{"gather flat: an offset past params is out of range", gather, flat, []int{2, 3}, []int{2, 1}, []int64{0, 3}, 1, "error", fails(engine.OutOfRange)},
		{"gather flat: a negative index is out of range", gather, flat, []int{2, 3}, []int{2, 1}, []int64{-1, 0}, 1, "error", fails(engine.OutOfRange)},
		{"gather flat: with bad_indices zero an offset past params is zeros", gather, flat, []int{2, 3}, []int{2, 1}, []int64{3, 3}, 1, "zero", ok([]int{2, 1}, 3, 0)},
	}
	for _, tt := range tests {
		params := arange(tt.params...)
		indices := intTensor(t, tt.indexShape, tt.index...)
		var got *engine.Tensor
		var err error
		switch tt.op {
		case onnx:
			got, err = engine.ONNXGatherNDUnder(params, indices, tt.batchDims, tt.r)
		case gather:
			got, err = engine.GatherUnder(params, indices, engine.GatherSpec{Axis: tt.batchDims, BatchDims: tt.batchDims, BadIndices: tt.policy}, tt.r)
		default:
			got, err = engine.GatherNDUnder(params, indices, tt.batchDims, tt.policy, tt.r)
		}
		checkResult(t, tt.rule, got, err, tt.want)
	}
}

// TestGatherVariantsIndexDTypes checks the variants on index dtypes other
// than little-endian int64, which take another path.
func TestGatherVariantsIndexDTypes(t *testing.T) {
	params := arange(2, 3)
	wrap := engine.Rules{}.With(engine.NegativeGatherIndicesWrap)
	flat := engine.Rules{}.With(engine.GatherFlatBounds)
	i32, _ := engine.ParseDType(">i4")
	minus1, _ := engine.FromBytes(i32, []int{1, 2}, []byte{0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff}) // [[1, -1]]
	got, err := engine.GatherNDUnder(params, minus1, 0, engine.BadIndexError, wrap)
	checkResult(t, "wrap: a big-endian int32 -1 counts from the end", got, err, ok([]int{1}, 5))
	got, err = engine.GatherNDUnder(params, minus1, 0, engine.BadIndexError, flat)
	checkResult(t, "flat: a big-endian int32 -1 reads at offset 3 - 1", got, err, ok([]int{1}, 2))
	huge, _ := engine.FromBytes(engine.Uint64Type, []int{1, 1}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	for _, r := range []engine.Rules{wrap, flat} {
		got, err = engine.GatherNDUnder(arange(4), huge, 0, engine.BadIndexError, r)
		checkResult(t, r.String()+": a uint64 index beyond int64 is out of range, never -1", got, err, fails(engine.OutOfRange))
	}
}

// TestGatherVariantsAgreeInRange checks that on index rows inside params
// (every component in [0, dim)) the variants give the reference's result,
// over many rows (several gather batches, in parallel) and random shapes.
func TestGatherVariantsAgreeInRange(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	variants := []engine.Rules{
		engine.Rules{}.With(engine.NegativeGatherIndicesWrap),
		engine.Rules{}.With(engine.GatherFlatBounds),
		engine.Rules{}.With(engine.NegativeGatherIndicesWrap).With(engine.GatherFlatBounds),
	}
	for n := 0; n < 50; n++ {
		rank := 1 + rng.Intn(4)
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = 1 + rng.Intn(5)
		}
		batchDims := rng.Intn(rank)
		depth := rng.Intn(rank - batchDims + 1)
		rows := 1 + rng.Intn(2000)
		indexShape := append(append([]int{}, shape[:batchDims]...), rows, depth)
		index := make([]int64, engine.NumElements(indexShape))
		for i := range index {
			index[i] = int64(rng.Intn(shape[batchDims+i%max(depth, 1)]))
		}
		params, indices := arange(shape...), intTensor(t, indexShape, index...)
		want, err := engine.GatherND(params, indices, batchDims, engine.BadIndexError)
		if err != nil {
			t.Fatalf("shape %v, batch_dims %d, indices %v: %v", shape, batchDims, indexShape, err)
		}
		for _, r := range variants {
			got, err := engine.GatherNDUnder(params, indices, batchDims, engine.BadIndexError, r)
			if err != nil || !bytes.Equal(got.Bytes(), want.Bytes()) {
				t.Errorf("%s: shape %v, batch_dims %d, indices %v: differs from the reference (%v)", r, shape, batchDims, indexShape, err)
			}
		}
	}
}
