package oracle

import (
	"context"
	"math"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/protocol"
)

// TestTFJSStridedSliceMasks pins how TF.js 4.22.0 reads strided_slice
// masks at the ends of TF's int32 attributes, and that the engine agrees
// where TF.js follows TF.
func TestTFJSStridedSliceMasks(t *testing.T) {
	requireOracle(t, "CONFORM_REQUIRE_TFJS", haveTFJS(), "the node packages are not installed (run `conform setup`) or node is not installed")
	c := startOracle(t, "tfjs")
	x := map[string]*engine.Tensor{"x": arangeOf("<i4", 3)}
	s := func(fields ...any) map[string]any { return opSpec("strided_slice", fields...) }
	one := []int64{1}
	tests := []struct {
		libCase
		engineAgrees bool // TF.js follows TF here, so the engine must give the same answer
	}{
		{libCase{"an ellipsis_mask of -2^31 is bit 31 alone: one ellipsis, past the spec, ignored",
			s("begin", one, "end", []int64{2}, "ellipsis_mask", int64(math.MinInt32)), x, gotOut("<i4", []int{1}, 1)}, true},
		{libCase{"-2^31 with bit 0 is two ellipsis bits",
			s("begin", one, "end", []int64{2}, "ellipsis_mask", int64(math.MinInt32|1)), x, gotErr(engine.InvalidSpec)}, true},
		{libCase{"a negative begin_mask sets bits 1-31 of an int32: past a spec of one entry, ignored",
			s("begin", one, "end", []int64{2}, "begin_mask", int64(-2)), x, gotOut("<i4", []int{1}, 1)}, true},
		{libCase{"a mask beyond int32 cannot be given to TF.js (TF refuses the attribute)",
			s("begin", one, "end", []int64{2}, "ellipsis_mask", int64(1)<<31), x, gotSkip("int32-limit")}, false},
		{libCase{"TF.js does not check that the spec has fewer than 32 entries (TF: invalid_spec); its 32nd new axis is lost",
			s("begin", make([]int64, 32), "end", make([]int64, 32), "new_axis_mask", int64(-1)), x, gotOut("<i4", append(ones(31), 3), 0, 1, 2)}, false},
	}
	for _, tt := range tests {
		runLibCases(t, c, []libCase{tt.libCase})
		if !tt.engineAgrees {
			continue
		}
		m := casefile.New(tt.spec, tt.inputs)
		out, err := m.Eval()
		want := protocol.Output(out)
		if err != nil {
			want = protocol.ErrorAnswer(err)
		}
		if got := c.Do(context.Background(), m.Request(0)); !protocol.Compare(want, got).Agree() {
			t.Errorf("%s: the engine answers %v, TF.js %v", tt.rule, want, got)
		}
	}
}

// ones returns n dimensions of size 1.
func ones(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}
