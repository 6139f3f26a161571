package engine_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/expr"
)

// This file holds the benchmarks of the copy kernels and the tests that
// check those kernels on the paths small cases do not reach: long blocks,
// outputs large enough to be split across goroutines, every element size.

// byElement returns the elements of the view v in row-major order, copied
// one element at a time from the definition of a strided view.
func byElement(v *engine.Tensor) []byte {
	n := v.Len()
	size := v.DType.Size
	out := make([]byte, 0, n*size)
	idx := make([]int, v.Rank())
	for k := 0; k < n; k++ {
		off := v.Offset
		for i, j := range idx {
			off += j * v.Strides[i]
		}
		out = append(out, v.Data[off:off+size]...)
		for i := len(idx) - 1; i >= 0; i-- {
			if idx[i]++; idx[i] < v.Shape[i] {
				break
			}
			idx[i] = 0
		}
	}
	return out
}

// pattern returns n bytes in which no two nearby bytes are equal.
func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

// TestContiguousMatchesElementLoop checks materialising arbitrary strided
// views (negative, zero and overlapping strides, odd element sizes)
// against a copy element by element.
func TestContiguousMatchesElementLoop(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		size := rapid.SampledFrom([]int{1, 2, 3, 4, 8, 12, 16}).Draw(t, "size")
		rank := rapid.IntRange(0, 5).Draw(t, "rank")
		shape := make([]int, rank)
		strides := make([]int, rank)
		lo, hi := 0, size // the bytes the view reaches, relative to its offset
		for i := range shape {
			shape[i] = rapid.IntRange(0, 5).Draw(t, "dim")
			strides[i] = size * rapid.IntRange(-12, 12).Draw(t, "stride")
			if shape[i] > 0 {
				if reach := (shape[i] - 1) * strides[i]; reach < 0 {
					lo += reach
				} else {
					hi += reach
				}
			}
		}
		pad := rapid.IntRange(0, 3).Draw(t, "pad")
		v := &engine.Tensor{
			DType:   engine.DType{Kind: engine.Bytes, Size: size},
			Shape:   shape,
			Strides: strides,
			Offset:  pad - lo,
			Data:    pattern(pad + hi - lo + pad),
		}
		want := byElement(v)
		got := v.Contiguous()
		if !bytes.Equal(got.Bytes(), want) {
			t.Fatalf("shape %v strides %v offset %d: got %x, want %x", shape, strides, v.Offset, got.Bytes(), want)
		}
		if !got.IsContiguous() {
			t.Fatalf("shape %v strides %v: the result is not contiguous: %+v", shape, strides, got)
		}
	})
}

// TestKernelsLarge checks subscripts on inputs of 1024 rows of 1024
// elements, for every element size (results made of long blocks, and from
// 8-byte elements on split across goroutines), and on a 40 MiB input,
// through GetItem and Plan.ApplyTo, releasing each result so that the
// next may reuse its memory. A result must share the input's
// memory exactly when its elements are one block of it.
func TestKernelsLarge(t *testing.T) {
	subscripts := []string{
		"x[1:1000]", "x[1:]", "x[:, 3:900]", "x[::-1]", "x[:, ::-1]", "x[::-1, ::-1]", "x[:, ::3]",
		"x[::2, ::-5]", "x[None, 5:, None, ::2]", "x[7]", "x[:, 7]", "x[::-3, 2:1000:2, None]",
	}
	views := map[string]bool{"x[1:1000]": true, "x[1:]": true, "x[7]": true}
	for _, in := range []struct{ size, rows int }{
		{1, 1024}, {2, 1024}, {3, 1024}, {4, 1024}, {8, 1024}, {12, 1024}, {16, 1024},
		{16, 2560}, // 40 MiB
	} {
		size := in.size
		x, err := engine.FromBytes(engine.DType{Kind: engine.Bytes, Size: size}, []int{in.rows, 1024}, pattern(in.rows*1024*size))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range subscripts {
			items, err := expr.Parse(s)
			if err != nil {
				t.Fatal(err)
			}
			p, err := engine.GetItemPlan(x.Shape, items)
			if err != nil {
				t.Fatal(err)
			}
			got, err := engine.GetItem(x, items)
			if err != nil {
				t.Fatal(err)
			}
			v := p.View(x)
			want := byElement(v)
			if !bytes.Equal(got.Bytes(), want) || !got.IsContiguous() {
				t.Errorf("%s with %d-byte elements: wrong result", s, size)
			}
			// A view of one block starts where the strided view does.
			if view := &got.Data[0] == &x.Data[v.Offset]; view != views[s] {
				t.Errorf("%s with %d-byte elements: result is a view of the input: %v, want %v", s, size, view, views[s])
			}
			dst := make([]byte, len(want))
			into := p.ApplyTo(dst, x)
			if !bytes.Equal(into.Data, want) || !into.IsContiguous() || &into.Data[0] != &dst[0] {
				t.Errorf("%s with %d-byte elements: wrong result from ApplyTo", s, size)
			}
			// The next results may reuse this one's memory: the
			// kernels must overwrite all of it (new buffers are poisoned,
			// reused ones hold an earlier result).
			engine.Release(got)
		}
	}
}

