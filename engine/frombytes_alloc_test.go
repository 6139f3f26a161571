package engine

import "testing"

// TestFromBytesAllocatesOnce checks that FromBytes allocates a small
// tensor's header, shape and strides in one piece: every input a fuzz
// case generates or reads back is made by it.
func TestFromBytesAllocatesOnce(t *testing.T) {
	data := make([]byte, 2*3*4)
	shape := []int{2, 3}
	allocs := testing.AllocsPerRun(100, func() {
		x, err := FromBytes(Float32Type, shape, data)
		if err != nil || x.Strides[0] != 12 || x.Strides[1] != 4 || x.Shape[1] != 3 {
			t.Fatalf("FromBytes: %v, %v", x, err)
		}
	})
	if allocs != 1 {
		t.Errorf("FromBytes of a rank-2 tensor: %v allocations, want 1", allocs)
	}
}
