package engine_test

import (
	"math"
	"slices"
	"testing"

	"github.com/go-python/gpython/py"
	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
)

const (
	maxI64 = math.MaxInt64
	minI64 = math.MinInt64
	maxI32 = math.MaxInt32
)

// TestONNXSlice checks ONNX Slice-13, one rule per row. Sources: the
// operator doc and shape inference of Slice-13 (onnx/defs/tensor/defs.cc,
// processSliceInputs); ONNX Runtime's kernel
// (core/providers/cpu/tensor/slice_helper.h, slice.cc) where the doc is
// silent. Data is arange, so each output value names its source position.
func TestONNXSlice(t *testing.T) {
	type spec = engine.ONNXSliceSpec
	i64 := func(v ...int64) []int64 { return append([]int64{}, v...) }
	tests := []struct {
		rule  string
		shape []int
		spec  spec
		want  result
	}{
		// The doc's examples (its data is 1-based; arange is 0-based).
		{"doc example 1: axes [0,1], starts [1,0], ends [2,3], steps [1,2]", []int{2, 4},
			spec{Starts: i64(1, 0), Ends: i64(2, 3), Axes: i64(0, 1), Steps: i64(1, 2)}, ok([]int{1, 2}, 4, 6)},
		{"doc example 2: ends [-1, 1000]: -1 is d-1, 1000 is clamped to d", []int{2, 4},
			spec{Starts: i64(0, 1), Ends: i64(-1, 1000)}, ok([]int{1, 3}, 1, 2, 3)},

		// Axes.
		{"axes omitted: entry i applies to axis i, later axes are kept whole", []int{2, 3},
			spec{Starts: i64(1), Ends: i64(2)}, ok([]int{1, 3}, 3, 4, 5)},
		{"a negative axis counts from the back", []int{2, 3},
			spec{Starts: i64(1), Ends: i64(3), Axes: i64(-1)}, ok([]int{2, 2}, 1, 2, 4, 5)},
		{"axis -r is axis 0", []int{2, 3},
			spec{Starts: i64(1), Ends: i64(2), Axes: i64(-2)}, ok([]int{1, 3}, 3, 4, 5)},
		{"axes may come in any order", []int{2, 3},
			spec{Starts: i64(2, 1), Ends: i64(3, 2), Axes: i64(1, 0)}, ok([]int{1, 1}, 5)},
		{"an axis r is invalid_spec", []int{2, 3},
			spec{Starts: i64(0), Ends: i64(1), Axes: i64(2)}, fails(engine.InvalidSpec)},
		{"an axis -r-1 is invalid_spec", []int{2, 3},
			spec{Starts: i64(0), Ends: i64(1), Axes: i64(-3)}, fails(engine.InvalidSpec)},
		{"an extreme axis is invalid_spec (no overflow)", []int{2},
			spec{Starts: i64(0), Ends: i64(1), Axes: i64(minI64)}, fails(engine.InvalidSpec)},
		{"more entries than dims with axes omitted is invalid_spec (axis r)", []int{3},
			spec{Starts: i64(0, 0), Ends: i64(1, 1)}, fails(engine.InvalidSpec)},
		{"a repeated axis is invalid_spec (doc: undefined; ONNX Runtime rejects)", []int{2, 3},
			spec{Starts: i64(0, 0), Ends: i64(1, 1), Axes: i64(0, -2)}, fails(engine.InvalidSpec)},

		// Lengths.
		{"empty starts and ends are the identity", []int{2, 2},
			spec{Starts: i64(), Ends: i64()}, ok([]int{2, 2}, 0, 1, 2, 3)},
		{"starts and ends of different lengths are invalid_spec", []int{3},
			spec{Starts: i64(0), Ends: i64(1, 2)}, fails(engine.InvalidSpec)},
		{"axes of another length than starts are invalid_spec", []int{3, 3},
			spec{Starts: i64(0), Ends: i64(1), Axes: i64(0, 1)}, fails(engine.InvalidSpec)},
		{"an empty axes input is given, not omitted: invalid_spec with one start", []int{3},
			spec{Starts: i64(0), Ends: i64(1), Axes: i64()}, fails(engine.InvalidSpec)},
		{"steps of another length than starts are invalid_spec", []int{3},
			spec{Starts: i64(0), Ends: i64(1), Steps: i64(1, 1)}, fails(engine.InvalidSpec)},

		// Steps.
		{"a zero step is invalid_spec", []int{3},
			spec{Starts: i64(0), Ends: i64(1), Steps: i64(0)}, fails(engine.InvalidSpec)},
		{"a zero step is invalid_spec on an axis of size 0 too", []int{0},
			spec{Starts: i64(0), Ends: i64(0), Steps: i64(0)}, fails(engine.InvalidSpec)},
		{"count is ceil((end - start) / step)", []int{5},
			spec{Starts: i64(0), Ends: i64(5), Steps: i64(2)}, ok([]int{3}, 0, 2, 4)},
		{"count is ceil((end - start) / step), step 3", []int{5},
			spec{Starts: i64(0), Ends: i64(5), Steps: i64(3)}, ok([]int{2}, 0, 3)},
		{"a step beyond the axis takes one element", []int{5},
			spec{Starts: i64(1), Ends: i64(5), Steps: i64(maxI64)}, ok([]int{1}, 1)},
		{"an INT64_MIN step takes one element going backward", []int{5},
			spec{Starts: i64(3), Ends: i64(minI64), Steps: i64(minI64)}, ok([]int{1}, 3)},
		{"steps apply per axis", []int{3, 4},
			spec{Starts: i64(2, 3), Ends: i64(minI64, minI64), Steps: i64(-1, -2)}, ok([]int{3, 2}, 11, 9, 7, 5, 3, 1)},

		// Starts and ends, forward.
		{"a negative start gets d added once", []int{5},
			spec{Starts: i64(-2), Ends: i64(5)}, ok([]int{2}, 3, 4)},
		{"a start below -d is clamped to 0 going forward", []int{5},
			spec{Starts: i64(-7), Ends: i64(2)}, ok([]int{2}, 0, 1)},
		{"a start beyond d is clamped to d going forward: empty", []int{5},
			spec{Starts: i64(9), Ends: i64(maxI64)}, ok([]int{0})},
		{"an end beyond d is clamped to d", []int{5},
			spec{Starts: i64(3), Ends: i64(1000)}, ok([]int{2}, 3, 4)},
		{"an end below -d is clamped to 0: empty", []int{5},
			spec{Starts: i64(0), Ends: i64(-9)}, ok([]int{0})},
		{"end before start going forward is empty, not an error", []int{5},
			spec{Starts: i64(3), Ends: i64(1)}, ok([]int{0})},
		{"INT64_MAX as end slices to the end going forward (the doc's INT_MAX)", []int{5},
			spec{Starts: i64(1), Ends: i64(maxI64)}, ok([]int{4}, 1, 2, 3, 4)},
		{"INT64_MIN as start is clamped to 0 going forward", []int{5},
			spec{Starts: i64(minI64), Ends: i64(2)}, ok([]int{2}, 0, 1)},

		// Starts and ends, backward: where ONNX differs from NumPy and TF.
		{"a reverse start below -d is clamped to 0 (x[-6::-1] on 5: ONNX [x[0]], NumPy/TF empty)", []int{5},
			spec{Starts: i64(-6), Ends: i64(minI64), Steps: i64(-1)}, ok([]int{1}, 0)},
		{"a reverse start far below -d is clamped to 0 too", []int{5},
			spec{Starts: i64(minI64), Ends: i64(minI64), Steps: i64(-2)}, ok([]int{1}, 0)},
		{"a reverse start beyond d-1 is clamped to d-1", []int{5},
			spec{Starts: i64(10), Ends: i64(minI64), Steps: i64(-1)}, ok([]int{5}, 4, 3, 2, 1, 0)},
		{"INT64_MAX as a reverse start is clamped to d-1", []int{5},
			spec{Starts: i64(maxI64), Ends: i64(minI64), Steps: i64(-2)}, ok([]int{3}, 4, 2, 0)},
		{"a reverse end -1 is d-1, not 'before 0': empty", []int{5},
			spec{Starts: i64(4), Ends: i64(-1), Steps: i64(-1)}, ok([]int{0})},
		{"a reverse end below -d is clamped to -1, before position 0", []int{5},
			spec{Starts: i64(4), Ends: i64(-7), Steps: i64(-1)}, ok([]int{5}, 4, 3, 2, 1, 0)},
		{"INT64_MIN as a reverse end slices to the beginning (the doc's INT_MIN)", []int{5},
			spec{Starts: i64(2), Ends: i64(minI64), Steps: i64(-1)}, ok([]int{3}, 2, 1, 0)},
		{"INT64_MAX as a reverse end is clamped to d-1: empty (ONNX Runtime: to the beginning)", []int{5},
			spec{Starts: i64(3), Ends: i64(maxI64), Steps: i64(-1)}, ok([]int{0})},
		{"INT32_MAX as a reverse end is clamped to d-1: empty (ONNX Runtime: to the beginning)", []int{5},
			spec{Starts: i64(3), Ends: i64(maxI32), Steps: i64(-1)}, ok([]int{0})},
		{"a reverse range with end above start is empty", []int{5},
			spec{Starts: i64(1), Ends: i64(3), Steps: i64(-1)}, ok([]int{0})},

		// Empty axes and scalars.
		{"an axis of size 0 selects nothing whatever the bounds and step", []int{0, 2},
			spec{Starts: i64(-1), Ends: i64(minI64), Axes: i64(0), Steps: i64(-1)}, ok([]int{0, 2})},
		{"an axis of size 0 selects nothing going forward either", []int{0},
			spec{Starts: i64(minI64), Ends: i64(maxI64)}, ok([]int{0})},
		{"a size-0 axis elsewhere keeps the output empty", []int{2, 0},
			spec{Starts: i64(1), Ends: i64(2)}, ok([]int{1, 0})},
		{"rank-0 data is invalid_spec (ONNX Runtime: Cannot slice scalars)", []int{},
			spec{Starts: i64(), Ends: i64()}, fails(engine.InvalidSpec)},
	}
	for _, tt := range tests {
		got, err := engine.ONNXSlice(arange(tt.shape...), tt.spec)
		checkResult(t, tt.rule, got, err, tt.want)
	}
}

