package oracle

import (
	"testing"

	"github.com/conformsuite/conform/engine"
)

// TestTFLiteGather pins TFLite's GATHER kernel (gather.cc of the build in
// tfjs-tflite 0.0.1-alpha.10) on tf.gather cases, each with the rule it
// shows; the answers were confirmed by running the kernel.
func TestTFLiteGather(t *testing.T) {
	requireOracle(t, "CONFORM_REQUIRE_TFLITE", haveTFLite(), tfliteMissing)
	c := startOracle(t, "tflite")
	checkHelloOps(t, c.Hello(), []string{"gather"})
	type in = map[string]*engine.Tensor
	pi := func(params, indices *engine.Tensor) in { return in{"params": params, "indices": indices} }
	g := func(fields ...any) map[string]any { return opSpec("gather", fields...) }
	a34 := arangeOf("<i4", 3, 4)
	i32 := func(shape []int, v ...int64) *engine.Tensor { return intTensor("<i4", shape, v...) }
	tests := []libCase{
		{"rows of a matrix (axis 0 by default)",
			g(), pi(a34, i32([]int{2}, 2, 0)), gotOut("<i4", []int{2, 4}, 8, 9, 10, 11, 0, 1, 2, 3)},
		{"axis 1, and a negative axis counts from the rank",
			g("axis", -1), pi(a34, i32([]int{2}, 3, 0)), gotOut("<i4", []int{3, 2}, 3, 0, 7, 4, 11, 8)},
		{"0-d indices remove the axis",
			g(), pi(a34, i32([]int{}, 2)), gotOut("<i4", []int{4}, 8, 9, 10, 11)},
		{"int64 indices run (as int32 values: one kernel template for both)",
			g(), pi(a34, intTensor(">i8", []int{1}, 1)), gotOut("<i4", []int{1, 4}, 4, 5, 6, 7)},
		{"an index value beyond int32 is not run",
			g(), pi(a34, intTensor("<i8", []int{1}, 1<<40)), gotSkip("int32-limit")},
		{"an index past the axis is refused in Invoke",
			g("axis", 1), pi(a34, i32([]int{1}, 4)), gotErr(engine.OutOfRange)},
		{"a negative index is refused in Invoke, not wrapped",
			g(), pi(a34, i32([]int{1}, -1)), gotErr(engine.OutOfRange)},
		{"TFLite checks no index past the axis when the slices are empty: index 5 on an axis of 2 (TF: out_of_range)",
			g(), pi(arangeOf("<i4", 2, 0), i32([]int{1}, 5)), gotOut("<i4", []int{1, 0})},
		{"nor when the outer dims are empty: index 7 on an axis of 3 (TF: out_of_range)",
			g("axis", 1), pi(arangeOf("<i4", 0, 3), i32([]int{1}, 7)), gotOut("<i4", []int{0, 1})},
		{"a negative index is refused even when the output is empty",
			g(), pi(arangeOf("<i4", 2, 0), i32([]int{1}, -1)), gotErr(engine.OutOfRange)},
		{"an index into an empty axis with a non-empty slice is refused",
			g(), pi(arangeOf("<i4", 0, 4), i32([]int{1}, 0)), gotErr(engine.OutOfRange)},
		{"bad_indices \"zero\" with every index in range runs",
			g("bad_indices", "zero"), pi(a34, i32([]int{1}, 1)), gotOut("<i4", []int{1, 4}, 4, 5, 6, 7)},
		{"bad_indices \"zero\" with an index out of range: GATHER has no zero-filling mode",
			g("bad_indices", "zero"), pi(a34, i32([]int{1}, 3)), gotSkip("unsupported-spec")},
		{"an axis outside [-rank, rank) is refused in Prepare",
			g("axis", 2), pi(a34, i32([]int{1}, 0)), gotErr(engine.InvalidSpec)},
		{"rank-0 params: no axis is in range",
			g(), pi(arangeOf("<i4"), i32([]int{1}, 0)), gotErr(engine.InvalidSpec)},
		{"batch_dims 1 on axis 1",
			g("axis", 1, "batch_dims", 1), pi(a34, i32([]int{3, 2}, 1, 0, 2, 3, 0, 0)), gotOut("<i4", []int{3, 2}, 1, 0, 6, 7, 8, 8)},
		{"a negative batch_dims counts from the indices' rank",
			g("axis", 1, "batch_dims", -1), pi(a34, i32([]int{3, 2}, 1, 0, 2, 3, 0, 0)), gotOut("<i4", []int{3, 2}, 1, 0, 6, 7, 8, 8)},
		{"batch dims of params and indices must match",
			g("axis", 1, "batch_dims", 1), pi(a34, i32([]int{2, 2}, 1, 0, 2, 3)), gotErr(engine.InvalidSpec)},
		{"batch_dims > axis is refused in Prepare, before any index is read",
			g("axis", 0, "batch_dims", 1), pi(a34, i32([]int{3, 2}, 1, 0, 2, 3, 0, 0)), gotErr(engine.InvalidSpec)},
		{"batch_dims below -rank(indices) is refused",
			g("axis", 1, "batch_dims", -3), pi(a34, i32([]int{3, 2}, 0, 0, 0, 0, 0, 0)), gotErr(engine.InvalidSpec)},
		{"int16 indices are refused in Prepare (this build takes int32 and int64 positions)",
			g(), pi(a34, intTensor("<i2", []int{1}, 1)), gotErr(engine.BadInput)},
		{"uint8 indices are refused in Prepare",
			g(), pi(a34, intTensor("|u1", []int{1}, 1)), gotErr(engine.BadInput)},
		{"uint64 indices are refused in Prepare",
			g(), pi(a34, intTensor("<u8", []int{1}, 1)), gotErr(engine.BadInput)},
		{"bool indices are refused in Prepare",
			g(), pi(a34, intTensor("|b1", []int{1}, 1)), gotErr(engine.BadInput)},
		{"float indices are refused in Prepare",
			g(), pi(a34, g0f32()), gotErr(engine.BadInput)},
		{"bool params run for real",
			g(), pi(intTensor("|b1", []int{3}, 1, 0, 1), i32([]int{2}, 1, 2)), libAnswer{dtype: "|b1", shape: []int{2}, values: []string{"false", "true"}}},
		{"int64 params run as element positions; big-endian bytes come back untouched",
			g(), pi(arangeOf(">i8", 4), i32([]int{2}, 3, 1)), gotOut(">i8", []int{2}, 3, 1)},
		{"rank 6 params: GATHER has no rank limit",
			g("axis", 5), pi(arangeOf("<i4", 1, 1, 1, 1, 1, 2), i32([]int{1}, 1)), gotOut("<i4", []int{1, 1, 1, 1, 1, 1}, 1)},
		{"float64 params: GATHER has no such kernel",
			g(), pi(engineZeros("<f8", 2), i32([]int{1}, 0)), gotSkip("unsupported-dtype")},
		{"string params: GATHER has them, the web API cannot feed them",
			g(), pi(stringTensor("ab", "c"), i32([]int{1}, 0)), gotSkip("unsupported-dtype")},
		{"a field of another op is bad_input",
			g("starts", []int64{0}), pi(a34, i32([]int{1}, 0)), gotErr(engine.BadInput)},
	}
	runLibCases(t, c, tests)
}

// engineZeros is a tensor of dtype dt and shape, all zero bytes.
func engineZeros(dt string, shape ...int) *engine.Tensor {
	d := mustDType(dt)
	t, err := engine.FromBytes(d, shape, make([]byte, d.Size*engine.NumElements(shape)))
	if err != nil {
		panic(err)
	}
	return t
}