// TestGatherNDLarge checks gather_nd on outputs large enough to be
// gathered in parallel, of single elements and of long blocks, with bad
// rows at both ends and in the middle.
func TestGatherNDLarge(t *testing.T) {
	params := arange(64, 1024) // rows of 8 KiB
	for i := 0; i < len(params.Data); i += 8 {
		// Values whose every byte matters.
		binary.LittleEndian.PutUint64(params.Data[i:], mix(binary.LittleEndian.Uint64(params.Data[i:])))
	}
	for _, tt := range []struct {
		name  string
		depth int
		rows  int
	}{
		{"scalars", 2, 1 << 18},
		{"rows", 1, 256},
		{"rows, 32 MiB", 1, 4096},
	} {
		indices := make([]int64, tt.rows*tt.depth)
		for i := range indices {
			indices[i] = int64(mix(uint64(i)) % uint64(params.Shape[i%tt.depth]))
		}
		ishape := []int{tt.rows, tt.depth}
		got, err := engine.GatherND(params, intTensor(t, ishape, indices...), 0, engine.BadIndexError)
		if err != nil {
			t.Fatal(err)
		}
		shape, values, _ := gatherByDefinition(params, indices, ishape, 0)
		if !slices.Equal(got.Shape, shape) || !slices.Equal(ints(got), values) {
			t.Errorf("%s: wrong result", tt.name)
		}
		engine.Release(got)
		for _, bad := range []int{0, tt.rows / 2, tt.rows/2 + 1, tt.rows - 1} {
			broken := append([]int64(nil), indices...)
			broken[bad*tt.depth] = -1
			broken[(tt.rows-1)*tt.depth] = 64 // a later bad row
			ix := intTensor(t, ishape, broken...)
			_, err := engine.GatherND(params, ix, 0, engine.BadIndexError)
			if want := fmt.Sprintf("indices[%d,:] = ", bad); engine.KindOf(err) != engine.OutOfRange || !bytes.Contains([]byte(err.Error()), []byte(want)) {
				t.Errorf("%s, bad row %d: got %v, want out_of_range naming %q", tt.name, bad, err, want)
			}
			zeroed, err := engine.GatherND(params, ix, 0, engine.BadIndexZero)
			if err != nil {
				t.Fatalf("%s, bad row %d, zero mode: %v", tt.name, bad, err)
			}
			block := len(values) / tt.rows
			want := append([]int64(nil), values...)
			clear(want[bad*block : (bad+1)*block])
			clear(want[(tt.rows-1)*block:])
			if !slices.Equal(ints(zeroed), want) {
				t.Errorf("%s, bad row %d, zero mode: wrong result", tt.name, bad)
			}
			engine.Release(zeroed) // the next zero-mode result may reuse it
		}
	}
}

