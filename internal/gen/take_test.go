package gen

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/npy"
)

// draws is the number of cases each test of the new ops' generators
// draws.
const draws = 2000

// planned is a drawn case with the outcome its generator drew it for: ""
// (a result) or an error kind.
type planned struct {
	m    *casefile.Case
	want engine.ErrorKind
}

// drawFunc draws a case and its planned outcome.
type drawFunc func(*rapid.T) (*casefile.Case, engine.ErrorKind)

// drawPlanned returns cases 0 .. n-1 of draw.
func drawPlanned(draw drawFunc, n int) []planned {
	g := rapid.Custom(func(t *rapid.T) planned {
		m, want := draw(t)
		return planned{m, want}
	})
	out := make([]planned, n)
	for i := range out {
		out[i] = g.Example(i)
	}
	return out
}

// plannedRow is one rule the cases of a generator must reach.
type plannedRow struct {
	rule string
	pred func(planned) bool
}

// requirePlanned fails the test for each row no case satisfies, and logs
// how many do when GEN_COUNTS is set in verbose mode.
func requirePlanned(t *testing.T, cases []planned, rows []plannedRow) {
	t.Helper()
	for _, r := range rows {
		n := 0
		for _, c := range cases {
			if r.pred(c) {
				n++
			}
		}
		if n == 0 {
			t.Errorf("no case among %d: %s", len(cases), r.rule)
		}
		if testing.Verbose() && os.Getenv("GEN_COUNTS") != "" {
			t.Logf("%5d  %s", n, r.rule)
		}
	}
}

// checkPlannedFraction checks that the fraction of cases drawn to fail is
// within [lo, hi], and that each error kind in kinds is planned.
func checkPlannedFraction(t *testing.T, op string, cases []planned, lo, hi float64, kinds ...engine.ErrorKind) {
	t.Helper()
	counts := map[engine.ErrorKind]int{}
	for _, c := range cases {
		counts[c.want]++
	}
	frac := float64(len(cases)-counts[""]) / float64(len(cases))
	t.Logf("%s: %s", op, outcomeCounts(counts))
	if frac < lo || frac > hi {
		t.Errorf("%s: %.1f%% of cases are drawn to fail, want %.0f%% to %.0f%%", op, 100*frac, 100*lo, 100*hi)
	}
	for _, k := range kinds {
		if counts[k] == 0 {
			t.Errorf("%s: no case is drawn to fail with %s", op, k)
		}
	}
}

// outcomeCounts writes counts by outcome ("ok" for a result), sorted.
func outcomeCounts(counts map[engine.ErrorKind]int) string {
	var parts []string
	for k, n := range counts {
		name := string(k)
		if name == "" {
			name = "ok"
		}
		parts = append(parts, fmt.Sprintf("%s %d", name, n))
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// checkSmallCase checks what every case of the new ops' generators must
// satisfy: its op, exactly the named inputs, each input a tensor of at
// most limit[name] elements (non-zero dims) that round-trips through .npy,
// and spec fields among the allowed ones.
func checkSmallCase(m *casefile.Case, op string, limit map[string]int, fields ...string) string {
	if m.Op != op {
		return fmt.Sprintf("op %q, want %q", m.Op, op)
	}
	if len(m.Inputs) != len(limit) {
		return fmt.Sprintf("%d inputs, want %d", len(m.Inputs), len(limit))
	}
	for name, x := range m.Inputs {
		max, ok := limit[name]
		if !ok {
			return "unexpected input " + name
		}
		if n := engine.NumElements(nonZero(x.Shape)); n > max {
			return fmt.Sprintf("input %s has %d elements, more than %d", name, n, max)
		}
		if _, err := npy.Decode(npy.Encode(x)); err != nil {
			return "input " + name + " does not round-trip through .npy: " + err.Error()
		}
	}
	for k, v := range wire(m) {
		if k == "op" {
			continue
		}
		found := false
		for _, f := range fields {
			found = found || f == k
		}
		if !found {
			return "unexpected spec field " + k
		}
		switch v.(type) {
		case nil, int64, string:
		default:
			return fmt.Sprintf("spec field %s has type %T", k, v)
		}
	}
	return ""
}

// axisOf returns the "axis" field: its value, whether it is present and
// whether it is null.
func axisOf(m *casefile.Case) (axis int64, present, null bool) {
	v, ok := wire(m)["axis"]
	if !ok {
		return 0, false, false
	}
	if v == nil {
		return 0, true, true
	}
	a, _ := v.(int64)
	return a, true, false
}

// idx returns the indices input of a case of the new ops.
func idx(p planned) *engine.Tensor { return p.m.Inputs["indices"] }

// dtypeRows returns a row per index dtype in dts: some case uses it
// (and, when valid, one is drawn to succeed with it).
func dtypeRows(dts []weightedDType, valid func(engine.DType) bool) []plannedRow {
	var rows []plannedRow
	for _, w := range dts {
		dt := w.dt
		if w.weight == 0 {
			continue
		}
		ok := valid(dt)
		rule := fmt.Sprintf("%v indices (refused)", dt)
		if ok {
			rule = fmt.Sprintf("%v indices, drawn to succeed", dt)
		}
		rows = append(rows, plannedRow{rule, func(p planned) bool {
			got := idx(p).DType
			got.BigEndian = false
			return got == dt && (!ok || p.want == "")
		}})
	}
	return append(rows, plannedRow{"big-endian indices, drawn to succeed", func(p planned) bool { return idx(p).DType.BigEndian && p.want == "" }})
}

// TestTakeStructure checks checkSmallCase on rapid-drawn take cases and
// that "mode" is one of NumPy's.
func TestTakeStructure(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := TakeCase().Draw(t, "case")
		if why := checkSmallCase(m, "take", map[string]int{"a": smallDataBudget, "indices": smallIndexBudget}, "axis", "mode"); why != "" {
			t.Fatalf("%v: %s", m.Describe(), why)
		}
		if mode, ok := wire(m)["mode"]; ok && mode != "raise" && mode != "wrap" && mode != "clip" {
			t.Fatalf("%v: mode %v", m.Describe(), mode)
		}
	})
}

