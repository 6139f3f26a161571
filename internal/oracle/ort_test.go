package oracle

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	cgen "github.com/conformsuite/conform/internal/gen"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/protocol"
)

func haveORT() bool {
	return haveNodeFile("onnxruntime-node", "package.json")
}

// ortVersion is the pinned onnxruntime-node version (package.json).
const ortVersion = "1.30.0"

// startORT starts the ORT oracle, or skips the test visibly when
// onnxruntime-node is not installed (CONFORM_REQUIRE_ORT=1: fails).
func startORT(t *testing.T) *protocol.Client {
	t.Helper()
	requireOracle(t, "CONFORM_REQUIRE_ORT", haveORT(), "the node packages lack onnxruntime-node (run `conform setup`) or node is not installed")
	c := startOracle(t, "ort")
	h := c.Hello()
	if h.Name != "ort" || h.Version != ortVersion {
		t.Errorf("hello = %+v", h)
	}
	checkHelloOps(t, h, []string{casefile.OpONNXSlice, casefile.OpONNXGatherND})
	return c
}

// ortCases returns how many random cases of each ONNX op the ORT test
// runs: 6 times $CONFORM_ORACLE_CASES (3000 by default, 600 with -short).
func ortCases() int { return 6 * oracleCases() }

// genCases draws n cases of op from the generators of gen (case i from
// seed CaseSeed(seed, op, i)).
func genCases(op string, n int, seed int64) []*casefile.Case {
	g := cgen.CaseOf(op)
	out := make([]*casefile.Case, n)
	for i := range out {
		out[i] = g.Example(cgen.CaseSeed(uint64(seed), op, i))
	}
	return out
}

// ortResult is one case run on the engine and on ORT.
type ortResult struct {
	m         *casefile.Case
	want, got outcome
	message   string // ORT's error message
	why       string // "" if they agree
}

// runORT runs cases through c and compares each with the engine. Crashes
// and invalid outputs are protocol failures (test errors), as are internal
// errors of the oracle and error messages the oracle does not recognise.
func runORT(t *testing.T, c *protocol.Client, cases []*casefile.Case) []ortResult {
	t.Helper()
	results := doCases(c, cases)
	out := make([]ortResult, len(cases))
	for i, m := range cases {
		r := ortResult{m: m, want: engineOutcome(m), message: results[i].ErrMessage}
		got, why, err := judge(r.want, results[i])
		switch {
		case err != nil:
			t.Errorf("protocol failure: %v", disagreement{m, err.Error()})
		case got.skip != "" && got.code == "internal-error":
			t.Errorf("oracle internal error: %v", disagreement{m, got.skip})
		case strings.HasPrefix(r.message, "unrecognised ORT error"):
			// An error answer carries a kind and a message, no code
			// (conform/1): the oracle's own prefix is all there is.
			t.Errorf("unrecognised ONNX Runtime error: %v", disagreement{m, r.message})
		}
		r.got, r.why = got, why
		out[i] = r
	}
	return out
}

