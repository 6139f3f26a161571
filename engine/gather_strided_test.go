package engine_test

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"slices"
	"testing"

	"github.com/conformsuite/conform/engine"
	"pgregory.net/rapid"
)

// stridedView draws a view of rank 0 to 4 over new memory: any dims (a
// few of them 0 or 1) and any strides, negative, zero (broadcast) and
// overlapping ones included, in elements of the dtype dt.
func stridedView(t *rapid.T, dt engine.DType) *engine.Tensor {
	rank := rapid.IntRange(0, 4).Draw(t, "rank")
	shape := make([]int, rank)
	strides := make([]int, rank)
	lo, hi := 0, dt.Size
	for i := range shape {
		shape[i] = rapid.IntRange(0, 5).Draw(t, "dim")
		strides[i] = dt.Size * rapid.IntRange(-7, 7).Draw(t, "stride")
		if shape[i] == 0 {
			continue
		}
		if reach := (shape[i] - 1) * strides[i]; reach < 0 {
			lo += reach
		} else {
			hi += reach
		}
	}
	pad := dt.Size * rapid.IntRange(0, 2).Draw(t, "pad")
	data := make([]byte, hi-lo+2*pad)
	for i := range data {
		data[i] = byte(i*131 + i>>8 + 1)
	}
	return &engine.Tensor{DType: dt, Shape: shape, Strides: strides, Offset: pad - lo, Data: data}
}

// drawIndices draws an index tensor of the given shape and dtype (int32 or
// int64), its values in [lo, hi], as a C-contiguous tensor or, for rank 2
// and more, as a Fortran-order view of the same values.
func drawIndices(t *rapid.T, shape []int, dt engine.DType, lo, hi int) *engine.Tensor {
	n := engine.NumElements(shape)
	vals := make([]int64, n)
	for k := range vals {
		vals[k] = int64(rapid.IntRange(lo, hi).Draw(t, "index"))
	}
	c := make([]byte, n*dt.Size)
	for k, v := range vals {
		if dt.Size == 8 {
			binary.LittleEndian.PutUint64(c[8*k:], uint64(v))
		} else {
			binary.LittleEndian.PutUint32(c[4*k:], uint32(v))
		}
	}
	out, err := engine.FromBytes(dt, shape, c)
	if err != nil {
		t.Fatalf("indices: %v", err)
	}
	if len(shape) < 2 || !rapid.Bool().Draw(t, "fortran indices") {
		return out
	}
	// The same values stored column-major.
	strides := make([]int, len(shape))
	s := dt.Size
	for d := range shape {
		strides[d] = s
		s *= max(shape[d], 1)
	}
	f := make([]byte, len(c))
	pos := make([]int, len(shape))
	for k := 0; k < n; k++ {
		off := 0
		for d := range pos {
			off += pos[d] * strides[d]
		}
		copy(f[off:off+dt.Size], c[k*dt.Size:(k+1)*dt.Size])
		for d := len(pos) - 1; d >= 0; d-- {
			if pos[d]++; pos[d] < shape[d] {
				break
			}
			pos[d] = 0
		}
	}
	return &engine.Tensor{DType: dt, Shape: slices.Clone(shape), Strides: strides, Data: f}
}

// drawDims draws 0 to max dimensions of 0 to 3 (rarely 0).
func drawDims(t *rapid.T, max int) []int {
	dims := make([]int, rapid.IntRange(0, max).Draw(t, "dims"))
	for i := range dims {
		dims[i] = rapid.IntRange(0, 3).Draw(t, "dim")
	}
	return dims
}