// TestGatherAxisLarge checks gather along an inner axis (each index used
// for many lines of params) on outputs large enough to be gathered in
// parallel, for every element size, with and without batch dimensions,
// with indices outside the axis at both ends and in the middle of a batch
// entry, under both policies.
func TestGatherAxisLarge(t *testing.T) {
	const lines, n, m = 256, 1000, 2001
	for _, batch := range []int{1, 2} {
		for _, size := range []int{1, 2, 3, 4, 8, 12, 16} {
			// params [batch, lines, n], indices [batch, m]: batch_dims 1,
			// axis 2; with one batch entry, params [lines, n] and
			// indices [m], axis 1.
			pshape, ishape, spec := []int{batch, lines, n}, []int{batch, m}, engine.GatherSpec{Axis: 2, BatchDims: 1}
			if batch == 1 {
				pshape, ishape, spec = pshape[1:], ishape[1:], engine.GatherSpec{Axis: 1}
			}
			params, err := engine.FromBytes(engine.DType{Kind: engine.Bytes, Size: size}, pshape, pattern(batch*lines*n*size))
			if err != nil {
				t.Fatal(err)
			}
			indices := make([]int64, batch*m)
			for k := range indices {
				indices[k] = int64(mix(uint64(k)) % n)
			}
			// byDefinition gathers as tf.gather does, zeros for an index
			// outside the axis.
			byDefinition := func(indices []int64) []byte {
				out := make([]byte, 0, batch*lines*m*size)
				for b := 0; b < batch; b++ {
					for l := 0; l < lines; l++ {
						for _, v := range indices[b*m : (b+1)*m] {
							if v < 0 || v >= n {
								out = append(out, make([]byte, size)...)
								continue
							}
							p := ((b*lines+l)*n + int(v)) * size
							out = append(out, params.Data[p:p+size]...)
						}
					}
				}
				return out
			}
			name := fmt.Sprintf("%d batch entries, %d-byte elements", batch, size)
			spec.BadIndices = engine.BadIndexError
			got, err := engine.Gather(params, intTensor(t, ishape, indices...), spec)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !bytes.Equal(got.Bytes(), byDefinition(indices)) {
				t.Errorf("%s: wrong result", name)
			}
			engine.Release(got)
			for _, bad := range []int{0, m / 2, m/2 + 1, m - 1} {
				broken := append([]int64(nil), indices...)
				b := batch - 1 // in the last batch entry, and a later one outside in each
				broken[b*m+bad] = -1
				for e := b; e < batch; e++ {
					broken[e*m+m-1] = n
				}
				ix := intTensor(t, ishape, broken...)
				spec.BadIndices = engine.BadIndexError
				_, err := engine.Gather(params, ix, spec)
				want := fmt.Sprintf("indices[%d] = -1 ", bad)
				if batch > 1 {
					want = fmt.Sprintf("indices[%d,%d] = -1 ", b, bad)
				}
				if bad == m-1 {
					want = strings.Replace(want, "-1", fmt.Sprint(n), 1)
				}
				if engine.KindOf(err) != engine.OutOfRange || !strings.Contains(err.Error(), want) {
					t.Errorf("%s, index %d outside: got %v, want out_of_range naming %q", name, bad, err, want)
				}
				spec.BadIndices = engine.BadIndexZero
				zeroed, err := engine.Gather(params, ix, spec)
				if err != nil {
					t.Fatalf("%s, index %d outside, zero mode: %v", name, bad, err)
				}
				if !bytes.Equal(zeroed.Bytes(), byDefinition(broken)) {
					t.Errorf("%s, index %d outside, zero mode: wrong result", name, bad)
				}
				engine.Release(zeroed) // the next zero-mode result may reuse it
			}
		}
	}
}

// The benchmarks below measure the kernels on 64 MiB inputs, each beside a
// plain Go copy of the same number of bytes (the memcpy baseline).
// scripts/bench.sh runs the same operations in NumPy and prints the
// ratios: its rows and these must stay in step (names, shapes, subscripts,
// index rows); it checks that both sides produce the same number of bytes.

// benchSlices are the slicing rows: a subscript over a 64 MiB float32
// input of the given shape.
var benchSlices = []struct {
	name  string
	shape []int
	index string
}{
	{"row-slice", []int{4096, 4096}, "x[1024:3072]"},
	{"column-slice", []int{4096, 4096}, "x[:, 1024:3072]"},
	{"reversed-rows", []int{4096, 4096}, "x[::-1]"},
	{"reversed-axis", []int{4096, 4096}, "x[:, ::-1]"},
	{"step-3", []int{4096, 4096}, "x[:, ::3]"},
	{"newaxis-shrink", []int{16, 16, 256, 256}, "x[:, 3, None, :, None, :]"},
}

// benchGathers are the gather_nd rows over a 4096x4096 float32 params:
// index rows of depth 1 gather whole 16 KiB rows, of depth 2 scalars.
var benchGathers = []struct {
	name        string
	rows, depth int
}{
	{"gather-rows", 4096, 1},
	{"gather-scalars", 1 << 20, 2},
}

