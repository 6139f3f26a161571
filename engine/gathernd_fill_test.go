package engine

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestFillPairs checks that rowCursor.fill, which resolves rows of two
// int64 components in one loop (fillPairs), gives the offsets, first
// row outside and cursor position of the general int64 loop (fillInt64),
// over batches of every length, starting anywhere, across batch entries.
func TestFillPairs(t *testing.T) {
	tests := []struct {
		name      string
		params    []int // a float32 params shape
		batchDims int
		rows      [][2]int64
	}{
		// Rows inside: offset i0*stride0 + i1*stride1.
		{"inside", []int{5, 7}, 0, [][2]int64{{0, 0}, {4, 6}, {2, 3}, {0, 6}, {4, 0}, {1, 1}}},
		// A block of more than one element: strides count whole blocks.
		{"blocks", []int{3, 4, 6}, 0, [][2]int64{{2, 3}, {0, 1}, {1, 0}, {2, 0}}},
		// Negative components do not wrap: outside, in either position.
		{"negative", []int{5, 7}, 0, [][2]int64{{1, 1}, {-1, 0}, {0, -1}, {-5, -7}, {3, 3}}},
		// A component equal to its dimension is outside, in either position.
		{"one past", []int{5, 7}, 0, [][2]int64{{5, 0}, {0, 7}, {4, 6}}},
		// The extremes of int64 are outside, and do not overflow the offset.
		{"extremes", []int{5, 7}, 0, [][2]int64{{math.MaxInt64, 0}, {0, math.MinInt64}, {math.MinInt64, math.MaxInt64}, {2, 2}}},
		// A dimension of 0: every row is outside.
		{"empty axis", []int{5, 0}, 0, [][2]int64{{0, 0}, {1, 0}}},
		// Batch entries of 3 rows: each adds the batch entry's offset.
		{"batched", []int{4, 3, 5}, 1, [][2]int64{{0, 0}, {2, 4}, {1, 1}, {2, 2}, {0, 4}, {1, 3}, {3, 0}, {2, 1}, {0, 0}, {1, 4}, {5, 0}, {2, 2}}},
	}
	for _, tc := range tests {
		params := &Tensor{DType: Float32Type, Shape: tc.params}
		n := len(tc.rows)
		shape := []int{n, 2}
		if tc.batchDims == 1 {
			shape = []int{tc.params[0], n / tc.params[0], 2}
		}
		data := make([]byte, 16*n)
		for r, row := range tc.rows {
			binary.LittleEndian.PutUint64(data[16*r:], uint64(row[0]))
			binary.LittleEndian.PutUint64(data[16*r+8:], uint64(row[1]))
		}
		indices := &Tensor{DType: Int64Type, Shape: shape, Strides: ContiguousStrides(shape, 8), Data: data}
		g, err := newGatherND(params, indices, tc.batchDims, BadIndexError, math.MaxInt64)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for first := 0; first < n; first++ {
			for m := 1; first+m <= n; m++ {
				got, want := g.newRowCursor(indices, first), g.newRowCursor(indices, first)
				gotOffsets, wantOffsets := make([]int, m), make([]int, m)
				gotBad, wantBad := got.fill(gotOffsets), want.fillInt64(wantOffsets)
				if diff := cmp.Diff(wantOffsets, gotOffsets); diff != "" || gotBad != wantBad {
					t.Errorf("%s, rows %d to %d: first outside %d, want %d; offsets (-fillInt64 +fill):\n%s", tc.name, first, first+m, gotBad, wantBad, diff)
				}
				if got.r != want.r || got.batchOffset != want.batchOffset || got.batchEnd != want.batchEnd {
					t.Errorf("%s, rows %d to %d: cursor at row %d, batch at %d until %d; want %d, %d, %d", tc.name, first, first+m, got.r, got.batchOffset, got.batchEnd, want.r, want.batchOffset, want.batchEnd)
				}
			}
		}
	}
}
