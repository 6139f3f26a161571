package engine

import (
	"bytes"
	"runtime"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// TestCopyBlocksRanges checks what parallelFor relies on when it splits a
// copy: copying any range of blocks on its own, starting anywhere in a
// line (reversed lines of 1, 2 and 4-byte elements included), gives the
// same bytes as that part of the whole copy.
func TestCopyBlocksRanges(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		size := rapid.SampledFrom([]int{1, 2, 3, 4, 8, 12, 16}).Draw(t, "size")
		rank := rapid.IntRange(1, 4).Draw(t, "rank")
		shape := make([]int, rank)
		strides := make([]int, rank)
		lo, hi := 0, size
		for i := range shape {
			shape[i] = rapid.IntRange(1, 40).Draw(t, "dim")
			strides[i] = size * rapid.IntRange(-50, 50).Draw(t, "stride")
			if reach := (shape[i] - 1) * strides[i]; reach < 0 {
				lo += reach
			} else {
				hi += reach
			}
		}
		data := make([]byte, hi-lo)
		for i := range data {
			data[i] = byte(i*7 + i>>8)
		}
		v := &Tensor{DType: DType{Kind: Bytes, Size: size}, Shape: shape, Strides: strides, Offset: -lo, Data: data}
		l := newLayout(v)
		if len(l.shape) == 0 {
			return // one block: no ranges of blocks
		}
		n := v.Len() * size
		whole := make([]byte, n)
		l.copyBlocks(whole, 0)
		blocks := n / l.block
		first := rapid.IntRange(0, blocks-1).Draw(t, "first")
		last := rapid.IntRange(first+1, blocks).Draw(t, "last")
		part := make([]byte, (last-first)*l.block)
		l.copyBlocks(part, first)
		if !bytes.Equal(part, whole[first*l.block:last*l.block]) {
			t.Fatalf("blocks %d to %d of shape %v strides %v: got %x, want %x", first, last, shape, strides, part, whole[first*l.block:last*l.block])
		}
	})
}

// TestParallelForRanges checks how parallelFor splits work on 2 cores:
// the ranges cover [0, n) once each, and their number.
func TestParallelForRanges(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	const mib = 1 << 20
	for _, tc := range []struct {
		name                 string
		n, outBytes, traffic int
		ranges               int
	}{
		// Below parallelMinBytes of traffic the work is one call.
		{"2 MiB copied", 8, 2 * mib, 4*mib - 1, 1},
		// 16 blocks of 256 KiB, 4 MiB read and 4 MiB written (the
		// newaxis-shrink row): ranges of 1 MiB of output.
		{"4 MiB copied", 16, 4 * mib, 8 * mib, 4},
		// Never more ranges than elements, never fewer than cores.
		{"few elements", 3, 64 * mib, 128 * mib, 3},
		{"no output", 100, 0, 16 * mib, 2},
		// A size that does not divide n: the last range is shorter.
		{"uneven", 10, 3 * mib, 16 * mib, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			seen := make([]int, tc.n)
			calls := 0
			parallelFor(tc.n, tc.outBytes, tc.traffic, func(lo, hi int) {
				mu.Lock()
				defer mu.Unlock()
				calls++
				for i := lo; i < hi; i++ {
					seen[i]++
				}
			})
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("element %d done %d times", i, c)
				}
			}
			if calls != tc.ranges {
				t.Errorf("%d ranges, want %d", calls, tc.ranges)
			}
		})
	}
}