// TestONNXGatherND checks ONNX GatherND (opsets 12, 13), one rule per row.
// Sources: the operator doc of GatherND-13 (its numbered conditions and
// examples) and ONNX Runtime's kernel (core/providers/cpu/tensor/
// gather_nd.cc) where the doc is silent.
func TestONNXGatherND(t *testing.T) {
	tests := []struct {
		rule       string
		data       []int
		indexShape []int
		index      []int64
		batchDims  int
		want       result
	}{
		{"doc example 1: full-depth tuples select elements", []int{2, 2}, []int{2, 2}, []int64{0, 0, 1, 1}, 0, ok([]int{2}, 0, 3)},
		{"doc example 2: depth 1 selects rows", []int{2, 2}, []int{2, 1}, []int64{1, 0}, 0, ok([]int{2, 2}, 2, 3, 0, 1)},
		{"doc example 3: depth 2 of rank 3", []int{2, 2, 2}, []int{2, 2}, []int64{0, 1, 1, 0}, 0, ok([]int{2, 2}, 2, 3, 4, 5)},
		{"doc example 4: extra row dims", []int{2, 2, 2}, []int{2, 1, 2}, []int64{0, 1, 1, 0}, 0, ok([]int{2, 1, 2}, 2, 3, 4, 5)},
		{"doc example 5: batch_dims 1 gathers within each batch entry", []int{2, 2, 2}, []int{2, 1}, []int64{1, 0}, 1, ok([]int{2, 2}, 2, 3, 4, 5)},
		{"a negative index wraps once: -1 is the last", []int{3}, []int{1, 1}, []int64{-1}, 0, ok([]int{1}, 2)},
		{"-s is position 0", []int{3}, []int{1, 1}, []int64{-3}, 0, ok([]int{1}, 0)},
		{"-s-1 is out_of_range", []int{3}, []int{1, 1}, []int64{-4}, 0, fails(engine.OutOfRange)},
		{"s is out_of_range", []int{3}, []int{1, 1}, []int64{3}, 0, fails(engine.OutOfRange)},
		{"INT64_MIN is out_of_range (no overflow)", []int{3}, []int{1, 1}, []int64{minI64}, 0, fails(engine.OutOfRange)},
		{"negative indices wrap within a batch entry", []int{2, 3}, []int{2, 1}, []int64{-1, -3}, 1, ok([]int{2}, 2, 3)},
		{"a bad tuple after good ones is out_of_range", []int{2, 3}, []int{2, 2}, []int64{0, 0, 1, 3}, 0, fails(engine.OutOfRange)},
		{"index depth 0 selects whole batch entries (doc's case k < r-b; ONNX Runtime accepts)", []int{2}, []int{3, 0}, nil, 0, ok([]int{3, 2}, 0, 1, 0, 1, 0, 1)},
		{"index depth 0 with batch_dims", []int{2, 2}, []int{2, 1, 0}, nil, 1, ok([]int{2, 1, 2}, 0, 1, 2, 3)},
		{"index depth beyond rank - batch_dims is invalid_spec", []int{2, 2}, []int{1, 3}, []int64{0, 0, 0}, 0, fails(engine.InvalidSpec)},
		{"index depth beyond rank - batch_dims with batch_dims 1", []int{2, 2}, []int{2, 2}, []int64{0, 0, 0, 0}, 1, fails(engine.InvalidSpec)},
		{"rank-0 data is invalid_spec (r >= 1)", []int{}, []int{1, 0}, nil, 0, fails(engine.InvalidSpec)},
		{"rank-0 indices are invalid_spec (q >= 1)", []int{2}, []int{}, []int64{0}, 0, fails(engine.InvalidSpec)},
		{"batch_dims must be < rank(indices)", []int{2, 2}, []int{2}, []int64{0, 1}, 1, fails(engine.InvalidSpec)},
		{"batch_dims must be < rank(data)", []int{2}, []int{2, 1}, []int64{0, 1}, 1, fails(engine.InvalidSpec)},
		{"negative batch_dims are invalid_spec", []int{2}, []int{1, 1}, []int64{0}, -1, fails(engine.InvalidSpec)},
		{"batch dimensions must be equal (ONNX Runtime only checks divisibility)", []int{2, 2, 2}, []int{4, 1}, []int64{1, 0, 1, 0}, 1, fails(engine.InvalidSpec)},
		{"batch dimensions must be equal even when their products are", []int{2, 3, 2}, []int{3, 2, 1}, []int64{0, 0, 0, 0, 0, 0}, 2, fails(engine.InvalidSpec)},
		{"an index into an axis of size 0 is out_of_range", []int{0}, []int{1, 1}, []int64{0}, 0, fails(engine.OutOfRange)},
		{"tuples that select empty slices are still checked (ONNX Runtime does not)", []int{2, 0}, []int{1, 1}, []int64{5}, 0, fails(engine.OutOfRange)},
		{"in-range tuples that select empty slices give an empty result (no TF 'params is empty' rule)", []int{2, 0}, []int{1, 1}, []int64{1}, 0, ok([]int{1, 0})},
		{"no index tuples: an empty result, nothing checked", []int{2}, []int{0, 1}, nil, 0, ok([]int{0})},
		{"no index tuples from empty data", []int{0}, []int{0, 1}, nil, 0, ok([]int{0})},
		{"a zero batch dimension: empty result", []int{0, 2, 3}, []int{0, 0, 1}, nil, 1, ok([]int{0, 0, 3})},
	}
	for _, tt := range tests {
		got, err := engine.ONNXGatherND(arange(tt.data...), intTensor(t, tt.indexShape, tt.index...), tt.batchDims)
		checkResult(t, tt.rule, got, err, tt.want)
	}
}