// TestORTOracleONNXOps runs thousands of random onnx_slice and
// onnx_gather_nd cases through ONNX Runtime and requires it to agree with
// the engine exactly, except where ONNX Runtime 1.30 departs from an
// explicit rule of the ONNX specification: those cases must match the
// documented divergence (onnxDivergence) and are counted.
func TestORTOracleONNXOps(t *testing.T) {
	c := startORT(t)
	var cases []*casefile.Case
	cases = append(cases, onnxFixedCases()...)
	for _, op := range casefile.FamilyOps("onnx") {
		cases = append(cases, genCases(op, ortCases(), oracleSeed())...)
	}
	results := runORT(t, c, cases)
	agree, skipped := 0, 0
	classes := map[string]int{}
	examples := map[string]ortResult{}
	for _, r := range results {
		switch {
		case r.why == "":
			agree++
		case r.got.skip != "":
			skipped++
			if r.got.code != "not-run-aborts" {
				t.Errorf("ORT skipped an ONNX case: %v", disagreement{r.m, r.got.skip})
				continue
			}
			// The oracle does not run what would kill ONNX Runtime.
			classes["ort-gathernd-negative-batch-dims-abort (skipped)"]++
			if ex, ok := examples["ort-gathernd-negative-batch-dims-abort (skipped)"]; !ok || size(r.m) < size(ex.m) {
				examples["ort-gathernd-negative-batch-dims-abort (skipped)"] = r
			}
		default:
			class := onnxDivergence(r)
			if class == "" {
				t.Errorf("ORT disagrees with the engine (unexplained): %v (ORT message: %s)", disagreement{r.m, r.why}, r.message)
				continue
			}
			classes[class]++
			if ex, ok := examples[class]; !ok || size(r.m) < size(ex.m) {
				examples[class] = r
			}
		}
	}
	per := map[string]int{}
	for _, r := range results {
		per[r.m.Op]++
	}
	t.Logf("%d ONNX cases (%v): ORT agrees with the engine on %d, %d skipped, %d documented divergences", len(results), per, agree, skipped, len(results)-agree-skipped)
	logClasses(t, classes, examples)
}

// size orders cases for picking a small example.
func size(m *casefile.Case) int {
	n := 0
	for _, x := range m.Inputs {
		n += x.Len() + x.Rank()
	}
	b, _ := json.Marshal(m.Fields)
	return 100*n + len(b)
}

func logClasses(t *testing.T, classes map[string]int, examples map[string]ortResult) {
	t.Helper()
	var names []string
	for k := range classes {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		ex := examples[k]
		t.Logf("  %-48s %5d  e.g. %v (engine %v, ORT %v %s)", k, classes[k], disagreement{ex.m, ""}, ex.want, ex.got, ex.message)
	}
}

// onnxFixedCases are hand-picked ONNX corners every run covers: the
// divergences' minimal examples and the rules' edges.
func onnxFixedCases() []*casefile.Case {
	ar := func(shape ...int) *engine.Tensor { return arangeTensor(shape...) }
	sl := func(x *engine.Tensor, spec map[string]any) *casefile.Case {
		spec["op"] = casefile.OpONNXSlice
		return casefile.New(spec, map[string]*engine.Tensor{"data": x})
	}
	gnd := func(x *engine.Tensor, ishape []int, idx []int64, b int64) *casefile.Case {
		return casefile.New(map[string]any{"op": casefile.OpONNXGatherND, "batch_dims": b}, map[string]*engine.Tensor{"data": x, "indices": int64Tensor(ishape, idx...)})
	}
	i := func(v ...int64) []int64 { return append([]int64{}, v...) }
	return []*casefile.Case{
		sl(ar(5), map[string]any{"starts": i(-6), "ends": i(math.MinInt64), "steps": i(-1)}),
		sl(ar(5), map[string]any{"starts": i(3), "ends": i(math.MaxInt64), "steps": i(-1)}),
		sl(ar(5), map[string]any{"starts": i(3), "ends": i(math.MaxInt32), "steps": i(-1)}),
		sl(ar(5), map[string]any{"starts": i(3), "ends": i(math.MaxInt64)}),
		sl(ar(5), map[string]any{"starts": i(3), "ends": i(math.MaxInt64 - 1), "steps": i(-1)}),
		sl(ar(5), map[string]any{"starts": i(math.MinInt64 + 1), "ends": i(math.MaxInt64 - 1), "steps": i(math.MinInt64)}),
		sl(ar(5), map[string]any{"starts": i(0), "ends": i(1), "steps": i(0)}),
		sl(ar(2, 3), map[string]any{"starts": i(0, 0), "ends": i(1, 1), "axes": i(0, -2)}),
		sl(ar(2, 3), map[string]any{"starts": i(0), "ends": i(1), "axes": i(2)}),
		sl(ar(2, 3), map[string]any{"starts": i(1), "ends": i(2), "steps": i(1)}),
		sl(ar(0, 2), map[string]any{"starts": i(-1), "ends": i(math.MinInt64), "axes": i(0), "steps": i(-1)}),
		sl(ar(), map[string]any{"starts": i(), "ends": i()}),
		sl(ar(3), map[string]any{"starts": i(0), "ends": i(1, 2)}),
		gnd(ar(3), []int{1, 1}, i(-1), 0),
		gnd(ar(3), []int{1, 1}, i(-4), 0),
		gnd(ar(2, 2, 2), []int{4, 1}, i(1, 0, 1, 0), 1),
		gnd(ar(2, 0), []int{1, 1}, i(5), 0),
		gnd(ar(0), []int{1, 1}, i(0), 0),
		gnd(ar(), []int{1, 0}, nil, 0),
		gnd(ar(2), []int{}, i(0), 0),
		gnd(ar(2), []int{1, 1}, i(0), -1),
		gnd(ar(3, 2), []int{2, 0}, nil, 0),
	}
}

