package engine_test

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
)

// The gather family is checked against the reference loops of this file:
// each computes an op element by element from its definition (the output
// position, the index at it, the source position it names), with the
// checks in the documented order. The ops' own code shares nothing with
// them.

// countUp returns a C-contiguous int64 tensor holding 1, 2, 3, ... so that
// each output element names its source position, and 0 is a zeroed slice.
func countUp(shape ...int) *engine.Tensor {
	n := engine.NumElements(shape)
	data := make([]byte, 8*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(data[8*i:], uint64(i+1))
	}
	t, err := engine.FromBytes(engine.Int64Type, shape, data)
	if err != nil {
		panic(err)
	}
	return t
}

// gatherUnravel returns the row-major position of element e of shape.
func gatherUnravel(shape []int, e int) []int {
	pos := make([]int, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		pos[d] = e % shape[d]
		e /= shape[d]
	}
	return pos
}

// gatherRavel returns the row-major element number of pos in shape.
func gatherRavel(shape, pos []int) int {
	e := 0
	for d, p := range pos {
		e = e*shape[d] + p
	}
	return e
}

func gatherProd(shape []int) int { return engine.NumElements(shape) }

func gatherConcat(parts ...[]int) []int {
	var out []int
	for _, p := range parts {
		out = append(out, p...)
	}
	return append([]int{}, out...)
}

// refResult is what a reference loop gives: an error kind, or the shape
// and the source element numbers + 1 (0 for a zeroed element).
type refResult struct {
	Kind   engine.ErrorKind
	Shape  []int
	Values []int64
}

func refErr(k engine.ErrorKind) refResult { return refResult{Kind: k} }

// gotResult converts an op's answer over a seq input to a refResult.
func gotResult(t *engine.Tensor, err error) refResult {
	if err != nil {
		return refResult{Kind: engine.KindOf(err)}
	}
	return refResult{Shape: append([]int{}, t.Shape...), Values: ints(t)}
}

// refAxis returns axis normalised for rank r, or false if it is outside
// [-r, r).
func refAxis(axis, r int) (int, bool) {
	if axis < -r || axis >= r {
		return 0, false
	}
	if axis < 0 {
		axis += r
	}
	return axis, true
}

// refGather is tf.gather from its definition.
func refGather(pshape, ishape []int, idx []int64, axis, bd int, policy engine.BadIndexPolicy, wrap bool) refResult {
	pr, q := len(pshape), len(ishape)
	if pr < 1 {
		return refErr(engine.InvalidSpec)
	}
	axis, ok := refAxis(axis, pr)
	if !ok || bd < -q || bd > q {
		return refErr(engine.InvalidSpec)
	}
	if bd < 0 {
		bd += q
	}
	if bd > axis || !cmp.Equal(pshape[:bd], ishape[:bd]) {
		return refErr(engine.InvalidSpec)
	}
	out := gatherConcat(pshape[:axis], ishape[bd:], pshape[axis+1:])
	if len(out) > engine.MaxRank {
		return refErr(engine.InvalidSpec)
	}
	res := refResult{Shape: out, Values: []int64{}}
	if gatherProd(out) == 0 {
		return res
	}
	// No "params is empty" rule: on an empty axis every index is outside.
	n := pshape[axis]
	for e := 0; e < gatherProd(out); e++ {
		pos := gatherUnravel(out, e)
		ipos := gatherConcat(pos[:bd], pos[axis:axis+q-bd])
		i := idx[gatherRavel(ishape, ipos)]
		if wrap && i < 0 {
			i += int64(n)
		}
		if i < 0 || i >= int64(n) {
			if policy == engine.BadIndexError {
				return refErr(engine.OutOfRange)
			}
			res.Values = append(res.Values, 0)
			continue
		}
		src := gatherConcat(pos[:axis], []int{int(i)}, pos[axis+q-bd:])
		res.Values = append(res.Values, int64(gatherRavel(pshape, src)+1))
	}
	return res
}

// refONNXGather is ONNX Gather-13 from its definition.
func refONNXGather(dshape, ishape []int, idx []int64, axis int) refResult {
	r, q := len(dshape), len(ishape)
	if r < 1 {
		return refErr(engine.InvalidSpec)
	}
	axis, ok := refAxis(axis, r)
	if !ok {
		return refErr(engine.InvalidSpec)
	}
	out := gatherConcat(dshape[:axis], ishape, dshape[axis+1:])
	if len(out) > engine.MaxRank {
		return refErr(engine.InvalidSpec)
	}
	s := int64(dshape[axis])
	for _, i := range idx {
		if i < -s || i >= s {
			return refErr(engine.OutOfRange)
		}
	}
	res := refResult{Shape: out, Values: []int64{}}
	for e := 0; e < gatherProd(out); e++ {
		pos := gatherUnravel(out, e)
		i := idx[gatherRavel(ishape, pos[axis:axis+q])]
		if i < 0 {
			i += s
		}
		src := gatherConcat(pos[:axis], []int{int(i)}, pos[axis+q:])
		res.Values = append(res.Values, int64(gatherRavel(dshape, src)+1))
	}
	return res
}

