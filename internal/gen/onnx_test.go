package gen

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

// onnxPool is poolPerOp cases of each ONNX op, case i drawn with seed
// CaseSeed(1, op, i), evaluated once and shared by the tests.
var onnxPool = sync.OnceValue(func() map[string][]evaluated {
	out := map[string][]evaluated{}
	for _, op := range casefile.FamilyOps("onnx") {
		g := CaseOf(op)
		for i := 0; i < poolPerOp; i++ {
			out[op] = append(out[op], evaluate(g.Example(CaseSeed(1, op, i))))
		}
	}
	return out
})

// TestONNXCasesEvaluate checks checkCase on the ONNX pool and on
// rapid-drawn cases of each ONNX op, and logs the outcome distribution.
func TestONNXCasesEvaluate(t *testing.T) {
	for _, op := range casefile.FamilyOps("onnx") {
		counts := map[string]int{}
		for _, e := range onnxPool()[op] {
			if e.m.Op != op {
				t.Fatalf("pool of %s holds a %s case", op, e.m.Op)
			}
			if why := checkCase(e.m); why != "" {
				t.Errorf("%v: %s", e.m, why)
			}
			k := string(e.kind())
			if k == "" {
				k = "ok"
			}
			counts[k]++
		}
		var parts []string
		for k, n := range counts {
			parts = append(parts, fmt.Sprintf("%s %d", k, n))
		}
		sort.Strings(parts)
		t.Logf("%-15s %s", op, strings.Join(parts, ", "))
		rejected := float64(poolPerOp-counts["ok"]) / poolPerOp
		if rejected < minErrorFraction || rejected > maxErrorFraction {
			t.Errorf("%s: %.1f%% of cases are rejected, want %.0f%% to %.0f%%", op, 100*rejected, 100*minErrorFraction, 100*maxErrorFraction)
		}
		rapid.Check(t, func(t *rapid.T) {
			m := CaseOf(op).Draw(t, "case")
			if why := checkCase(m); why != "" {
				t.Fatalf("%v: %s", m, why)
			}
		})
	}
}

// TestONNXCasesDeterministic checks that an ONNX case drawn from a seed is
// the same every time, and that Case draws the ONNX ops too.
func TestONNXCasesDeterministic(t *testing.T) {
	for _, op := range casefile.FamilyOps("onnx") {
		for i := 0; i < 50; i++ {
			seed := CaseSeed(9, op, i)
			a, _ := json.Marshal(CaseOf(op).Example(seed).Request(0))
			b, _ := json.Marshal(CaseOf(op).Example(seed).Request(0))
			if string(a) != string(b) {
				t.Fatalf("%s seed %d: two draws differ", op, seed)
			}
		}
		if !findAny(Case(), 300, func(m *casefile.Case) bool { return m.Op == op }) {
			t.Errorf("Case gave no %s case in 300 draws", op)
		}
		if findAny(CaseOf(op), 100, func(m *casefile.Case) bool { return m.Op != op }) {
			t.Errorf("CaseOf(%q) gave a case of another op", op)
		}
	}
}

// onnxEntries returns, per Slice entry, the size of its axis (-1 if the
// axis is outside the data), its start, end and step.
func onnxEntries(e evaluated) (dims []int, starts, ends, steps []int64) {
	shape := e.m.Inputs["data"].Shape
	starts, ends = ints(e.m, "starts"), ints(e.m, "ends")
	axes, hasAxes := wire(e.m)["axes"].([]int64)
	st, hasSteps := wire(e.m)["steps"].([]int64)
	for i := range starts {
		a := int64(i)
		if hasAxes {
			if i >= len(axes) {
				break
			}
			a = axes[i]
		}
		if a < 0 {
			a += int64(len(shape))
		}
		d := -1
		if a >= 0 && a < int64(len(shape)) {
			d = shape[a]
		}
		dims = append(dims, d)
		s := int64(1)
		if hasSteps && i < len(st) {
			s = st[i]
		}
		steps = append(steps, s)
	}
	return dims, starts[:len(dims)], ends[:min(len(dims), len(ends))], steps
}

