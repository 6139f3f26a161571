package gen

import (
	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
)

// MaxElements bounds the number of elements of every generated tensor, so
// that a corpus of thousands of cases stays small: the product of the
// non-zero dimensions of a shape never exceeds it.
const MaxElements = 4096

// rankWeights are the relative rates of ranks 0 to 8; ranks above 8 share
// highRankWeight (when the generator allows them).
var rankWeights = [9]int{6, 14, 22, 20, 14, 9, 6, 5, 4}

const highRankWeight = 6

// Dimension categories: the size 0, the size 1, small sizes and larger
// ones, as (weight, first size, last size).
type dimCategory struct{ weight, lo, hi int }

// rate returns c's weight (for pickOf).
func (c dimCategory) rate() int { return c.weight }

var (
	// dimsLowRank is used for ranks up to 8.
	dimsLowRank = []dimCategory{{7, 0, 0}, {20, 1, 1}, {60, 2, 5}, {13, 6, 12}}
	// dimsHighRank is used above rank 8, where most dimensions must be 1
	// for the tensor to stay small.
	dimsHighRank = []dimCategory{{4, 0, 0}, {70, 1, 1}, {26, 2, 3}}
)

// Shape returns a generator of shapes of rank 0 to 8: mostly ranks 1 to
// 4, dimensions mostly 2 to 5, often 1, sometimes 0 and sometimes up to 12,
// with at most MaxElements elements.
func Shape() *rapid.Generator[[]int] { return shapes }

// shapes is the generator Shape returns, made once.
var shapes = ShapeN(0, 8)

// ShapeN returns a generator of shapes whose rank is in [minRank, maxRank]
// (0 <= minRank <= maxRank <= engine.MaxRank), with the distribution of
// Shape; ranks above 8, when allowed, come out about one time in sixteen,
// with dimensions that are mostly 1.
func ShapeN(minRank, maxRank int) *rapid.Generator[[]int] {
	if minRank < 0 || maxRank < minRank || maxRank > engine.MaxRank {
		panic("gen.ShapeN: need 0 <= minRank <= maxRank <= engine.MaxRank")
	}
	return rapid.Custom(func(t *rapid.T) []int {
		return drawShape(t, minRank, maxRank, MaxElements)
	})
}

// drawShape draws a shape: the rank by category (one of ranks 0-8, or the
// band above 8 plus an offset), then each dimension by category plus an
// offset. A dimension that would take the product of the non-zero
// dimensions above budget becomes 1.
func drawShape(t *rapid.T, minRank, maxRank, budget int) []int {
	// At most ranks 0 to 8 and the band above: arrays, not allocations.
	var ranksBuf, weightsBuf [len(rankWeights) + 1]int
	ranks, weights := ranksBuf[:0], weightsBuf[:0]
	for r := minRank; r <= maxRank && r <= 8; r++ {
		ranks = append(ranks, r)
		weights = append(weights, rankWeights[r])
	}
	highLo := max(minRank, 9)
	if maxRank >= highLo {
		ranks = append(ranks, -1)
		weights = append(weights, highRankWeight)
	}
	rank := ranks[pick(t, "rank", weights...)]
	cats := dimsLowRank
	if rank < 0 {
		rank = highLo + offset(t, "high rank", maxRank-highLo)
		cats = dimsHighRank
	}
	return drawDims(t, rank, cats, budget)
}

// drawDims draws rank dimensions from cats, each that would take the
// shape past budget elements made 1.
func drawDims(t *rapid.T, rank int, cats []dimCategory, budget int) []int {
	shape := make([]int, rank)
	prod := 1
	for i := range shape {
		d := drawDim(t, cats)
		if d > 0 && prod*d > budget {
			d = 1
		}
		if d > 0 {
			prod *= d
		}
		shape[i] = d
	}
	return shape
}

// drawDim draws one dimension from the categories.
func drawDim(t *rapid.T, cats []dimCategory) int {
	c := cats[pickOf(t, "dim category", cats, dimCategory.rate)]
	return c.lo + offset(t, "dim", c.hi-c.lo)
}
