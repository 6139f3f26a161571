package gen

import (
	"math"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

func init() {
	register(casefile.OpSlice, SliceCase())
}

// tf.slice faults: none, or one deliberate error.
const (
	sliceOK          = iota
	sliceWrongLength // begin or size of a length other than the rank
	sliceBadBegin    // a negative begin, or begin > d
	sliceBadSize     // size -2 or below, or begin + size > d (overflowing int64 sometimes)
)

var sliceFaultWeights = []int{890, 25, 35, 50}

// Begin categories of a valid tf.slice dimension of size d > 0.
var sliceBeginWeights = []int{
	45, // 0
	48, // anywhere in [0, d)
	7,  // d: only size 0 (or -1) fits
}

// Size categories of a valid tf.slice dimension.
var sliceSizeWeights = []int{
	30, // -1: to the end
	63, // anywhere in [1, d-begin]
	7,  // 0
}

// SliceSpec returns a generator of tf.slice specs for a tensor of the
// given shape: the fields "op", "begin" and "size". Most are valid: begin
// anywhere in [0, d] (often 0, sometimes d), size -1 (to the end), 0 or
// anything that fits; a zero dimension gets begin 0 and size 0 or -1.
// About one spec in nine has a fault: begin or size of the wrong length,
// a negative begin or one beyond d, size -2 or below, or a size that runs
// past the end, sometimes by overflowing int64 (begin + MaxInt64).
func SliceSpec(shape []int) *rapid.Generator[map[string]any] {
	shape = append([]int(nil), shape...)
	return rapid.Custom(func(t *rapid.T) map[string]any { return drawSlice(t, shape) })
}

func drawSlice(t *rapid.T, shape []int) map[string]any {
	rank := len(shape)
	begin := make([]int64, rank)
	size := make([]int64, rank)
	for i, d := range shape {
		if d == 0 {
			size[i] = []int64{0, -1}[offset(t, "size", 1)]
			continue
		}
		switch pick(t, "begin", sliceBeginWeights...) {
		case 1:
			begin[i] = int64(mod(offset(t, "begin", 15), d))
		case 2:
			begin[i] = int64(d)
		}
		rest := int64(d) - begin[i]
		switch pick(t, "size", sliceSizeWeights...) {
		case 0:
			size[i] = -1
		case 1:
			if rest > 0 {
				size[i] = 1 + int64(mod(offset(t, "size", 15), int(rest)))
			}
		}
	}
	fault := pick(t, "fault", sliceFaultWeights...)
	if rank == 0 && fault != sliceWrongLength {
		fault = sliceOK
	}
	switch fault {
	case sliceWrongLength:
		switch offset(t, "wrong length", 2) {
		case 0:
			begin = append(begin, 0)
		case 1:
			size = append(size, -1)
		default:
			if rank > 0 {
				begin, size = begin[:rank-1], size[:rank-1]
			} else {
				begin, size = []int64{0}, []int64{-1}
			}
		}
	case sliceBadBegin:
		i := offset(t, "fault at", 31) % rank
		d := int64(shape[i])
		switch offset(t, "bad begin", 3) {
		case 0:
			begin[i] = -1
		case 1:
			begin[i] = d + 1
		case 2:
			begin[i] = -d - 1
		default:
			begin[i] = math.MinInt64
		}
	case sliceBadSize:
		i := offset(t, "fault at", 31) % rank
		d := int64(shape[i])
		switch offset(t, "bad size", 3) {
		case 0:
			size[i] = -2
		case 1:
			size[i] = d - begin[i] + 1
		case 2:
			size[i] = math.MaxInt64
			if begin[i] == 0 && d > 0 {
				begin[i] = 1 // begin + size overflows int64
			}
		default:
			size[i] = math.MinInt64
		}
	}
	return map[string]any{"op": casefile.OpSlice, "begin": begin, "size": size}
}

// SliceCase returns a generator of tf.slice cases: a tensor of any dtype
// with a shape of rank 0 to 8 and a SliceSpec for it.
func SliceCase() *rapid.Generator[*casefile.Case] {
	return rapid.Custom(func(t *rapid.T) *casefile.Case {
		shape := drawShape(t, 0, 8, MaxElements)
		x := tensorOf(t, drawDType, shape)
		return casefile.New(drawSlice(t, shape), map[string]*engine.Tensor{"x": x})
	})
}