// TestONNXGatherNDIndexDTypes checks the index dtype rule: int64 in either
// byte order, nothing else.
func TestONNXGatherNDIndexDTypes(t *testing.T) {
	data := arange(4)
	big, _ := engine.FromBytes(engine.DType{Kind: engine.Int, Size: 8, BigEndian: true}, []int{1, 1}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe})
	got, err := engine.ONNXGatherND(data, big, 0)
	checkResult(t, "big-endian int64 indices are read in their byte order (-2 wraps to 2)", got, err, ok([]int{1}, 2))
	for _, descr := range []string{"|i1", "<i2", "<i4", ">i4", "|u1", "<u8", "<f8", "|b1"} {
		dt, err := engine.ParseDType(descr)
		if err != nil {
			t.Fatal(err)
		}
		idx, _ := engine.FromBytes(dt, []int{1, 1}, make([]byte, dt.Size))
		got, err := engine.ONNXGatherND(data, idx, 0)
		checkResult(t, "indices of dtype "+descr+" are bad_input (ONNX GatherND takes int64 only)", got, err, fails(engine.BadInput))
	}
}

// onnxSliceByDefinition computes ONNX Slice element by element, sharing no
// code with the engine: each axis's positions come from gpython's port of
// CPython's slice.indices, which is ONNX's rule except that CPython clamps
// a reverse start below -d to -1 ("before position 0") where ONNX clamps it
// to position 0 — so such a start is raised to -d first, which CPython
// maps to position 0. The output is then gathered one element at a time.
// ok is false when the spec is invalid.
func onnxSliceByDefinition(shape []int, s engine.ONNXSliceSpec) (outShape []int, values []int64, ok bool) {
	r := len(shape)
	n := len(s.Starts)
	if r == 0 || len(s.Ends) != n || (s.Axes != nil && len(s.Axes) != n) || (s.Steps != nil && len(s.Steps) != n) {
		return nil, nil, false
	}
	positions := make([][]int, r)
	for a, d := range shape {
		for p := 0; p < d; p++ {
			positions[a] = append(positions[a], p)
		}
	}
	used := map[int]bool{}
	for i := 0; i < n; i++ {
		axis := int64(i)
		if s.Axes != nil {
			axis = s.Axes[i]
		}
		if axis < int64(-r) || axis >= int64(r) {
			return nil, nil, false
		}
		a := int((axis + int64(r)) % int64(r))
		if used[a] {
			return nil, nil, false
		}
		used[a] = true
		step := int64(1)
		if s.Steps != nil {
			step = s.Steps[i]
		}
		if step == 0 {
			return nil, nil, false
		}
		d := shape[a]
		start, end := s.Starts[i], s.Ends[i]
		if step < 0 && start < int64(-d) {
			start = int64(-d)
		}
		pyStep := step
		if pyStep == math.MinInt64 { // CPython clamps it so; |step| > d either way
			pyStep = -math.MaxInt64
		}
		first, _, st, length, err := py.NewSlice(py.Int(start), py.Int(end), py.Int(pyStep)).GetIndices(d)
		if err != nil {
			panic(err)
		}
		positions[a] = nil
		for k := 0; k < length; k++ {
			positions[a] = append(positions[a], first+k*st)
		}
	}
	strides := engine.ContiguousStrides(shape, 1)
	outShape = make([]int, r)
	total := 1
	for a := range positions {
		outShape[a] = len(positions[a])
		total *= outShape[a]
	}
	idx := make([]int, r)
	for e := 0; e < total; e++ {
		flat := 0
		for a := range idx {
			flat += positions[a][idx[a]] * strides[a]
		}
		values = append(values, int64(flat))
		for a := r - 1; a >= 0; a-- {
			if idx[a]++; idx[a] < outShape[a] {
				break
			}
			idx[a] = 0
		}
	}
	return outShape, values, true
}