// anySliceEntry reports whether some entry satisfies pred.
func anySliceEntry(e evaluated, pred func(d int, start, end, step int64) bool) bool {
	dims, starts, ends, steps := onnxEntries(e)
	for i := range dims {
		if i < len(ends) && pred(dims[i], starts[i], ends[i], steps[i]) {
			return true
		}
	}
	return false
}

// TestONNXSliceFindAny checks that onnx_slice cases reach every edge class.
func TestONNXSliceFindAny(t *testing.T) {
	data := func(e evaluated) *engine.Tensor { return e.m.Inputs["data"] }
	n := func(e evaluated) int { return len(ints(e.m, "starts")) }
	axes := func(e evaluated) ([]int64, bool) { a, ok := wire(e.m)["axes"].([]int64); return a, ok }
	requireAll(t, onnxPool()[casefile.OpONNXSlice], []findRow{
		{"rank-0 data (invalid_spec)", func(e evaluated) bool { return data(e).Rank() == 0 && e.kind() == engine.InvalidSpec }},
		{"empty starts and ends (the identity)", func(e evaluated) bool { return n(e) == 0 && e.ok() }},
		{"axes omitted, every axis sliced", func(e evaluated) bool {
			_, given := axes(e)
			return !given && n(e) == data(e).Rank() && n(e) > 1 && e.ok()
		}},
		{"axes omitted, fewer entries than axes", func(e evaluated) bool {
			_, given := axes(e)
			return !given && n(e) > 0 && n(e) < data(e).Rank() && e.ok()
		}},
		{"axes omitted with rank + 1 entries (invalid_spec)", func(e evaluated) bool {
			_, given := axes(e)
			return !given && n(e) == data(e).Rank()+1 && e.kind() == engine.InvalidSpec
		}},
		{"axes out of order", func(e evaluated) bool {
			a, given := axes(e)
			if !given || !e.ok() {
				return false
			}
			r := int64(data(e).Rank())
			for i := 1; i < len(a); i++ {
				if (a[i]+r)%r < (a[i-1]+r)%r {
					return true
				}
			}
			return false
		}},
		{"a negative axis", func(e evaluated) bool {
			a, _ := axes(e)
			for _, v := range a {
				if v < 0 && e.ok() {
					return true
				}
			}
			return false
		}},
		{"a repeated axis (invalid_spec)", func(e evaluated) bool {
			a, _ := axes(e)
			r := int64(data(e).Rank())
			seen := map[int64]bool{}
			for _, v := range a {
				if v >= -r && v < r {
					if seen[(v+r)%r] {
						return e.kind() == engine.InvalidSpec
					}
					seen[(v+r)%r] = true
				}
			}
			return false
		}},
		{"an axis out of range (invalid_spec)", func(e evaluated) bool {
			a, _ := axes(e)
			r := int64(data(e).Rank())
			for _, v := range a {
				if (v < -r || v >= r) && e.kind() == engine.InvalidSpec {
					return true
				}
			}
			return false
		}},
		{"steps omitted", func(e evaluated) bool { _, ok := wire(e.m)["steps"]; return !ok && n(e) > 0 && e.ok() }},
		{"a zero step (invalid_spec)", func(e evaluated) bool {
			return e.kind() == engine.InvalidSpec && anySliceEntry(e, func(d int, s, en, st int64) bool { return st == 0 })
		}},
		{"a reverse start below -d selecting elements (ONNX: from position 0; NumPy/TF: nothing)", func(e evaluated) bool {
			return e.ok() && data(e).Len() > 0 && anySliceEntry(e, func(d int, s, en, st int64) bool {
				return d > 0 && st < 0 && s < -int64(d) && (en < -int64(d) || en == math.MinInt64)
			})
		}},
		{"INT64_MAX as a reverse end (ONNX: empty; ONNX Runtime: to the beginning)", func(e evaluated) bool {
			return e.ok() && anySliceEntry(e, func(d int, s, en, st int64) bool { return d > 1 && st < 0 && en == math.MaxInt64 })
		}},
		{"INT32_MAX as a reverse end", func(e evaluated) bool {
			return e.ok() && anySliceEntry(e, func(d int, s, en, st int64) bool { return d > 1 && st < 0 && en == math.MaxInt32 })
		}},
		{"INT64_MIN as a reverse end (to the beginning)", func(e evaluated) bool {
			return e.ok() && anySliceEntry(e, func(d int, s, en, st int64) bool { return d > 1 && st < 0 && en == math.MinInt64 })
		}},
		{"INT64_MAX as a forward end (to the end)", func(e evaluated) bool {
			return e.ok() && anySliceEntry(e, func(d int, s, en, st int64) bool { return d > 1 && st > 0 && en == math.MaxInt64 })
		}},
		{"an extreme step", func(e evaluated) bool {
			return e.ok() && anySliceEntry(e, func(d int, s, en, st int64) bool { return st == math.MinInt64 || st == math.MaxInt64 })
		}},
		{"a step of -2 or below", func(e evaluated) bool {
			return e.ok() && anySliceEntry(e, func(d int, s, en, st int64) bool { return d > 2 && st <= -2 && st > -10 })
		}},
		{"a reverse entry on an axis of size 0", func(e evaluated) bool {
			return e.ok() && anySliceEntry(e, func(d int, s, en, st int64) bool { return d == 0 && st < 0 })
		}},
		{"ends, axes or steps of another length (invalid_spec)", func(e evaluated) bool {
			if e.kind() != engine.InvalidSpec {
				return false
			}
			for _, f := range []string{"ends", "axes", "steps"} {
				if l, ok := wire(e.m)[f].([]int64); ok && len(l) != n(e) {
					return true
				}
			}
			return false
		}},
		{"string data", func(e evaluated) bool {
			k := data(e).DType.Kind
			return (k == engine.Bytes || k == engine.Unicode) && e.ok()
		}},
		{"complex data", func(e evaluated) bool { return data(e).DType.Kind == engine.Complex && e.ok() }},
		{"big-endian data", func(e evaluated) bool { return data(e).DType.BigEndian && e.ok() }},
	})
}