// TestGatherStridedSources checks that every op of the gather family
// reads a source that is a view (Fortran order, reversed, broadcast,
// overlapping, at an offset) through its strides and gives exactly the
// answer it gives for a C-order copy of that source: the same error
// kind, or an output of the same dtype, shape and bytes.
func TestGatherStridedSources(t *testing.T) {
	dtypes := []engine.DType{engine.Uint8Type, engine.Int16Type, engine.Float32Type, engine.Float64Type,
		{Kind: engine.Bytes, Size: 3}, {Kind: engine.Bytes, Size: 16}}
	type op struct {
		name string
		// draw returns the op as a function of its source, for a drawn
		// source shape.
		draw func(t *rapid.T, shape []int) func(src *engine.Tensor) (*engine.Tensor, error)
	}
	indexDType := func(t *rapid.T) engine.DType {
		return rapid.SampledFrom([]engine.DType{engine.Int64Type, engine.Int32Type}).Draw(t, "index dtype")
	}
	axisOf := func(t *rapid.T, shape []int) int {
		if len(shape) == 0 {
			return 0
		}
		return rapid.IntRange(0, len(shape)-1).Draw(t, "axis")
	}
	variants := func(t *rapid.T) engine.Rules {
		var r engine.Rules
		if rapid.Bool().Draw(t, "wrap") {
			r = r.With(engine.NegativeGatherIndicesWrap)
		}
		if rapid.Bool().Draw(t, "flat") {
			r = r.With(engine.GatherFlatBounds)
		}
		return r
	}
	policy := func(t *rapid.T) engine.BadIndexPolicy {
		return rapid.SampledFrom([]engine.BadIndexPolicy{engine.BadIndexError, engine.BadIndexZero}).Draw(t, "policy")
	}
	ndIndices := func(t *rapid.T, shape []int, dt engine.DType) (*engine.Tensor, int) {
		bd := 0
		if len(shape) > 1 {
			bd = rapid.IntRange(0, len(shape)-1).Draw(t, "batch_dims")
		}
		depth := rapid.IntRange(0, max(len(shape)-bd, 0)).Draw(t, "depth")
		ishape := append(append(slices.Clone(shape[:bd]), drawDims(t, 2)...), depth)
		return drawIndices(t, ishape, dt, -3, 5), bd
	}
	ops := []op{
		{"gather", func(t *rapid.T, shape []int) func(*engine.Tensor) (*engine.Tensor, error) {
			axis := axisOf(t, shape)
			bd := rapid.IntRange(0, axis).Draw(t, "batch_dims")
			n := 1
			if len(shape) > 0 {
				n = shape[axis]
			}
			idx := drawIndices(t, append(slices.Clone(shape[:min(bd, len(shape))]), drawDims(t, 2)...), indexDType(t), -2, n+1)
			spec := engine.GatherSpec{Axis: axis, BatchDims: bd, BadIndices: policy(t)}
			r := variants(t)
			return func(src *engine.Tensor) (*engine.Tensor, error) { return engine.GatherUnder(src, idx, spec, r) }
		}},
		{"gather_nd", func(t *rapid.T, shape []int) func(*engine.Tensor) (*engine.Tensor, error) {
			idx, bd := ndIndices(t, shape, indexDType(t))
			p, r := policy(t), variants(t)
			return func(src *engine.Tensor) (*engine.Tensor, error) { return engine.GatherNDUnder(src, idx, bd, p, r) }
		}},
		{"onnx_gather_nd", func(t *rapid.T, shape []int) func(*engine.Tensor) (*engine.Tensor, error) {
			idx, bd := ndIndices(t, shape, engine.Int64Type)
			var r engine.Rules
			if rapid.Bool().Draw(t, "flat") {
				r = r.With(engine.GatherFlatBounds)
			}
			return func(src *engine.Tensor) (*engine.Tensor, error) { return engine.ONNXGatherNDUnder(src, idx, bd, r) }
		}},
		{"take", func(t *rapid.T, shape []int) func(*engine.Tensor) (*engine.Tensor, error) {
			spec := engine.TakeSpec{Axis: axisOf(t, shape), Flatten: rapid.Bool().Draw(t, "flatten"),
				Mode: rapid.SampledFrom([]engine.TakeMode{engine.TakeRaise, engine.TakeWrap, engine.TakeClip}).Draw(t, "mode")}
			n := engine.NumElements(shape)
			if !spec.Flatten && len(shape) > 0 {
				n = shape[spec.Axis]
			}
			idx := drawIndices(t, drawDims(t, 2), indexDType(t), -n-2, n+1)
			return func(src *engine.Tensor) (*engine.Tensor, error) { return engine.Take(src, idx, spec) }
		}},
		{"take_along_axis", func(t *rapid.T, shape []int) func(*engine.Tensor) (*engine.Tensor, error) {
			spec := engine.TakeAlongAxisSpec{Axis: axisOf(t, shape), Flatten: rapid.Bool().Draw(t, "flatten")}
			logical := shape
			if spec.Flatten {
				logical = []int{engine.NumElements(shape)}
				spec.Axis = 0
			}
			ishape := make([]int, len(logical))
			for d, n := range logical {
				ishape[d] = rapid.SampledFrom([]int{n, 1, 2}).Draw(t, "index dim")
			}
			n := 0
			if len(logical) > 0 {
				n = logical[spec.Axis]
			}
			idx := drawIndices(t, ishape, indexDType(t), -n-1, n)
			return func(src *engine.Tensor) (*engine.Tensor, error) { return engine.TakeAlongAxis(src, idx, spec) }
		}},
		{"onnx_gather", func(t *rapid.T, shape []int) func(*engine.Tensor) (*engine.Tensor, error) {
			spec := engine.ONNXGatherSpec{Axis: axisOf(t, shape)}
			n := 1
			if len(shape) > 0 {
				n = shape[spec.Axis]
			}
			idx := drawIndices(t, drawDims(t, 2), indexDType(t), -n-1, n)
			return func(src *engine.Tensor) (*engine.Tensor, error) { return engine.ONNXGather(src, idx, spec) }
		}},
		{"onnx_gather_elements", func(t *rapid.T, shape []int) func(*engine.Tensor) (*engine.Tensor, error) {
			spec := engine.ONNXGatherSpec{Axis: axisOf(t, shape)}
			ishape := make([]int, len(shape))
			n := 1
			for d, s := range shape {
				ishape[d] = rapid.IntRange(0, s).Draw(t, "index dim")
				if d == spec.Axis {
					n = s
					ishape[d] = rapid.IntRange(0, 3).Draw(t, "index dim")
				}
			}
			idx := drawIndices(t, ishape, indexDType(t), -n-1, n)
			return func(src *engine.Tensor) (*engine.Tensor, error) { return engine.ONNXGatherElements(src, idx, spec) }
		}},
	}
	for _, o := range ops {
		t.Run(o.name, func(t *testing.T) {
			compared := 0
			rapid.Check(t, func(rt *rapid.T) {
				dt := rapid.SampledFrom(dtypes).Draw(rt, "dtype")
				src := stridedView(rt, dt)
				run := o.draw(rt, src.Shape)
				c := src.Contiguous()
				want, wantErr := run(c)
				got, gotErr := run(src)
				switch {
				case wantErr != nil || gotErr != nil:
					if engine.KindOf(wantErr) != engine.KindOf(gotErr) {
						rt.Fatalf("shape %v strides %v: C order gives %v, the view %v", src.Shape, src.Strides, wantErr, gotErr)
					}
				case want.DType != got.DType || !slices.Equal(want.Shape, got.Shape) || !bytes.Equal(want.Bytes(), got.Bytes()):
					rt.Fatalf("shape %v strides %v: C order gives %v %x, the view %v %x", src.Shape, src.Strides, want.Shape, want.Bytes(), got.Shape, got.Bytes())
				default:
					if !src.IsContiguous() && got.Len() > 0 {
						compared++
					}
				}
			})
			if compared < 10 {
				t.Errorf("only %d results from views that are not C-contiguous were compared", compared)
			}
		})
	}
}