// refGatherElements is ONNX GatherElements-13 from its definition.
func refGatherElements(dshape, ishape []int, idx []int64, axis int) refResult {
	r := len(dshape)
	if r < 1 || len(ishape) != r {
		return refErr(engine.InvalidSpec)
	}
	axis, ok := refAxis(axis, r)
	if !ok {
		return refErr(engine.InvalidSpec)
	}
	for d := range dshape {
		if d != axis && ishape[d] > dshape[d] {
			return refErr(engine.InvalidSpec)
		}
	}
	s := int64(dshape[axis])
	res := refResult{Shape: append([]int{}, ishape...), Values: []int64{}}
	for e := 0; e < gatherProd(ishape); e++ {
		pos := gatherUnravel(ishape, e)
		i := idx[e]
		if i < -s || i >= s {
			return refErr(engine.OutOfRange)
		}
		if i < 0 {
			i += s
		}
		pos[axis] = int(i)
		res.Values = append(res.Values, int64(gatherRavel(dshape, pos)+1))
	}
	return res
}

// refTake is np.take of NumPy 1.24 from its definition (for indices of an
// accepted dtype).
func refTake(ashape, ishape []int, idx []int64, spec engine.TakeSpec) refResult {
	shape, axis := ashape, 0
	if spec.Flatten {
		shape = []int{gatherProd(ashape)}
	} else {
		if len(shape) == 0 {
			shape = []int{1}
		}
		var ok bool
		if axis, ok = refAxis(spec.Axis, len(shape)); !ok {
			return refErr(engine.InvalidSpec)
		}
	}
	q := len(ishape)
	out := gatherConcat(shape[:axis], ishape, shape[axis+1:])
	if len(out) > engine.MaxRank {
		return refErr(engine.InvalidSpec)
	}
	n := int64(shape[axis])
	if n == 0 && gatherProd(out) > 0 {
		return refErr(engine.OutOfRange)
	}
	if spec.Mode == engine.TakeRaise && gatherProd(shape[:axis]) > 0 {
		for _, i := range idx {
			if i < -n || i >= n {
				return refErr(engine.OutOfRange)
			}
		}
	}
	res := refResult{Shape: out, Values: []int64{}}
	for e := 0; e < gatherProd(out); e++ {
		pos := gatherUnravel(out, e)
		i := idx[gatherRavel(ishape, pos[axis:axis+q])]
		switch spec.Mode {
		case engine.TakeRaise:
			if i < 0 {
				i += n
			}
		case engine.TakeWrap:
			for i < 0 {
				i += n
			}
			for i >= n {
				i -= n
			}
		case engine.TakeClip:
			i = min(max(i, 0), n-1)
		}
		src := gatherConcat(pos[:axis], []int{int(i)}, pos[axis+q:])
		res.Values = append(res.Values, int64(gatherRavel(shape, src)+1))
	}
	return res
}

// refTakeAlongAxis is np.take_along_axis of NumPy 1.24 from its
// definition (for integer indices).
func refTakeAlongAxis(ashape, ishape []int, idx []int64, spec engine.TakeAlongAxisSpec) refResult {
	shape, axis := ashape, 0
	if spec.Flatten {
		shape = []int{gatherProd(ashape)}
	} else {
		var ok bool
		if axis, ok = refAxis(spec.Axis, len(shape)); !ok {
			return refErr(engine.InvalidSpec)
		}
	}
	if len(ishape) != len(shape) {
		return refErr(engine.InvalidSpec)
	}
	out := make([]int, len(shape))
	for d := range shape {
		a, i := shape[d], ishape[d]
		switch {
		case d == axis:
			out[d] = i
		case a == i || i == 1:
			out[d] = a
		case a == 1:
			out[d] = i
		default:
			return refErr(engine.InvalidSpec)
		}
	}
	n := int64(shape[axis])
	res := refResult{Shape: out, Values: []int64{}}
	for e := 0; e < gatherProd(out); e++ {
		pos := gatherUnravel(out, e)
		ipos := make([]int, len(pos))
		src := make([]int, len(pos))
		for d, p := range pos {
			ipos[d] = min(p, ishape[d]-1) // a dimension of 1 is broadcast
			src[d] = min(p, shape[d]-1)
		}
		i := idx[gatherRavel(ishape, ipos)]
		if i < -n || i >= n {
			return refErr(engine.OutOfRange)
		}
		if i < 0 {
			i += n
		}
		src[axis] = int(i)
		res.Values = append(res.Values, int64(gatherRavel(shape, src)+1))
	}
	return res
}

// drawGatherShape draws a shape of rank in [lo, hi] with dimensions in [0, 3].
func drawGatherShape(t *rapid.T, label string, lo, hi int) []int {
	return rapid.SliceOfN(rapid.IntRange(0, 3), lo, hi).Draw(t, label)
}

// drawGatherIndices draws an int64 index tensor of the shape with values in
// [-span, span].
func drawGatherIndices(t *rapid.T, shape []int, span int) ([]int64, *engine.Tensor) {
	vals := rapid.SliceOfN(rapid.Int64Range(int64(-span), int64(span)), gatherProd(shape), gatherProd(shape)).Draw(t, "indices")
	return vals, intTensor(t, shape, vals...)
}