func arangeTensor(shape ...int) *engine.Tensor {
	n := engine.NumElements(shape)
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(i)
	}
	return int64Tensor(shape, v...)
}

func int64Tensor(shape []int, v ...int64) *engine.Tensor {
	data := make([]byte, 8*len(v))
	for i, x := range v {
		for b := 0; b < 8; b++ {
			data[8*i+b] = byte(uint64(x) >> (8 * b))
		}
	}
	t, err := engine.FromBytes(engine.Int64Type, shape, data)
	if err != nil {
		panic(err)
	}
	return t
}

// onnxDivergence names the documented way ONNX Runtime 1.30 departs from
// the ONNX specification that explains r, or returns "". Each class checks
// ORT's actual answer against a model of the divergence, not just the case.
func onnxDivergence(r ortResult) string {
	switch r.m.Op {
	case casefile.OpONNXSlice:
		// ORT reads an end of INT64_MAX or INT32_MAX as "to the end" in
		// the direction of the step, also going backward (slice_helper.h);
		// the specification clamps it to d-1 (nothing selected). Model:
		// the engine with those ends replaced by INT64_MIN.
		spec := map[string]any{}
		for k, v := range wire(r.m) {
			spec[k] = v
		}
		ends, _ := spec["ends"].([]int64)
		steps, _ := spec["steps"].([]int64)
		changed := false
		patched := append([]int64{}, ends...)
		for i, e := range ends {
			if i < len(steps) && steps[i] < 0 && (e == math.MaxInt64 || e == math.MaxInt32) {
				patched[i] = math.MinInt64
				changed = true
			}
		}
		if changed {
			spec["ends"] = patched
			model := engineOutcome(casefile.New(spec, r.m.Inputs))
			if differ(model, r.got) == "" {
				return "ort-slice-intmax-end-backward"
			}
		}
	case casefile.OpONNXGatherND:
		data, indices := r.m.Inputs["data"], r.m.Inputs["indices"]
		b := 0
		if v, ok := wire(r.m)["batch_dims"].(int64); ok {
			b = int(v)
		}
		q, rank := indices.Rank(), data.Rank()
		// ORT checks only that the product of the indices' batch dims is
		// a multiple of data's and that b + k <= r, not the batch shapes
		// nor 0 <= b < min(q, r) (a negative b fails at most on an int
		// overflow, when index tuples are gathered): the specification
		// requires both.
		int64Indices := indices.DType.Kind == engine.Int && indices.DType.Size == 8
		if r.want.kind == engine.InvalidSpec && rank >= 1 && q >= 1 && int64Indices {
			batchRule := b < 0 || b >= q || b >= rank
			for k := 0; !batchRule && k < b; k++ {
				batchRule = data.Shape[k] != indices.Shape[k]
			}
			if batchRule && r.got.kind != engine.InvalidSpec {
				return "ort-gathernd-batch-shape-unchecked"
			}
		}
		// ORT returns an empty output without checking the indices when
		// the output has no elements; the specification makes any index
		// outside [-s, s) an error.
		if r.want.kind == engine.OutOfRange && r.got.tensor != nil && r.got.tensor.Len() == 0 {
			return "ort-gathernd-empty-output-unchecked"
		}
	case casefile.OpONNXGather:
		// ORT's Gather on strings copies the first string of each
		// gathered slice and leaves the others empty. Model: the
		// expected result with every element but the first of each
		// slice (data.shape[axis+1:]) emptied.
		data, want, got := r.m.Inputs["data"], r.want.tensor, r.got.tensor
		if (data.DType.Kind != engine.Bytes && data.DType.Kind != engine.Unicode) || want == nil || got == nil {
			return ""
		}
		axis := 0
		if v, ok := wire(r.m)["axis"].(int64); ok {
			axis = int(v)
		}
		if axis < 0 {
			axis += data.Rank()
		}
		block := engine.NumElements(data.Shape[axis+1:])
		model := append([]byte(nil), want.Contiguous().Data...)
		size := want.DType.Size
		for e := 0; e*size < len(model); e++ {
			if e%block != 0 {
				clear(model[e*size : (e+1)*size])
			}
		}
		if got.DType == want.DType && bytes.Equal(got.Contiguous().Data, model) {
			return "ort-gather-strings-first-only"
		}
	}
	return ""
}