// TestONNXSliceMatchesDefinition checks ONNX Slice against
// onnxSliceByDefinition on random shapes and specs: bounds around the axis
// and at the int64 extremes, steps of either sign (sometimes 0 or
// extreme), axes omitted or given (negative, permuted, sometimes repeated
// or out of range), steps omitted or given, and lengths that sometimes
// differ.
func TestONNXSliceMatchesDefinition(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		shape := drawShape(t, 0, 4)
		r := len(shape)
		n := rapid.IntRange(0, r+1).Draw(t, "entries")
		var s engine.ONNXSliceSpec
		for i := 0; i < n; i++ {
			s.Starts = append(s.Starts, bound(t, "start"))
			s.Ends = append(s.Ends, bound(t, "end"))
		}
		if s.Starts == nil {
			s.Starts, s.Ends = []int64{}, []int64{}
		}
		if rapid.Bool().Draw(t, "axes given") {
			s.Axes = []int64{}
			for _, a := range rapid.Permutation(rapid.SliceOfN(rapid.IntRange(0, r), n, n).Draw(t, "axes")).Draw(t, "order") {
				v := int64(a)
				if rapid.Bool().Draw(t, "negative axis") {
					v -= int64(r)
				}
				s.Axes = append(s.Axes, v)
			}
		}
		if rapid.Bool().Draw(t, "steps given") {
			s.Steps = []int64{}
			for i := 0; i < n; i++ {
				s.Steps = append(s.Steps, rapid.OneOf(rapid.Int64Range(-3, 3), rapid.SampledFrom([]int64{minI64, maxI64, -maxI64})).Draw(t, "step"))
			}
		}
		if rapid.IntRange(0, 19).Draw(t, "length fault") == 0 {
			s.Ends = append(s.Ends, 0)
		}
		got, err := engine.ONNXSlice(arange(shape...), s)
		wantShape, wantValues, valid := onnxSliceByDefinition(shape, s)
		if !valid {
			if engine.KindOf(err) != engine.InvalidSpec {
				t.Fatalf("the definition rejects the spec; engine gives %v", err)
			}
			return
		}
		if err != nil {
			t.Fatalf("engine: %v", err)
		}
		if !slices.Equal(got.Shape, wantShape) || !slices.Equal(ints(got), wantValues) {
			t.Fatalf("engine gives %v %v; definition gives %v %v", got.Shape, ints(got), wantShape, wantValues)
		}
	})
}

