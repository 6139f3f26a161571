package engine

import (
	"bytes"
	"fmt"
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
		data := patternBytes(hi - lo)
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

// patternBytes returns n bytes in which no two nearby bytes are equal.
func patternBytes(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>8)
	}
	return b
}

// TestCopyLineSizes checks copyLine's loops for blocks of 1, 2, 4, 8 and
// 16 bytes (copyElements, and reversed runs) against copyLineBlocks, one copy per block: every stride
// (negative, zero, smaller than a block, not a multiple of it), lines of
// 0 to 21 blocks (every tail of the unrolled loops), and lines that
// start or end at the first or last byte of src (the bounds are checked
// once per line).
func TestCopyLineSizes(t *testing.T) {
	for _, size := range []int{1, 2, 4, 8, 16} {
		strides := []int{0, 1, 3, -1, -3, 2*size + 1, -size - 1}
		for _, step := range []int{1, -1, 2, -2, 3, -3, 5, 6, -7} {
			strides = append(strides, step*size)
		}
		for _, stride := range strides {
			for n := 0; n <= 21; n++ {
				// The bytes the line reaches, relative to its first block.
				lo, hi := 0, size
				if n > 0 {
					lo, hi = min(0, (n-1)*stride), max(0, (n-1)*stride)+size
				}
				for _, pad := range []int{0, 1, 5} { // bytes of src on each side
					src := patternBytes(pad + hi - lo + pad)
					off := pad - lo
					want := make([]byte, n*size)
					copyLineBlocks(want, src, off, stride, size)
					got := make([]byte, n*size)
					copyLine(got, src, off, stride, size)
					if !bytes.Equal(got, want) {
						t.Fatalf("%d blocks of %d bytes, stride %d, offset %d of %d bytes: got %x, want %x", n, size, stride, off, len(src), got, want)
					}
				}
			}
		}
	}
}

// TestCopyLineOutside checks that copyLine's loops that read through a
// pointer panic, as a bounds check does, on a line that reaches one byte
// past either end of src, instead of reading memory outside it.
func TestCopyLineOutside(t *testing.T) {
	src := patternBytes(256)
	for _, size := range []int{1, 2, 4, 8, 16} {
		for _, tc := range []struct {
			name                string
			blocks, off, stride int
		}{
			// Four blocks 3 apart, the last one ending one byte past the end.
			{"past the end", 4, len(src) - size + 1 - 9*size, 3 * size},
			// Four blocks 3 apart backwards, the last one starting at byte -1.
			{"before the start", 4, 9*size - 1, -3 * size},
			// One block, ending one byte past the end.
			{"first block", 1, len(src) - size + 1, size},
		} {
			t.Run(fmt.Sprintf("%s/%d", tc.name, size), func(t *testing.T) {
				defer func() {
					if recover() == nil {
						t.Errorf("no panic")
					}
				}()
				copyLine(make([]byte, size*tc.blocks), src, tc.off, tc.stride, size)
			})
		}
	}
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

// BenchmarkCopyLineStep3 measures copyLine on a strip in the cache: 4096
// elements of 4 bytes, every third one (x[:, ::3] of float32), 48 KiB
// read, 16 KiB written; the loop, not the memory, sets its time.
func BenchmarkCopyLineStep3(b *testing.B) {
	src := patternBytes(4096 * 12)
	dst := make([]byte, 4096*4)
	b.SetBytes(int64(len(dst)))
	for b.Loop() {
		copyLine(dst, src, 0, 12, 4)
	}
}