// TestORTOracleTFOps runs random cases of the TF and NumPy ops through
// the ORT oracle, which writes them as an ONNX converter would (Slice,
// Squeeze, Unsqueeze, GatherND). ONNX's semantics differ from TF's and
// NumPy's on purpose in places, so disagreements are only counted and
// logged, by class with the smallest example; crashes, protocol errors,
// internal errors and unrecognised ONNX Runtime errors fail the test.
func TestORTOracleTFOps(t *testing.T) {
	c := startORT(t)
	var cases []*casefile.Case
	cases = append(cases, fixedCases()...)
	cases = append(cases, randomCases(oracleCases(), oracleSeed(), false)...)
	for _, op := range coreOps {
		cases = append(cases, genCases(op, 2*oracleCases(), oracleSeed())...)
	}
	results := runORT(t, c, cases)
	agree, skipped := 0, 0
	classes := map[string]int{}
	examples := map[string]ortResult{}
	for _, r := range results {
		if r.why == "" {
			agree++
			continue
		}
		if r.got.skip != "" {
			skipped++
		}
		class := tfDivergence(r)
		classes[class]++
		if ex, ok := examples[class]; !ok || size(r.m) < size(ex.m) {
			examples[class] = r
		}
	}
	t.Logf("%d TF/NumPy cases: ORT (as converted ONNX) agrees with the engine on %d, disagrees on %d, skipped %d",
		len(results), agree, len(results)-agree-skipped, skipped)
	logClasses(t, classes, examples)
}

// denseDim is one input dim of a strided slice after TF's sparse-to-dense
// expansion.
type denseDim struct {
	d                      int64
	begin, end, stride     int64
	beginMasked, endMasked bool
	shrink                 bool
}