// checkAgainst compares an op's answer with the reference's.
func checkAgainst(t *rapid.T, what string, got *engine.Tensor, err error, want refResult) {
	g := gotResult(got, err)
	if want.Kind != "" && g.Kind == want.Kind {
		return
	}
	if want.Kind == "" && g.Kind == "" {
		if len(g.Values) == 0 {
			g.Values = []int64{}
		}
		if !got.IsContiguous() {
			t.Fatalf("%s: the result is not C-contiguous", what)
		}
	}
	if diff := cmp.Diff(want, g); diff != "" {
		t.Fatalf("%s: engine differs from the reference loop (error %v) (-want +got):\n%s", what, err, diff)
	}
}

func TestGatherMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		pshape := drawGatherShape(t, "params", 0, 4)
		ishape := drawGatherShape(t, "indices", 0, 3)
		if rapid.Bool().Draw(t, "batch-shaped") {
			// Indices that share params' leading dimensions, so that
			// batch_dims > 0 validates.
			k := rapid.IntRange(0, min(len(pshape), len(ishape))).Draw(t, "shared")
			copy(ishape, pshape[:k])
		}
		n := 3
		idx, indices := drawGatherIndices(t, ishape, n+1)
		axis := rapid.IntRange(-len(pshape)-1, len(pshape)).Draw(t, "axis")
		bd := rapid.IntRange(-len(ishape)-1, len(ishape)+1).Draw(t, "batch_dims")
		policy := rapid.SampledFrom([]engine.BadIndexPolicy{engine.BadIndexError, engine.BadIndexZero}).Draw(t, "policy")
		wrap := rapid.Bool().Draw(t, "wrap")
		var r engine.Rules
		if wrap {
			r = r.With(engine.NegativeGatherIndicesWrap)
		}
		got, err := engine.GatherUnder(countUp(pshape...), indices, engine.GatherSpec{Axis: axis, BatchDims: bd, BadIndices: policy}, r)
		checkAgainst(t, fmt.Sprintf("gather %v[%v] axis %d batch_dims %d %s wrap %v", pshape, idx, axis, bd, policy, wrap), got, err,
			refGather(pshape, ishape, idx, axis, bd, policy, wrap))
	})
}

func TestONNXGatherMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dshape := drawGatherShape(t, "data", 0, 4)
		ishape := drawGatherShape(t, "indices", 0, 3)
		idx, indices := drawGatherIndices(t, ishape, 4)
		axis := rapid.IntRange(-len(dshape)-1, len(dshape)).Draw(t, "axis")
		got, err := engine.ONNXGather(countUp(dshape...), indices, engine.ONNXGatherSpec{Axis: axis})
		checkAgainst(t, fmt.Sprintf("onnx_gather %v[%v] axis %d", dshape, idx, axis), got, err, refONNXGather(dshape, ishape, idx, axis))
	})
}

func TestONNXGatherElementsMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dshape := drawGatherShape(t, "data", 0, 4)
		ishape := drawGatherShape(t, "indices", len(dshape), len(dshape))
		if rapid.IntRange(0, 9).Draw(t, "rank fault") == 0 {
			ishape = drawGatherShape(t, "indices", 0, 4)
		}
		idx, indices := drawGatherIndices(t, ishape, 4)
		axis := rapid.IntRange(-len(dshape)-1, len(dshape)).Draw(t, "axis")
		got, err := engine.ONNXGatherElements(countUp(dshape...), indices, engine.ONNXGatherSpec{Axis: axis})
		checkAgainst(t, fmt.Sprintf("onnx_gather_elements %v[%v] axis %d", dshape, idx, axis), got, err, refGatherElements(dshape, ishape, idx, axis))
	})
}

func TestTakeMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ashape := drawGatherShape(t, "a", 0, 4)
		ishape := drawGatherShape(t, "indices", 0, 3)
		spec := engine.TakeSpec{
			Axis:    rapid.IntRange(-len(ashape)-2, len(ashape)+1).Draw(t, "axis"),
			Flatten: rapid.IntRange(0, 4).Draw(t, "flatten") == 0,
			Mode:    rapid.SampledFrom([]engine.TakeMode{engine.TakeRaise, engine.TakeWrap, engine.TakeClip}).Draw(t, "mode"),
		}
		idx, indices := drawGatherIndices(t, ishape, 8)
		got, err := engine.Take(countUp(ashape...), indices, spec)
		checkAgainst(t, fmt.Sprintf("take %v[%v] %+v", ashape, idx, spec), got, err, refTake(ashape, ishape, idx, spec))
	})
}

func TestTakeAlongAxisMatchesReference(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ashape := drawGatherShape(t, "arr", 0, 4)
		ishape := make([]int, len(ashape))
		for d, n := range ashape {
			// Mostly equal or broadcast dimensions, sometimes not.
			ishape[d] = rapid.SampledFrom([]int{n, n, 1, 0, 2, 3}).Draw(t, "dim")
		}
		spec := engine.TakeAlongAxisSpec{
			Axis:    rapid.IntRange(-len(ashape)-1, len(ashape)).Draw(t, "axis"),
			Flatten: rapid.IntRange(0, 4).Draw(t, "flatten") == 0,
		}
		if spec.Flatten {
			ishape = drawGatherShape(t, "flat indices", 1, 1)
		}
		if rapid.IntRange(0, 9).Draw(t, "rank fault") == 0 {
			ishape = drawGatherShape(t, "indices", 0, 4)
		}
		idx, indices := drawGatherIndices(t, ishape, 4)
		got, err := engine.TakeAlongAxis(countUp(ashape...), indices, spec)
		checkAgainst(t, fmt.Sprintf("take_along_axis %v[%v] %+v", ashape, idx, spec), got, err, refTakeAlongAxis(ashape, ishape, idx, spec))
	})
}