// benchAdvanced are the advanced getitem rows: a subscript over a 64 MiB
// float32 input of the given shape, with the index arrays it names (as
// the inputs of a case): i, 1M random rows of a (1M, 16) input, or 1024
// random columns of a 4096x4096 one (benchIndices); m, a mask of 16M
// elements, about half true (benchMask).
var benchAdvanced = []struct {
	name   string
	shape  []int
	index  string
	arrays func() map[string]*engine.Tensor
}{
	{"fancy-rows", []int{1 << 20, 16}, "x[i]", func() map[string]*engine.Tensor {
		return map[string]*engine.Tensor{"i": benchIndices([]int{1 << 20}, 1<<20)}
	}},
	{"fancy-columns", []int{4096, 4096}, "x[:, i]", func() map[string]*engine.Tensor {
		return map[string]*engine.Tensor{"i": benchIndices([]int{1024}, 4096)}
	}},
	{"bool-mask", []int{16 << 20}, "x[m]", func() map[string]*engine.Tensor {
		return map[string]*engine.Tensor{"m": benchMask([]int{16 << 20})}
	}},
}

// benchInputs caches the inputs across benchmark runs.
var benchInputs = map[string]*engine.Tensor{}

// benchInput returns a C-contiguous float32 tensor of the given shape
// whose pages have all been written.
func benchInput(shape []int) *engine.Tensor {
	key := fmt.Sprint(shape)
	if t, ok := benchInputs[key]; ok {
		return t
	}
	n := engine.NumElements(shape)
	data := engine.MakeData(4 * n) // as the .npy reader allocates inputs
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(i))
	}
	t, err := engine.FromBytes(engine.Float32Type, shape, data)
	if err != nil {
		panic(err)
	}
	benchInputs[key] = t
	return t
}

// benchIndices returns an int64 tensor of the given shape whose element
// k (row-major) is mix(k) mod bound, numbers spread by the splitmix64
// finaliser (scripts/bench.sh computes the same with NumPy).
func benchIndices(shape []int, bound int) *engine.Tensor {
	n := engine.NumElements(shape)
	data := make([]byte, 8*n)
	for k := 0; k < n; k++ {
		binary.LittleEndian.PutUint64(data[8*k:], mix(uint64(k))%uint64(bound))
	}
	t, err := engine.FromBytes(engine.Int64Type, shape, data)
	if err != nil {
		panic(err)
	}
	return t
}

// benchMask returns a bool tensor of the given shape whose element k is
// the low bit of mix(k) (about half true).
func benchMask(shape []int) *engine.Tensor {
	data := make([]byte, engine.NumElements(shape))
	for k := range data {
		data[k] = byte(mix(uint64(k)) & 1)
	}
	t, err := engine.FromBytes(engine.BoolType, shape, data)
	if err != nil {
		panic(err)
	}
	return t
}

// mix is the finaliser of splitmix64.
func mix(z uint64) uint64 {
	z *= 0x9E3779B97F4A7C15
	z ^= z >> 29
	z *= 0xBF58476D1CE4E5B9
	z ^= z >> 32
	return z
}

