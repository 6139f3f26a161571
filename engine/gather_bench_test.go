package engine_test

import (
	"encoding/binary"
	"testing"

	"github.com/conformsuite/conform/engine"
)

// The benchmarks of the gather family, in the form of BenchmarkKernels
// (kernels_bench_test.go): each row the op with its output released after
// each call, left to the garbage collector, and the memcpy and clone
// baselines of as many bytes.

// benchRowIndices returns count int64 indices into an axis of n
// positions, spread by the splitmix64 finaliser: index i is mix(i) mod n.
func benchRowIndices(count, n int) *engine.Tensor {
	data := make([]byte, 8*count)
	for i := 0; i < count; i++ {
		binary.LittleEndian.PutUint64(data[8*i:], mix(uint64(i))%uint64(n))
	}
	t, err := engine.FromBytes(engine.Int64Type, []int{count}, data)
	if err != nil {
		panic(err)
	}
	return t
}

// BenchmarkTake1MRows measures np.take(x, i, axis=0), NumPy's x[i] of
// whole rows: 1<<20 random rows of 16 float32 (64 bytes) from a 64 MiB x
// of 1<<20 rows, a 64 MiB output, with the baselines of BenchmarkKernels.
func BenchmarkTake1MRows(b *testing.B) {
	defer func(p bool) { *engine.PoisonNewBytes = p }(*engine.PoisonNewBytes)
	*engine.PoisonNewBytes = false
	x := benchInput([]int{1 << 20, 16})
	var indices *engine.Tensor
	run := func() (*engine.Tensor, error) {
		if indices == nil {
			indices = benchRowIndices(1<<20, 1<<20)
		}
		return engine.Take(x, indices, engine.TakeSpec{Axis: 0})
	}
	benchRow(b, "take-rows", run, nil, x.Data, -1)
}

// BenchmarkGatherAxis1 measures tf.gather(x, i, axis=1): 2048 random
// columns of a 4096x4096 float32 x, single elements gathered into a
// 32 MiB output, with the baselines of BenchmarkKernels.
func BenchmarkGatherAxis1(b *testing.B) {
	defer func(p bool) { *engine.PoisonNewBytes = p }(*engine.PoisonNewBytes)
	*engine.PoisonNewBytes = false
	x := benchInput([]int{4096, 4096})
	var indices *engine.Tensor
	run := func() (*engine.Tensor, error) {
		if indices == nil {
			indices = benchRowIndices(2048, 4096)
		}
		return engine.Gather(x, indices, engine.GatherSpec{Axis: 1, BadIndices: engine.BadIndexError})
	}
	benchRow(b, "gather-axis1", run, nil, x.Data, -1)
}