// TestGatherFamilyViews checks that each op reads a strided view (here a
// reversed, transposed params) as the contiguous tensor of its elements.
func TestGatherFamilyViews(t *testing.T) {
	base := countUp(4, 3)
	// The transpose of base reversed along its first axis: shape (3, 4).
	view := &engine.Tensor{DType: base.DType, Shape: []int{3, 4}, Strides: []int{8, -24}, Offset: 3 * 24, Data: base.Data}
	flat := view.Contiguous()
	idx := intTensor(t, []int{2, 2}, 1, 0, 2, 1)
	ops := []struct {
		name string
		run  func(x *engine.Tensor) (*engine.Tensor, error)
	}{
		{"take", func(x *engine.Tensor) (*engine.Tensor, error) { return engine.Take(x, idx, engine.TakeSpec{Axis: 1}) }},
		{"take flattened", func(x *engine.Tensor) (*engine.Tensor, error) {
			return engine.Take(x, idx, engine.TakeSpec{Flatten: true})
		}},
		{"take_along_axis", func(x *engine.Tensor) (*engine.Tensor, error) {
			return engine.TakeAlongAxis(x, intTensor(t, []int{1, 4}, 2, 0, 1, 2), engine.TakeAlongAxisSpec{Axis: 0})
		}},
		{"gather", func(x *engine.Tensor) (*engine.Tensor, error) {
			return engine.Gather(x, idx, engine.GatherSpec{Axis: 1, BadIndices: engine.BadIndexError})
		}},
		{"onnx_gather", func(x *engine.Tensor) (*engine.Tensor, error) {
			return engine.ONNXGather(x, idx, engine.ONNXGatherSpec{Axis: 0})
		}},
		{"onnx_gather_elements", func(x *engine.Tensor) (*engine.Tensor, error) {
			return engine.ONNXGatherElements(x, idx, engine.ONNXGatherSpec{Axis: 1})
		}},
	}
	for _, op := range ops {
		got, err := op.run(view)
		want, werr := op.run(flat)
		if err != nil || werr != nil {
			t.Errorf("%s: errors %v, %v", op.name, err, werr)
			continue
		}
		if diff := cmp.Diff(gotResult(want, nil), gotResult(got, nil)); diff != "" {
			t.Errorf("%s of a strided view differs from its contiguous copy (-want +got):\n%s", op.name, diff)
		}
	}
}