// TestGatherStridedMemory checks that the gather family reads a source in
// Fortran order (as a .npy file in Fortran order is read) in place: from a
// 16 MiB float32 source, each op allocates little beyond its result (a
// C-order copy of the source took 16 MiB more).
func TestGatherStridedMemory(t *testing.T) {
	const n = 2048
	src := &engine.Tensor{DType: engine.Float32Type, Shape: []int{n, n}, Strides: []int{4, 4 * n}, Data: make([]byte, 4*n*n)}
	for i := 0; i < len(src.Data); i += 4093 {
		src.Data[i] = byte(i)
	}
	pairs := make([]int64, 0, 2*n)
	for k := range n {
		pairs = append(pairs, int64(k*7%n), int64(k*13%n))
	}
	row := func(vals ...int64) []int64 { return vals }
	tests := []struct {
		name string // the op and the rule its row checks
		run  func() (*engine.Tensor, error)
	}{
		{"gather of rows: blocks that are strided in memory", func() (*engine.Tensor, error) {
			return engine.Gather(src, intTensor(t, []int{4}, row(3, 0, 2047, 5)...), engine.GatherSpec{Axis: 0, BadIndices: engine.BadIndexError})
		}},
		{"gather of columns: blocks of single elements", func() (*engine.Tensor, error) {
			return engine.Gather(src, intTensor(t, []int{4}, row(3, 0, 2047, 5)...), engine.GatherSpec{Axis: 1, BadIndices: engine.BadIndexError})
		}},
		{"gather_nd of elements", func() (*engine.Tensor, error) {
			return engine.GatherND(src, intTensor(t, []int{n, 2}, pairs...), 0, engine.BadIndexError)
		}},
		{"onnx_gather_nd of elements", func() (*engine.Tensor, error) {
			return engine.ONNXGatherND(src, intTensor(t, []int{n, 2}, pairs...), 0)
		}},
		{"take of rows", func() (*engine.Tensor, error) {
			return engine.Take(src, intTensor(t, []int{2}, row(-1, 9)...), engine.TakeSpec{Axis: 0})
		}},
		{"take from the flattened source", func() (*engine.Tensor, error) {
			return engine.Take(src, intTensor(t, []int{2 * n}, pairs...), engine.TakeSpec{Flatten: true})
		}},
		{"take_along_axis", func() (*engine.Tensor, error) {
			return engine.TakeAlongAxis(src, intTensor(t, []int{1, n}, pairs[:n]...), engine.TakeAlongAxisSpec{Axis: 0})
		}},
		{"take_along_axis of the flattened source", func() (*engine.Tensor, error) {
			return engine.TakeAlongAxis(src, intTensor(t, []int{2 * n}, pairs...), engine.TakeAlongAxisSpec{Flatten: true})
		}},
		{"onnx_gather of columns", func() (*engine.Tensor, error) {
			return engine.ONNXGather(src, intTensor(t, []int{3}, row(1, -1, 4)...), engine.ONNXGatherSpec{Axis: 1})
		}},
		{"onnx_gather_elements", func() (*engine.Tensor, error) {
			return engine.ONNXGatherElements(src, intTensor(t, []int{2, n}, pairs...), engine.ONNXGatherSpec{Axis: 1})
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after runtime.MemStats
			// Twice, so that no released result is left to be reused
			// unseen.
			runtime.GC()
			runtime.GC()
			runtime.ReadMemStats(&before)
			out, err := tt.run()
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			extra := int64(after.TotalAlloc-before.TotalAlloc) - int64(len(out.Data))
			t.Logf("allocated %d bytes beyond the %d-byte result", extra, len(out.Data))
			if extra > 1<<20 {
				t.Errorf("allocated %d bytes beyond the %d-byte result from a %d-byte source, want at most 1 MiB", extra, len(out.Data), len(src.Data))
			}
		})
	}
}
