package report

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/gen"
)

func x(shape ...int) *engine.Tensor {
	t, err := engine.Zeros(engine.Int32Type, shape)
	if err != nil {
		panic(err)
	}
	return t
}

func TestFeatures(t *testing.T) {
	tests := []struct {
		rule string
		m    *casefile.Case
		kind engine.ErrorKind
		want []string // a subset of the features that must be tagged
		not  []string // features that must not be tagged
	}{
		{"a reversed slice with omitted bounds uses begin_mask and the end sentinel",
			casefile.New(map[string]any{"op": "getitem", "index": "x[::-1]"}, map[string]*engine.Tensor{"x": x(4)}), "",
			[]string{"negative-stride", "negative-stride-begin-mask", "end-sentinel"}, []string{"shrink", "out-of-range-clamp"}},
		{"a start below -d with a negative stride",
			casefile.New(map[string]any{"op": "getitem", "index": "x[-6::-1]"}, map[string]*engine.Tensor{"x": x(5)}), "",
			[]string{"negative-start-below-d", "out-of-range-clamp", "negative-bounds"}, nil},
		{"an ellipsis covering zero dims and a new axis after it",
			casefile.New(map[string]any{"op": "getitem", "index": "x[0, ..., None]"}, map[string]*engine.Tensor{"x": x(2)}), "",
			[]string{"ellipsis", "ellipsis-zero-dims", "new-axis", "new-axis-after-ellipsis", "shrink"}, []string{"implicit-ellipsis"}},
		{"shrink with a negative index and stride 2, list masks",
			casefile.New(map[string]any{"op": "strided_slice", "begin": []int64{-1}, "end": []int64{0}, "strides": []int64{2}, "shrink_axis_mask": []int64{1}}, map[string]*engine.Tensor{"x": x(3, 2)}), "",
			[]string{"shrink", "shrink-negative-index", "shrink-stride-over-1", "openvino-list-masks", "implicit-ellipsis"}, nil},
		{"two special bits on one position and bits beyond the spec",
			casefile.New(map[string]any{"op": "strided_slice", "begin": []int64{0}, "end": []int64{0}, "new_axis_mask": int64(1), "shrink_axis_mask": int64(3)}, map[string]*engine.Tensor{"x": x(3)}), "",
			[]string{"conflicting-mask-bits", "mask-bits-beyond-spec", "new-axis"}, []string{"openvino-list-masks"}},
		{"gather_nd with a negative index and batch_dims",
			casefile.New(map[string]any{"op": "gather_nd", "batch_dims": int64(1)}, map[string]*engine.Tensor{"params": x(2, 3), "indices": negOne(2, 1)}), engine.OutOfRange,
			[]string{"gather-batch-dims", "gather-negative-index", "gather-bad-row", "gather-full-depth", "error:out_of_range", "dtype:i4"}, []string{"gather-depth-0"}},
		{"a rank-0 input and an error",
			casefile.New(map[string]any{"op": "slice", "begin": []int64{0}, "size": []int64{1}}, map[string]*engine.Tensor{"x": x()}), engine.InvalidSpec,
			[]string{"rank-0", "error:invalid_spec", "dtype:i4"}, nil},
	}
	for _, tt := range tests {
		got := map[string]bool{}
		for _, f := range Features(tt.m, tt.kind) {
			got[f.ID] = true
		}
		var missing, extra []string
		for _, id := range tt.want {
			if !got[id] {
				missing = append(missing, id)
			}
		}
		for _, id := range tt.not {
			if got[id] {
				extra = append(extra, id)
			}
		}
		if diff := cmp.Diff([]string(nil), append(missing, extra...)); diff != "" {
			t.Errorf("%s: missing %v, unexpected %v (tagged %v)", tt.rule, missing, extra, FeatureIDs(Features(tt.m, tt.kind)))
		}
	}
}

func negOne(shape ...int) *engine.Tensor {
	n := engine.NumElements(shape)
	data := make([]byte, 8*n)
	for i := range data {
		data[i] = 0xff
	}
	t, _ := engine.FromBytes(engine.Int64Type, shape, data)
	return t
}

// TestFeaturesNeverPanic tags generated cases of every op, valid or not.
func TestFeaturesNeverPanic(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ops := casefile.OpNames()
		m := gen.CaseOf(rapid.SampledFrom(ops).Draw(t, "op")).Draw(t, "case")
		for _, kind := range []engine.ErrorKind{"", engine.InvalidSpec} {
			Features(m, kind)
		}
	})
}