// TestGatherFamilyRules lists the rules of the new ops one case each.
func TestGatherFamilyRules(t *testing.T) {
	i64 := func(shape []int, v ...int64) *engine.Tensor { return intTensor(t, shape, v...) }
	take := func(s engine.TakeSpec) func(a, i *engine.Tensor) (*engine.Tensor, error) {
		return func(a, i *engine.Tensor) (*engine.Tensor, error) { return engine.Take(a, i, s) }
	}
	along := func(s engine.TakeAlongAxisSpec) func(a, i *engine.Tensor) (*engine.Tensor, error) {
		return func(a, i *engine.Tensor) (*engine.Tensor, error) { return engine.TakeAlongAxis(a, i, s) }
	}
	gather := func(s engine.GatherSpec) func(a, i *engine.Tensor) (*engine.Tensor, error) {
		return func(a, i *engine.Tensor) (*engine.Tensor, error) { return engine.Gather(a, i, s) }
	}
	onnx := func(axis int) func(a, i *engine.Tensor) (*engine.Tensor, error) {
		return func(a, i *engine.Tensor) (*engine.Tensor, error) {
			return engine.ONNXGather(a, i, engine.ONNXGatherSpec{Axis: axis})
		}
	}
	elements := func(axis int) func(a, i *engine.Tensor) (*engine.Tensor, error) {
		return func(a, i *engine.Tensor) (*engine.Tensor, error) {
			return engine.ONNXGatherElements(a, i, engine.ONNXGatherSpec{Axis: axis})
		}
	}
	errs, zero := engine.BadIndexError, engine.BadIndexZero
	tests := []struct {
		rule    string
		op      func(a, i *engine.Tensor) (*engine.Tensor, error)
		a       *engine.Tensor
		indices *engine.Tensor
		want    result
	}{
		{"take: raise mode counts negative indices from the end", take(engine.TakeSpec{}), arange(3), i64([]int{2}, -1, -3), ok([]int{2}, 2, 0)},
		{"take: raise mode refuses an index below -n", take(engine.TakeSpec{}), arange(3), i64([]int{1}, -4), fails(engine.OutOfRange)},
		{"take: wrap mode takes the index modulo n", take(engine.TakeSpec{Mode: engine.TakeWrap}), arange(3), i64([]int{3}, -7, 13, -9223372036854775808), ok([]int{3}, 2, 1, 1)},
		{"take: clip mode clamps into [0, n-1]", take(engine.TakeSpec{Mode: engine.TakeClip}), arange(3), i64([]int{2}, -7, 13), ok([]int{2}, 0, 2)},
		{"take: an unknown mode is invalid", take(engine.TakeSpec{Mode: "nearest"}), arange(3), i64([]int{1}, 0), fails(engine.InvalidSpec)},
		{"take: axis=None takes from the flattened input", take(engine.TakeSpec{Flatten: true}), arange(2, 3), i64([]int{2}, 5, -6), ok([]int{2}, 5, 0)},
		{"take: 0-d indices drop the axis", take(engine.TakeSpec{Axis: 1}), arange(2, 3), i64(nil, 2), ok([]int{2}, 2, 5)},
		{"take: a 0-d input is taken as 1-D", take(engine.TakeSpec{Axis: -1}), arange(), i64([]int{2}, 0, -1), ok([]int{2}, 0, 0)},
		{"take: axis 1 of a 0-d input is out of bounds", take(engine.TakeSpec{Axis: 1}), arange(), i64([]int{1}, 0), fails(engine.InvalidSpec)},
		{"take: a bad axis is invalid", take(engine.TakeSpec{Axis: -3}), arange(2, 3), i64([]int{1}, 0), fails(engine.InvalidSpec)},
		{"take: a non-empty take from an empty axis fails in clip mode too", take(engine.TakeSpec{Axis: 1, Mode: engine.TakeClip}), arange(2, 0), i64([]int{1}, 0), fails(engine.OutOfRange)},
		{"take: an empty take from an empty axis is fine", take(engine.TakeSpec{Axis: 1}), arange(2, 0), i64([]int{0}), ok([]int{2, 0})},
		{"take: an empty result with an empty axis and no outer elements is fine", take(engine.TakeSpec{Axis: 1, Mode: engine.TakeClip}), arange(0, 0), i64([]int{1}, 5), ok([]int{0, 1})},
		{"take: raise mode checks indices whose slices are empty", take(engine.TakeSpec{Axis: 1}), arange(2, 3, 0), i64([]int{1}, 9), fails(engine.OutOfRange)},
		{"take: raise mode checks no index when the outer part is empty", take(engine.TakeSpec{Axis: 1}), arange(0, 3), i64([]int{1}, 9), ok([]int{0, 1})},
		{"take: raise mode refuses any index into an empty axis under outer elements", take(engine.TakeSpec{Axis: 1}), arange(2, 0, 0), i64([]int{1}, 0), fails(engine.OutOfRange)},
		{"take: wrap mode into an empty axis with an empty result returns it", take(engine.TakeSpec{Axis: 1, Mode: engine.TakeWrap}), arange(2, 0, 0), i64([]int{1}, 0), ok([]int{2, 1, 0})},
		{"take: more than 32 result dimensions are invalid", take(engine.TakeSpec{Axis: 0}), arange(ones32()...), i64([]int{1, 1}, 0), fails(engine.InvalidSpec)},

		{"take_along_axis: indices pick along the axis per position", along(engine.TakeAlongAxisSpec{Axis: 1}), arange(2, 3), i64([]int{2, 1}, 2, -3), ok([]int{2, 1}, 2, 3)},
		{"take_along_axis: an indices dimension of 1 is broadcast", along(engine.TakeAlongAxisSpec{Axis: 1}), arange(2, 3), i64([]int{1, 2}, 0, 2), ok([]int{2, 2}, 0, 2, 3, 5)},
		{"take_along_axis: an arr dimension of 1 is broadcast", along(engine.TakeAlongAxisSpec{Axis: 1}), arange(1, 3), i64([]int{2, 1}, 1, 2), ok([]int{2, 1}, 1, 2)},
		{"take_along_axis: dimensions that do not broadcast are invalid", along(engine.TakeAlongAxisSpec{Axis: 1}), arange(2, 3), i64([]int{3, 1}, 0, 0, 0), fails(engine.InvalidSpec)},
		{"take_along_axis: indices of another rank are invalid", along(engine.TakeAlongAxisSpec{Axis: 1}), arange(2, 3), i64([]int{1}, 0), fails(engine.InvalidSpec)},
		{"take_along_axis: the axis is checked before the rank", along(engine.TakeAlongAxisSpec{Axis: 2}), arange(2, 3), i64([]int{1}, 0), fails(engine.InvalidSpec)},
		{"take_along_axis: a 0-d arr has no axis", along(engine.TakeAlongAxisSpec{Axis: 0}), arange(), i64(nil, 0), fails(engine.InvalidSpec)},
		{"take_along_axis: axis=None takes 1-D indices from the flattened arr", along(engine.TakeAlongAxisSpec{Flatten: true}), arange(2, 3), i64([]int{2}, 5, -6), ok([]int{2}, 5, 0)},
		{"take_along_axis: axis=None needs 1-D indices", along(engine.TakeAlongAxisSpec{Flatten: true}), arange(2, 3), i64([]int{1, 1}, 0), fails(engine.InvalidSpec)},
		{"take_along_axis: an index out of bounds is out of range", along(engine.TakeAlongAxisSpec{Axis: 0}), arange(3), i64([]int{1}, 3), fails(engine.OutOfRange)},
		{"take_along_axis: an empty result checks no index", along(engine.TakeAlongAxisSpec{Axis: 1}), arange(2, 3, 0), i64([]int{2, 1, 1}, 9, 9), ok([]int{2, 1, 0})},
		{"take_along_axis: a 32-dim arr is more index arrays than NumPy's iterator takes (31)", along(engine.TakeAlongAxisSpec{Axis: 31}), arange(ones32()...), i64(ones32(), 0), fails(engine.InvalidSpec)},
		{"take_along_axis: a 32-dim arr is refused even for an empty result", along(engine.TakeAlongAxisSpec{Axis: 31}), arange(ones32()...), i64(append(ones32()[:31], 0)), fails(engine.InvalidSpec)},
		{"take_along_axis: a 32-dim arr is refused before an index out of bounds is looked at", along(engine.TakeAlongAxisSpec{Axis: 0}), arange(ones32()...), i64(ones32(), 5), fails(engine.InvalidSpec)},
		{"take_along_axis: axis=None on a 32-dim arr is one index array", along(engine.TakeAlongAxisSpec{Flatten: true}), arange(ones32()...), i64([]int{1}, 0), ok([]int{1}, 0)},

		{"gather: slices along the axis", gather(engine.GatherSpec{Axis: 1, BadIndices: errs}), arange(2, 3), i64([]int{2}, 2, 0), ok([]int{2, 2}, 2, 0, 5, 3)},
		{"gather: negative indices are out of range (no wrap)", gather(engine.GatherSpec{BadIndices: errs}), arange(3), i64([]int{1}, -1), fails(engine.OutOfRange)},
		{"gather: zero mode writes zeros for a bad index", gather(engine.GatherSpec{Axis: 1, BadIndices: zero}), arange(2, 3), i64([]int{2}, 3, 1), ok([]int{2, 2}, 0, 1, 0, 4)},
		{"gather: batch_dims 1 gathers within each batch entry", gather(engine.GatherSpec{Axis: 1, BatchDims: 1, BadIndices: errs}), arange(2, 3), i64([]int{2, 1}, 2, 0), ok([]int{2, 1}, 2, 3)},
		{"gather: negative batch_dims count from rank(indices)", gather(engine.GatherSpec{Axis: 1, BatchDims: -1, BadIndices: errs}), arange(2, 3), i64([]int{2, 1}, 2, 0), ok([]int{2, 1}, 2, 3)},
		{"gather: batch_dims beyond rank(indices) are invalid", gather(engine.GatherSpec{Axis: 1, BatchDims: 2, BadIndices: errs}), arange(2, 3), i64([]int{2}, 0, 0), fails(engine.InvalidSpec)},
		{"gather: batch_dims above the axis are invalid", gather(engine.GatherSpec{Axis: 0, BatchDims: 1, BadIndices: errs}), arange(2, 3), i64([]int{2, 1}, 0, 0), fails(engine.InvalidSpec)},
		{"gather: batch shapes must match", gather(engine.GatherSpec{Axis: 1, BatchDims: 1, BadIndices: errs}), arange(2, 3), i64([]int{3, 1}, 0, 0, 0), fails(engine.InvalidSpec)},
		{"gather: scalar params are invalid", gather(engine.GatherSpec{BadIndices: errs}), arange(), i64(nil, 0), fails(engine.InvalidSpec)},
		{"gather: a bad axis is invalid", gather(engine.GatherSpec{Axis: 2, BadIndices: errs}), arange(2, 3), i64(nil, 0), fails(engine.InvalidSpec)},
		{"gather: an empty result checks no index", gather(engine.GatherSpec{Axis: 1, BadIndices: errs}), arange(2, 3, 0), i64([]int{1}, 7), ok([]int{2, 1, 0})},
		{"gather: every index into an empty axis is out of range (TF's CPU kernel)", gather(engine.GatherSpec{Axis: 1, BadIndices: errs}), arange(2, 0), i64([]int{1}, 0), fails(engine.OutOfRange)},
		{"gather: GatherV2 has no empty-params check: zero mode writes zeros for every index into an empty axis (TF's GPU kernel)", gather(engine.GatherSpec{Axis: 1, BadIndices: zero}), arange(2, 0), i64([]int{1}, 0), ok([]int{2, 1}, 0, 0)},
		{"gather: an unknown bad_indices policy is invalid", gather(engine.GatherSpec{}), arange(3), i64([]int{1}, 0), fails(engine.InvalidSpec)},

		{"onnx_gather: negative indices count from the end", onnx(0), arange(3, 2), i64([]int{2}, -1, 0), ok([]int{2, 2}, 4, 5, 0, 1)},
		{"onnx_gather: an index below -s is out of range", onnx(0), arange(3), i64([]int{1}, -4), fails(engine.OutOfRange)},
		{"onnx_gather: indices are checked when the result is empty", onnx(0), arange(3, 0), i64([]int{1}, 3), fails(engine.OutOfRange)},
		{"onnx_gather: axis r is invalid", onnx(2), arange(3, 2), i64([]int{1}, 0), fails(engine.InvalidSpec)},
		{"onnx_gather: 0-d data is invalid", onnx(0), arange(), i64([]int{1}, 0), fails(engine.InvalidSpec)},
		{"onnx_gather: 0-d indices drop the axis", onnx(1), arange(2, 3), i64(nil, -1), ok([]int{2}, 2, 5)},

		{"onnx_gather_elements: the index replaces the axis position", elements(1), arange(2, 2), i64([]int{2, 2}, 0, 0, 1, 0), ok([]int{2, 2}, 0, 0, 3, 2)},
		{"onnx_gather_elements: indices may be smaller than data", elements(0), arange(3, 3), i64([]int{2, 1}, 2, -3), ok([]int{2, 1}, 6, 0)},
		{"onnx_gather_elements: indices larger than data off the axis are invalid", elements(0), arange(3, 1), i64([]int{1, 2}, 0, 0), fails(engine.InvalidSpec)},
		{"onnx_gather_elements: no broadcasting of a data dimension of 1", elements(0), arange(1, 1), i64([]int{1, 2}, 0, 0), fails(engine.InvalidSpec)},
		{"onnx_gather_elements: indices of another rank are invalid", elements(0), arange(3), i64([]int{1, 1}, 0), fails(engine.InvalidSpec)},
		{"onnx_gather_elements: an index out of [-s, s) is out of range", elements(0), arange(3), i64([]int{1}, 3), fails(engine.OutOfRange)},
	}
	for _, tt := range tests {
		got, err := tt.op(tt.a, tt.indices)
		checkResult(t, tt.rule, got, err, tt.want)
	}
}