// TestTakeAlongAxisStructure checks checkSmallCase on rapid-drawn
// take_along_axis cases.
func TestTakeAlongAxisStructure(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := TakeAlongAxisCase().Draw(t, "case")
		if why := checkSmallCase(m, "take_along_axis", map[string]int{"arr": smallDataBudget, "indices": 2 * smallIndexBudgetAligned}, "axis"); why != "" {
			t.Fatalf("%v: %s", m.Describe(), why)
		}
	})
}

// TestTakePlanned checks the share of take and take_along_axis cases drawn
// to fail (about one in six) and that each error kind is drawn.
func TestTakePlanned(t *testing.T) {
	checkPlannedFraction(t, "take", drawPlanned(drawTake, draws), 0.08, 0.22, engine.InvalidSpec, engine.OutOfRange)
	checkPlannedFraction(t, "take_along_axis", drawPlanned(drawTakeAlongAxis, draws), 0.10, 0.25, engine.InvalidSpec, engine.OutOfRange, engine.BadInput)
}

// TestTakeCoverage checks that take cases reach every rule of np.take.
func TestTakeCoverage(t *testing.T) {
	mode := func(p planned) string { s, _ := wire(p.m)["mode"].(string); return s }
	a := func(p planned) *engine.Tensor { return p.m.Inputs["a"] }
	rows := []plannedRow{
		{"axis omitted: the flattened a", func(p planned) bool { _, present, _ := axisOf(p.m); return !present && p.want == "" }},
		{"axis null: the flattened a", func(p planned) bool { _, _, null := axisOf(p.m); return null && p.want == "" }},
		{"a non-negative axis", func(p planned) bool {
			v, present, null := axisOf(p.m)
			return present && !null && v > 0 && p.want == ""
		}},
		{"a negative axis counts from the end", func(p planned) bool { v, _, _ := axisOf(p.m); return v < 0 && p.want == "" }},
		{"an axis out of range (invalid_spec)", func(p planned) bool {
			v, present, null := axisOf(p.m)
			r := int64(max(a(p).Rank(), 1))
			return present && !null && (v >= r || v < -r) && p.want == engine.InvalidSpec
		}},
		{"axis 0 on a 0-d a (NumPy takes it as 1-d)", func(p planned) bool {
			_, present, null := axisOf(p.m)
			return a(p).Rank() == 0 && present && !null && p.want == ""
		}},
		{"mode omitted (raise)", func(p planned) bool { return mode(p) == "" }},
		{"mode raise", func(p planned) bool { return mode(p) == "raise" && p.want == "" }},
		{"mode wrap with an index beyond the axis (valid: modulo)", func(p planned) bool {
			return mode(p) == "wrap" && p.want == "" && takeOutside(p)
		}},
		{"mode clip with an index beyond the axis (valid: clipped)", func(p planned) bool {
			return mode(p) == "clip" && p.want == "" && takeOutside(p)
		}},
		{"an index beyond the axis in raise mode (out_of_range)", func(p planned) bool { return takeOutside(p) && p.want == engine.OutOfRange }},
		{"a negative index in raise mode counts from the end", func(p planned) bool {
			return (mode(p) == "" || mode(p) == "raise") && p.want == "" && anyNegative(idx(p))
		}},
		{"0-d indices (a 0-d result along the axis)", func(p planned) bool { return idx(p).Rank() == 0 && p.want == "" }},
		{"3-d indices", func(p planned) bool { return idx(p).Rank() == 3 && p.want == "" }},
		{"empty indices", func(p planned) bool { return idx(p).Len() == 0 && p.want == "" }},
		{"empty indices from an empty axis (valid)", func(p planned) bool { return idx(p).Len() == 0 && a(p).Len() == 0 && p.want == "" }},
		{"a non-empty take from an empty axis (out_of_range in every mode)", func(p planned) bool {
			return idx(p).Len() > 0 && a(p).Len() == 0 && mode(p) == "clip" && p.want == engine.OutOfRange
		}},
		{"a 0-d uint64 index within int64 (accepted by value)", func(p planned) bool {
			return idx(p).DType.Kind == engine.Uint && idx(p).DType.Size == 8 && idx(p).Rank() == 0 && p.want == ""
		}},
		{"string a", func(p planned) bool { return a(p).DType.Kind == engine.Unicode && p.want == "" }},
	}
	rows = append(rows, dtypeRows(takeIndexDTypes, func(dt engine.DType) bool { return dt != engine.Uint64Type })...)
	requirePlanned(t, drawPlanned(drawTake, draws), rows)
}

