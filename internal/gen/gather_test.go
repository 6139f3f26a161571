package gen

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

// TestGatherStructure checks checkSmallCase on rapid-drawn gather,
// onnx_gather and onnx_gather_elements cases, and gather's bad_indices.
func TestGatherStructure(t *testing.T) {
	small := func(data string, indices int) map[string]int {
		return map[string]int{data: smallDataBudget, "indices": indices}
	}
	for _, tc := range []struct {
		op     string
		g      *rapid.Generator[*casefile.Case]
		limit  map[string]int
		fields []string
	}{
		// gather's indices are params' batch dims (within the budget) and up to 12 more elements;
		// onnx_gather_elements' have one dim more than data's when drawn invalid.
		{"gather", GatherCase(), small("params", smallDataBudget*smallIndexBudget), []string{"axis", "batch_dims", "bad_indices"}},
		{"onnx_gather", ONNXGatherCase(), small("data", smallIndexBudget), []string{"axis"}},
		{"onnx_gather_elements", ONNXGatherElementsCase(), small("data", 2*smallIndexBudgetAligned), []string{"axis"}},
	} {
		t.Run(tc.op, func(t *testing.T) {
			rapid.Check(t, func(t *rapid.T) {
				m := tc.g.Draw(t, "case")
				if why := checkSmallCase(m, tc.op, tc.limit, tc.fields...); why != "" {
					t.Fatalf("%v: %s", m.Describe(), why)
				}
				if p, ok := wire(m)["bad_indices"]; ok && p != "error" && p != "zero" {
					t.Fatalf("%v: bad_indices %v", m.Describe(), p)
				}
			})
		})
	}
}

// TestGatherPlanned checks the share of gather, onnx_gather and
// onnx_gather_elements cases drawn to fail (about one in six) and that
// each error kind the op has is drawn.
func TestGatherPlanned(t *testing.T) {
	checkPlannedFraction(t, "gather", drawPlanned(drawGather, draws), 0.10, 0.25, engine.InvalidSpec, engine.OutOfRange)
	checkPlannedFraction(t, "onnx_gather", drawPlanned(drawONNXGather, draws), 0.08, 0.22, engine.InvalidSpec, engine.OutOfRange, engine.BadInput)
	checkPlannedFraction(t, "onnx_gather_elements", drawPlanned(drawONNXGatherElements, draws), 0.08, 0.22, engine.InvalidSpec, engine.OutOfRange, engine.BadInput)
}

// specInt returns an integer spec field, and whether it is present.
func specInt(m *casefile.Case, key string) (int64, bool) {
	v, ok := wire(m)[key].(int64)
	return v, ok
}

