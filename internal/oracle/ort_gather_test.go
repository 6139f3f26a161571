package oracle

import (
	"testing"

	"github.com/conformsuite/conform/engine"
)

// TestORTGather pins ONNX Runtime 1.30's Gather-13 and GatherElements-13
// (CPU) on the cases the ONNX specification or ONNX Runtime's kernels
// (gather.cc, gather_elements.cc) decide, getitem with one integer index
// array as a converter writes it (Gather; shapes and values are NumPy's
// x[...]), and the ORT oracle's field rule.
func TestORTGather(t *testing.T) {
	c := startORT(t)
	checkHelloOps(t, c.Hello(), []string{"onnx_gather", "onnx_gather_elements"})
	type in = map[string]*engine.Tensor
	di := func(data, indices *engine.Tensor) in { return in{"data": data, "indices": indices} }
	ga := func(fields ...any) map[string]any { return opSpec("onnx_gather", fields...) }
	ge := func(fields ...any) map[string]any { return opSpec("onnx_gather_elements", fields...) }
	gi := func(index string) map[string]any { return opSpec("getitem", "index", index) }
	xi := func(x, i *engine.Tensor) in { return in{"x": x, "i": i} }
	a34 := arangeOf("<i4", 3, 4)
	a234 := arangeOf("<i4", 2, 3, 4)
	s22, err := engine.FromBytes(mustDType("|S2"), []int{2, 2}, []byte("abb\x00c\x00d\x00"))
	if err != nil {
		t.Fatal(err)
	}
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
		{"Gather: string data in blocks of more than one element: ONNX Runtime copies the first string of each block only (gather.cc's string path), the others stay empty",
			ga(), di(s22, i64([]int{2}, 1, 0)), libAnswer{dtype: "|S2", shape: []int{2, 2}, values: []string{`"c"`, `""`, `"ab"`, `""`}}},
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
		// getitem with one integer index array among full slices and an
		// ellipsis, as a converter writes it: Gather on the array's axis.
		// NumPy puts a single index array's dimensions where it stands,
		// which is Gather's output shape.
		{"getitem x[i]: Gather on axis 0 (NumPy: rows i)",
			gi("x[i]"), xi(a34, i64([]int{2}, 2, 0)), gotOut("<i4", []int{2, 4}, 8, 9, 10, 11, 0, 1, 2, 3)},
		{"getitem x[:, i]: Gather on axis 1, i's shape in place of the axis",
			gi("x[:, i]"), xi(a34, intTensor("<i4", []int{2, 1}, 1, 2)), gotOut("<i4", []int{3, 2, 1}, 1, 2, 5, 6, 9, 10)},
		{"getitem x[..., i]: the ellipsis covers the leading dims, Gather on the last",
			gi("x[..., i]"), xi(a234, i64([]int{2}, 3, 0)), gotOut("<i4", []int{2, 3, 2}, 3, 0, 7, 4, 11, 8, 15, 12, 19, 16, 23, 20)},
		{"getitem x[i, ...]: Gather on axis 0",
			gi("x[i, ...]"), xi(a234, i64([]int{1}, 1)), gotOut("<i4", []int{1, 3, 4}, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23)},
		{"getitem x[:, i, :]: Gather on axis 1",
			gi("x[:, i, :]"), xi(a234, i64([]int{1}, 2)), gotOut("<i4", []int{2, 1, 4}, 8, 9, 10, 11, 20, 21, 22, 23)},
		{"getitem x[[0, -1]]: an inline integer list is an int64 array",
			gi("x[[0, -1]]"), in{"x": a34}, gotOut("<i4", []int{2, 4}, 0, 1, 2, 3, 8, 9, 10, 11)},
		{"getitem x[:, [[1], [0]]]: a nested inline list keeps its shape",
			gi("x[:, [[1], [0]]]"), in{"x": a34}, gotOut("<i4", []int{3, 2, 1}, 1, 0, 5, 4, 9, 8)},
		{"getitem x[[True, 2]]: booleans among integers count as 0 and 1 (NumPy: an int64 array)",
			gi("x[[True, 2]]"), in{"x": a34}, gotOut("<i4", []int{2, 4}, 4, 5, 6, 7, 8, 9, 10, 11)},
		{"getitem x[[]]: an empty list is an empty integer array",
			gi("x[[]]"), in{"x": a34}, gotOut("<i4", []int{0, 4})},
		{"getitem negative indices count from the end once (NumPy and Gather: [-s, s-1])",
			gi("x[:, i]"), xi(a34, i64([]int{2}, -1, -4)), gotOut("<i4", []int{3, 2}, 3, 0, 7, 4, 11, 8)},
		{"getitem an index below -s is refused",
			gi("x[:, i]"), xi(a34, i64([]int{1}, -5)), gotErr(engine.OutOfRange)},
		{"getitem an index past the axis is refused",
			gi("x[i]"), xi(a34, i64([]int{2}, 0, 3)), gotErr(engine.OutOfRange)},
		{"getitem an index past the axis is refused even when the result is empty (NumPy: an empty result, unchecked)",
			gi("x[:, i]"), xi(arangeOf("<i4", 0, 2), i64([]int{1}, 5)), gotErr(engine.OutOfRange)},
		{"getitem uint8 indices are cast to int64",
			gi("x[i]"), xi(a34, intTensor("|u1", []int{2}, 1, 1)), gotOut("<i4", []int{2, 4}, 4, 5, 6, 7, 4, 5, 6, 7)},
		{"getitem a uint64 beyond int64 wraps in the cast (NumPy reads 2**64-1 as -1 too)",
			gi("x[i]"), xi(a34, intTensor("<u8", []int{1}, -1)), gotOut("<i4", []int{1, 4}, 8, 9, 10, 11)},
		{"getitem a 0-d uint64 beyond int64 wraps in the cast (NumPy: out_of_range, its OverflowError)",
			gi("x[i]"), xi(a34, intTensor("<u8", []int{}, -1)), gotOut("<i4", []int{4}, 8, 9, 10, 11)},
		{"getitem big-endian data keeps its byte order (NumPy: a copy of x's dtype)",
			gi("x[i]"), xi(arangeOf(">i8", 3), i64([]int{2}, 2, 0)), gotOut(">i8", []int{2}, 2, 0)},
		{"getitem a 0-d index on a 1-d input is NumPy's scalar rule: native byte order",
			gi("x[i]"), xi(arangeOf(">i8", 3), i64([]int{}, 2)), gotOut("<i8", []int{}, 2)},
		{"getitem a 0-d index on a 2-d input removes the axis and keeps the dtype",
			gi("x[i]"), xi(arangeOf(">i4", 3, 2), i64([]int{}, -1)), gotOut(">i4", []int{2}, 4, 5)},
		{"getitem x itself may be the index array",
			gi("x[x]"), in{"x": intTensor("<i8", []int{3}, 2, 0, 1)}, gotOut("<i8", []int{3}, 1, 2, 0)},
		{"getitem string data runs as ORT string tensors",
			gi("x[i]"), xi(stringTensor("ab", "c"), i64([]int{3}, 1, 0, 1)), libAnswer{dtype: "|S2", shape: []int{3}, values: []string{`"c"`, `"ab"`, `"c"`}}},
		{"getitem string data in blocks of more than one element: Gather's string path copies one string per block (NumPy: c, d, ab, b)",
			gi("x[i]"), xi(s22, i64([]int{2}, 1, 0)), libAnswer{dtype: "|S2", shape: []int{2, 2}, values: []string{`"c"`, `""`, `"ab"`, `""`}}},
		{"getitem more indices than dims is a conversion error (NumPy: too many indices)",
			gi("x[:, :, i]"), xi(a34, i64([]int{1}, 0)), gotErr(engine.InvalidSpec)},
		// Still skipped: not one Gather.
		{"getitem a bool array is skipped",
			gi("x[m]"), in{"x": a34, "m": intTensor("|b1", []int{3}, 1, 0, 1)}, gotSkip("advanced-index")},
		{"getitem True is skipped",
			gi("x[True]"), in{"x": a34}, gotSkip("advanced-index")},
		{"getitem an all-bool inline list is skipped (NumPy: a bool array)",
			gi("x[[True, False, True]]"), in{"x": a34}, gotSkip("advanced-index")},
		{"getitem two index arrays are skipped",
			gi("x[i, j]"), in{"x": a34, "i": i64([]int{1}, 0), "j": i64([]int{1}, 1)}, gotSkip("advanced-index")},
		{"getitem an array and an inline list are skipped",
			gi("x[i, [1]]"), xi(a34, i64([]int{1}, 0)), gotSkip("advanced-index")},
		{"getitem an array with an integer is skipped",
			gi("x[i, 1]"), xi(a34, i64([]int{1}, 0)), gotSkip("advanced-index")},
		{"getitem an array with a partial slice is skipped",
			gi("x[1:, i]"), xi(a34, i64([]int{1}, 0)), gotSkip("advanced-index")},
		{"getitem an array with a new axis is skipped",
			gi("x[None, i]"), xi(a34, i64([]int{1}, 0)), gotSkip("advanced-index")},
		{"getitem a float array is skipped (NumPy: invalid_spec)",
			gi("x[i]"), xi(a34, npFloatTensorOf("<f4", []int{1}, 0)), gotSkip("advanced-index")},
		{"getitem an inline list beyond int64 is skipped (NumPy: uint64)",
			gi("x[[18446744073709551615]]"), in{"x": a34}, gotSkip("advanced-index")},
		{"getitem a ragged inline list is skipped (NumPy: invalid_spec)",
			gi("x[[[0], 1]]"), in{"x": a34}, gotSkip("advanced-index")},
		// The field rule.
		{"a field of another op is bad_input (batch_dims on Gather)",
			ga("batch_dims", 0), di(a34, i64([]int{1}, 0)), gotErr(engine.BadInput)},
		{"a field of another op is bad_input (axis on Slice)",
			opSpec("onnx_slice", "starts", []int64{0}, "ends", []int64{1}, "axis", 0), in{"data": a34}, gotErr(engine.BadInput)},
		{"a field of another op is bad_input (mode on tf.slice)",
			opSpec("slice", "begin", []int64{0, 0}, "size", []int64{1, 1}, "mode", "clip"), in{"x": a34}, gotErr(engine.BadInput)},
	}
	runLibCases(t, c, tests)
}