// takeOutside reports whether some take index is outside [-n, n) for the
// axis it selects along.
func takeOutside(p planned) bool {
	a, ind := p.m.Inputs["a"], idx(p)
	n := a.Len()
	if v, present, null := axisOf(p.m); present && !null {
		if v < 0 {
			v += int64(a.Rank())
		}
		if v < 0 || v >= int64(a.Rank()) {
			return false
		}
		n = a.Shape[v]
	}
	vals := indexValues(ind)
	if ind.DType.Kind == engine.Bool {
		return false
	}
	for _, v := range vals {
		if v < -int64(n) || v >= int64(n) {
			return true
		}
	}
	return false
}

// anyNegative reports whether a signed index tensor holds a negative
// value.
func anyNegative(x *engine.Tensor) bool {
	if x.DType.Kind != engine.Int {
		return false
	}
	for _, v := range indexValues(x) {
		if v < 0 {
			return true
		}
	}
	return false
}

// TestTakeAlongAxisCoverage checks that take_along_axis cases reach every
// rule of np.take_along_axis.
func TestTakeAlongAxisCoverage(t *testing.T) {
	arr := func(p planned) *engine.Tensor { return p.m.Inputs["arr"] }
	// dims compares indices with arr on every dimension but the axis.
	dims := func(p planned, pred func(a, i int) bool) bool {
		v, present, null := axisOf(p.m)
		if !present || null || arr(p).Rank() != idx(p).Rank() {
			return false
		}
		r := int64(arr(p).Rank())
		if v < 0 {
			v += r
		}
		for d := 0; d < int(r); d++ {
			if int64(d) != v && pred(arr(p).Shape[d], idx(p).Shape[d]) {
				return true
			}
		}
		return false
	}
	rows := []plannedRow{
		{"axis null with 1-D indices: the flattened arr", func(p planned) bool { _, _, null := axisOf(p.m); return null && p.want == "" }},
		{"axis null with indices that are not 1-D (invalid_spec)", func(p planned) bool {
			_, _, null := axisOf(p.m)
			return null && idx(p).Rank() != 1 && p.want == engine.InvalidSpec
		}},
		{"axis omitted (bad_input)", func(p planned) bool { _, present, _ := axisOf(p.m); return !present && p.want == engine.BadInput }},
		{"a negative axis", func(p planned) bool { v, _, _ := axisOf(p.m); return v < 0 && p.want == "" }},
		{"an axis out of range (invalid_spec)", func(p planned) bool {
			v, present, null := axisOf(p.m)
			r := int64(arr(p).Rank())
			return present && !null && (v >= r || v < -r) && p.want == engine.InvalidSpec
		}},
		{"an indices dimension of 1 broadcast against arr's", func(p planned) bool {
			return p.want == "" && dims(p, func(a, i int) bool { return i == 1 && a > 1 })
		}},
		{"an arr dimension of 1 broadcast against indices'", func(p planned) bool {
			return p.want == "" && dims(p, func(a, i int) bool { return a == 1 && i > 1 })
		}},
		{"dimensions that do not broadcast (invalid_spec)", func(p planned) bool {
			return p.want == engine.InvalidSpec && dims(p, func(a, i int) bool { return a != i && a != 1 && i != 1 })
		}},
		{"indices of another rank than arr (invalid_spec)", func(p planned) bool {
			_, present, null := axisOf(p.m)
			return present && !null && arr(p).Rank() != idx(p).Rank() && p.want == engine.InvalidSpec
		}},
		{"a negative index counts from the end", func(p planned) bool { return anyNegative(idx(p)) && p.want == "" }},
		{"an index out of range (out_of_range)", func(p planned) bool { return p.want == engine.OutOfRange }},
		{"empty indices", func(p planned) bool { return idx(p).Len() == 0 && p.want == "" }},
		{"an empty arr", func(p planned) bool { return arr(p).Len() == 0 && p.want == "" }},
		{"a 0-d arr with axis null", func(p planned) bool { return arr(p).Rank() == 0 && p.want == "" }},
		{"a uint64 index above int64 (NumPy reads it as negative)", func(p planned) bool {
			ind := idx(p)
			if ind.DType.Kind != engine.Uint || ind.DType.Size != 8 {
				return false
			}
			for _, v := range indexValues(ind) {
				if v == -1 {
					return true // indexValues' mark of a value above int64
				}
			}
			return false
		}},
	}
	rows = append(rows, dtypeRows(takeAlongIndexDTypes, func(dt engine.DType) bool { return dt.Kind != engine.Bool })...)
	requirePlanned(t, drawPlanned(drawTakeAlongAxis, draws), rows)
}
