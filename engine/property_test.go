package engine_test

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/go-python/gpython/py"
	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
)

// bound draws a slice bound: mostly small values around the axis, and
// sometimes the extremes of int64.
func bound(t *rapid.T, label string) int64 {
	return rapid.OneOf(
		rapid.Int64Range(-12, 12),
		rapid.SampledFrom([]int64{math.MinInt64, math.MinInt64 + 1, math.MaxInt64, math.MaxInt64 - 1}),
		rapid.Int64(),
	).Draw(t, label)
}

// TestSliceNormalisationMatchesPython checks the 1-D slice normalisation of
// the getitem front-end against gpython's (*py.Slice).GetIndices, an
// independent port of CPython's slice.indices.
func TestSliceNormalisationMatchesPython(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.IntRange(0, 10).Draw(t, "d")
		item := engine.IndexItem{Kind: engine.IndexSlice}
		var start, stop, step py.Object = py.None, py.None, py.None
		if rapid.Bool().Draw(t, "hasStart") {
			item.Start, item.HasStart = bound(t, "start"), true
			start = py.Int(item.Start)
		}
		if rapid.Bool().Draw(t, "hasStop") {
			item.Stop, item.HasStop = bound(t, "stop"), true
			stop = py.Int(item.Stop)
		}
		if rapid.Bool().Draw(t, "hasStep") {
			// gpython differs from CPython only at step = MinInt64, which
			// the parser clamps to -MaxInt64 as CPython does.
			item.Step = bound(t, "step")
			if item.Step == math.MinInt64 {
				item.Step = -math.MaxInt64
			}
			item.HasStep = true
			step = py.Int(item.Step)
		}
		plan, err := engine.GetItemPlan([]int{d}, []engine.IndexItem{item})
		pyStart, _, _, pyLen, pyErr := py.NewSlice(start, stop, step).GetIndices(d)
		if pyErr != nil {
			if engine.KindOf(err) != engine.InvalidSpec {
				t.Fatalf("Python rejects the slice (%v); engine gives %v", pyErr, err)
			}
			return
		}
		if err != nil {
			t.Fatalf("engine rejects a slice Python accepts: %v", err)
		}
		a := plan.Axes[0]
		if a.Count != pyLen || (pyLen > 0 && a.Start != pyStart) {
			t.Fatalf("engine start %d count %d; Python start %d length %d", a.Start, a.Count, pyStart, pyLen)
		}
	})
}

// drawShape draws a small shape, dims biased towards 0, 1 and 2.
func drawShape(t *rapid.T, minRank, maxRank int) []int {
	return rapid.SliceOfN(rapid.IntRange(0, 4), minRank, maxRank).Draw(t, "shape")
}

// drawIndex draws a NumPy basic index: integers near the axis range,
// slices with optional parts (occasionally a zero step), None and
// ellipses (occasionally two).
func drawIndex(t *rapid.T) []engine.IndexItem {
	n := rapid.IntRange(0, 8).Draw(t, "items")
	items := make([]engine.IndexItem, n)
	for i := range items {
		switch rapid.IntRange(0, 9).Draw(t, "kind") {
		case 0, 1, 2:
			items[i] = engine.IndexItem{Kind: engine.IndexInt, Index: rapid.Int64Range(-6, 5).Draw(t, "int")}
		case 3:
			items[i] = engine.IndexItem{Kind: engine.IndexNewAxis}
		case 4:
			items[i] = engine.IndexItem{Kind: engine.IndexEllipsis}
		default:
			it := engine.IndexItem{Kind: engine.IndexSlice}
			it.Start, it.HasStart = rapid.Int64Range(-7, 7).Draw(t, "start"), rapid.Bool().Draw(t, "hasStart")
			it.Stop, it.HasStop = rapid.Int64Range(-7, 7).Draw(t, "stop"), rapid.Bool().Draw(t, "hasStop")
			it.Step, it.HasStep = rapid.Int64Range(-3, 3).Draw(t, "step"), rapid.Bool().Draw(t, "hasStep")
			items[i] = it
		}
	}
	return items
}

