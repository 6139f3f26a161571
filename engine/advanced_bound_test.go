package engine_test

import (
	"bytes"
	"math/rand"
	"runtime"
	"slices"
	"testing"

	"github.com/conformsuite/conform/engine"
)

// TestAdvancedWorkBound checks that advanced getitem's walk over its index
// arrays takes work proportional to the output elements plus the index
// elements, whatever the number of index arrays that broadcast together
// and however many dimensions they have: the steps counted by
// engine.AdvancedSteps stay within a small multiple of that sum.
func TestAdvancedWorkBound(t *testing.T) {
	type row struct {
		rule  string
		x     *engine.Tensor
		items func() []engine.IndexItem
	}
	pile := func(k, rank int) row {
		x, items := broadcastPile(k, rank)
		return row{"", x, func() []engine.IndexItem { return items }}
	}
	var rows []row
	add := func(rule string, r row) {
		r.rule = rule
		rows = append(rows, r)
	}
	add("16 arrays of 2 elements with 16 trailing dimensions of 1: each array moves only with its own dimension", pile(16, 32))
	add("8 arrays of 2 elements: the same per element as 16", pile(8, 32))
	add("16 arrays of rank 16: no trailing dimensions", pile(16, 16))
	// 31 index arrays of one element each, 1<<14 rows of x before them:
	// the grid of one position is resolved once, not once per row.
	add("31 one-element arrays after a slice of 1<<14 rows: the grid is resolved once", func() row {
		shape := append([]int{1 << 14}, ones(31)...)
		x := arange(shape...)
		items := []engine.IndexItem{{Kind: engine.IndexSlice}}
		for j := 0; j < 31; j++ {
			items = append(items, engine.IndexItem{Kind: engine.IndexArray, Array: intTensor(t, ones(31), 0)})
		}
		return row{"", x, func() []engine.IndexItem { return items }}
	}())
	// A mask of 1<<14 true elements with an array: the mask is walked,
	// not expanded per dimension.
	add("a mask of rank 8 with an index array", func() row {
		x := arange(append([]int{2, 2, 2, 2, 2, 2, 2, 2}, 64, 3)...)
		m := make([]bool, 256*64)
		for k := range m {
			m[k] = k%3 != 0
		}
		mask := boolTensor(append([]int{2, 2, 2, 2, 2, 2, 2, 2}, 64), m...)
		a := intTensor(t, []int{1}, 2)
		return row{"", x, func() []engine.IndexItem {
			return []engine.IndexItem{{Kind: engine.IndexArray, Array: mask}, {Kind: engine.IndexArray, Array: a}}
		}}
	}())
	for _, r := range rows {
		items := r.items()
		index := 0
		for _, it := range items {
			if it.Kind == engine.IndexArray {
				index += it.Array.Len()
			}
		}
		before := engine.AdvancedSteps()
		out, err := engine.GetItem(r.x, items)
		if err != nil {
			t.Fatalf("%s: %v", r.rule, err)
		}
		steps := engine.AdvancedSteps() - before
		if bound := 8 * int64(out.Len()+index); steps > bound {
			t.Errorf("%s: %d steps for %d output and %d index elements, want at most %d", r.rule, steps, out.Len(), index, bound)
		}
	}
}

// TestAdvancedMaskMemory checks that a boolean mask together with another
// index array is walked in place: x[m, i] over a 2 MiB x with a mask of
// 1 Mi true elements allocates little beyond its 1 MiB result (expanding
// the mask's nonzero coordinates took 16 MiB).
func TestAdvancedMaskMemory(t *testing.T) {
	const n = 1 << 10
	x, err := engine.FromBytes(engine.Uint8Type, []int{n, n, 2}, make([]byte, n*n*2))
	if err != nil {
		t.Fatal(err)
	}
	m := make([]bool, n*n)
	for k := range m {
		m[k] = true
	}
	items := []engine.IndexItem{
		{Kind: engine.IndexArray, Array: boolTensor([]int{n, n}, m...)},
		{Kind: engine.IndexArray, Array: intTensor(t, []int{1}, 1)},
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, err := engine.GetItem(x, items)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	extra := int64(after.TotalAlloc-before.TotalAlloc) - int64(out.Len())
	if extra > 2<<20 {
		t.Errorf("x[m, i] with %d true elements allocated %d bytes beyond its %d-byte result, want at most 2 MiB", n*n, extra, out.Len())
	}
}

// TestAdvancedWalkPaths checks the walks that only large or repeated
// grids reach against the plain reference: a mask of more true elements
// than the walk tabulates, restarted for every position of the array
// broadcast against it and of the slice before them; arrays spanning the
// same dimensions, summed into one table; a grid resolved once for many
// rows.
func TestAdvancedWalkPaths(t *testing.T) {
	rng := rand.New(rand.NewSource(2))
	randInts := func(shape []int, lo, hi int64) *engine.Tensor {
		n := 1
		for _, d := range shape {
			n *= d
		}
		v := make([]int64, n)
		for k := range v {
			v[k] = lo + rng.Int63n(hi-lo)
		}
		return intTensor(t, shape, v...)
	}
	arr := func(a *engine.Tensor) engine.IndexItem { return engine.IndexItem{Kind: engine.IndexArray, Array: a} }
	all := engine.IndexItem{Kind: engine.IndexSlice}
	m := make([]bool, 300*300)
	for k := range m {
		m[k] = rng.Intn(10) != 0
	}
	big := boolTensor([]int{300, 300}, m...)
	tests := []struct {
		rule  string
		x     *engine.Tensor
		items []engine.IndexItem
	}{
		{"a large mask with an array broadcast against it", arange(300, 300, 3), []engine.IndexItem{arr(big), arr(randInts([]int{3, 1}, -3, 3))}},
		{"a large mask after a slice, with an array", arange(2, 300, 300, 3), []engine.IndexItem{all, arr(big), arr(randInts([]int{2, 1}, -3, 3))}},
		{"a large mask and a mask of one true element", arange(300, 300, 4), []engine.IndexItem{arr(big), arr(boolTensor([]int{4}, false, false, true, false))}},
		{"arrays spanning the same dimensions, and one other", arange(5, 6, 7, 8), []engine.IndexItem{arr(randInts([]int{4, 1, 9}, -5, 5)), arr(randInts([]int{4, 1, 9}, -6, 6)), arr(randInts([]int{1, 3, 1}, -7, 7)), arr(randInts([]int{4, 1, 9}, -8, 8))}},
		{"arrays after a slice: a grid of 12 positions for 40 rows", arange(40, 5, 6, 7), []engine.IndexItem{all, arr(randInts([]int{3, 4}, -5, 5)), arr(randInts([]int{4}, -6, 6)), arr(randInts([]int{3, 1}, -7, 7))}},
		{"merged grid dimensions", arange(6, 7), []engine.IndexItem{arr(randInts([]int{3, 4, 5}, -6, 6)), arr(randInts([]int{3, 4, 5}, -7, 7))}},
	}
	for _, tt := range tests {
		got, err := engine.GetItem(tt.x, tt.items)
		if err != nil {
			t.Fatalf("%s: %v", tt.rule, err)
		}
		shape, want := refGetItem(tt.x, tt.items)
		if !slices.Equal(got.Shape, shape) || !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: shape %v, want %v, or values differ", tt.rule, got.Shape, shape)
		}
	}
}