// tfDense expands a strided_slice case (or a getitem case through TF's
// encoding) to one entry per input dim by TF's rules; ok is false when the
// spec does not expand (the engine rejects it).
func tfDense(m *casefile.Case) (dims []denseDim, ok bool) {
	c := m
	if err := c.Err; err != nil {
		return nil, false
	}
	x := c.Inputs["x"]
	type entry struct {
		kind               byte // 'r'ange, 's'hrink, 'n'ew axis, 'e'llipsis
		begin, end, stride int64
		bm, em             bool
	}
	var entries []entry
	switch c.Op {
	case casefile.OpStridedSlice:
		spec := c.Spec.(engine.StridedSliceSpec)
		n := len(spec.Begin)
		strides := spec.Strides
		if strides == nil {
			strides = make([]int64, n)
			for i := range strides {
				strides[i] = 1
			}
		}
		if len(spec.End) != n || len(strides) != n {
			return nil, false
		}
		for i := 0; i < n; i++ {
			e := entry{kind: 'r', begin: spec.Begin[i], end: spec.End[i], stride: strides[i], bm: spec.BeginMask.Has(i), em: spec.EndMask.Has(i)}
			switch {
			case spec.EllipsisMask.Has(i):
				e.kind = 'e'
			case spec.NewAxisMask.Has(i):
				e.kind = 'n'
			case spec.ShrinkAxisMask.Has(i):
				e.kind = 's'
			}
			entries = append(entries, e)
		}
	case casefile.OpGetItem:
		spec := c.Spec.(engine.GetItemSpec)
		if spec.ParseErr != nil {
			return nil, false
		}
		for _, it := range spec.Items {
			switch it.Kind {
			case engine.IndexEllipsis:
				entries = append(entries, entry{kind: 'e'})
			case engine.IndexNewAxis:
				entries = append(entries, entry{kind: 'n'})
			case engine.IndexInt:
				entries = append(entries, entry{kind: 's', begin: it.Index, stride: 1})
			default:
				st := int64(1)
				if it.HasStep {
					st = it.Step
				}
				entries = append(entries, entry{kind: 'r', begin: it.Start, end: it.Stop, stride: st, bm: !it.HasStart, em: !it.HasStop})
			}
		}
	default:
		return nil, false
	}
	ell := -1
	for i, e := range entries {
		if e.kind == 'e' {
			if ell >= 0 {
				return nil, false
			}
			ell = i
		}
	}
	if ell < 0 {
		entries = append(entries, entry{kind: 'e'})
		ell = len(entries) - 1
	}
	newAfter := 0
	for _, e := range entries[ell+1:] {
		if e.kind == 'n' {
			newAfter++
		}
	}
	rank := x.Rank()
	for i, e := range entries {
		switch e.kind {
		case 'e':
			for next := min(rank, rank-(len(entries)-i)+1+newAfter); len(dims) < next; {
				dims = append(dims, denseDim{d: int64(x.Shape[len(dims)]), stride: 1, beginMasked: true, endMasked: true})
			}
		case 'n':
		default:
			if len(dims) == rank {
				return nil, false
			}
			dims = append(dims, denseDim{d: int64(x.Shape[len(dims)]), begin: e.begin, end: e.end, stride: e.stride,
				beginMasked: e.bm, endMasked: e.em, shrink: e.kind == 's'})
		}
	}
	return dims, true
}

