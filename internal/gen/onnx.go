package gen

import (
	"math"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

func init() {
	register(casefile.OpONNXSlice, ONNXSliceCase())
	register(casefile.OpONNXGatherND, ONNXGatherNDCase())
}

// The generators of onnx_slice and onnx_gather_nd, hung on their op
// definitions like every op's (see register).

// Axes layouts of an onnx_slice spec.
const (
	onnxAxesOmitted    = iota // no "axes": entry i is axis i (n <= rank, sometimes n = rank + 1: invalid)
	onnxAxesGiven             // a permutation of a subset of the axes, each negative sometimes
	onnxAxesRepeated          // given, with one axis named twice: invalid_spec
	onnxAxesOutOfRange        // given, with r or -r-1 among them: invalid_spec
)

var onnxAxesWeights = []int{420, 540, 20, 20}

// onnxTooManyEntriesPerMille is the rate of specs with axes omitted and
// rank + 1 entries (axis r: invalid_spec).
const onnxTooManyEntriesPerMille = 25

// Length faults of an onnx_slice spec (ends, axes or steps of another
// length than starts: invalid_spec).
const onnxLengthFaultPerMille = 15

// onnxStepsOmittedPerMille is the rate of specs without "steps".
const onnxStepsOmittedPerMille = 300

// Categories of a Slice entry's bounds.
const (
	onnxBoundsAny        = iota // start and end by drawBound
	onnxBoundsBelowStart        // step < 0 and start < -d: where ONNX and NumPy/TF differ
	onnxBoundsToTheEnd          // INT64_MAX / INT32_MAX / INT64_MIN as end, either direction
)

var onnxBoundsWeights = []int{760, 160, 80}

// onnxEndExtremes are the ends a converter writes for "to the end" (and
// the ones ONNX Runtime special-cases): INT64_MAX and INT32_MAX, INT64_MIN
// and INT32_MIN.
var onnxEndExtremes = []int64{math.MaxInt64, math.MaxInt32, math.MinInt64, math.MinInt32}

// ONNXSliceSpec returns a generator of onnx_slice specs for data of the
// given shape: the fields "op", "starts", "ends" and optionally "axes" and
// "steps". Axes are omitted (entry i is axis i, sometimes one entry too
// many) or given as a permutation of a subset of the axes, each one
// negative sometimes, rarely with an axis repeated or out of range. Steps
// are omitted about one time in three, otherwise 1 mostly, -1 often,
// small and large of either sign, int64 extremes and rarely 0. Bounds are
// near 0, d and -d and at the extremes; reverse entries often start below
// -d (empty in NumPy and TF, position 0 in ONNX), and ends are often the
// "to the end" values INT64_MAX, INT32_MAX, INT64_MIN, INT32_MIN in either
// direction. Rarely ends, axes or steps have another length than starts.
func ONNXSliceSpec(shape []int) *rapid.Generator[map[string]any] {
	shape = append([]int(nil), shape...)
	return rapid.Custom(func(t *rapid.T) map[string]any { return drawONNXSlice(t, shape) })
}

func drawONNXSlice(t *rapid.T, shape []int) map[string]any {
	r := len(shape)
	var axes []int64 // nil: omitted
	var onAxis []int // the axis each entry applies to (for its bounds)
	switch layout := pick(t, "axes layout", onnxAxesWeights...); layout {
	case onnxAxesOmitted:
		n := r
		if r > 0 && !chance(t, "all axes", 600) {
			n = offset(t, "entries", 8) % r
		}
		if chance(t, "too many entries", onnxTooManyEntriesPerMille) {
			n = r + 1
		}
		for i := 0; i < n; i++ {
			onAxis = append(onAxis, i)
		}
	default:
		axes = []int64{}
		for a := 0; a < r; a++ {
			if chance(t, "axis named", 650) {
				onAxis = append(onAxis, a)
			}
		}
		// Shuffle by drawing a position for each axis in turn.
		for i := len(onAxis) - 1; i > 0; i-- {
			j := offset(t, "shuffle", 31) % (i + 1)
			onAxis[i], onAxis[j] = onAxis[j], onAxis[i]
		}
		for _, a := range onAxis {
			v := int64(a)
			if chance(t, "negative axis", 300) {
				v -= int64(r)
			}
			axes = append(axes, v)
		}
		switch layout {
		case onnxAxesRepeated:
			if len(onAxis) > 0 {
				a := onAxis[offset(t, "repeat", 7)%len(onAxis)]
				onAxis = append(onAxis, a)
				axes = append(axes, int64(a-r*offset(t, "repeat negative", 1)))
			}
		case onnxAxesOutOfRange:
			at := len(onAxis)
			onAxis = append(onAxis, -1)
			axes = append(axes, []int64{int64(r), int64(-r - 1), math.MaxInt64, math.MinInt64}[offset(t, "bad axis", 3)])
			if at > 0 {
				j := offset(t, "bad axis at", 7) % (at + 1)
				onAxis[at], onAxis[j] = onAxis[j], onAxis[at]
				axes[at], axes[j] = axes[j], axes[at]
			}
		}
	}
	n := len(onAxis)
	starts := make([]int64, n)
	ends := make([]int64, n)
	steps := make([]int64, n)
	omitSteps := chance(t, "omit steps", onnxStepsOmittedPerMille)
	for i, a := range onAxis {
		d := 3 // an axis outside the data: any size
		if a >= 0 && a < r {
			d = shape[a]
		}
		steps[i] = 1
		if !omitSteps {
			steps[i] = drawStride(t, "step")
		}
		switch pick(t, "bounds", onnxBoundsWeights...) {
		case onnxBoundsAny:
			starts[i] = drawBound(t, "start", d)
			ends[i] = drawBound(t, "end", d)
		case onnxBoundsBelowStart:
			if omitSteps {
				steps[i] = 1 // keep the omitted steps' meaning; the start is still below -d
			} else if steps[i] > 0 {
				steps[i] = -steps[i]
			}
			starts[i] = -int64(d) - 1 - int64(offset(t, "below", 3))
			if chance(t, "start far below", 150) {
				starts[i] = []int64{math.MinInt64, math.MinInt32, -1 << 40}[offset(t, "far below", 2)]
			}
			ends[i] = drawBound(t, "end", d)
		case onnxBoundsToTheEnd:
			starts[i] = drawBound(t, "start", d)
			ends[i] = onnxEndExtremes[offset(t, "end extreme", len(onnxEndExtremes)-1)]
		}
	}
	spec := map[string]any{"op": casefile.OpONNXSlice, "starts": starts, "ends": ends}
	if axes != nil {
		spec["axes"] = axes
	}
	if !omitSteps {
		spec["steps"] = steps
	}
	if chance(t, "length fault", onnxLengthFaultPerMille) {
		field := []string{"ends", "axes", "steps"}[offset(t, "fault in", 2)]
		list, _ := spec[field].([]int64)
		if spec[field] == nil {
			list = append([]int64{}, starts...)
		}
		if len(list) > 0 && bit.Draw(t, "shorter") {
			list = list[:len(list)-1]
		} else {
			list = append(append([]int64{}, list...), 0)
		}
		spec[field] = list
	}
	return spec
}

// ONNXSliceCase returns a generator of onnx_slice cases: data of any dtype
// with a shape of rank 1 to 8 as Shape draws them (rarely rank 0, which is
// invalid_spec) and an ONNXSliceSpec for it.
func ONNXSliceCase() *rapid.Generator[*casefile.Case] {
	return rapid.Custom(func(t *rapid.T) *casefile.Case {
		var shape []int
		if !chance(t, "scalar data", onnxScalarDataPerMille) {
			shape = drawShape(t, 1, 8, MaxElements)
		}
		data := tensorOf(t, drawDType, shape)
		return casefile.New(drawONNXSlice(t, shape), map[string]*engine.Tensor{"data": data})
	})
}

// Rates of onnx_gather_nd faults and features, per mille.
const (
	onnxScalarDataPerMille    = 10  // rank-0 data: invalid_spec (both ops)
	onnxScalarIndicesPerMille = 10  // rank-0 indices: invalid_spec
	onnxNegativeIndexPerMille = 300 // an in-range component written as i - s
	onnxBadRowsPerMille       = 120 // the case has out-of-range tuples
	onnxBadRowPerMille        = 300 // ... and this tuple is one
	onnxEmptySlicesPerMille   = 30  // the last axis of data is 0 (if not indexed, the slices are empty)
	onnxBadEmptyPerMille      = 500 // out-of-range tuples when the slices are empty
)

// onnxIndexDTypeWeights: int64 (either byte order), int32 and the other
// integer types, a float type. Only int64 is valid (bad_input otherwise).
var onnxIndexDTypeWeights = []weightedDType{
	{engine.Int64Type, 960},
	{engine.Int32Type, 20},
	{engine.Uint64Type, 5},
	{engine.Int8Type, 5},
	{engine.Float64Type, 5},
	{engine.Float32Type, 5},
}

// ONNXGatherNDCase returns a generator of onnx_gather_nd cases. data has
// any dtype, rank 1 to 6 (rarely 0: invalid) and at most MaxElements/8
// elements, sometimes with a zero dimension; batch_dims is mostly 0 or a
// valid value, sometimes -1 or too large, or the batch dimensions of
// indices differ from data's. The index depth is mostly 1 to rank - b,
// sometimes 0 or the full depth, rarely one too deep. indices is int64
// (big-endian sometimes; rarely another dtype: bad_input; rarely rank 0:
// invalid) with 0 to 3 row dimensions, sometimes of size 0. Index
// components are in range, often written negative (counted from the end:
// ONNX wraps them once), and about one case in eight has out-of-range
// tuples: -s-1, s, beyond, or int64 extremes.
func ONNXGatherNDCase() *rapid.Generator[*casefile.Case] {
	return rapid.Custom(drawONNXGatherND)
}

func drawONNXGatherND(t *rapid.T) *casefile.Case {
	var dshape []int
	if !chance(t, "scalar data", onnxScalarDataPerMille) {
		dshape = drawShape(t, 1, 6, gatherParamsBudget)
	}
	if !chance(t, "empty data", emptyParamsPerMil) {
		for i, d := range dshape {
			if d == 0 {
				dshape[i] = 1
			}
		}
	}
	if len(dshape) > 1 && chance(t, "empty slices", onnxEmptySlicesPerMille) {
		dshape[len(dshape)-1] = 0
	}
	data := tensorOf(t, drawDType, dshape)
	r := len(dshape)

	b := drawBatchDims(t, r)
	nb := max(0, min(b, r))
	rest := r - nb
	depth := drawDepth(t, rest)
	ishape := append([]int{}, dshape[:nb]...)
	if nb > 0 && chance(t, "batch mismatch", batchMismatchPerMille) {
		ishape[offset(t, "mismatch at", 7)%nb]++
	}
	ishape = appendRows(t, ishape, dshape, nb, depth, pick(t, "row rank", rowRankWeights...))
	if chance(t, "scalar indices", onnxScalarIndicesPerMille) {
		ishape = nil
	}

	idt := drawWeightedDType(t, onnxIndexDTypeWeights)
	values := make([]int64, engine.NumElements(ishape))
	badRate := onnxBadRowsPerMille
	if engine.NumElements(dshape[min(nb+depth, r):]) == 0 {
		badRate = onnxBadEmptyPerMille
	}
	bad := chance(t, "bad rows", badRate)
	for i := range values {
		j := i % max(depth, 1)
		d := 3 // beyond the axes of data: any value
		if nb+j < r {
			d = dshape[nb+j]
		}
		if bad && chance(t, "bad row", onnxBadRowPerMille) {
			values[i] = onnxBadComponent(t, d)
			continue
		}
		values[i] = int64(mod(offset(t, "index", 15), d))
		if d > 0 && chance(t, "negative index", onnxNegativeIndexPerMille) {
			values[i] -= int64(d)
		}
	}
	indices := newTensor(idt, ishape, encodeIndices(idt, values))

	spec := map[string]any{"op": casefile.OpONNXGatherND}
	if b != 0 || chance(t, "explicit batch_dims", 300) {
		spec["batch_dims"] = int64(b)
	}
	return casefile.New(spec, map[string]*engine.Tensor{"data": data, "indices": indices})
}

// onnxBadComponent draws an index component outside [-d, d) for an axis of
// size d.
func onnxBadComponent(t *rapid.T, d int) int64 {
	switch offset(t, "bad component", 5) {
	case 0:
		return -int64(d) - 1
	case 1:
		return int64(d)
	case 2:
		return int64(d) + 1 + int64(offset(t, "beyond", 7))
	case 3:
		return -int64(d) - 2 - int64(offset(t, "beyond", 7))
	case 4:
		return math.MaxInt64
	}
	return math.MinInt64
}
