package engine_test

import (
	"encoding/binary"
	"math/rand"
	"testing"

	"github.com/conformsuite/conform/engine"
)

// Benchmarks of advanced getitem, each over a 64 MiB float32 input.

// advBenchInput returns a C-contiguous float32 tensor of the given shape.
func advBenchInput(b *testing.B, shape ...int) *engine.Tensor {
	b.Helper()
	x, err := engine.FromBytes(engine.Float32Type, shape, engine.MakeData(4*engine.NumElements(shape)))
	if err != nil {
		b.Fatal(err)
	}
	copy(x.Data, pattern(len(x.Data)))
	return x
}

// randomIndex returns n random int64 indices in [0, d).
func randomIndex(b *testing.B, n, d int) *engine.Tensor {
	rng := rand.New(rand.NewSource(1))
	data := make([]byte, 8*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(data[8*i:], uint64(rng.Intn(d)))
	}
	t, err := engine.FromBytes(engine.Int64Type, []int{n}, data)
	if err != nil {
		b.Fatal(err)
	}
	return t
}

func benchGetItem(b *testing.B, x *engine.Tensor, items []engine.IndexItem) {
	b.Helper()
	out, err := engine.GetItem(x, items)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(out.Data)))
	engine.Release(out)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		out, _ := engine.GetItem(x, items)
		engine.Release(out)
	}
}

// BenchmarkAdvancedRows: x[i], 1M random rows of 64 bytes out of 1M.
func BenchmarkAdvancedRows(b *testing.B) {
	x := advBenchInput(b, 1<<20, 16)
	benchGetItem(b, x, []engine.IndexItem{{Kind: engine.IndexArray, Array: randomIndex(b, 1<<20, 1<<20)}})
}

// BenchmarkAdvancedColumns: x[:, i], 1024 random columns of a
// 4096 x 4096 matrix, one element per row and column.
func BenchmarkAdvancedColumns(b *testing.B) {
	x := advBenchInput(b, 4096, 4096)
	benchGetItem(b, x, []engine.IndexItem{{Kind: engine.IndexSlice}, {Kind: engine.IndexArray, Array: randomIndex(b, 1024, 4096)}})
}

// BenchmarkBoolMask16M: x[m], a random mask (half true) over 16M elements.
func BenchmarkBoolMask16M(b *testing.B) {
	const n = 16 << 20
	x := advBenchInput(b, n)
	rng := rand.New(rand.NewSource(1))
	mask := make([]byte, n)
	for i := range mask {
		mask[i] = byte(rng.Intn(2))
	}
	m, err := engine.FromBytes(engine.BoolType, []int{n}, mask)
	if err != nil {
		b.Fatal(err)
	}
	benchGetItem(b, x, []engine.IndexItem{{Kind: engine.IndexArray, Array: m}})
}
