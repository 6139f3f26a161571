package oracle

import (
	"testing"

	"github.com/conformsuite/conform/engine"
)

// TestORTGather pins ONNX Runtime 1.30's Gather-13 and GatherElements-13
// (CPU) on the cases the ONNX specification or ONNX Runtime's kernels
// (gather.cc, gather_elements.cc) decide, and the ORT oracle's field rule.
func TestORTGather(t *testing.T) {
	c := startORT(t)
	checkHelloOps(t, c.Hello(), []string{"onnx_gather", "onnx_gather_elements"})
	type in = map[string]*engine.Tensor
	di := func(data, indices *engine.Tensor) in { return in{"data": data, "indices": indices} }
	spec := func(op string, fields ...any) map[string]any {
		s := map[string]any{"op": op}
		for i := 0; i+1 < len(fields); i += 2 {
			s[fields[i].(string)] = fields[i+1]
		}
		return s
	}
	ga := func(fields ...any) map[string]any { return spec("onnx_gather", fields...) }
	ge := func(fields ...any) map[string]any { return spec("onnx_gather_elements", fields...) }
	a34 := arangeOf("<i4", 3, 4)
	i64 := func(shape []int, v ...int64) *engine.Tensor { return intTensor("<i8", shape, v...) }
	tests := []libCase{
		// Gather-13
		{"Gather: rows by int64 indices (axis 0 by default)",
			ga(), di(a34, i64([]int{2}, 2, 0)), gotOut("<i4", []int{2, 4}, 8, 9, 10, 11, 0, 1, 2, 3)},
		{"Gather: negative indices wrap once (ONNX: [-s, s-1])",
			ga("axis", 1), di(a34, i64([]int{2}, -1, -4)), gotOut("<i4", []int{3, 2}, 3, 0, 7, 4, 11, 8)},
		{"Gather: output shape data.shape[:axis] + indices.shape + data.shape[axis+1:]",
			ga("axis", 1), di(a34, i64([]int{2, 1}, 1, 2)), gotOut("<i4", []int{3, 2, 1}, 1, 2, 5, 6, 9, 10)},
		{"Gather: 0-d indices remove the axis",
			ga("axis", -1), di(a34, i64([]int{}, 1)), gotOut("<i4", []int{3}, 1, 5, 9)},
		{"Gather: an index past the axis is refused",
			ga("axis", 1), di(a34, i64([]int{1}, 4)), gotErr(engine.OutOfRange)},
		{"Gather: an index below -s is refused",
			ga("axis", 1), di(a34, i64([]int{1}, -5)), gotErr(engine.OutOfRange)},
		{"Gather: int32 indices are accepted (Tind is int32 or int64 in Gather-13)",
			ga(), di(a34, intTensor("<i4", []int{2}, -1, 2)), gotOut("<i4", []int{2, 4}, 8, 9, 10, 11, 8, 9, 10, 11)},
		{"Gather: int16 indices are refused when the model loads",
			ga(), di(a34, intTensor("<i2", []int{1}, 1)), gotErr(engine.BadInput)},
		{"Gather: uint64 indices are refused when the model loads",
			ga(), di(a34, intTensor("<u8", []int{1}, 1)), gotErr(engine.BadInput)},
		{"Gather: bool indices are refused when the model loads",
			ga(), di(a34, intTensor("|b1", []int{1}, 1)), gotErr(engine.BadInput)},
		{"Gather: an axis outside [-r, r-1] is refused (shape inference)",
			ga("axis", 2), di(a34, i64([]int{1}, 0)), gotErr(engine.InvalidSpec)},
		{"Gather: an axis beyond int32 is refused when run",
			ga("axis", int64(1)<<40), di(a34, i64([]int{1}, 0)), gotErr(engine.InvalidSpec)},
		{"Gather: rank-0 data is refused (rank >= 1)",
			ga(), di(arangeOf("<i4"), i64([]int{}, 0)), gotErr(engine.InvalidSpec)},
		{"Gather: an index into an empty axis is refused",
			ga(), di(arangeOf("<i4", 0, 2), i64([]int{1}, 0)), gotErr(engine.OutOfRange)},
		{"Gather: an index past the axis is refused even when the slices are empty",
			ga(), di(arangeOf("<i4", 2, 0), i64([]int{1}, 5)), gotErr(engine.OutOfRange)},
		{"Gather: no indices on an empty axis: an empty result",
			ga(), di(arangeOf("<i4", 0, 2), i64([]int{0})), gotOut("<i4", []int{0, 2})},
		{"Gather: big-endian data is swapped in and out",
			ga(), di(arangeOf(">i8", 3), i64([]int{2}, 2, 0)), gotOut(">i8", []int{2}, 2, 0)},
		{"Gather: string data runs as ORT string tensors",
			ga(), di(stringTensor("ab", "c"), i64([]int{3}, 1, 0, 1)), libAnswer{dtype: "|S2", shape: []int{3}, values: []string{`"c"`, `"ab"`, `"c"`}}},
		// GatherElements-13
		{"GatherElements: out[i][j] = data[indices[i][j]][j] on axis 0",
			ge(), di(a34, i64([]int{2, 2}, 0, 1, 2, 0)), gotOut("<i4", []int{2, 2}, 0, 5, 8, 1)},
		{"GatherElements: negative indices wrap once",
			ge("axis", 1), di(a34, i64([]int{2, 2}, 0, -1, 3, 0)), gotOut("<i4", []int{2, 2}, 0, 3, 7, 4)},
		{"GatherElements: indices.shape[axis] may exceed data.shape[axis]",
			ge("axis", 1), di(a34, i64([]int{1, 5}, 0, 1, 2, 3, 0)), gotOut("<i4", []int{1, 5}, 0, 1, 2, 3, 0)},
		{"GatherElements: indices.shape[d] beyond data.shape[d] off the axis is refused",
			ge("axis", 1), di(a34, i64([]int{4, 1}, 0, 1, 2, 0)), gotErr(engine.InvalidSpec)},
		{"GatherElements: an index past the axis is refused",
			ge("axis", 1), di(a34, i64([]int{1, 2}, 0, 4)), gotErr(engine.OutOfRange)},
		{"GatherElements: an index below -s is refused",
			ge("axis", 1), di(a34, i64([]int{1, 2}, 0, -5)), gotErr(engine.OutOfRange)},
		{"GatherElements: ranks of data and indices must be equal",
			ge(), di(a34, i64([]int{2}, 0, 1)), gotErr(engine.InvalidSpec)},
		{"GatherElements: rank-0 data: no axis is in range",
			ge(), di(arangeOf("<i4"), i64([]int{}, 0)), gotErr(engine.InvalidSpec)},
		{"GatherElements: an axis outside [-r, r-1] is refused",
			ge("axis", 2), di(a34, intTensor("<i4", []int{1, 1}, 1)), gotErr(engine.InvalidSpec)},
		{"GatherElements: int16 indices are refused when the model loads",
			ge(), di(a34, intTensor("<i2", []int{1, 1}, 1)), gotErr(engine.BadInput)},
		{"GatherElements: empty indices: an empty result",
			ge(), di(a34, i64([]int{0, 4})), gotOut("<i4", []int{0, 4})},
		{"GatherElements: an index into an empty axis is refused",
			ge("axis", 1), di(arangeOf("<i4", 2, 0), i64([]int{2, 1}, 0, 0)), gotErr(engine.OutOfRange)},
		// The field rule.
		{"a field of another op is bad_input (batch_dims on Gather)",
			ga("batch_dims", 0), di(a34, i64([]int{1}, 0)), gotErr(engine.BadInput)},
		{"a field of another op is bad_input (axis on Slice)",
			spec("onnx_slice", "starts", []int64{0}, "ends", []int64{1}, "axis", 0), in{"data": a34}, gotErr(engine.BadInput)},
		{"a field of another op is bad_input (mode on tf.slice)",
			spec("slice", "begin", []int64{0, 0}, "size", []int64{1, 1}, "mode", "clip"), in{"x": a34}, gotErr(engine.BadInput)},
	}
	runLibCases(t, c, tests)
}
