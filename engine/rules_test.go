package engine_test

import (
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/expr"
	"github.com/google/go-cmp/cmp"
)

func TestVariantNames(t *testing.T) {
	seen := map[string]bool{}
	for _, info := range engine.Variants {
		if info.Name == "" || seen[info.Name] || info.Explanation == "" {
			t.Errorf("variant %d: name %q (seen: %v), explanation %q", info.Variant, info.Name, seen[info.Name], info.Explanation)
		}
		seen[info.Name] = true
		if v, ok := engine.VariantByName(info.Name); !ok || v != info.Variant || v.String() != info.Name {
			t.Errorf("%s does not round-trip: %v, %v", info.Name, v, ok)
		}
	}
	r := engine.Rules{}.With(engine.DropSize1Dims).With(engine.InputByteOrder)
	if !r.Has(engine.DropSize1Dims) || !r.Has(engine.InputByteOrder) || r.Has(engine.EmptyRangeRefused) {
		t.Errorf("engine.Rules %s: membership wrong", r)
	}
	if got, want := r.String(), "input-byte-order+drop-size-1-dims"; got != want {
		t.Errorf("engine.Rules.String() = %q, want %q (engine.Variants order)", got, want)
	}
}

// TestFinishVariants checks the variants applied after an op, one row per
// rule they replace.
func TestFinishVariants(t *testing.T) {
	x := arange(2, 1, 3)
	tests := []struct {
		rule  string
		r     engine.Rules
		items string // a getitem index over x (2, 1, 3)
		shape []int  // nil: an error is expected
		kind  engine.ErrorKind
	}{
		{"the reference keeps size-1 dimensions", engine.Rules{}, "x[:, :, 0:1]", []int{2, 1, 1}, ""},
		{"drop-size-1-dims squeezes every size-1 dimension", engine.Rules{}.With(engine.DropSize1Dims), "x[:, :, 0:1]", []int{2}, ""},
		{"the reference returns an empty range", engine.Rules{}, "x[:, :, 2:1]", []int{2, 1, 0}, ""},
		{"empty-range-refused refuses it", engine.Rules{}.With(engine.EmptyRangeRefused), "x[:, :, 2:1]", nil, engine.InvalidSpec},
	}
	for _, tt := range tests {
		items, err := expr.Parse(tt.items)
		if err != nil {
			t.Fatal(err)
		}
		out, err := engine.GetItemUnder(x, items, tt.r)
		switch {
		case tt.shape == nil:
			if engine.KindOf(err) != tt.kind {
				t.Errorf("%s: error %v, want kind %s", tt.rule, err, tt.kind)
			}
		case err != nil:
			t.Errorf("%s: %v", tt.rule, err)
		default:
			if diff := cmp.Diff(tt.shape, out.Shape); diff != "" {
				t.Errorf("%s: shape (-want +got):\n%s", tt.rule, diff)
			}
		}
	}
}

// TestStridedSliceEntryDims checks which input dimension each spec entry
// addresses after TF's sparse-to-dense expansion.
func TestStridedSliceEntryDims(t *testing.T) {
	tests := []struct {
		rule string
		spec engine.StridedSliceSpec
		want []int
	}{
		{"entries address the leading dimensions in order", engine.StridedSliceSpec{Begin: []int64{0, 0}, End: []int64{1, 1}}, []int{0, 1}},
		{"entries after an ellipsis address the trailing dimensions", engine.StridedSliceSpec{Begin: []int64{0, 0}, End: []int64{1, 1}, EllipsisMask: engine.MaskFromInt(1)}, []int{-1, 3}},
		{"a new axis addresses none and moves no entry", engine.StridedSliceSpec{Begin: []int64{0, 0, 0}, End: []int64{1, 1, 1}, NewAxisMask: engine.MaskFromInt(2)}, []int{0, -1, 1}},
		{"a new axis after the ellipsis counts among the trailing entries", engine.StridedSliceSpec{Begin: []int64{0, 0, 0}, End: []int64{1, 1, 1}, EllipsisMask: engine.MaskFromInt(1), NewAxisMask: engine.MaskFromInt(2)}, []int{-1, -1, 3}},
	}
	for _, tt := range tests {
		got, err := engine.StridedSliceEntryDims([]int{2, 3, 4, 5}, tt.spec)
		if err != nil {
			t.Errorf("%s: %v", tt.rule, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.rule, diff)
		}
	}
	if _, err := engine.StridedSliceEntryDims([]int{2}, engine.StridedSliceSpec{Begin: []int64{0, 0}, End: []int64{1, 1}}); engine.KindOf(err) != engine.InvalidSpec {
		t.Errorf("more entries than dimensions: %v, want invalid_spec", err)
	}
}