// ones32 returns the shape of 32 dimensions of 1.
func ones32() []int {
	s := make([]int, 32)
	for i := range s {
		s[i] = 1
	}
	return s
}

// oneIndex returns a 1-D index tensor of dtype descr holding the value
// v (in the dtype's byte order, two's complement).
func oneIndex(t *testing.T, descr string, v int64) *engine.Tensor {
	t.Helper()
	dt, err := engine.ParseDType(descr)
	if err != nil {
		t.Fatal(err)
	}
	data := make([]byte, dt.Size)
	for k := range data {
		b := byte(uint64(v) >> (8 * k))
		if dt.BigEndian {
			data[dt.Size-1-k] = b
		} else {
			data[k] = b
		}
	}
	x, err := engine.FromBytes(dt, []int{1}, data)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// TestGatherFamilyIndexDTypes lists which index dtypes each op takes, in
// either byte order, and how it reads their values.
func TestGatherFamilyIndexDTypes(t *testing.T) {
	a := arange(4)
	type op func(i *engine.Tensor) (*engine.Tensor, error)
	take := func(i *engine.Tensor) (*engine.Tensor, error) { return engine.Take(a, i, engine.TakeSpec{}) }
	along := func(i *engine.Tensor) (*engine.Tensor, error) {
		return engine.TakeAlongAxis(a, i, engine.TakeAlongAxisSpec{})
	}
	gather := func(i *engine.Tensor) (*engine.Tensor, error) {
		return engine.Gather(a, i, engine.GatherSpec{BadIndices: engine.BadIndexError})
	}
	onnx := func(i *engine.Tensor) (*engine.Tensor, error) {
		return engine.ONNXGather(a, i, engine.ONNXGatherSpec{})
	}
	elements := func(i *engine.Tensor) (*engine.Tensor, error) {
		return engine.ONNXGatherElements(a, i, engine.ONNXGatherSpec{})
	}
	tests := []struct {
		rule  string
		op    op
		descr string
		value int64
		want  result
	}{
		{"take reads int8 in two's complement", take, "|i1", -1, ok([]int{1}, 3)},
		{"take reads big-endian int16", take, ">i2", 2, ok([]int{1}, 2)},
		{"take reads big-endian uint32", take, ">u4", 3, ok([]int{1}, 3)},
		{"take reads big-endian int64", take, ">i8", -2, ok([]int{1}, 2)},
		{"take reads little-endian int32", take, "<i4", -4, ok([]int{1}, 0)},
		{"take reads bool as 0 and 1", take, "|b1", 1, ok([]int{1}, 1)},
		{"take refuses uint64 (NumPy's safe cast to intp fails)", take, "<u8", 1, fails(engine.InvalidSpec)},
		{"take refuses big-endian uint64", take, ">u8", 1, fails(engine.InvalidSpec)},
		{"take refuses float indices", take, "<f8", 0, fails(engine.InvalidSpec)},
		{"take_along_axis reads uint64", along, ">u8", 3, ok([]int{1}, 3)},
		{"take_along_axis: a uint64 beyond int64 is cast as NumPy casts it (2**64-1 is -1)", along, "<u8", -1, ok([]int{1}, 3)},
		{"take_along_axis refuses bool indices", along, "|b1", 1, fails(engine.InvalidSpec)},
		{"take_along_axis refuses float indices", along, "<f4", 0, fails(engine.InvalidSpec)},
		{"gather reads big-endian int32", gather, ">i4", 3, ok([]int{1}, 3)},
		{"gather reads big-endian int64", gather, ">i8", 2, ok([]int{1}, 2)},
		{"gather refuses uint16 (GatherV2's Tindices is int32 or int64)", gather, ">u2", 3, fails(engine.BadInput)},
		{"gather refuses uint64 (GatherV2's Tindices is int32 or int64)", gather, "<u8", -1, fails(engine.BadInput)},
		{"gather refuses int8 (GatherV2's Tindices is int32 or int64)", gather, "|i1", 1, fails(engine.BadInput)},
		{"gather refuses int16 (GatherV2's Tindices is int32 or int64)", gather, "<i2", 1, fails(engine.BadInput)},
		{"gather refuses uint32 (GatherV2's Tindices is int32 or int64)", gather, "<u4", 1, fails(engine.BadInput)},
		{"gather refuses bool indices as gather_nd does", gather, "|b1", 1, fails(engine.BadInput)},
		{"onnx_gather reads big-endian int64", onnx, ">i8", -1, ok([]int{1}, 3)},
		{"onnx_gather takes int32 (Gather-13's Tind)", onnx, "<i4", 0, ok([]int{1}, 0)},
		{"onnx_gather takes only int32 and int64", onnx, "<i2", 0, fails(engine.BadInput)},
		{"onnx_gather_elements takes only int64", elements, "<u8", 0, fails(engine.BadInput)},
		{"onnx_gather_elements reads big-endian int64", elements, ">i8", -4, ok([]int{1}, 0)},
	}
	for _, tt := range tests {
		got, err := tt.op(oneIndex(t, tt.descr, tt.value))
		checkResult(t, tt.rule, got, err, tt.want)
	}
	u64, _ := engine.FromBytes(engine.Uint64Type, []int{}, []byte{2, 0, 0, 0, 0, 0, 0, 0})
	got, err := engine.Take(a, u64, engine.TakeSpec{})
	checkResult(t, "take casts a 0-d uint64 by its value: one within int64 is taken", got, err, ok([]int{}, 2))
	huge, _ := engine.FromBytes(engine.Uint64Type, []int{}, []byte{0, 0, 0, 0, 0, 0, 0, 0x80})
	got, err = engine.Take(a, huge, engine.TakeSpec{})
	checkResult(t, "take refuses a 0-d uint64 beyond int64 (NumPy's cast fails)", got, err, fails(engine.InvalidSpec))
	// Under the variant, gather wraps negative indices.
	wrap := engine.Rules{}.With(engine.NegativeGatherIndicesWrap)
	got, err = engine.GatherUnder(a, oneIndex(t, "<i8", -1), engine.GatherSpec{BadIndices: engine.BadIndexError}, wrap)
	checkResult(t, "gather under negative-gather-indices-wrap counts -1 from the end", got, err, ok([]int{1}, 3))
}

// TestTakeScalarResult checks the dtype of take's results: a 0-d result
// is NumPy's scalar (native byte order), any other keeps a's dtype.
func TestTakeScalarResult(t *testing.T) {
	x, err := engine.FromBytes(engine.DType{Kind: engine.Int, Size: 4, BigEndian: true}, []int{2}, []byte{0, 0, 0, 1, 0, 0, 0, 2})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := engine.FromBytes(engine.DType{Kind: engine.Bool, Size: 1}, []int{2}, []byte{0, 7})
	if err != nil {
		t.Fatal(err)
	}
	zero := intTensor(t, nil, 1)
	tests := []struct {
		rule  string
		a     *engine.Tensor // x when nil
		spec  engine.TakeSpec
		rules engine.Rules
		want  array
	}{
		{"a 0-d result is a native-order scalar", nil, engine.TakeSpec{}, engine.Rules{}, array{"<i4", []int{}, []byte{2, 0, 0, 0}}},
		{"a 0-d result keeps the input's dtype under input-byte-order", nil, engine.TakeSpec{}, engine.Rules{}.With(engine.InputByteOrder), array{">i4", []int{}, []byte{0, 0, 0, 2}}},
		{"a flattened 0-d result is a scalar too", nil, engine.TakeSpec{Flatten: true}, engine.Rules{}, array{"<i4", []int{}, []byte{2, 0, 0, 0}}},
		{"a bool scalar is np.True_: a .npy byte of 7 gives 1", raw, engine.TakeSpec{}, engine.Rules{}, array{"|b1", []int{}, []byte{1}}},
	}
	for _, tt := range tests {
		a := tt.a
		if a == nil {
			a = x
		}
		got, err := engine.TakeUnder(a, zero, tt.spec, tt.rules)
		if err != nil {
			t.Fatalf("%s: %v", tt.rule, err)
		}
		if diff := cmp.Diff(tt.want, arrayOf(got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.rule, diff)
		}
	}
	got, err := engine.Take(x, intTensor(t, []int{1}, 1), engine.TakeSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(array{">i4", []int{1}, []byte{0, 0, 0, 2}}, arrayOf(got)); diff != "" {
		t.Errorf("a 1-D result keeps the input's byte order (-want +got):\n%s", diff)
	}
}

// TestGatherFamilyDropSize1Dims checks that the variant squeezes the new
// ops' results.
func TestGatherFamilyDropSize1Dims(t *testing.T) {
	r := engine.Rules{}.With(engine.DropSize1Dims)
	got, err := engine.GatherUnder(arange(1, 3), intTensor(t, []int{1}, 2), engine.GatherSpec{Axis: 1, BadIndices: engine.BadIndexError}, r)
	checkResult(t, "gather under drop-size-1-dims", got, err, ok([]int{}, 2))
	got, err = engine.TakeAlongAxisUnder(arange(1, 3), intTensor(t, []int{1, 2}, 2, 0), engine.TakeAlongAxisSpec{Axis: 1}, r)
	checkResult(t, "take_along_axis under drop-size-1-dims", got, err, ok([]int{2}, 2, 0))
}
