package gen

import "pgregory.net/rapid"

// bit is a single uniform random bit; rapid shrinks it towards false.
var bit = rapid.Bool()

// pickBits is the number of uniform bits pick draws: weights resolve to
// 1/1024.
const pickBits = 10

// pick draws an index into weights with probability proportional to the
// weight. Unlike rapid.IntRange or rapid.SampledFrom, whose draws are
// biased towards small values, it draws pickBits uniform bits, so the
// weights are the real rates; shrinking moves the choice towards index 0.
func pick(t *rapid.T, label string, weights ...int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	u := 0
	for k := 0; k < pickBits; k++ {
		if bit.Draw(t, label) {
			u |= 1 << k
		}
	}
	x := u * total >> pickBits
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

// pickOf is pick over items, each weighing weight(item), without
// allocating a slice of the weights (up to 32 items).
func pickOf[E any](t *rapid.T, label string, items []E, weight func(E) int) int {
	var buf [32]int
	weights := buf[:0]
	for _, it := range items {
		weights = append(weights, weight(it))
	}
	return pick(t, label, weights...)
}

// chance reports true with probability perMille/1000 (up to the 1/1024
// resolution of pick).
func chance(t *rapid.T, label string, perMille int) bool {
	return pick(t, label, 1000-perMille, perMille) == 1
}

// offset draws a small non-negative integer in [0, max], biased towards 0
// as rapid's integers are.
func offset(t *rapid.T, label string, max int) int {
	if max >= 0 && max < len(offsetGens) {
		return offsetGens[max].Draw(t, label)
	}
	return rapid.IntRange(0, max).Draw(t, label)
}

// offsetGens holds rapid.IntRange(0, max) for the small values of max,
// built once: making a generator costs more than drawing from it.
var offsetGens = func() []*rapid.Generator[int] {
	gens := make([]*rapid.Generator[int], 256)
	for max := range gens {
		gens[max] = rapid.IntRange(0, max)
	}
	return gens
}()

// mod maps a drawn offset into [0, n) for n > 0, and returns 0 for n <= 0.
func mod(v, n int) int {
	if n <= 0 {
		return 0
	}
	return v % n
}

// anyInt64 and anyUint64 are rapid.Int64() and rapid.Uint64(), built once.
var (
	anyInt64  = rapid.Int64()
	anyUint64 = rapid.Uint64()
)
