package gen

import (
	"math"

	"pgregory.net/rapid"
)

// extremes are int64 values at the edges of the integer types an
// implementation might use for bounds and indices.
var extremes = []int64{
	math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1,
	math.MaxInt32, math.MinInt32, math.MaxInt32 + 1, math.MinInt32 - 1,
	math.MaxUint32, 1 << 40, -1 << 40,
}

// Bound categories, relative to the size d of the dimension a bound
// applies to.
const (
	boundSmall      = iota // 0 .. 6
	boundNegative          // -1 .. -7
	boundNearEnd           // d-1, d, d+1, d+2
	boundBelowStart        // -d, -d-1, -d-2, -d-3: a reverse slice starting below -d
	boundExtreme           // one of extremes
	boundRandom            // any int64
)

var boundWeights = []int{42, 24, 16, 11, 5, 2}

// drawBound draws a slice bound for a dimension of size d: mostly a small
// value of either sign, often d or -d give or take a few, sometimes an
// extreme of int64 or int32, rarely any int64.
func drawBound(t *rapid.T, label string, d int) int64 {
	switch pick(t, label, boundWeights...) {
	case boundSmall:
		return int64(offset(t, label, 6))
	case boundNegative:
		return -1 - int64(offset(t, label, 6))
	case boundNearEnd:
		return int64(d) - 1 + int64(offset(t, label, 3))
	case boundBelowStart:
		return -int64(d) - int64(offset(t, label, 3))
	case boundExtreme:
		return extremes[offset(t, label, len(extremes)-1)]
	}
	return anyInt64.Draw(t, label)
}

// Stride categories.
const (
	strideOne      = iota // 1
	strideMinusOne        // -1
	strideSmall           // 2, 3
	strideNegSmall        // -2, -3
	strideLarge           // +-(4 .. 9)
	strideExtreme         // +-MaxInt64, MinInt64, +-2^31
	strideZero            // 0: an error on a range
)

var strideWeights = []int{470, 210, 130, 110, 45, 27, 8}

// drawStride draws a slice step or a strided_slice stride: 1 about half
// the time, -1 often, small and large steps of either sign, extremes, and
// 0 rarely.
func drawStride(t *rapid.T, label string) int64 {
	switch pick(t, label, strideWeights...) {
	case strideOne:
		return 1
	case strideMinusOne:
		return -1
	case strideSmall:
		return 2 + int64(offset(t, label, 1))
	case strideNegSmall:
		return -2 - int64(offset(t, label, 1))
	case strideLarge:
		v := 4 + int64(offset(t, label, 5))
		if bit.Draw(t, label) {
			v = -v
		}
		return v
	case strideExtreme:
		return []int64{math.MaxInt64, math.MinInt64, -math.MaxInt64, math.MaxInt32, math.MinInt32}[offset(t, label, 4)]
	}
	return 0
}

// Index categories for an integer index or a shrink position on a
// dimension of size d.
const (
	indexFront    = iota // 0 .. d-1
	indexBack            // -1 .. -d
	indexEnd             // d: one past the end
	indexBeforeIt        // -d-1: one before the start
	indexFar             // d+1 .. d+8 or -d-2 .. -d-9
	indexExtreme         // one of extremes
)

// drawIndex draws an integer index for a dimension of size d with the
// given category weights. In-range categories map a drawn offset into the
// dimension; on a dimension of size 0 every index is out of range.
func drawIndex(t *rapid.T, label string, d int, weights []int) int64 {
	switch pick(t, label, weights...) {
	case indexFront:
		return int64(mod(offset(t, label, 15), d))
	case indexBack:
		return -1 - int64(mod(offset(t, label, 15), d))
	case indexEnd:
		return int64(d)
	case indexBeforeIt:
		return -int64(d) - 1
	case indexFar:
		v := int64(d) + 1 + int64(offset(t, label, 7))
		if bit.Draw(t, label) {
			v = -v - 1
		}
		return v
	}
	return extremes[offset(t, label, len(extremes)-1)]
}