// TestONNXGatherNDMatchesDefinition checks ONNX GatherND against the
// per-element definition of gather_nd (gatherByDefinition) applied to the
// indices wrapped once: ONNX GatherND is tf.gather_nd with negative indices
// counted from the end.
func TestONNXGatherNDMatchesDefinition(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dshape := rapid.SliceOfN(rapid.IntRange(0, 4), 1, 5).Draw(t, "data")
		batchDims := rapid.IntRange(0, len(dshape)-1).Draw(t, "batch_dims")
		k := rapid.IntRange(0, len(dshape)-batchDims).Draw(t, "depth")
		ishape := append([]int{}, dshape[:batchDims]...)
		ishape = append(ishape, rapid.SliceOfN(rapid.IntRange(0, 3), 0, 2).Draw(t, "rows")...)
		ishape = append(ishape, k)
		indices := make([]int64, engine.NumElements(ishape))
		wrapped := make([]int64, len(indices))
		bad := false
		for i := range indices {
			dim := int64(dshape[batchDims+i%max(k, 1)])
			v := rapid.Int64Range(-dim-1, dim).Draw(t, "index")
			indices[i], wrapped[i] = v, v
			if v < 0 {
				wrapped[i] = v + dim
			}
			if v < -dim || v >= dim {
				bad = true
			}
		}
		data := arange(dshape...)
		got, err := engine.ONNXGatherND(data, intTensor(t, ishape, indices...), batchDims)
		if bad {
			if engine.KindOf(err) != engine.OutOfRange {
				t.Fatalf("an index is outside [-s, s); engine gives %v", err)
			}
			return
		}
		shape, values, outOfRange := gatherByDefinition(data, wrapped, ishape, batchDims)
		if outOfRange || err != nil {
			t.Fatalf("definition out of range: %v; engine: %v", outOfRange, err)
		}
		if !slices.Equal(got.Shape, shape) || !slices.Equal(ints(got), values) {
			t.Fatalf("engine gives %v %v; definition gives %v %v", got.Shape, ints(got), shape, values)
		}
	})
}