// TestGatherCoverage checks that gather cases reach every rule of
// tf.gather.
func TestGatherCoverage(t *testing.T) {
	params := func(p planned) *engine.Tensor { return p.m.Inputs["params"] }
	policy := func(p planned) string { s, _ := wire(p.m)["bad_indices"].(string); return s }
	rows := []plannedRow{
		{"axis omitted (batch_dims)", func(p planned) bool { _, ok := specInt(p.m, "axis"); return !ok && p.want == "" }},
		{"a positive axis", func(p planned) bool { v, _ := specInt(p.m, "axis"); return v > 0 && p.want == "" }},
		{"a negative axis", func(p planned) bool { v, _ := specInt(p.m, "axis"); return v < 0 && p.want == "" }},
		{"an axis out of range (invalid_spec)", func(p planned) bool {
			v, _ := specInt(p.m, "axis")
			r := int64(params(p).Rank())
			return (v >= r || v < -r) && p.want == engine.InvalidSpec
		}},
		{"batch_dims >= 1", func(p planned) bool { b, _ := specInt(p.m, "batch_dims"); return b >= 1 && p.want == "" }},
		{"batch_dims 2 or more", func(p planned) bool { b, _ := specInt(p.m, "batch_dims"); return b >= 2 && p.want == "" }},
		{"a negative batch_dims counts from rank(indices)", func(p planned) bool { b, _ := specInt(p.m, "batch_dims"); return b < 0 && p.want == "" }},
		{"batch_dims given explicitly as 0", func(p planned) bool { b, ok := specInt(p.m, "batch_dims"); return ok && b == 0 }},
		{"batch_dims == axis > 0", func(p planned) bool {
			b, _ := specInt(p.m, "batch_dims")
			a, _ := specInt(p.m, "axis")
			return b > 0 && a == b && p.want == ""
		}},
		{"batch_dims == rank(indices)", func(p planned) bool {
			b, _ := specInt(p.m, "batch_dims")
			return b > 0 && b == int64(idx(p).Rank()) && p.want == ""
		}},
		{"batch_dims beyond rank(indices) or above the axis (invalid_spec)", func(p planned) bool {
			b, _ := specInt(p.m, "batch_dims")
			a, _ := specInt(p.m, "axis")
			return b > 0 && (b > int64(idx(p).Rank()) || (a >= 0 && b > a)) && p.want == engine.InvalidSpec
		}},
		{"axis omitted with batch_dims > 0 (the axis is batch_dims)", func(p planned) bool {
			_, ok := specInt(p.m, "axis")
			b, _ := specInt(p.m, "batch_dims")
			return !ok && b > 0 && p.want == ""
		}},
		{"axis omitted with a negative batch_dims (the axis is negative too)", func(p planned) bool {
			_, ok := specInt(p.m, "axis")
			b, _ := specInt(p.m, "batch_dims")
			return !ok && b < 0
		}},
		{"batch dimensions that differ (invalid_spec)", func(p planned) bool {
			b, _ := specInt(p.m, "batch_dims")
			if b <= 0 || int(b) > idx(p).Rank() || int(b) > params(p).Rank() {
				return false
			}
			for k := 0; k < int(b); k++ {
				if params(p).Shape[k] != idx(p).Shape[k] {
					return p.want == engine.InvalidSpec
				}
			}
			return false
		}},
		{"0-d indices", func(p planned) bool { return idx(p).Rank() == 0 && p.want == "" }},
		{"empty indices", func(p planned) bool { return idx(p).Len() == 0 && p.want == "" }},
		{"empty params with indices (out_of_range)", func(p planned) bool {
			return params(p).Len() == 0 && idx(p).Len() > 0 && p.want == engine.OutOfRange
		}},
		{"an empty gathered axis under bad_indices zero (zeros: no 'params is empty' rule)", func(p planned) bool {
			return params(p).Len() == 0 && idx(p).Len() > 0 && policy(p) == "zero" && p.want == ""
		}},
		{"a negative index (out_of_range: no wrap)", func(p planned) bool { return anyNegative(idx(p)) && p.want == engine.OutOfRange }},
		{"out-of-range indices under bad_indices zero (zeros, no error)", func(p planned) bool {
			return policy(p) == "zero" && p.want == "" && anyNegative(idx(p))
		}},
		{"bad_indices omitted", func(p planned) bool { _, ok := wire(p.m)["bad_indices"]; return !ok }},
		{"bad_indices error", func(p planned) bool { return policy(p) == "error" }},
		{"rank-0 params (invalid_spec)", func(p planned) bool { return params(p).Rank() == 0 && p.want == engine.InvalidSpec }},
	}
	rows = append(rows, dtypeRows(gatherIndexDTypes, engine.TFGatherIndexDType)...)
	requirePlanned(t, drawPlanned(drawGather, draws), rows)
}

