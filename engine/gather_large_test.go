package engine_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/conformsuite/conform/engine"
)

// TestGatherFamilyLarge checks the one-axis and the element cursors on
// outputs large enough to be gathered in parallel ranges (so that cursors
// start in the middle of the output), against plain loops, with a bad
// index late in the output.
func TestGatherFamilyLarge(t *testing.T) {
	u32 := func(rows, cols int) *engine.Tensor {
		data := make([]byte, 4*rows*cols)
		for k := 0; k < rows*cols; k++ {
			binary.LittleEndian.PutUint32(data[4*k:], uint32(mix(uint64(k))))
		}
		x, err := engine.FromBytes(engine.Uint32Type, []int{rows, cols}, data)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	at := func(x *engine.Tensor, r, c int) []byte {
		k := 4 * (r*x.Shape[1] + c)
		return x.Data[k : k+4]
	}
	idx := func(count, n int) ([]int64, *engine.Tensor) {
		v := make([]int64, count)
		for i := range v {
			v[i] = int64(mix(uint64(i)+7) % uint64(2*n))
			v[i] -= int64(n) // in [-n, n): negative ones count from the end
		}
		return v, intTensor(t, []int{count}, v...)
	}
	wrap := func(i int64, n int) int {
		if i < 0 {
			i += int64(n)
		}
		return int(i)
	}

	// take along axis 0: 1<<18 rows of 16 elements from 4096 rows.
	x := u32(4096, 16)
	v, ix := idx(1<<18, 4096)
	got, err := engine.Take(x, ix, engine.TakeSpec{Axis: 0})
	if err != nil {
		t.Fatal(err)
	}
	var want []byte
	for _, i := range v {
		for c := 0; c < 16; c++ {
			want = append(want, at(x, wrap(i, 4096), c)...)
		}
	}
	if !bytes.Equal(got.Data, want) {
		t.Error("take of rows: wrong result")
	}
	engine.Release(got)

	// tf.gather along axis 1 (negative indices made valid): elements.
	y := u32(2048, 2048)
	v, _ = idx(1024, 2048)
	for k := range v {
		v[k] = int64(wrap(v[k], 2048))
	}
	got, err = engine.Gather(y, intTensor(t, []int{1024}, v...), engine.GatherSpec{Axis: 1, BadIndices: engine.BadIndexError})
	if err != nil {
		t.Fatal(err)
	}
	want = want[:0]
	for r := 0; r < 2048; r++ {
		for _, i := range v {
			want = append(want, at(y, r, int(i))...)
		}
	}
	if !bytes.Equal(got.Data, want) {
		t.Error("gather along axis 1: wrong result")
	}
	engine.Release(got)
	v[1000] = 2048
	if _, err := engine.Gather(y, intTensor(t, []int{1024}, v...), engine.GatherSpec{Axis: 1, BadIndices: engine.BadIndexError}); engine.KindOf(err) != engine.OutOfRange {
		t.Errorf("gather along axis 1 with a bad index late: got %v, want out_of_range", err)
	}

	// take_along_axis along axis 0 with indices broadcast along axis 1.
	z := u32(1024, 1024)
	v, _ = idx(1024*1024, 1024)
	ixs := intTensor(t, []int{1024, 1024}, v...)
	got, err = engine.TakeAlongAxis(z, ixs, engine.TakeAlongAxisSpec{Axis: 0})
	if err != nil {
		t.Fatal(err)
	}
	want = want[:0]
	for r := 0; r < 1024; r++ {
		for c := 0; c < 1024; c++ {
			want = append(want, at(z, wrap(v[r*1024+c], 1024), c)...)
		}
	}
	if !bytes.Equal(got.Data, want) {
		t.Error("take_along_axis: wrong result")
	}
	engine.Release(got)
	v[1024*1024-3] = 1024
	if _, err := engine.TakeAlongAxis(z, intTensor(t, []int{1024, 1024}, v...), engine.TakeAlongAxisSpec{Axis: 0}); engine.KindOf(err) != engine.OutOfRange {
		t.Errorf("take_along_axis with a bad index late: got %v, want out_of_range", err)
	}
}