// tfEncoding encodes a NumPy basic index as TF's Python __getitem__ does
// (tensorflow/python/ops/array_ops.py, _slice_helper): one spec entry per
// item, masks for omitted bounds, ellipsis and new axes, and integer k as
// begin k, end k+1 with the shrink bit.
func tfEncoding(items []engine.IndexItem) engine.StridedSliceSpec {
	var s engine.StridedSliceSpec
	var begin, end, shrink, ellipsis, newAxis uint64
	for i, it := range items {
		bit := uint64(1) << uint(i)
		b, e, st := int64(0), int64(0), int64(1)
		switch it.Kind {
		case engine.IndexSlice:
			if it.HasStart {
				b = it.Start
			} else {
				begin |= bit
			}
			if it.HasStop {
				e = it.Stop
			} else {
				end |= bit
			}
			if it.HasStep {
				st = it.Step
			}
		case engine.IndexEllipsis:
			ellipsis |= bit
		case engine.IndexNewAxis:
			newAxis |= bit
		case engine.IndexInt:
			b, e = it.Index, it.Index+1
			shrink |= bit
		}
		s.Begin = append(s.Begin, b)
		s.End = append(s.End, e)
		s.Strides = append(s.Strides, st)
	}
	if s.Begin == nil {
		s.Begin, s.End, s.Strides = []int64{}, []int64{}, []int64{}
	}
	s.BeginMask, s.EndMask = engine.Mask{Bits: begin}, engine.Mask{Bits: end}
	s.EllipsisMask, s.NewAxisMask, s.ShrinkAxisMask = engine.Mask{Bits: ellipsis}, engine.Mask{Bits: newAxis}, engine.Mask{Bits: shrink}
	return s
}

// TestGetItemEqualsStridedSliceOfTFEncoding checks that getitem(x, key)
// equals strided_slice(x, tf_encoding(key)): same output bytes and shape,
// or the same error kind.
func TestGetItemEqualsStridedSliceOfTFEncoding(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		x := arange(drawShape(t, 0, 5)...)
		items := drawIndex(t)
		a, errA := engine.GetItem(x, items)
		b, errB := engine.StridedSlice(x, tfEncoding(items))
		if errA != nil || errB != nil {
			if engine.KindOf(errA) != engine.KindOf(errB) {
				t.Fatalf("getitem: %v; strided_slice: %v", errA, errB)
			}
			return
		}
		if !slices.Equal(a.Shape, b.Shape) || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("getitem gives %v %v; strided_slice gives %v %v", a.Shape, ints(a), b.Shape, ints(b))
		}
	})
}

// gatherByDefinition computes tf.gather_nd element by element from the
// doc's definition: output[b..., i..., s...] =
// params[b..., indices[b..., i..., :]..., s...].
func gatherByDefinition(params *engine.Tensor, indices []int64, ishape []int, batchDims int) (shape []int, values []int64, outOfRange bool) {
	k := ishape[len(ishape)-1]
	outer := ishape[:len(ishape)-1]
	inner := params.Shape[batchDims+k:]
	shape = append(append([]int{}, outer...), inner...)
	pvals := ints(params)
	pstrides := engine.ContiguousStrides(params.Shape, 1)
	istrides := engine.ContiguousStrides(ishape, 1)
	pos := make([]int, len(shape))
	for n := engine.NumElements(shape); len(values) < n; {
		flat := 0
		for j := 0; j < batchDims; j++ {
			flat += pos[j] * pstrides[j]
		}
		irow := 0
		for j := range outer {
			irow += pos[j] * istrides[j]
		}
		for j := 0; j < k; j++ {
			v := indices[irow+j]
			if v < 0 || v >= int64(params.Shape[batchDims+j]) {
				return nil, nil, true
			}
			flat += int(v) * pstrides[batchDims+j]
		}
		for j := range inner {
			flat += pos[len(outer)+j] * pstrides[batchDims+k+j]
		}
		values = append(values, pvals[flat])
		for j := len(pos) - 1; j >= 0; j-- {
			if pos[j]++; pos[j] < shape[j] {
				break
			}
			pos[j] = 0
		}
	}
	return shape, values, false
}

