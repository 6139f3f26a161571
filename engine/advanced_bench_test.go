package engine_test

import (
	"testing"

	"github.com/conformsuite/conform/engine"
)

// broadcastPile returns x[a0, ..., a(k-1)] over an x of shape (1,)*k:
// index array j has rank rank, its dimension j of size 2 (values 0 and
// -1) and every other dimension of size 1, so that the k arrays
// broadcast to a grid of 2^k elements with rank-k trailing dimensions
// of size 1. The inputs are a few hundred bytes; the result is 2^k
// bytes.
func broadcastPile(k, rank int) (*engine.Tensor, []engine.IndexItem) {
	xshape := make([]int, k)
	for i := range xshape {
		xshape[i] = 1
	}
	x, err := engine.FromBytes(engine.Uint8Type, xshape, []byte{7})
	if err != nil {
		panic(err)
	}
	items := make([]engine.IndexItem, k)
	for j := range items {
		shape := make([]int, rank)
		for i := range shape {
			shape[i] = 1
		}
		shape[j] = 2
		data := []byte{0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}
		a, err := engine.FromBytes(engine.Int64Type, shape, data)
		if err != nil {
			panic(err)
		}
		items[j] = engine.IndexItem{Kind: engine.IndexArray, Array: a}
	}
	return x, items
}

// BenchmarkAdvancedBroadcastPile measures the pathological advanced
// index: 22 index arrays of rank 32 and 2 elements each (352 bytes of
// index values) broadcast to a grid of 4 Mi elements, a 4 MiB result.
func BenchmarkAdvancedBroadcastPile(b *testing.B) {
	defer func(p bool) { *engine.PoisonNewBytes = p }(*engine.PoisonNewBytes)
	*engine.PoisonNewBytes = false
	x, items := broadcastPile(22, 32)
	b.SetBytes(1 << 22)
	for i := 0; i < b.N; i++ {
		out, err := engine.GetItem(x, items)
		if err != nil {
			b.Fatal(err)
		}
		engine.Release(out)
	}
}