// tfDivergence names the class of a disagreement between the engine (TF /
// NumPy semantics) and ORT running the converted ONNX graph.
func tfDivergence(r ortResult) string {
	kind := func(o outcome) string {
		switch {
		case o.skip != "":
			return "skip"
		case o.kind != "":
			return string(o.kind)
		case o.overRank > 0:
			return "output of more than 32 dims"
		}
		return "output"
	}
	op := r.m.Op
	pair := fmt.Sprintf("%s: engine %s, ORT %s", op, kind(r.want), kind(r.got))
	if r.got.skip != "" {
		code := r.got.code
		if code == "" {
			code = "no code"
		}
		return op + ": skipped (" + code + ")"
	}
	x := r.m.Inputs["x"]
	if x == nil {
		x = r.m.Inputs["params"]
	}
	if x.Rank() == 0 && r.got.kind == engine.InvalidSpec {
		// ORT's Slice refuses a rank-0 input ("Cannot slice scalars"), the
		// only invalid_spec a rank-0 input disagrees by (an error answer
		// has no code to tell it by).
		return op + ": rank-0 input (ORT: Cannot slice scalars)"
	}
	switch op {
	case casefile.OpGetItem, casefile.OpStridedSlice:
		dims, ok := tfDense(r.m)
		if !ok {
			return pair
		}
		for _, d := range dims {
			if d.shrink && d.stride <= 0 {
				return op + ": shrink with stride <= 0 (TF invalid_spec; the ONNX graph slices with that step)"
			}
		}
		for _, d := range dims {
			if !d.shrink && d.stride < 0 && !d.endMasked && (d.end == math.MaxInt64 || d.end == math.MaxInt32) && d.d > 0 {
				return op + ": reverse end INT64_MAX/INT32_MAX (ORT: to the beginning; TF/NumPy and ONNX: clamped to d-1)"
			}
		}
		for _, d := range dims {
			if !d.shrink && d.stride < 0 && !d.beginMasked && d.begin < -d.d && d.d > 0 {
				return op + ": reverse start below -d (ONNX clamps it to 0; TF/NumPy: before position 0)"
			}
		}
		for _, d := range dims {
			if d.stride == 0 && r.want.kind == engine.OutOfRange && r.got.kind == engine.InvalidSpec {
				return op + ": several faults: the zero step is reported before the out-of-range index"
			}
		}
		if r.want.kind == engine.InvalidSpec && r.got.overRank > 0 {
			return op + ": result of more than 32 dims (NumPy's limit; ORT has none)"
		}
	case casefile.OpSlice:
		begin, _ := wire(r.m)["begin"].([]int64)
		size, _ := wire(r.m)["size"].([]int64)
		if len(begin) != x.Rank() || len(size) != x.Rank() {
			return op + ": begin/size not of the input's rank (tf.slice invalid_spec; ONNX slices the leading axes)"
		}
		if r.want.kind == engine.OutOfRange {
			return op + ": begin/size outside the dim (tf.slice out_of_range; ONNX clamps)"
		}
	case casefile.OpGatherND:
		idx := r.m.Inputs["indices"]
		if r.want.kind == engine.OutOfRange && r.got.kind == "" && idx.DType.IsInteger() {
			for _, v := range intValues(idx) {
				if strings.HasPrefix(v, "-") {
					return op + ": negative index (TF out_of_range; ONNX GatherND wraps it)"
				}
			}
			if x.Len() == 0 {
				return op + ": rows from params with no elements (TF out_of_range; ONNX: empty slices)"
			}
		}
		if r.want.kind == engine.InvalidSpec && r.got.kind != engine.InvalidSpec {
			return op + ": batch_dims / batch shapes (TF invalid_spec; ORT does not check them)"
		}
	}
	return pair
}

