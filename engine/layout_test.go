package engine

import (
	"bytes"
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
