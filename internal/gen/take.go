package gen

import (
	"math"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

func init() {
	register(casefile.OpTake, TakeCase())
	register(casefile.OpTakeAlongAxis, TakeAlongAxisCase())
}

// The generators of take, take_along_axis, gather, onnx_gather and
// onnx_gather_elements share these sizes and helpers. The data tensors
// hold at most smallDataBudget elements (non-zero dimensions) and the
// index tensors at most smallIndexBudget, so that a corpus of thousands of
// cases per op stays small: most cases have a few dozen elements in all.
const (
	smallDataBudget  = 48
	smallIndexBudget = 12
	// smallIndexBudgetAligned bounds the index tensors of take_along_axis
	// and onnx_gather_elements, which have as many dimensions as the data.
	smallIndexBudgetAligned = 24
)

// indexRankWeights are the rates of index tensors of rank 0 (a 0-d index),
// 1, 2 and 3.
var indexRankWeights = []int{150, 450, 280, 120}

// indexDimCats are the categories of an index dimension: 0 (empty), 1 and
// 2-4.
var indexDimCats = []dimCategory{{8, 0, 0}, {22, 1, 1}, {70, 2, 4}}

// keepZeroDimsPerMille is the rate of data tensors that keep the zero
// dimensions drawShape gives them (otherwise they become 1).
const keepZeroDimsPerMille = 450

// negativeIndexPerMille is the rate of in-range indices written as i - n
// (for ops and dtypes where a negative index means one from the end).
const negativeIndexPerMille = 300

// badIndexPerMille is the rate of out-of-range indices in a case that has
// some.
const badIndexPerMille = 300

// weightedDType is an index dtype with its relative rate.
type weightedDType struct {
	dt     engine.DType
	weight int
}

// rate returns d's weight (for pickOf).
func (d weightedDType) rate() int { return d.weight }

// drawWeightedDType draws one of dts; multi-byte types are big-endian
// about one time in seven.
func drawWeightedDType(t *rapid.T, dts []weightedDType) engine.DType {
	dt := dts[pickOf(t, "index dtype", dts, weightedDType.rate)].dt
	if dt.HasByteOrder() {
		dt.BigEndian = chance(t, "big-endian", bigEndianPerMille)
	}
	return dt
}

// allIndexDTypes returns every integer dtype and bool with the given
// weights for int64, int32, each of the other signed and unsigned types
// below 64 bits, uint64 and bool.
func allIndexDTypes(i64, i32, other, u64, b int) []weightedDType {
	return []weightedDType{
		{engine.Int64Type, i64},
		{engine.Int32Type, i32},
		{engine.Int8Type, other},
		{engine.Int16Type, other},
		{engine.Uint8Type, other},
		{engine.Uint16Type, other},
		{engine.Uint32Type, other},
		{engine.Uint64Type, u64},
		{engine.BoolType, b},
	}
}

// takeIndexDTypes: NumPy's take casts indices safely to intp, so bool and
// every integer type but uint64 are accepted; uint64 is refused (but for a
// 0-d index whose value fits, by value-based casting).
var takeIndexDTypes = allIndexDTypes(300, 200, 60, 35, 45)

// takeAlongIndexDTypes: take_along_axis accepts every integer type
// (uint64 too) and refuses bool.
var takeAlongIndexDTypes = allIndexDTypes(300, 200, 60, 60, 25)

// drawDataShape draws a data shape of rank minRank to maxRank within
// smallDataBudget elements; zero dimensions become 1 unless the case keeps
// them.
func drawDataShape(t *rapid.T, minRank, maxRank int) []int {
	shape := drawShape(t, minRank, maxRank, smallDataBudget)
	if !chance(t, "keep zero dims", keepZeroDimsPerMille) {
		for i, d := range shape {
			if d == 0 {
				shape[i] = 1
			}
		}
	}
	return shape
}

// drawIndexShape draws the shape of an index tensor of the given rank,
// within budget elements.
func drawIndexShape(t *rapid.T, rank, budget int) []int {
	return drawDims(t, rank, indexDimCats, budget)
}

// drawInRange draws an index into an axis of size n > 0: mostly 0 to n-1,
// written negative (i - n) at negativeIndexPerMille when neg allows it.
func drawInRange(t *rapid.T, n int, neg bool) int64 {
	v := int64(mod(offset(t, "index", 15), n))
	if neg && chance(t, "negative index", negativeIndexPerMille) {
		v -= int64(n)
	}
	return v
}

// drawOutOfRange draws an index outside [-n, n) for an axis of size n (or
// outside [0, n) when neg is false, then also -1 and -n): n, beyond n,
// before -n, or the largest value of dt.
func drawOutOfRange(t *rapid.T, n int, dt engine.DType, neg bool) int64 {
	k := pick(t, "bad index", 30, 20, 20, 15, 15)
	if !neg && k == 3 {
		return []int64{-1, -int64(n)}[offset(t, "negative", 1)]
	}
	switch k {
	case 0:
		return int64(n)
	case 1:
		return int64(n) + 1 + int64(offset(t, "beyond", 7))
	case 2:
		return -int64(n) - 1 - int64(offset(t, "before", 7))
	case 3:
		return -int64(n) - 1
	}
	return indexMax(dt)
}

// indexMax returns the largest value of an integer dtype that fits int64
// (uint64: all bits set, which is -1 as an int64 and out of range as an
// index).
func indexMax(dt engine.DType) int64 {
	switch {
	case dt.Kind == engine.Bool:
		return 1
	case dt.Kind == engine.Uint && dt.Size == 8:
		return -1
	case dt.Kind == engine.Uint:
		return 1<<(8*dt.Size) - 1
	case dt.Size < 8:
		return 1<<(8*dt.Size-1) - 1
	}
	return math.MaxInt64
}

// stored returns the value an index v holds once encodeIndices writes it
// in dt: truncated to the width (two's complement), 0 or 1 for bool. A
// uint64 above MaxInt64 comes back negative, as NumPy's fancy indexing
// reads it (it casts to intp); the ops that refuse such values check
// [0, n) or refuse uint64 altogether.
func stored(dt engine.DType, v int64) int64 {
	switch dt.Kind {
	case engine.Bool:
		return v & 1
	case engine.Uint:
		if dt.Size < 8 {
			return v & (1<<(8*dt.Size) - 1)
		}
	case engine.Int:
		if dt.Size < 8 {
			s := 64 - 8*uint(dt.Size)
			return v << s >> s
		}
	}
	return v
}

// drawIndexValues draws n index values for an axis of size size: in range
// (negative when neg), except that when bad some are out of range. Bool
// indices get random 0s and 1s; unsigned ones are never written negative
// unless out of range.
func drawIndexValues(t *rapid.T, count, size int, dt engine.DType, neg, bad bool) []int64 {
	values := make([]int64, count)
	neg = neg && dt.Kind == engine.Int
	for i := range values {
		switch {
		case dt.Kind == engine.Bool:
			values[i] = int64(offset(t, "bool index", 1))
		case size == 0 || (bad && chance(t, "bad index", badIndexPerMille)):
			values[i] = drawOutOfRange(t, size, dt, neg)
		default:
			values[i] = drawInRange(t, size, neg)
		}
	}
	return values
}

// anyOutside reports whether some stored value is outside [lo, hi).
func anyOutside(dt engine.DType, values []int64, lo, hi int64) bool {
	for _, v := range values {
		if s := stored(dt, v); s < lo || s >= hi {
			return true
		}
	}
	return false
}

// Axis categories of take, gather and the ONNX gathers.
const (
	axisOmitted  = iota // no "axis" field (take: axis=None; others: 0)
	axisNull            // "axis": null (take and take_along_axis: flattened)
	axisNonNeg          // 0 .. r-1
	axisNegative        // -r .. -1
	axisBad             // r .. r+2 or -r-1 .. -r-3: invalid_spec
)

// drawAxisValue draws an axis value of a category for rank r: the axis it
// names (normalised, -1 if out of range) and the value written.
func drawAxisValue(t *rapid.T, cat, r int) (axis int, value int64) {
	switch cat {
	case axisNonNeg, axisNegative:
		if r == 0 {
			return -1, int64(-offset(t, "axis", 1))
		}
		a := mod(offset(t, "axis", 7), r)
		if cat == axisNegative {
			return a, int64(a - r)
		}
		return a, int64(a)
	case axisBad:
		k := int64(offset(t, "bad axis", 2))
		if bit.Draw(t, "bad axis sign") {
			return -1, -int64(r) - 1 - k
		}
		return -1, int64(r) + k
	}
	return 0, 0
}

// take axis categories: omitted 10%, null 15%, non-negative 42%,
// negative 28%, out of range 5%.
var takeAxisWeights = []int{100, 150, 420, 280, 50}

// take modes: omitted (raise), "raise", "wrap", "clip".
var (
	takeModes       = []string{"", "raise", "wrap", "clip"}
	takeModeWeights = []int{300, 200, 250, 250}
)

// Rates of out-of-range indices in a take case: rare in raise mode (an
// error), common in wrap and clip mode (where they are valid).
const (
	takeBadRaisePerMille = 150
	takeBadWrapPerMille  = 500
	// takeEmptyTakePerMille: with an empty axis, the rate of non-empty
	// indices (an error in every mode).
	takeEmptyTakePerMille = 300
)

// wrapLimit bounds the indices of take in wrap mode.
const wrapLimit = 1 << 15

// TakeCase returns a generator of take cases (np.take). a has any dtype,
// rank 0 to 4 and at most 48 elements, sometimes with a zero dimension.
// "axis" is omitted or null (the flattened a) a quarter of the time, a
// valid axis (non-negative or negative) mostly, and out of range about one
// time in twenty-five. "mode" is omitted, "raise", "wrap" or "clip".
// indices has rank 0 (a 0-d index) to 3, sometimes a zero dimension, and
// any integer dtype or bool (uint64, which NumPy refuses, rarely) in
// either byte order. Indices are in range, often negative; some cases
// have out-of-range ones, rarely in raise mode (an error) and often in
// wrap and clip mode (in wrap mode within +-32768). With an empty axis the indices are mostly empty.
func TakeCase() *rapid.Generator[*casefile.Case] {
	return rapid.Custom(func(t *rapid.T) *casefile.Case { m, _ := drawTake(t); return m })
}

// drawTake draws a take case and the outcome it was drawn for: "" (a
// result) or the error kind.
func drawTake(t *rapid.T) (*casefile.Case, engine.ErrorKind) {
	shape := drawDataShape(t, 0, 4)
	a := tensorOf(t, drawDType, shape)
	r := len(shape)
	spec := map[string]any{"op": casefile.OpTake}

	cat := pick(t, "axis", takeAxisWeights...)
	axis, value := drawAxisValue(t, cat, r)
	n := engine.NumElements(shape)
	badAxis := cat == axisBad
	switch cat {
	case axisNull:
		spec["axis"] = nil
	case axisNonNeg, axisNegative, axisBad:
		spec["axis"] = value
		if r == 0 {
			// NumPy takes a 0-d array as 1-d here: axis 0 and -1 are valid.
			badAxis = value < -1 || value > 0
		} else if !badAxis {
			n = shape[axis]
		}
	}
	mode := takeModes[pick(t, "mode", takeModeWeights...)]
	if mode != "" {
		spec["mode"] = mode
	}
	raise := mode == "" || mode == "raise"

	// outer and inner are the sizes of a's dims before and after the axis.
	outer, inner := 1, 1
	if cat != axisNull && cat != axisOmitted && !badAxis && r > 0 {
		outer, inner = engine.NumElements(shape[:axis]), engine.NumElements(shape[axis+1:])
	}
	ishape := drawIndexShape(t, pick(t, "indices rank", indexRankWeights...), smallIndexBudget)
	if n == 0 && engine.NumElements(ishape) > 0 && !chance(t, "empty take", takeEmptyTakePerMille) {
		ishape = emptied(t, ishape)
	}
	if mode == "wrap" && n == 0 && outer > 0 && inner == 0 {
		// NumPy wraps each index into an axis of length 0 in an endless
		// loop when the result is empty (else it raises first).
		ishape = emptied(t, ishape)
	}
	idt := drawWeightedDType(t, takeIndexDTypes)
	rate := takeBadWrapPerMille
	if raise {
		rate = takeBadRaisePerMille
	}
	values := drawIndexValues(t, engine.NumElements(ishape), n, idt, true, chance(t, "bad indices", rate))
	if mode == "wrap" {
		// NumPy wraps an index by adding or subtracting the axis length in
		// a loop, which takes hours for an index near an int64 extreme:
		// wrapped indices stay within a few thousand.
		for i, v := range values {
			if s := stored(idt, v); s > wrapLimit || s < -wrapLimit {
				values[i] = s % 1000
			}
		}
	}
	indices := newTensor(idt, ishape, encodeIndices(idt, values))

	var want engine.ErrorKind
	switch {
	case badAxis:
		want = engine.InvalidSpec
	case idt.Kind == engine.Uint && idt.Size == 8 && (len(ishape) > 0 || stored(idt, values[0]) < 0):
		// NumPy casts indices to intp safely: uint64 arrays are refused,
		// a 0-d one only if its value does not fit.
		want = engine.InvalidSpec
	case n == 0 && outer*len(values)*inner > 0:
		// NumPy: "cannot do a non-empty take from an empty axes".
		want = engine.OutOfRange
	case raise && outer > 0 && anyOutside(idt, values, -int64(n), int64(n)):
		// NumPy checks each index once per position before the axis.
		want = engine.OutOfRange
	}
	return casefile.New(spec, map[string]*engine.Tensor{"a": a, "indices": indices}), want
}

// shrinkOthers sets dimensions of shape other than keep from above 1 to 1
// until the product of its non-zero dimensions is within budget.
func shrinkOthers(shape []int, keep, budget int) {
	for k := range shape {
		if k != keep && shape[k] > 1 && engine.NumElements(nonZeroDims(shape)) > budget {
			shape[k] = 1
		}
	}
}

// emptied returns shape with one dimension set to 0 (a rank-0 shape
// becomes (0,)).
func emptied(t *rapid.T, shape []int) []int {
	if len(shape) == 0 {
		return []int{0}
	}
	shape = append([]int{}, shape...)
	shape[offset(t, "empty at", 7)%len(shape)] = 0
	return shape
}

// take_along_axis axis categories: omitted (bad_input) rarely, null 12%,
// non-negative 50%, negative 30%, out of range 3%.
var takeAlongAxisWeights = []int{12, 120, 500, 300, 30}

// Rates of take_along_axis faults and features, per mille.
const (
	takeAlongScalarArrPerMille  = 20  // rank-0 arr (valid only with axis null)
	takeAlongRankFaultPerMille  = 25  // indices with one dimension more or fewer
	takeAlongFlatFaultPerMille  = 150 // axis null: indices of rank 0 or 2
	takeAlongBroadcastPerMille  = 30  // a dimension that does not broadcast
	takeAlongBadPerMille        = 80  // out-of-range indices
	takeAlongSameAxisPerMille   = 350 // indices as long as arr along the axis
	takeAlongBroadcastDimWeight = 25  // a dimension of 1 against arr's
	takeAlongWideDimWeight      = 15  // against arr's 1: any size
)

// TakeAlongAxisCase returns a generator of take_along_axis cases
// (np.take_along_axis). arr has any dtype, rank 1 to 4 (rarely 0) and at
// most 48 elements, sometimes with a zero dimension. "axis" is mostly a
// valid axis, non-negative or negative, sometimes null (the flattened
// arr, with 1-D indices), rarely out of range or omitted (bad_input).
// indices has the rank of arr (rarely one more or fewer), each dimension
// but the axis equal to arr's, 1 (broadcast) or, against a 1 in arr, any
// size (broadcast the other way); rarely one that does not broadcast.
// Along the axis indices have any length. The dtype is any integer type
// in either byte order, rarely bool (refused). Indices are in range,
// often negative, and out of range in about one case in twelve.
func TakeAlongAxisCase() *rapid.Generator[*casefile.Case] {
	return rapid.Custom(func(t *rapid.T) *casefile.Case { m, _ := drawTakeAlongAxis(t); return m })
}

func drawTakeAlongAxis(t *rapid.T) (*casefile.Case, engine.ErrorKind) {
	var shape []int
	if !chance(t, "scalar arr", takeAlongScalarArrPerMille) {
		shape = drawDataShape(t, 1, 4)
	}
	arr := tensorOf(t, drawDType, shape)
	r := len(shape)
	spec := map[string]any{"op": casefile.OpTakeAlongAxis}
	var p plan
	fail := p.fail

	cat := pick(t, "axis", takeAlongAxisWeights...)
	axis, value := drawAxisValue(t, cat, r)
	switch cat {
	case axisOmitted:
		fail(engine.BadInput)
	case axisNull:
		spec["axis"] = nil
	default:
		spec["axis"] = value
		if axis < 0 {
			fail(engine.InvalidSpec)
		}
	}
	idt := drawWeightedDType(t, takeAlongIndexDTypes)
	if idt.Kind == engine.Bool {
		fail(engine.InvalidSpec)
	}

	var ishape, outShape []int
	n := 0 // the size of the axis the indices select along
	if cat == axisNull {
		n = engine.NumElements(shape)
		ishape = drawIndexShape(t, 1, smallIndexBudget)
		if chance(t, "flat rank fault", takeAlongFlatFaultPerMille) {
			ishape = drawIndexShape(t, 2*offset(t, "flat rank", 1), smallIndexBudget)
			fail(engine.InvalidSpec)
		}
		outShape = ishape
	} else {
		ax := max(axis, 0)
		if r > 0 {
			n = shape[ax]
		}
		ishape = make([]int, r)
		outShape = make([]int, r)
		prod := 1
		for d := range ishape {
			switch {
			case d == ax:
				ishape[d] = drawDim(t, indexDimCats)
				if chance(t, "same length", takeAlongSameAxisPerMille) {
					ishape[d] = shape[d]
				}
			default:
				ishape[d] = shape[d]
				switch pick(t, "broadcast dim", 100-takeAlongBroadcastDimWeight-takeAlongWideDimWeight, takeAlongBroadcastDimWeight, takeAlongWideDimWeight) {
				case 1:
					ishape[d] = 1
				case 2:
					if shape[d] == 1 {
						ishape[d] = offset(t, "wide", 3)
					}
				}
			}
			if ishape[d] > 0 && prod*ishape[d] > smallIndexBudgetAligned {
				ishape[d] = 1
			}
			if ishape[d] > 0 {
				prod *= ishape[d]
			}
		}
		if r > 1 && chance(t, "broadcast fault", takeAlongBroadcastPerMille) {
			d := (ax + 1 + offset(t, "fault at", 7)%(r-1)) % r
			if shape[d] != 1 {
				ishape[d] = shape[d] + 1
				if shape[d] == 0 {
					ishape[d] = 2
				}
				shrinkOthers(ishape, d, smallIndexBudgetAligned)
				fail(engine.InvalidSpec)
			}
		}
		for d := range ishape {
			outShape[d] = ishape[d]
			if d != ax && ishape[d] == 1 {
				outShape[d] = shape[d]
			}
		}
		if chance(t, "rank fault", takeAlongRankFaultPerMille) {
			if r > 0 && bit.Draw(t, "fewer dims") {
				ishape = ishape[1:]
			} else {
				ishape = append([]int{1 + offset(t, "extra dim", 2)}, ishape...)
				shrinkOthers(ishape, 0, smallIndexBudgetAligned)
			}
			fail(engine.InvalidSpec)
		}
	}
	values := drawIndexValues(t, engine.NumElements(ishape), n, idt, true, chance(t, "bad indices", takeAlongBadPerMille))
	indices := newTensor(idt, ishape, encodeIndices(idt, values))
	if idt.Kind != engine.Bool && engine.NumElements(outShape) > 0 && anyOutside(idt, values, -int64(n), int64(n)) {
		fail(engine.OutOfRange)
	}
	return casefile.New(spec, map[string]*engine.Tensor{"arr": arr, "indices": indices}), p.want
}
