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

// TestFeatures checks the rows a case is counted in: the rules the
// engine's evaluation records (trace and error rule), under their IDs,
// and the rows that are no rule (shapes, forms, error kinds, dtypes).
func TestFeatures(t *testing.T) {
	tests := []struct {
		rule string
		m    *casefile.Case
		kind engine.ErrorKind
		want []string // a subset of the features that must be tagged
		not  []string // features that must not be tagged
	}{
		{"a reversed slice with omitted bounds starts at d-1 and runs past 0",
			casefile.New(map[string]any{"op": "getitem", "index": "x[::-1]"}, map[string]*engine.Tensor{"x": x(4)}), "",
			[]string{"getitem/negative-step", "getitem/negative-step-omitted-start", "getitem/negative-step-omitted-stop", "dtype:i4"},
			[]string{"getitem/integer-index", "getitem/bound-clamped", "getitem/empty-range"}},
		{"a start below -d with a negative step is clamped, and the range is empty",
			casefile.New(map[string]any{"op": "getitem", "index": "x[-7::-1]"}, map[string]*engine.Tensor{"x": x(5)}), "",
			[]string{"getitem/negative-bound", "getitem/bound-clamped", "getitem/empty-range"}, nil},
		{"an ellipsis covering zero dims and a new axis after it",
			casefile.New(map[string]any{"op": "getitem", "index": "x[0, ..., None]"}, map[string]*engine.Tensor{"x": x(2)}), "",
			[]string{"getitem/ellipsis", "getitem/ellipsis-covers-no-dims", "getitem/new-axis", "getitem/integer-index"}, []string{"getitem/implicit-ellipsis"}},
		{"a subscript in another of Python's forms",
			casefile.New(map[string]any{"op": "getitem", "index": "x[1,]"}, map[string]*engine.Tensor{"x": x(2)}), "",
			[]string{"subscript-forms", "getitem/integer-index"}, nil},
		{"shrink with a negative index and stride 2, list masks",
			casefile.New(map[string]any{"op": "strided_slice", "begin": []int64{-1}, "end": []int64{0}, "strides": []int64{2}, "shrink_axis_mask": []int64{1}}, map[string]*engine.Tensor{"x": x(3, 2)}), "",
			[]string{"strided_slice/shrink", "strided_slice/shrink-negative-index", "strided_slice/shrink-stride-over-1", "openvino-list-masks", "strided_slice/implicit-ellipsis"}, nil},
		{"two special bits on one position and bits beyond the spec",
			casefile.New(map[string]any{"op": "strided_slice", "begin": []int64{0}, "end": []int64{0}, "new_axis_mask": int64(1), "shrink_axis_mask": int64(3)}, map[string]*engine.Tensor{"x": x(3)}), "",
			[]string{"strided_slice/mask-priority", "strided_slice/mask-bits-past-spec-ignored", "strided_slice/new-axis"}, []string{"openvino-list-masks", "strided_slice/shrink"}},
		{"gather_nd with a negative index and batch_dims: the error's rule",
			casefile.New(map[string]any{"op": "gather_nd", "batch_dims": int64(1)}, map[string]*engine.Tensor{"params": x(2, 3), "indices": negOne(2, 1)}), engine.OutOfRange,
			[]string{"gather_nd/batch-dims", "gather_nd/index-out-of-range", "error:out_of_range", "dtype:i4"}, []string{"gather_nd/depth-0"}},
		{"a rank-0 input and an error",
			casefile.New(map[string]any{"op": "slice", "begin": []int64{0}, "size": []int64{1}}, map[string]*engine.Tensor{"x": x()}), engine.InvalidSpec,
			[]string{"rank-0", "error:invalid_spec", "dtype:i4", "slice/length-mismatch"}, nil},
	}
	for _, tt := range tests {
		got := map[string]bool{}
		for _, f := range Features(tt.m, tt.kind, nil) {
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
			t.Errorf("%s: missing %v, unexpected %v (tagged %v)", tt.rule, missing, extra, FeatureIDs(Features(tt.m, tt.kind, nil)))
		}
	}
}

// TestFeaturesAreRules checks that every row a case is counted in that
// is not an op, a shape, a form, an error kind or a dtype is a rule of
// engine.RuleTable, with its statement: the report decides no rule.
func TestFeaturesAreRules(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := gen.CaseOf(rapid.SampledFrom(casefile.OpNames()).Draw(t, "op")).Draw(t, "case")
		for _, f := range Features(m, "", nil) {
			switch f.Group {
			case "shapes", "forms", "errors", "dtypes":
				continue
			}
			r, ok := engine.RuleByID(engine.RuleID(f.ID))
			if !ok || r.Statement != f.Description {
				t.Fatalf("row %q (%s) is not a rule of the table with its statement", f.ID, f.Description)
			}
		}
	})
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
			Features(m, kind, nil)
		}
	})
}