// TestGatherNDMatchesDefinition checks gather_nd against a per-element
// loop written from the op's documented definition.
func TestGatherNDMatchesDefinition(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pshape := rapid.SliceOfN(rapid.IntRange(0, 4), 1, 5).Draw(t, "params")
		batchDims := rapid.IntRange(0, len(pshape)-1).Draw(t, "batch_dims")
		k := rapid.IntRange(0, len(pshape)-batchDims).Draw(t, "depth")
		ishape := append([]int{}, pshape[:batchDims]...)
		ishape = append(ishape, rapid.SliceOfN(rapid.IntRange(0, 3), 0, 2).Draw(t, "rows")...)
		ishape = append(ishape, k)
		n := engine.NumElements(ishape)
		indices := make([]int64, n)
		for i := range indices {
			dim := pshape[batchDims+i%max(k, 1)]
			indices[i] = rapid.Int64Range(-1, int64(dim)).Draw(t, "index")
		}
		params := arange(pshape...)
		got, err := engine.GatherND(params, intTensor(t, ishape, indices...), batchDims, engine.BadIndexError)
		shape, values, bad := gatherByDefinition(params, indices, ishape, batchDims)
		rows := engine.NumElements(ishape[:len(ishape)-1])
		switch {
		case rows > 0 && params.Len() == 0:
			if engine.KindOf(err) != engine.OutOfRange {
				t.Fatalf("rows from empty params: got %v, want out_of_range", err)
			}
		case bad:
			if engine.KindOf(err) != engine.OutOfRange {
				t.Fatalf("definition finds an out-of-range row; engine gives %v", err)
			}
		case err != nil:
			t.Fatalf("engine: %v", err)
		case !slices.Equal(got.Shape, shape) || !slices.Equal(ints(got), values):
			t.Fatalf("engine gives %v %v; definition gives %v %v", got.Shape, ints(got), shape, values)
		}
	})
}

// TestStridedSliceNormalisationMatchesPython checks TF's 1-D range
// canonicalisation in strided_slice (masked bounds, negative values, clamping)
// against gpython's (*py.Slice).GetIndices: a masked bound is Python's
// None.
func TestStridedSliceNormalisationMatchesPython(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		d := rapid.IntRange(0, 10).Draw(t, "d")
		begin, end := bound(t, "begin"), bound(t, "end")
		stride := bound(t, "stride")
		if stride == 0 || stride == math.MinInt64 {
			stride = 1
		}
		beginMasked, endMasked := rapid.Bool().Draw(t, "beginMasked"), rapid.Bool().Draw(t, "endMasked")
		spec := engine.StridedSliceSpec{Begin: []int64{begin}, End: []int64{end}, Strides: []int64{stride}}
		var start, stop py.Object = py.Int(begin), py.Int(end)
		if beginMasked {
			spec.BeginMask, start = engine.MaskFromInt(1), py.None
		}
		if endMasked {
			spec.EndMask, stop = engine.MaskFromInt(1), py.None
		}
		plan, err := engine.StridedSlicePlan([]int{d}, spec)
		if err != nil {
			t.Fatalf("engine: %v", err)
		}
		pyStart, _, _, pyLen, err := py.NewSlice(start, stop, py.Int(stride)).GetIndices(d)
		if err != nil {
			t.Fatalf("python: %v", err)
		}
		a := plan.Axes[0]
		if a.Count != pyLen || (pyLen > 0 && a.Start != pyStart) {
			t.Fatalf("engine start %d count %d; Python start %d length %d", a.Start, a.Count, pyStart, pyLen)
		}
	})
}