// TestORTDivergences pins the minimal example of each documented way ONNX
// Runtime differs from the engine (internal/oracle/README.md): the engine's answer
// and ONNX Runtime's, exactly.
func TestORTDivergences(t *testing.T) {
	c := startORT(t)
	ar := arangeTensor
	i := func(v ...int64) []int64 { return append([]int64{}, v...) }
	mem := func(spec map[string]any, inputs map[string]*engine.Tensor) *casefile.Case {
		return casefile.New(spec, inputs)
	}
	type answer struct {
		shape  []int
		values []int64
		kind   engine.ErrorKind
		code   string // the skip's reason code
	}
	out := func(shape []int, v ...int64) answer { return answer{shape: shape, values: v} }
	fail := func(k engine.ErrorKind) answer { return answer{kind: k} }
	tests := []struct {
		class       string
		m           *casefile.Case
		engine, ort answer
	}{
		{"ort-slice-intmax-end-backward: an end of INT64_MAX going backward",
			mem(map[string]any{"op": "onnx_slice", "starts": i(3), "ends": i(math.MaxInt64), "steps": i(-1)}, map[string]*engine.Tensor{"data": ar(5)}),
			out([]int{0}), out([]int{4}, 3, 2, 1, 0)},
		{"ort-slice-intmax-end-backward: an end of INT32_MAX going backward",
			mem(map[string]any{"op": "onnx_slice", "starts": i(3), "ends": i(math.MaxInt32), "steps": i(-2)}, map[string]*engine.Tensor{"data": ar(5)}),
			out([]int{0}), out([]int{2}, 3, 1)},
		{"ort-gathernd-batch-shape-unchecked: indices batch [4] against data batch [2]",
			mem(map[string]any{"op": "onnx_gather_nd", "batch_dims": int64(1)}, map[string]*engine.Tensor{"data": ar(2, 2, 2), "indices": int64Tensor([]int{4, 1}, 1, 0, 1, 0)}),
			fail(engine.InvalidSpec), out([]int{4, 2}, 2, 3, 0, 1, 6, 7, 4, 5)},
		{"ort-gathernd-batch-shape-unchecked: batch_dims == rank(data)",
			mem(map[string]any{"op": "onnx_gather_nd", "batch_dims": int64(1)}, map[string]*engine.Tensor{"data": ar(3), "indices": int64Tensor([]int{3, 0})}),
			fail(engine.InvalidSpec), out([]int{3}, 0, 1, 2)},
		{"ort-gathernd-empty-output-unchecked: index 5 on an axis of 2, empty slices",
			mem(map[string]any{"op": "onnx_gather_nd"}, map[string]*engine.Tensor{"data": ar(2, 0), "indices": int64Tensor([]int{1, 1}, 5)}),
			fail(engine.OutOfRange), out([]int{1, 0})},
		{"ort-gathernd-negative-batch-dims-abort: batch_dims -1, depth 0",
			mem(map[string]any{"op": "onnx_gather_nd", "batch_dims": int64(-1)}, map[string]*engine.Tensor{"data": ar(2, 3), "indices": int64Tensor([]int{3, 0})}),
			fail(engine.InvalidSpec), answer{code: "not-run-aborts"}},
		{"ONNX vs NumPy: x[-6::-1] on 5 elements",
			mem(map[string]any{"op": "getitem", "index": "x[-6::-1]"}, map[string]*engine.Tensor{"x": ar(5)}),
			out([]int{0}), out([]int{1}, 0)},
		{"ONNX vs TF: strided_slice begin -6, end masked, stride -1",
			mem(map[string]any{"op": "strided_slice", "begin": i(-6), "end": i(0), "strides": i(-1), "end_mask": int64(1)}, map[string]*engine.Tensor{"x": ar(5)}),
			out([]int{0}), out([]int{1}, 0)},
		{"ORT vs NumPy: x[3:2147483647:-1]",
			mem(map[string]any{"op": "getitem", "index": "x[3:2147483647:-1]"}, map[string]*engine.Tensor{"x": ar(5)}),
			out([]int{0}), out([]int{4}, 3, 2, 1, 0)},
		{"ONNX vs TF: gather_nd index -1 wraps",
			mem(map[string]any{"op": "gather_nd"}, map[string]*engine.Tensor{"params": ar(3), "indices": int64Tensor([]int{1, 1}, -1)}),
			fail(engine.OutOfRange), out([]int{1}, 2)},
		{"ORT vs TF/NumPy: slicing a rank-0 tensor",
			mem(map[string]any{"op": "slice", "begin": i(), "size": i()}, map[string]*engine.Tensor{"x": ar()}),
			out([]int{}, 0), fail(engine.InvalidSpec)},
		{"ONNX vs tf.slice: begin + size beyond the dim is clamped",
			mem(map[string]any{"op": "slice", "begin": i(1), "size": i(5)}, map[string]*engine.Tensor{"x": ar(3)}),
			fail(engine.OutOfRange), out([]int{2}, 1, 2)},
	}
	check := func(who string, a answer, got outcome) string {
		switch {
		case a.code != "":
			if got.skip == "" || got.code != a.code {
				return fmt.Sprintf("%s: got %v, want a skip with code %s", who, got, a.code)
			}
		case a.kind != "":
			if got.kind != a.kind {
				return fmt.Sprintf("%s: got %v, want %s", who, got, a.kind)
			}
		default:
			want := int64Tensor(a.shape, a.values...)
			if got.tensor == nil || !equalShape(got.tensor.Shape, a.shape) || (len(a.values) > 0 && differ(outcome{tensor: want}, got) != "") {
				return fmt.Sprintf("%s: got %v, want shape %v values %v", who, got, a.shape, a.values)
			}
		}
		return ""
	}
	for _, tt := range tests {
		r := do(c, tt.m.Request(0))
		got, err := oracleOutcome(r)
		if err != nil {
			t.Errorf("%s: %v", tt.class, err)
			continue
		}
		if why := check("engine", tt.engine, engineOutcome(tt.m)); why != "" {
			t.Errorf("%s: %s", tt.class, why)
		}
		if why := check("ORT", tt.ort, got); why != "" {
			t.Errorf("%s: %s (%s)", tt.class, why, r.ErrMessage)
		}
	}
}

