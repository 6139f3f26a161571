package gen

import (
	"encoding/binary"
	"math"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

func init() {
	register(casefile.OpGatherND, GatherNDCase())
}

// gatherParamsBudget bounds the elements of gather_nd params, so that
// the batch dimensions times the index depth (at most 7) stay within
// MaxElements.
const gatherParamsBudget = MaxElements / 8

// nonZeroDims returns the non-zero dimensions of shape.
func nonZeroDims(shape []int) []int {
	out := make([]int, 0, len(shape))
	for _, d := range shape {
		if d != 0 {
			out = append(out, d)
		}
	}
	return out
}

// batch_dims categories.
const (
	batchZero    = iota // 0
	batchValid          // 1 .. rank(params)-1
	batchNeg            // -1: invalid
	batchTooMany        // rank(params) or beyond rank(indices): invalid
)

var batchWeights = []int{640, 330, 12, 18}

// batchMismatchPerMille is the rate of indices whose batch dimensions
// differ from params' (invalid_spec).
const batchMismatchPerMille = 12

// Index depth categories, for r = rank(params) - batch_dims.
const (
	depthSome    = iota // 1 .. r
	depthFull           // r: each row selects one element
	depthZero           // 0: each row selects all of params (or its batch entry)
	depthTooDeep        // r + 1: invalid
)

var depthWeights = []int{600, 250, 130, 20}

// rowRankWeights are the rates of 0, 1, 2 and 3 row dimensions (the
// dimensions of indices between the batch dimensions and the depth).
var rowRankWeights = []int{25, 45, 22, 8}

// rowDims are the categories of a row dimension: 0 (no rows), 1, 2-4.
var rowDims = []dimCategory{{7, 0, 0}, {25, 1, 1}, {68, 2, 4}}

// Out-of-range rows: the rate of cases that have some, and the rate of
// bad rows in such a case.
const (
	badRowsPerMille   = 130
	badRowPerMille    = 300
	emptyParamsPerMil = 50 // params keep a zero dimension (else zeros become ones)
)

// badComponentWeights: -1, -d, d, d+1 .. d+8, a large value (the
// dtype's maximum or MaxInt64).
var badComponentWeights = []int{30, 10, 30, 15, 15}

// badIndicesWeights: omitted (error), "error", "zero".
var badIndicesWeights = []int{45, 30, 25}

// GatherNDCase returns a generator of gather_nd cases. params has any
// dtype, rank 1 to 6 and at most MaxElements/8 elements (rarely none); batch_dims is mostly 0
// or a valid value below both ranks, sometimes -1, too large, or with
// indices whose batch dimensions differ from params'. The index depth is
// mostly between 1 and rank(params) - batch_dims, sometimes 0 or the full
// depth, rarely one too deep. indices is int32 or int64 mostly (other
// integer dtypes and byte orders sometimes, a float dtype rarely) with 0
// to 3 row dimensions, sometimes of size 0 (no rows). Rows are in range,
// except that about one case in eight has out-of-range rows: negative,
// -d, d, beyond d, or the dtype's maximum. "bad_indices" is omitted
// (error), "error" or "zero". Row dimensions that would take indices or
// the result above MaxElements elements become 1.
func GatherNDCase() *rapid.Generator[*casefile.Case] {
	return rapid.Custom(drawGatherND)
}

func drawGatherND(t *rapid.T) *casefile.Case {
	pshape := drawShape(t, 1, 6, gatherParamsBudget)
	if !chance(t, "empty params", emptyParamsPerMil) {
		for i, d := range pshape {
			if d == 0 {
				pshape[i] = 1
			}
		}
	}
	params := tensorOf(t, drawDType, pshape)
	pr := len(pshape)

	b := drawBatchDims(t, pr)
	nb := max(0, min(b, pr)) // batch dims of indices
	r := pr - nb
	depth := drawDepth(t, r)
	rowRank := pick(t, "row rank", rowRankWeights...)
	ishape := append([]int{}, pshape[:nb]...)
	if nb > 0 && chance(t, "batch mismatch", batchMismatchPerMille) {
		ishape[offset(t, "mismatch at", 7)%nb]++
	}
	ishape = appendRows(t, ishape, pshape, nb, depth, rowRank)

	idt := drawWeightedDType(t, indexDTypeWeights)
	n := engine.NumElements(ishape)
	values := make([]int64, n)
	bad := chance(t, "bad rows", badRowsPerMille)
	for i := range values {
		j := i % max(depth, 1)
		d := 3 // beyond the depth of params: any value
		if nb+j < pr {
			d = pshape[nb+j]
		}
		if bad && chance(t, "bad row", badRowPerMille) {
			values[i] = badComponent(t, d, idt)
			continue
		}
		values[i] = int64(mod(offset(t, "index", 15), d))
	}
	indices := newTensor(idt, ishape, encodeIndices(idt, values))

	spec := map[string]any{"op": casefile.OpGatherND}
	if b != 0 || chance(t, "explicit batch_dims", 300) {
		spec["batch_dims"] = int64(b)
	}
	switch pick(t, "bad_indices", badIndicesWeights...) {
	case 1:
		spec["bad_indices"] = string(engine.BadIndexError)
	case 2:
		spec["bad_indices"] = string(engine.BadIndexZero)
	}
	return casefile.New(spec, map[string]*engine.Tensor{"params": params, "indices": indices})
}

// badComponent draws an out-of-range index component for a dimension of
// size d.
func badComponent(t *rapid.T, d int, dt engine.DType) int64 {
	switch pick(t, "bad component", badComponentWeights...) {
	case 0:
		return -1
	case 1:
		return -int64(d)
	case 2:
		return int64(d)
	case 3:
		return int64(d) + 1 + int64(offset(t, "beyond", 7))
	}
	if dt.Kind == engine.Int && dt.Size < 8 {
		return 1<<(8*dt.Size-1) - 1
	}
	return math.MaxInt64
}

// encodeIndices writes values in dt: integers are truncated to the width
// (two's complement, so a negative value in an unsigned type becomes
// large), floats hold the value.
func encodeIndices(dt engine.DType, values []int64) []byte {
	out := make([]byte, len(values)*dt.Size)
	var o binary.ByteOrder = binary.LittleEndian
	if dt.BigEndian {
		o = binary.BigEndian
	}
	for i, v := range values {
		b := out[i*dt.Size : (i+1)*dt.Size]
		if dt.Kind == engine.Float {
			putFloat(b, o, float64(v))
		} else {
			putUint(b, o, uint64(v))
		}
	}
	return out
}

// drawBatchDims draws batch_dims for data of the given rank: mostly valid
// (0, or 1 to rank-1), sometimes -1 or rank and beyond.
func drawBatchDims(t *rapid.T, rank int) int {
	var b int
	switch pick(t, "batch_dims", batchWeights...) {
	case batchValid:
		if rank > 1 {
			b = 1 + offset(t, "batch_dims", 7)%(rank-1)
		}
	case batchNeg:
		b = -1
	case batchTooMany:
		b = rank + offset(t, "too many batch dims", 1)
	}
	return b
}

// drawDepth draws the index depth of a gather over r non-batch
// dimensions: some of them, all of them, or one too many.
func drawDepth(t *rapid.T, r int) int {
	switch pick(t, "depth", depthWeights...) {
	case depthSome:
		if r > 0 {
			return 1 + offset(t, "depth", 7)%r
		}
	case depthFull:
		return r
	case depthTooDeep:
		return r + 1
	}
	return 0
}

// appendRows appends rowRank row dimensions and the index depth to the
// batch dimensions ishape of a gather from data of the given shape with nb
// batch dimensions, keeping indices and the result within MaxElements:
// both are the batch and row dimensions times the depth or the gathered
// block.
func appendRows(t *rapid.T, ishape, shape []int, nb, depth, rowRank int) []int {
	per := max(1, depth, engine.NumElements(nonZeroDims(shape[min(nb+depth, len(shape)):])))
	prod := per * engine.NumElements(nonZeroDims(ishape))
	for i := 0; i < rowRank; i++ {
		d := drawDim(t, rowDims)
		if d > 0 && prod*d > MaxElements {
			d = 1
		}
		if d > 0 {
			prod *= d
		}
		ishape = append(ishape, d)
	}
	return append(ishape, depth)
}
