package gen

import (
	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

func init() {
	register(casefile.OpGather, GatherCase())
	register(casefile.OpONNXGather, ONNXGatherCase())
	register(casefile.OpONNXGatherElements, ONNXGatherElementsCase())
}

// gatherIndexDTypes: tf.gather takes int32 and int64 (GatherV2's
// Tindices, engine.TFGatherIndexDType); other dtypes are bad_input.
var gatherIndexDTypes = int32Or64IndexDTypes

// onnxGatherIndexDTypes: the ONNX gathers take int32 and int64 (Tind of
// Gather-13 and GatherElements-13); other dtypes are bad_input.
var onnxGatherIndexDTypes = int32Or64IndexDTypes

// int32Or64IndexDTypes draws mostly int64 and int32 indices, rarely
// another dtype, for the ops that take only those two.
var int32Or64IndexDTypes = []weightedDType{
	{engine.Int64Type, 800},
	{engine.Int32Type, 160},
	{engine.Uint64Type, 10},
	{engine.Int8Type, 8},
	{engine.Uint8Type, 5},
	{engine.Int16Type, 5},
	{engine.BoolType, 12},
}

// Rates of gather faults and features, per mille.
const (
	gatherScalarParamsPerMille = 15  // rank-0 params: invalid_spec
	gatherBatchMismatchPerMil  = 20  // batch dimensions that differ
	gatherBadPerMille          = 120 // out-of-range indices (negative ones included)
)

// gather batch_dims categories.
const (
	gatherBatchZero     = iota // 0
	gatherBatchPositive        // 1 .. rank(params)-1
	gatherBatchNegative        // the same, written as b - rank(indices)
	gatherBatchBad             // beyond rank(indices), below -rank(indices), or above the axis
)

var gatherBatchWeights = []int{620, 240, 100, 40}

// gather axis categories (those of take, without null): omitted (the
// axis is batch_dims, as in tf.gather), non-negative, negative, out of
// range.
var gatherAxisWeights = []int{300, 0, 390, 280, 30}

// GatherCase returns a generator of gather cases (tf.gather). params has
// any dtype, rank 1 to 4 (rarely 0) and at most 48 elements, sometimes
// with a zero dimension. batch_dims is 0 mostly, otherwise a valid value
// written non-negative or negative (counted from rank(indices)), rarely
// out of range or above the axis. The axis is at or after batch_dims,
// non-negative or negative, rarely out of range, or omitted (tf.gather's
// default: batch_dims as written, so that a negative batch_dims gives a
// negative axis). indices starts with params' batch dimensions (rarely
// differing) and has 0 to 3 more, sometimes of size 0; its dtype is any
// integer type in either byte order, rarely bool (refused). Indices are
// in [0, n) except in about one case in eight, which has negative or too
// large ones. "bad_indices" is omitted, "error" or "zero".
func GatherCase() *rapid.Generator[*casefile.Case] {
	return rapid.Custom(func(t *rapid.T) *casefile.Case { m, _ := drawGather(t); return m })
}

func drawGather(t *rapid.T) (*casefile.Case, engine.ErrorKind) {
	var shape []int
	if !chance(t, "scalar params", gatherScalarParamsPerMille) {
		shape = drawDataShape(t, 1, 4)
	}
	params := tensorOf(t, drawDType, shape)
	r := len(shape)

	bcat := pick(t, "batch_dims", gatherBatchWeights...)
	b := 0
	if (bcat == gatherBatchPositive || bcat == gatherBatchNegative) && r > 1 {
		b = 1 + offset(t, "batch_dims", 7)%(r-1)
	}
	// The axis: at or after b.
	acat := pick(t, "axis", gatherAxisWeights...)
	axis := b
	if r > b && acat != axisOmitted {
		axis = b + offset(t, "axis", 7)%(r-b)
	}
	axisValue := int64(axis)
	switch acat {
	case axisNegative:
		axisValue -= int64(r)
	case axisBad:
		_, axisValue = drawAxisValue(t, axisBad, r)
	}

	nb := min(b, r)
	ishape := append([]int{}, shape[:nb]...)
	if nb > 0 && chance(t, "batch mismatch", gatherBatchMismatchPerMil) {
		ishape[offset(t, "mismatch at", 7)%nb]++
	}
	ishape = append(ishape, drawIndexShape(t, pick(t, "indices rank", indexRankWeights...), smallIndexBudget)...)
	q := len(ishape)
	bValue := int64(b)
	switch bcat {
	case gatherBatchNegative:
		if b < q {
			bValue = int64(b - q)
		}
	case gatherBatchBad:
		switch pick(t, "bad batch_dims", 40, 30, 30) {
		case 0:
			bValue = int64(q + 1 + offset(t, "beyond", 1))
		case 1:
			bValue = int64(-q - 1)
		default:
			// Above the axis (or, on rank-1 params, as large as the rank).
			bValue = int64(axis + 1)
		}
	}
	if acat == axisOmitted {
		axisValue = bValue
	}

	idt := drawWeightedDType(t, gatherIndexDTypes)
	n := 0
	if axis < r {
		n = shape[axis]
	}
	values := drawIndexValues(t, engine.NumElements(ishape), n, idt, false, chance(t, "bad indices", gatherBadPerMille))
	indices := newTensor(idt, ishape, encodeIndices(idt, values))

	spec := map[string]any{"op": casefile.OpGather}
	if acat != axisOmitted {
		spec["axis"] = axisValue
	}
	if bValue != 0 || chance(t, "explicit batch_dims", 300) {
		spec["batch_dims"] = bValue
	}
	policy := engine.BadIndexError
	switch pick(t, "bad_indices", badIndicesWeights...) {
	case 1:
		spec["bad_indices"] = string(engine.BadIndexError)
	case 2:
		spec["bad_indices"] = string(engine.BadIndexZero)
		policy = engine.BadIndexZero
	}
	return casefile.New(spec, map[string]*engine.Tensor{"params": params, "indices": indices}), gatherOutcome(params, indices, values, axisValue, bValue, policy)
}

// gatherOutcome returns the outcome of tf.gather as the engine defines
// it: "" for a result, or the error kind. values are the indices as
// drawn.
func gatherOutcome(params, indices *engine.Tensor, values []int64, axis, b int64, policy engine.BadIndexPolicy) engine.ErrorKind {
	if !engine.TFGatherIndexDType(indices.DType) {
		return engine.BadInput
	}
	r, q := int64(params.Rank()), int64(indices.Rank())
	if b < 0 {
		b += q
	}
	if axis < 0 {
		axis += r
	}
	switch {
	case r == 0, b < 0, b > q, axis < 0, axis >= r, b > axis:
		return engine.InvalidSpec
	}
	for k := int64(0); k < b; k++ {
		if params.Shape[k] != indices.Shape[k] {
			return engine.InvalidSpec
		}
	}
	out := append(append(append([]int{}, params.Shape[:axis]...), indices.Shape[b:]...), params.Shape[axis+1:]...)
	switch {
	case engine.NumElements(out) == 0 || len(values) == 0:
	// No "params is empty" rule (GatherV2 has none): on an empty gathered
	// axis every index is outside [0, 0).
	case policy == engine.BadIndexError && anyOutside(indices.DType, values, 0, int64(params.Shape[axis])):
		return engine.OutOfRange
	}
	return ""
}

// Rates of onnx_gather and onnx_gather_elements faults and features, per
// mille.
const (
	onnxGatherScalarDataPerMille = 12  // rank-0 data: invalid_spec
	onnxGatherBadPerMille        = 100 // out-of-range indices
	onnxElementsRankPerMille     = 20  // indices of another rank than data
	onnxElementsShapePerMille    = 25  // indices larger than data on a dimension other than the axis
	onnxElementsSmallerPerMille  = 350 // a dimension other than the axis smaller than data's
)

// onnxGatherAxisWeights: omitted (0), non-negative, negative, out of range.
var onnxGatherAxisWeights = []int{250, 0, 430, 290, 30}

// drawONNXAxis draws the axis of an ONNX gather on data of rank r: the
// axis (-1 if out of range) and the spec field (omitted: axis 0).
func drawONNXAxis(t *rapid.T, spec map[string]any, r int) int {
	cat := pick(t, "axis", onnxGatherAxisWeights...)
	if cat == axisOmitted {
		if r == 0 {
			return -1
		}
		return 0
	}
	axis, value := drawAxisValue(t, cat, r)
	spec["axis"] = value
	return axis
}

// plan records the error kind a generator plans a case to give: the
// first that fail is told of ("" for an output).
type plan struct{ want engine.ErrorKind }

func (p *plan) fail(k engine.ErrorKind) {
	if p.want == "" {
		p.want = k
	}
}

// onnxGatherHead is what both ONNX gathers draw first: data, the spec with
// its axis, the index dtype, and the plan.
type onnxGatherHead struct {
	plan
	shape []int
	data  *engine.Tensor
	spec  map[string]any
	idt   engine.DType
	axis  int
}

// drawONNXGatherHead draws the data, index dtype and axis of an ONNX
// withIndices draws the indices of shape ishape, in [-s, s) unless the
// case is drawn with bad indices, and returns the case and its planned
// outcome: out_of_range if an index is outside.
func (h *onnxGatherHead) withIndices(t *rapid.T, ishape []int, s int) (*casefile.Case, engine.ErrorKind) {
	values := drawIndexValues(t, engine.NumElements(ishape), s, h.idt, true, chance(t, "bad indices", onnxGatherBadPerMille))
	indices := newTensor(h.idt, ishape, encodeIndices(h.idt, values))
	if anyOutside(h.idt, values, -int64(s), int64(s)) {
		h.fail(engine.OutOfRange)
	}
	return casefile.New(h.spec, map[string]*engine.Tensor{"data": h.data, "indices": indices}), h.want
}

// gather case of op.
func drawONNXGatherHead(t *rapid.T, op string) *onnxGatherHead {
	h := &onnxGatherHead{spec: map[string]any{"op": op}}
	if !chance(t, "scalar data", onnxGatherScalarDataPerMille) {
		h.shape = drawDataShape(t, 1, 4)
	}
	h.data = tensorOf(t, drawDType, h.shape)
	h.idt = drawWeightedDType(t, onnxGatherIndexDTypes)
	if h.idt.Kind != engine.Int || h.idt.Size < 4 {
		h.fail(engine.BadInput)
	}
	if len(h.shape) == 0 {
		h.fail(engine.InvalidSpec)
	}
	h.axis = drawONNXAxis(t, h.spec, len(h.shape))
	if h.axis < 0 {
		h.fail(engine.InvalidSpec)
	}
	return h
}

// ONNXGatherCase returns a generator of onnx_gather cases (ONNX Gather-13).
// data has any dtype, rank 1 to 4 (rarely 0) and at most 48 elements,
// sometimes with a zero dimension. The axis is omitted (0) or valid,
// non-negative or negative, rarely out of range. indices has rank 0 to 3,
// sometimes a zero dimension, and dtype int64 or int32 (either byte order;
// rarely another dtype: bad_input). Indices are in [-s, s), often negative; about
// one case in ten has out-of-range ones.
func ONNXGatherCase() *rapid.Generator[*casefile.Case] {
	return rapid.Custom(func(t *rapid.T) *casefile.Case { m, _ := drawONNXGather(t); return m })
}

func drawONNXGather(t *rapid.T) (*casefile.Case, engine.ErrorKind) {
	h := drawONNXGatherHead(t, "onnx_gather")
	ishape := drawIndexShape(t, pick(t, "indices rank", indexRankWeights...), smallIndexBudget)
	s := 0
	if h.axis >= 0 {
		s = h.shape[h.axis]
	}
	return h.withIndices(t, ishape, s)
}

// ONNXGatherElementsCase returns a generator of onnx_gather_elements cases
// (ONNX GatherElements-13). data has any dtype, rank 1 to 4 (rarely 0)
// and at most 48 elements, sometimes with a zero dimension. The axis is
// omitted (0) or valid, non-negative or negative, rarely out of range.
// indices has the rank of data (rarely another), each dimension but the
// axis equal to data's or smaller (rarely larger: invalid), any length
// along the axis, and dtype int64 or int32 (either byte order; rarely
// another dtype: bad_input). Indices are in [-s, s), often negative; about one
// case in ten has out-of-range ones.
func ONNXGatherElementsCase() *rapid.Generator[*casefile.Case] {
	return rapid.Custom(func(t *rapid.T) *casefile.Case { m, _ := drawONNXGatherElements(t); return m })
}

func drawONNXGatherElements(t *rapid.T) (*casefile.Case, engine.ErrorKind) {
	h := drawONNXGatherHead(t, "onnx_gather_elements")
	shape, axis, fail := h.shape, h.axis, h.fail
	r := len(shape)
	ax := max(axis, 0)
	ishape := make([]int, r)
	prod := 1
	for d := range ishape {
		switch {
		case d == ax:
			ishape[d] = drawDim(t, indexDimCats)
			if chance(t, "same length", takeAlongSameAxisPerMille) {
				ishape[d] = shape[d]
			}
		case chance(t, "smaller dim", onnxElementsSmallerPerMille):
			ishape[d] = mod(offset(t, "smaller", 7), shape[d])
		default:
			ishape[d] = shape[d]
		}
		if ishape[d] > 0 && prod*ishape[d] > smallIndexBudgetAligned {
			ishape[d] = 1
			if shape[d] == 0 {
				ishape[d] = 0
			}
		}
		if ishape[d] > 0 {
			prod *= ishape[d]
		}
	}
	if r > 1 && chance(t, "shape fault", onnxElementsShapePerMille) {
		d := (ax + 1 + offset(t, "fault at", 7)%(r-1)) % r
		ishape[d] = shape[d] + 1
		shrinkOthers(ishape, d, smallIndexBudgetAligned) // 1 fits any non-empty dim
		fail(engine.InvalidSpec)
	}
	if chance(t, "rank fault", onnxElementsRankPerMille) {
		if r > 0 && bit.Draw(t, "fewer dims") {
			ishape = ishape[1:]
		} else {
			ishape = append([]int{1}, ishape...)
		}
		fail(engine.InvalidSpec)
	}
	s := 0
	if r > 0 {
		s = shape[ax]
	}
	return h.withIndices(t, ishape, s)
}