// TestONNXGatherNDFindAny checks that onnx_gather_nd cases reach every edge
// class.
func TestONNXGatherNDFindAny(t *testing.T) {
	info := func(e evaluated) (data, indices *engine.Tensor, b, depth, rows int) {
		data, indices = e.m.Inputs["data"], e.m.Inputs["indices"]
		if v, ok := wire(e.m)["batch_dims"].(int64); ok {
			b = int(v)
		}
		if q := indices.Rank(); q > 0 {
			depth = indices.Shape[q-1]
			rows = engine.NumElements(indices.Shape[:q-1])
		}
		return
	}
	// components calls f with each index component and the size of its
	// axis, for cases whose layout is valid.
	components := func(e evaluated, f func(v int64, s int) bool) bool {
		data, indices, b, depth, _ := info(e)
		vals := indexValues(indices)
		if vals == nil || depth == 0 || b < 0 || b+depth > data.Rank() {
			return false
		}
		for i, v := range vals {
			if f(v, data.Shape[b+i%depth]) {
				return true
			}
		}
		return false
	}
	negative := func(e evaluated) bool {
		return components(e, func(v int64, s int) bool { return v < 0 && v >= -int64(s) })
	}
	outside := func(e evaluated) bool {
		return components(e, func(v int64, s int) bool { return v < -int64(s) || v >= int64(s) })
	}
	idt := func(e evaluated) engine.DType { return e.m.Inputs["indices"].DType }
	requireAll(t, onnxPool()[casefile.OpONNXGatherND], []findRow{
		{"an in-range negative index (wraps once)", func(e evaluated) bool { return negative(e) && e.ok() }},
		{"an index outside [-s, s) (out_of_range)", func(e evaluated) bool { return outside(e) && e.kind() == engine.OutOfRange }},
		{"an index -s-1 (out_of_range)", func(e evaluated) bool {
			return e.kind() == engine.OutOfRange && components(e, func(v int64, s int) bool { return v == -int64(s)-1 })
		}},
		{"an index into an axis of size 0 (out_of_range)", func(e evaluated) bool {
			return e.kind() == engine.OutOfRange && components(e, func(v int64, s int) bool { return s == 0 })
		}},
		{"an out-of-range tuple selecting empty slices (out_of_range; ONNX Runtime returns empty)", func(e evaluated) bool {
			data, _, b, depth, _ := info(e)
			return e.kind() == engine.OutOfRange && outside(e) && b >= 0 && b+depth <= data.Rank() &&
				engine.NumElements(data.Shape[b+depth:]) == 0
		}},
		{"index depth 0 with rows", func(e evaluated) bool { _, _, _, depth, rows := info(e); return depth == 0 && rows > 0 && e.ok() }},
		{"full index depth", func(e evaluated) bool {
			data, _, b, depth, rows := info(e)
			return depth == data.Rank()-b && depth > 0 && rows > 0 && e.ok()
		}},
		{"batch_dims >= 1 with negative indices", func(e evaluated) bool { _, _, b, _, _ := info(e); return b >= 1 && negative(e) && e.ok() }},
		{"batch_dims 2 or more", func(e evaluated) bool { _, _, b, _, _ := info(e); return b >= 2 && e.ok() }},
		{"batch dimensions that differ (invalid_spec)", func(e evaluated) bool {
			data, indices, b, _, _ := info(e)
			if b <= 0 || b >= data.Rank() || b >= indices.Rank() {
				return false
			}
			for k := 0; k < b; k++ {
				if data.Shape[k] != indices.Shape[k] {
					return e.kind() == engine.InvalidSpec
				}
			}
			return false
		}},
		{"negative batch_dims (invalid_spec)", func(e evaluated) bool { _, _, b, _, _ := info(e); return b < 0 && e.kind() == engine.InvalidSpec }},
		{"batch_dims >= rank(data) (invalid_spec)", func(e evaluated) bool {
			data, _, b, _, _ := info(e)
			return data.Rank() > 0 && b >= data.Rank() && e.kind() == engine.InvalidSpec
		}},
		{"index depth too deep (invalid_spec)", func(e evaluated) bool {
			data, indices, b, depth, _ := info(e)
			return indices.Rank() > 0 && b >= 0 && depth > data.Rank()-b && e.kind() == engine.InvalidSpec
		}},
		{"rank-0 data (invalid_spec)", func(e evaluated) bool {
			d, _, _, _, _ := info(e)
			return d.Rank() == 0 && e.kind() == engine.InvalidSpec
		}},
		{"rank-0 indices (invalid_spec)", func(e evaluated) bool {
			_, i, _, _, _ := info(e)
			return i.Rank() == 0 && idt(e) == engine.Int64Type && e.kind() == engine.InvalidSpec
		}},
		{"non-int64 indices (bad_input)", func(e evaluated) bool { return idt(e).Size != 8 && e.kind() == engine.BadInput }},
		{"big-endian int64 indices", func(e evaluated) bool { return idt(e).BigEndian && e.ok() }},
		{"no index tuples", func(e evaluated) bool { _, i, _, _, rows := info(e); return i.Rank() > 1 && rows == 0 && e.ok() }},
		{"string data", func(e evaluated) bool {
			k := e.m.Inputs["data"].DType.Kind
			return (k == engine.Bytes || k == engine.Unicode) && e.ok()
		}},
	})
}
