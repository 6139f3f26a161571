package engine_test

import (
	"testing"

	"github.com/conformsuite/conform/engine"
)

func TestGatherND(t *testing.T) {
	tests := []struct {
		rule       string
		params     []int
		indexShape []int
		index      []int64
		batchDims  int
		policy     engine.BadIndexPolicy
		want       result
	}{
		{"full-depth rows gather scalars", []int{2, 2}, []int{2, 2}, []int64{0, 0, 1, 1}, 0, "error", ok([]int{2}, 0, 3)},
		{"partial depth gathers slices", []int{2, 3}, []int{2, 1}, []int64{1, 0}, 0, "error", ok([]int{2, 3}, 3, 4, 5, 0, 1, 2)},
		{"depth 0 selects all of params per row", []int{2}, []int{3, 0}, nil, 0, "error", ok([]int{3, 2}, 0, 1, 0, 1, 0, 1)},
		{"batch_dims 1 gathers within each batch entry", []int{2, 2, 2}, []int{2, 1}, []int64{1, 0}, 1, "error", ok([]int{2, 2}, 2, 3, 4, 5)},
		{"batch_dims with depth 0 returns each batch entry", []int{2, 2}, []int{2, 1, 0}, nil, 1, "error", ok([]int{2, 1, 2}, 0, 1, 2, 3)},
		{"a negative index is out of range (no wrap)", []int{3}, []int{1, 1}, []int64{-1}, 0, "error", fails(engine.OutOfRange)},
		{"an index == dim is out of range", []int{3}, []int{1, 1}, []int64{3}, 0, "error", fails(engine.OutOfRange)},
		{"bad_indices zero writes zeros for a bad row", []int{3, 2}, []int{2, 1}, []int64{2, 7}, 0, "zero", ok([]int{2, 2}, 4, 5, 0, 0)},
		{"index depth beyond rank - batch_dims is invalid", []int{2, 2}, []int{1, 2}, []int64{0, 0}, 1, "error", fails(engine.InvalidSpec)},
		{"scalar params are invalid", []int{}, []int{1, 0}, nil, 0, "error", fails(engine.InvalidSpec)},
		{"scalar indices are invalid", []int{2}, []int{}, []int64{0}, 0, "error", fails(engine.InvalidSpec)},
		{"batch_dims must be below rank(indices)", []int{2, 2}, []int{2}, []int64{0, 1}, 1, "error", fails(engine.InvalidSpec)},
		{"batch_dims must be below rank(params)", []int{2}, []int{2, 1}, []int64{0, 1}, 1, "error", fails(engine.InvalidSpec)},
		{"negative batch_dims are invalid", []int{2}, []int{1, 1}, []int64{0}, -1, "error", fails(engine.InvalidSpec)},
		{"batch shapes must match", []int{2, 2}, []int{3, 1}, []int64{0, 0, 0}, 1, "error", fails(engine.InvalidSpec)},
		{"no rows selected returns an empty result without checks", []int{2}, []int{0, 1}, nil, 0, "error", ok([]int{0})},
		{"no rows selected from empty params is fine", []int{0}, []int{0, 1}, nil, 0, "error", ok([]int{0})},
		{"rows requested from empty params are out of range (TF)", []int{2, 0}, []int{1, 1}, []int64{0}, 0, "error", fails(engine.OutOfRange)},
		{"rows requested from empty params are out of range in zero mode too", []int{2, 0}, []int{1, 1}, []int64{0}, 0, "zero", fails(engine.OutOfRange)},
		{"an unknown bad_indices policy is invalid", []int{2}, []int{1, 1}, []int64{0}, 0, "clamp", fails(engine.InvalidSpec)},
	}
	for _, tt := range tests {
		params := arange(tt.params...)
		indices := intTensor(t, tt.indexShape, tt.index...)
		got, err := engine.GatherND(params, indices, tt.batchDims, tt.policy)
		checkResult(t, tt.rule, got, err, tt.want)
	}
}

func TestGatherNDIndexDTypes(t *testing.T) {
	params := arange(4)
	for _, descr := range []string{"|i1", "<i2", ">i4", "<i8", "|u1", ">u2", "<u4", "<u8"} {
		dt, err := engine.ParseDType(descr)
		if err != nil {
			t.Fatal(err)
		}
		data := make([]byte, dt.Size)
		// The value 3 in the dtype's byte order.
		if dt.BigEndian {
			data[dt.Size-1] = 3
		} else {
			data[0] = 3
		}
		indices, err := engine.FromBytes(dt, []int{1, 1}, data)
		if err != nil {
			t.Fatal(err)
		}
		got, err := engine.GatherND(params, indices, 0, engine.BadIndexError)
		checkResult(t, "indices of dtype "+descr+" are read in their byte order", got, err, ok([]int{1}, 3))
	}
	big, _ := engine.FromBytes(engine.Uint64Type, []int{1, 1}, []byte{0, 0, 0, 0, 0, 0, 0, 0x80})
	got, err := engine.GatherND(params, big, 0, engine.BadIndexError)
	checkResult(t, "a uint64 index beyond int64 is out of range", got, err, fails(engine.OutOfRange))
	f, _ := engine.FromBytes(engine.Float32Type, []int{1, 1}, make([]byte, 4))
	got, err = engine.GatherND(params, f, 0, engine.BadIndexError)
	checkResult(t, "a float index tensor is bad input", got, err, fails(engine.BadInput))
}