// BenchmarkKernels measures each row: the op with its output allocated
// and given back with engine.Release after each call, as NumPy allocates
// and frees each result, as ROW/engine; the op without Release, each
// output left to the garbage collector, as ROW/unreleased; for the
// slicing rows, the same plan
// written into a buffer allocated once (Plan.ApplyTo) as ROW/into;
// a copy of as many bytes into a buffer allocated once as ROW/memcpy; and
// bytes.Clone of as many bytes, the cheapest way to put them in a new
// slice on one goroutine (an allocation that is not zeroed, and one
// copy), as ROW/clone. All report the output size as the metric
// out-bytes.
func BenchmarkKernels(b *testing.B) {
	defer func(p bool) { *engine.PoisonNewBytes = p }(*engine.PoisonNewBytes)
	*engine.PoisonNewBytes = false
	for _, row := range benchSlices {
		items, err := expr.Parse(row.index)
		if err != nil {
			b.Fatal(err)
		}
		x := benchInput(row.shape)
		p, err := engine.GetItemPlan(x.Shape, items)
		if err != nil {
			b.Fatal(err)
		}
		run := func() (*engine.Tensor, error) { return engine.GetItem(x, items) }
		into := func(dst []byte) { p.ApplyTo(dst, x) }
		benchRow(b, row.name, run, into, x.Data, p.View(x).Offset)
	}
	for _, row := range benchGathers {
		var indices *engine.Tensor
		run := func() (*engine.Tensor, error) {
			if indices == nil {
				indices = benchIndices([]int{row.rows, row.depth}, 4096)
			}
			return engine.GatherND(benchInput([]int{4096, 4096}), indices, 0, engine.BadIndexError)
		}
		benchRow(b, row.name, run, nil, benchInput([]int{4096, 4096}).Data, -1)
	}
	for _, row := range benchAdvanced {
		parsed, err := expr.Parse(row.index)
		if err != nil {
			b.Fatal(err)
		}
		var items []engine.IndexItem
		run := func() (*engine.Tensor, error) {
			if items == nil {
				if items, err = expr.Bind(parsed, row.arrays()); err != nil {
					return nil, err
				}
			}
			return engine.GetItem(benchInput(row.shape), items)
		}
		benchRow(b, row.name, run, nil, benchInput(row.shape).Data, -1)
	}
	// tf.gather(params, indices, axis=1): 4096 random columns of a
	// 4096x4096 params, a 64 MiB output of single elements.
	var indices *engine.Tensor
	run := func() (*engine.Tensor, error) {
		if indices == nil {
			indices = benchIndices([]int{4096}, 4096)
		}
		return engine.Gather(benchInput([]int{4096, 4096}), indices, engine.GatherSpec{Axis: 1, BadIndices: engine.BadIndexError})
	}
	benchRow(b, "tf-gather-axis1", run, nil, benchInput([]int{4096, 4096}).Data, -1)
}

// benchRow runs the sub-benchmarks of one row: the op, releasing each
// result; the op, not releasing them; the op into a
// buffer, if into is not nil; and copying as many bytes as the op outputs
// from src (the op's input), into a buffer and into a new slice. The
// buffers are allocated and written once before the timing starts. The op
// also reports the metric view: 1 if its result is a view of src starting
// at byte viewOffset (-1 for none), 0 if not.
func benchRow(b *testing.B, name string, run func() (*engine.Tensor, error), into func(dst []byte), src []byte, viewOffset int) {
	var n int
	b.Run(name+"/engine", func(b *testing.B) {
		out, err := run()
		if err != nil {
			b.Fatal(err)
		}
		n = len(out.Data)
		view := 0.0
		if n > 0 && viewOffset >= 0 && &out.Data[0] == &src[viewOffset] {
			view = 1
		}
		engine.Release(out)
		b.SetBytes(int64(n))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			out, err := run()
			if err != nil {
				b.Fatal(err)
			}
			engine.Release(out)
		}
		b.ReportMetric(float64(n), "out-bytes")
		b.ReportMetric(view, "view")
	})
	b.Run(name+"/unreleased", func(b *testing.B) {
		if n == 0 {
			b.Skip("the engine benchmark of this row did not run")
		}
		b.SetBytes(int64(n))
		for i := 0; i < b.N; i++ {
			if _, err := run(); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n), "out-bytes")
	})
	if into != nil {
		b.Run(name+"/into", func(b *testing.B) {
			if n == 0 {
				b.Skip("the engine benchmark of this row did not run")
			}
			dst := make([]byte, n)
			into(dst) // fault the pages in
			b.SetBytes(int64(n))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				into(dst)
			}
			b.ReportMetric(float64(n), "out-bytes")
		})
	}
	b.Run(name+"/memcpy", func(b *testing.B) {
		if n == 0 {
			b.Skip("the engine benchmark of this row did not run")
		}
		dst := make([]byte, n)
		copy(dst, src) // fault the pages in
		b.SetBytes(int64(n))
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			copy(dst, src[:n])
		}
		b.ReportMetric(float64(n), "out-bytes")
	})
	b.Run(name+"/clone", func(b *testing.B) {
		if n == 0 {
			b.Skip("the engine benchmark of this row did not run")
		}
		b.SetBytes(int64(n))
		for i := 0; i < b.N; i++ {
			benchSink = bytes.Clone(src[:n])
		}
		b.ReportMetric(float64(n), "out-bytes")
	})
}

// benchSink keeps the results of the clone benchmarks alive.
var benchSink []byte
