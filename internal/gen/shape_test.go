package gen

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
)

// TestShapeFindAny checks that the shape generators reach every edge class
// within a few thousand draws.
func TestShapeFindAny(t *testing.T) {
	tests := []struct {
		rule string
		gen  *rapid.Generator[[]int]
		pred func([]int) bool
	}{
		{"rank 0 (a scalar)", Shape(), func(s []int) bool { return len(s) == 0 }},
		{"rank 8, the top of the usual range", Shape(), func(s []int) bool { return len(s) == 8 }},
		{"a zero dimension", Shape(), func(s []int) bool { return contains(s, 0) }},
		{"a zero dimension next to a non-trivial one", Shape(), func(s []int) bool { return contains(s, 0) && engine.NumElements(nonZero(s)) > 4 }},
		{"a dimension of size 1", Shape(), func(s []int) bool { return contains(s, 1) }},
		{"a dimension above 5", Shape(), func(s []int) bool { return maxOf(s) > 5 }},
		{"rank >= 9 when allowed", ShapeN(0, 32), func(s []int) bool { return len(s) >= 9 }},
		{"rank 32, the NumPy maximum", ShapeN(0, 32), func(s []int) bool { return len(s) == 32 }},
		{"a non-trivial high-rank shape", ShapeN(0, 32), func(s []int) bool { return len(s) >= 9 && engine.NumElements(s) >= 8 }},
		{"ShapeN keeps its minimum rank", ShapeN(1, 6), func(s []int) bool { return len(s) == 1 }},
	}
	for _, tt := range tests {
		if !findAny(tt.gen, 5000, tt.pred) {
			t.Errorf("no shape in 5000 draws: %s", tt.rule)
		}
	}
}

// TestShapeBounds checks the limits every shape respects: the rank range
// and at most MaxElements elements.
func TestShapeBounds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lo := rapid.IntRange(0, 10).Draw(t, "min rank")
		hi := lo + rapid.IntRange(0, engine.MaxRank-lo).Draw(t, "rank span")
		s := ShapeN(lo, hi).Draw(t, "shape")
		if len(s) < lo || len(s) > hi {
			t.Fatalf("rank %d outside [%d, %d]", len(s), lo, hi)
		}
		if n := engine.NumElements(nonZero(s)); n > MaxElements {
			t.Fatalf("shape %v has %d non-zero elements, more than %d", s, n, MaxElements)
		}
	})
}

func contains(s []int, v int) bool {
	for _, d := range s {
		if d == v {
			return true
		}
	}
	return false
}

func nonZero(s []int) []int {
	var out []int
	for _, d := range s {
		if d != 0 {
			out = append(out, d)
		}
	}
	return out
}

func maxOf(s []int) int {
	m := 0
	for _, d := range s {
		m = max(m, d)
	}
	return m
}