func equalShape(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestORTMalformedRequests checks that the ORT oracle answers malformed
// requests (those every oracle gets, and ONNX ones) with the error kind the
// engine gives them, and keeps running.
func TestORTMalformedRequests(t *testing.T) {
	c := startORT(t)
	b64 := func(x *engine.Tensor) string { return base64.StdEncoding.EncodeToString(npy.Encode(x)) }
	data := map[string]any{"data": b64(arangeTensor(2, 3))}
	gnd := map[string]any{"data": b64(arangeTensor(2, 3)), "indices": b64(int64Tensor([]int{1, 1}, 0))}
	reqs := append(malformedRequests(),
		map[string]any{"op": "onnx_slice", "ends": []int{1}, "inputs": data},
		map[string]any{"op": "onnx_slice", "starts": 1, "ends": []int{1}, "inputs": data},
		map[string]any{"op": "onnx_slice", "starts": []any{1.5}, "ends": []int{1}, "inputs": data},
		map[string]any{"op": "onnx_slice", "starts": []int{0}, "ends": []int{1}, "axes": "0", "inputs": data},
		map[string]any{"op": "onnx_slice", "starts": []int{0}, "ends": []int{1}, "begin": []int{0}, "inputs": data},
		map[string]any{"op": "onnx_slice", "starts": []int{0}, "ends": []int{1}, "batch_dims": 0, "inputs": data},
		map[string]any{"op": "onnx_slice", "starts": []int{0}, "ends": []int{1}, "inputs": map[string]any{"x": data["data"]}},
		map[string]any{"op": "onnx_gather_nd", "bad_indices": "error", "inputs": gnd},
		map[string]any{"op": "onnx_gather_nd", "batch_dims": int64(1) << 40, "inputs": gnd},
		map[string]any{"op": "onnx_gather_nd", "inputs": map[string]any{"params": gnd["data"], "indices": gnd["indices"]}},
		map[string]any{"op": "onnx_gather_nd", "inputs": map[string]any{"data": gnd["data"]}},
	)
	// Integers beyond int64 and non-integers, written literally (a
	// json.Number is sent as written).
	reqs = append(reqs, literalRequests(t,
		`{"op":"onnx_slice","starts":[9223372036854775808],"ends":[1],"inputs":{"data":"`+b64(arangeTensor(3))+`"}}`,
		`{"op":"onnx_slice","starts":[0],"ends":[1e3],"inputs":{"data":"`+b64(arangeTensor(3))+`"}}`,
		`{"op":"onnx_slice","starts":[0],"ends":[1.0],"inputs":{"data":"`+b64(arangeTensor(3))+`"}}`,
		`{"op":"onnx_slice","starts":[-9223372036854775808],"ends":[9223372036854775807],"inputs":{"data":"`+b64(arangeTensor(3))+`"}}`,
	)...)
	checkMalformed(t, c, reqs)
}

func BenchmarkORTStridedSlice(b *testing.B) { benchOracle(b, "ort", "strided_slice") }
func BenchmarkORTGatherND(b *testing.B)     { benchOracle(b, "ort", "gather_nd") }