// TestONNXGatherCoverage checks that onnx_gather and onnx_gather_elements
// cases reach every rule of ONNX Gather-13 and GatherElements-13.
func TestONNXGatherCoverage(t *testing.T) {
	data := func(p planned) *engine.Tensor { return p.m.Inputs["data"] }
	common := func() []plannedRow {
		return []plannedRow{
			{"axis omitted (0)", func(p planned) bool { _, ok := specInt(p.m, "axis"); return !ok && p.want == "" }},
			{"a negative axis", func(p planned) bool { v, _ := specInt(p.m, "axis"); return v < 0 && p.want == "" }},
			{"an axis out of range (invalid_spec)", func(p planned) bool {
				v, ok := specInt(p.m, "axis")
				r := int64(data(p).Rank())
				return ok && (v >= r || v < -r) && p.want == engine.InvalidSpec
			}},
			{"a negative index wraps once", func(p planned) bool { return anyNegative(idx(p)) && p.want == "" }},
			{"an index out of range (out_of_range)", func(p planned) bool { return p.want == engine.OutOfRange }},
			{"empty indices", func(p planned) bool { return idx(p).Len() == 0 && p.want == "" }},
			{"rank-0 data (invalid_spec)", func(p planned) bool { return data(p).Rank() == 0 && p.want == engine.InvalidSpec }},
			{"big-endian int64 indices", func(p planned) bool { return idx(p).DType.BigEndian && p.want == "" }},
			{"int32 indices (Tind)", func(p planned) bool { return idx(p).DType == engine.Int32Type && p.want == "" }},
			{"big-endian int32 indices", func(p planned) bool { return idx(p).DType.Size == 4 && idx(p).DType.BigEndian && p.want == "" }},
			{"int8 or unsigned indices (bad_input)", func(p planned) bool {
				dt := idx(p).DType
				return (dt.Kind == engine.Uint || dt.Size == 1) && dt.Kind != engine.Bool && p.want == engine.BadInput
			}},
			{"bool indices (bad_input)", func(p planned) bool { return idx(p).DType.Kind == engine.Bool && p.want == engine.BadInput }},
		}
	}
	gather := append(common(),
		plannedRow{"0-d indices (the axis dropped)", func(p planned) bool { return idx(p).Rank() == 0 && p.want == "" }},
		plannedRow{"3-d indices", func(p planned) bool { return idx(p).Rank() == 3 && p.want == "" }},
	)
	requirePlanned(t, drawPlanned(drawONNXGather, draws), gather)

	elements := append(common(),
		plannedRow{"indices smaller than data on a dimension other than the axis", func(p planned) bool {
			a, _ := specInt(p.m, "axis")
			if a < 0 {
				a += int64(data(p).Rank())
			}
			for d := 0; d < data(p).Rank() && d < idx(p).Rank(); d++ {
				if int64(d) != a && idx(p).Shape[d] < data(p).Shape[d] {
					return p.want == ""
				}
			}
			return false
		}},
		plannedRow{"indices larger than data on a dimension other than the axis (invalid_spec)", func(p planned) bool {
			a, _ := specInt(p.m, "axis")
			if a < 0 {
				a += int64(data(p).Rank())
			}
			if data(p).Rank() != idx(p).Rank() {
				return false
			}
			for d := 0; d < data(p).Rank(); d++ {
				if int64(d) != a && idx(p).Shape[d] > data(p).Shape[d] {
					return p.want == engine.InvalidSpec
				}
			}
			return false
		}},
		plannedRow{"indices longer than data along the axis", func(p planned) bool {
			a, _ := specInt(p.m, "axis")
			if a < 0 {
				a += int64(data(p).Rank())
			}
			return data(p).Rank() == idx(p).Rank() && a >= 0 && int(a) < data(p).Rank() &&
				idx(p).Shape[a] > data(p).Shape[a] && p.want == ""
		}},
		plannedRow{"indices of another rank than data (invalid_spec)", func(p planned) bool {
			return data(p).Rank() > 0 && data(p).Rank() != idx(p).Rank() && p.want == engine.InvalidSpec
		}},
	)
	requirePlanned(t, drawPlanned(drawONNXGatherElements, draws), elements)
}

// newOpDraws are the generators of the new ops with their planned
// outcomes.
var newOpDraws = []struct {
	op   string
	draw drawFunc
}{
	{"take", drawTake},
	{"take_along_axis", drawTakeAlongAxis},
	{"gather", drawGather},
	{"onnx_gather", drawONNXGather},
	{"onnx_gather_elements", drawONNXGatherElements},
	{"getitem (advanced)", func(t *rapid.T) (*casefile.Case, engine.ErrorKind) {
		m, fault := drawAdvancedGetItem(t)
		switch fault {
		case advFaultNone:
			return m, ""
		case advFaultBounds:
			return m, engine.OutOfRange
		}
		return m, engine.InvalidSpec
	}},
}

// TestNewOpsEvaluate evaluates the cases of the new ops' generators on the
// engine: every case gives a result or an error with a kind (never a
// panic), about five in six give a result, the errors include invalid_spec
// and out_of_range, and the engine's outcome is the planned one for all
// but a few cases in a hundred (the plan of getitem does not foresee
// invalid slices, nor NumPy's silence on out-of-bounds arrays when the
// result is empty).
func TestNewOpsEvaluate(t *testing.T) {
	for _, tc := range newOpDraws {
		t.Run(tc.op, func(t *testing.T) {
			counts := map[engine.ErrorKind]int{}
			differ := 0
			for _, p := range drawPlanned(tc.draw, draws) {
				if why := checkCase(p.m); why != "" {
					t.Fatalf("%v: %s", p.m.Describe(), why)
				}
				e := evaluate(p.m)
				counts[e.kind()]++
				if e.kind() != p.want {
					differ++
					if differ <= 5 {
						t.Logf("drawn for %q, got %q: %v (%v)", p.want, e.kind(), p.m.Describe(), e.err)
					}
				}
			}
			t.Logf("%s: %s; %d differ from the plan", tc.op, outcomeCounts(counts), differ)
			ok := float64(counts[""]) / draws
			if ok < 0.75 || ok > 0.92 {
				t.Errorf("%.1f%% of cases evaluate without error, want 75%% to 92%%", 100*ok)
			}
			for _, k := range []engine.ErrorKind{engine.InvalidSpec, engine.OutOfRange} {
				if counts[k] == 0 {
					t.Errorf("no case fails with %s", k)
				}
			}
			if float64(differ)/draws > 0.03 {
				t.Errorf("%d of %d cases do not have the planned outcome", differ, draws)
			}
		})
	}
}
