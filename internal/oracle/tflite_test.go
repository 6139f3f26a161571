package oracle

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"math/rand"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/expr"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/protocol"
	"github.com/conformsuite/conform/internal/tfspec"
)

// tfliteVersion is the pinned @tensorflow/tfjs-tflite version
// (package.json), whose WebAssembly build of TFLite the oracle runs.
const tfliteVersion = "0.0.1-alpha.10"

func haveTFLite() bool {
	return haveNodeFile("@tensorflow", "tfjs-tflite", "wasm", "tflite_web_api_cc.wasm")
}

const tfliteMissing = "the node packages lack @tensorflow/tfjs-tflite (run `conform setup`) or node is not installed"

// startTFLite starts the TFLite oracle and checks its hello, or skips the
// test visibly when tfjs-tflite is not installed (CONFORM_REQUIRE_TFLITE=1:
// fails).
func startTFLite(t *testing.T) *protocol.Client {
	t.Helper()
	requireOracle(t, "CONFORM_REQUIRE_TFLITE", haveTFLite(), tfliteMissing)
	c := startOracle(t, "tflite")
	h := c.Hello()
	if h.Name != "tflite" || h.Version != tfliteVersion {
		t.Errorf("hello = %+v, want name tflite, version %s", h, tfliteVersion)
	}
	checkHelloOps(t, h, coreOps)
	return c
}

// tfliteResult is one case run on the engine and on TFLite.
type tfliteResult struct {
	m         *casefile.Case
	want, got outcome
	message   string // TFLite's error message
	crash     string
	crashKind protocol.CrashKind
	// code is the oracle's reason code for a skip or a crash it reported
	// (Response.ReasonCode); classes are told apart by it.
	code string
	why  string // "" if they agree
}

// runTFLite runs cases through c (64 at a time) and compares each with
// the engine. A crash is kept in crash and crashKind (got is then a skip).
func runTFLite(c *protocol.Client, cases []*casefile.Case) []tfliteResult {
	results := doCases(c, cases)
	out := make([]tfliteResult, len(cases))
	for i, m := range cases {
		res := results[i]
		r := tfliteResult{m: m, want: engineOutcome(m), message: res.ErrMessage, crash: res.Crash, crashKind: res.CrashKind, code: res.ReasonCode}
		r.got, r.why, _ = judge(r.want, res)
		out[i] = r
	}
	return out
}

// retyped returns m with its data input (x or params) replaced by random
// data of dtype dt and the same shape: the generators draw every dtype,
// most of which TFLite runs as positions; these run for real.
func retyped(m *casefile.Case, dt string, r *rand.Rand) *casefile.Case {
	g := gen{r: r}
	in := map[string]*engine.Tensor{}
	for k, v := range m.Inputs {
		in[k] = v
	}
	name := "x"
	if _, ok := in["params"]; ok {
		name = "params"
	}
	in[name] = g.tensor(mustDType(dt), in[name].Shape)
	return casefile.FromFields(m.Fields, in)
}

// tfliteDTypes are the dtypes TFLite's kernels run for real.
var tfliteDTypes = []string{"|b1", "|i1", "|u1", "<i2", ">i2", "<i4", ">i4", "<f4", ">f4"}

// tfliteCorpus is the random corpus: the hand-picked corners, this
// package's small generator, gen's generators per op, and a third of all
// those again with a dtype TFLite runs for real.
func tfliteCorpus() []*casefile.Case {
	var cases []*casefile.Case
	cases = append(cases, fixedCases()...)
	cases = append(cases, randomCases(oracleCases(), oracleSeed(), false)...)
	for _, op := range coreOps {
		cases = append(cases, genCases(op, 2*oracleCases(), oracleSeed())...)
	}
	r := rand.New(rand.NewSource(oracleSeed()))
	n := len(cases)
	for i := 0; i < n; i += 3 {
		cases = append(cases, retyped(cases[i], tfliteDTypes[r.Intn(len(tfliteDTypes))], r))
	}
	return cases
}

// TestTFLiteOracle runs the random corpus through TFLite. Every case must
// agree with the engine, be skipped with a reason, or disagree in a class
// tfliteDivergence names; the classes are tallied and logged with the
// smallest example of each. Protocol failures, crashes other than
// WebAssembly traps, internal errors of the oracle and TFLite messages it
// does not recognise fail the test.
func TestTFLiteOracle(t *testing.T) {
	c := startTFLite(t)
	cases := tfliteCorpus()
	results := runTFLite(c, cases)
	agree, skipped := 0, 0
	classes := map[string]int{}
	examples := map[string]tfliteResult{}
	for _, r := range results {
		switch {
		case r.crash != "" && r.crashKind != protocol.CrashReported:
			t.Errorf("crash: %v", disagreement{r.m, r.crash})
			continue
		case r.crash != "":
			// TFLite failed without an error (a trap, or memory from
			// outside its input): a finding, classified below by its
			// code (an unknown code is unclassified).
		case r.why == "protocol failure":
			t.Errorf("protocol failure: %v", disagreement{r.m, r.got.skip})
			continue
		case r.got.skip != "" && r.code == "internal-error":
			t.Errorf("oracle internal error: %v", disagreement{r.m, r.got.skip})
			continue
		case strings.HasPrefix(r.message, "unrecognised TFLite error"):
			// An error answer carries a kind and a message, no code
			// (conform/1): the oracle's own prefix is all there is.
			t.Errorf("unrecognised TFLite error: %v", disagreement{r.m, r.message})
			continue
		case r.why == "":
			agree++
			continue
		case r.got.skip != "" && r.crash == "":
			skipped++
		}
		class := tfliteDivergence(r)
		if class == "" {
			t.Errorf("TFLite disagrees with the engine (unclassified): %v (TFLite: %s)", disagreement{r.m, r.why}, r.message)
			continue
		}
		classes[class]++
		if ex, ok := examples[class]; !ok || size(r.m) < size(ex.m) {
			examples[class] = r
		}
	}
	t.Logf("%d cases: TFLite agrees with the engine on %d, disagrees on %d, skipped %d; %d restarts",
		len(results), agree, len(results)-agree-skipped, skipped, c.Restarts())
	var names []string
	for k := range classes {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		ex := examples[k]
		msg := ex.message
		if ex.crash != "" {
			msg = ex.crash
		}
		t.Logf("%6d  %s\n          e.g. %v (engine %v, TFLite %v) %s", classes[k], k, disagreement{ex.m, ""}, ex.want, ex.got, msg)
	}
}

// tfliteDivergence names the class of a disagreement between the engine
// (TF / NumPy semantics) and TFLite, or returns "". The classes come from
// TFLite's kernels as this build runs them (strided_slice.cc, slice.cc,
// gather_nd.cc; see internal/oracle/README.md).
func tfliteDivergence(r tfliteResult) string {
	op := r.m.Op
	if r.crash != "" {
		if class := tfliteCrashClasses[r.code]; class != "" {
			return op + ": " + class
		}
		return ""
	}
	if r.got.skip != "" {
		if class := tfliteSkipClass(r); class != "" {
			return op + ": " + class
		}
		return ""
	}
	kind := func(o outcome) string {
		switch {
		case o.kind != "":
			return string(o.kind)
		case o.overRank > 0:
			return "output of more than 32 dims"
		}
		return "output"
	}
	pair := fmt.Sprintf("engine %s, TFLite %s", kind(r.want), kind(r.got))
	switch op {
	case casefile.OpGetItem, casefile.OpStridedSlice:
		if class := stridedDivergence(r, pair); class != "" {
			return op + ": " + class
		}
	case casefile.OpSlice:
		s, ok := tfspec.ReadSlice(r.m)
		switch {
		case !ok:
		case variantChanges(r.m, engine.Int32Arithmetic):
			return op + ": int64 begin/size truncated to 32 bits, not checked (" + pair + ")"
		case exercises(r.m, engine.RuleSliceNegativeBegin):
			return op + ": negative begin not checked (" + pair + ")"
		case variantChanges(r.m, engine.ExtraEntriesIgnored):
			return op + ": begin/size longer than the rank: the extra entries are ignored (" + pair + ")"
		case s.BeginSizeOverflow():
			return op + ": begin + size overflows int32 and passes the bounds check (" + pair + ")"
		}
	case casefile.OpGatherND:
		switch {
		case r.want.kind != engine.OutOfRange || r.got.tensor == nil:
		case exercises(r.m, engine.RuleGatherNDEmptyParams) && exercises(r.m, engine.RuleGatherNDDepth0):
			return op + ": params with no elements, index depth 0: TFLite checks the index count, not the row count (" + pair + ")"
		case variantChanges(r.m, engine.GatherFlatBounds):
			return op + ": only each row's flattened position is checked, not each index (" + pair + ")"
		}
	}
	return ""
}

// tfliteCrashClasses are the classes of the crashes the TFLite oracle
// reports, by their codes (internal/oracle/README.md).
var tfliteCrashClasses = map[string]string{
	"trap":                    "crash: TFLite trapped (WebAssembly out-of-bounds access or abort)",
	"read-outside":            "crash: TFLite read outside its input (out-of-bounds read or unwritten output, no error)",
	"invalid-tensor":          "crash: TFLite made a tensor with a negative dimension (no error)",
	"chance":                  "crash: the same spec gave two shapes (uninitialised memory, no error)",
	"not-run-stride-overflow": "crash (not run): a stride whose product with the input size overflows int32 (TFLite traps or loops ~2^32 steps)",
	"not-run-reads-past":      "crash (not run): STRIDED_SLICE's spec expansion reads past the input shape or the spec (uninitialised memory)",
	"not-run-short-spec":      "crash (not run): SLICE begin/size shorter than the rank (TFLite reads past them)",
}

// tfliteSkipClass names the class of a TFLite skip by its code, or
// returns "". Where one code covers several classes, the case tells them
// apart: which op, which spec field, which value is beyond int32.
func tfliteSkipClass(r tfliteResult) string {
	op := r.m.Op
	strided := op == casefile.OpStridedSlice || op == casefile.OpGetItem
	switch r.code {
	case "not-run-reads-past":
		return "skipped: STRIDED_SLICE's spec expansion reads past the input shape or the spec (uninitialised memory)"
	case "unsupported-rank":
		return "skipped: more than 5 dimensions (TFLite's limit, added axes included)"
	case "unsupported-dtype":
		// Only the data input's dtype: a skip for GATHER_ND's index
		// dtype is no class.
		switch {
		case (strided || op == casefile.OpSlice) && !tfliteKernelRuns(r.m.Inputs["x"], false):
			return "skipped: a dtype TFLite's STRIDED_SLICE and SLICE lack"
		case op == casefile.OpGatherND && !tfliteKernelRuns(r.m.Inputs["params"], true):
			return "skipped: a dtype TFLite's GATHER_ND lacks"
		}
	case "not-run-short-spec":
		return "skipped: SLICE begin/size shorter than the rank (TFLite reads past them)"
	case "unsupported-spec":
		switch {
		case op != casefile.OpGatherND:
		case specInt(wire(r.m)["batch_dims"]) != 0:
			return "skipped: batch_dims != 0 (GATHER_ND has none)"
		case wire(r.m)["bad_indices"] == "zero":
			return `skipped: bad_indices "zero" (TF GPU behaviour)`
		}
	case "int32-limit":
		switch {
		case op == casefile.OpGatherND && beyondInt32(r.m.Inputs["indices"]):
			return "skipped: index value beyond int32"
		case !strided:
		case stridedValueBeyondInt32(r.m):
			return "skipped: a value or mask beyond int32"
		case stridedMaskBeyond31(r.m):
			return "skipped: a mask bit beyond 31"
		}
	case "not-run-stride-overflow":
		return "skipped: a stride whose product with the input size overflows int32 (TFLite traps or loops ~2^32 steps)"
	case "parser-limit", "parser-ambiguous":
		return "skipped: the subscript parser cannot decide"
	case "advanced-index":
		return "skipped: advanced indices (TF's x[...] encoding has none)"
	case "output-limit":
		return "skipped: output beyond the oracle's size limit"
	}
	return ""
}

// tfliteKernelRuns reports whether TFLite's STRIDED_SLICE and SLICE
// kernels (gatherND: GATHER_ND's) have the dtype of a, as the oracle
// runs them: for real, or int64 as positions.
func tfliteKernelRuns(a *engine.Tensor, gatherND bool) bool {
	if a == nil {
		return false
	}
	switch d := a.DType; {
	case d.Kind == engine.Bool:
		return !gatherND
	case d.Kind == engine.Int:
		return true // int8, int16, int32, int64
	case d.Kind == engine.Uint:
		return d.Size == 1
	case d.Kind == engine.Float:
		return d.Size == 4
	}
	return false
}

// specInt is an integer spec field of a *casefile.Case (0 when absent).
func specInt(v any) int64 {
	switch v := v.(type) {
	case int:
		return int64(v)
	case int64:
		return v
	case float64:
		return int64(v)
	}
	return 0
}

// intElements returns the values of an integer tensor (ok false for
// another dtype, or a uint64 beyond int64).
func intElements(t *engine.Tensor) (vals []int64, ok bool) {
	if t == nil || !t.DType.IsInteger() {
		return nil, false
	}
	c := t.Contiguous()
	size := c.DType.Size
	vals = make([]int64, c.Len())
	for i := range vals {
		b := c.Data[i*size : (i+1)*size]
		var u uint64
		for j := 0; j < size; j++ {
			k := j // little-endian: byte j has weight 256^j
			if c.DType.BigEndian {
				k = size - 1 - j
			}
			u |= uint64(b[j]) << (8 * k)
		}
		v := int64(u)
		if c.DType.Kind == engine.Int && size < 8 {
			v = int64(u<<(64-8*size)) >> (64 - 8*size) // sign-extend
		}
		if c.DType.Kind == engine.Uint && size == 8 && v < 0 {
			return nil, false
		}
		vals[i] = v
	}
	return vals, true
}

func outsideInt32(v int64) bool { return v < math.MinInt32 || v > math.MaxInt32 }

// beyondInt32 reports whether an integer tensor holds a value beyond
// int32.
func beyondInt32(t *engine.Tensor) bool {
	vals, ok := intElements(t)
	if !ok {
		return t != nil && t.DType.Kind == engine.Uint && t.DType.Size == 8
	}
	for _, v := range vals {
		if outsideInt32(v) {
			return true
		}
	}
	return false
}

// tfliteSpecEntries returns the begin, end and stride values of a
// strided_slice case, or of a getitem case in TF's encoding, and whether
// a mask bit at position 32 or above is one TFLite's int32 masks would
// need (ok false if the case cannot be read). getitem items come from
// internal/expr; a subscript it refuses for its ellipses alone (the TF.js
// parser the oracle borrows leaves several ellipses to the kernel) is read
// with each ellipsis as None, which encodes as the same begin, end and
// stride and also sets one mask bit.
func tfliteSpecEntries(m *casefile.Case) (values [][]int64, maskBeyond31, ok bool) {
	c := m
	if err := c.Err; err != nil {
		return nil, false, false
	}
	switch spec := c.Spec.(type) {
	case engine.StridedSliceSpec:
		// As the oracle's mask32: a bit at 32 or above within the spec's
		// entries, or an ellipsis bit there besides another.
		n := len(spec.Begin)
		for _, k := range []engine.Mask{spec.BeginMask, spec.EndMask, spec.EllipsisMask, spec.NewAxisMask, spec.ShrinkAxisMask} {
			for i := 32; i < 64 && i < n; i++ {
				maskBeyond31 = maskBeyond31 || k.Has(i)
			}
			maskBeyond31 = maskBeyond31 || (k.Extra > 0 && n > 64)
		}
		e := spec.EllipsisMask
		if bits.OnesCount64(e.Bits)+e.Extra > 1 && (e.Bits>>32 != 0 || e.Extra > 0) {
			maskBeyond31 = true
		}
		return [][]int64{spec.Begin, spec.End, spec.Strides}, maskBeyond31, true
	case engine.GetItemSpec:
		items := spec.Items
		if spec.ParseErr != nil {
			var err error
			if items, err = expr.Parse(ellipsisRE.ReplaceAllString(spec.Index, "None")); err != nil {
				return nil, false, false
			}
		}
		var b, e, st []int64
		for i, it := range items {
			switch it.Kind {
			case engine.IndexInt:
				end := it.Index + 1
				if it.Index == math.MaxInt64 {
					end = math.MaxInt64 // index + 1 is beyond int64: beyond int32 all the same
				}
				b, e, st = append(b, it.Index), append(e, end), append(st, 1)
			case engine.IndexSlice:
				step := int64(1)
				if it.HasStep {
					step = it.Step
				}
				b, e, st = append(b, it.Start), append(e, it.Stop), append(st, step)
			default:
				b, e, st = append(b, 0), append(e, 0), append(st, 1)
			}
			if i >= 32 && (it.Kind != engine.IndexSlice || !it.HasStart || !it.HasStop) {
				maskBeyond31 = true
			}
		}
		return [][]int64{b, e, st}, maskBeyond31, true
	}
	return nil, false, false
}

var ellipsisRE = regexp.MustCompile(`\.\.\.|\bEllipsis\b`)

// stridedValueBeyondInt32 reports whether a strided_slice or getitem case
// has a begin, end or stride beyond int32 (STRIDED_SLICE's tensors are
// int32).
func stridedValueBeyondInt32(m *casefile.Case) bool {
	values, _, _ := tfliteSpecEntries(m)
	for _, l := range values {
		for _, v := range l {
			if outsideInt32(v) {
				return true
			}
		}
	}
	return false
}

// stridedMaskBeyond31 reports whether a strided_slice or getitem case
// needs a mask bit at position 32 or above (STRIDED_SLICE's masks are
// int32).
func stridedMaskBeyond31(m *casefile.Case) bool {
	_, beyond, _ := tfliteSpecEntries(m)
	return beyond
}

// stridedDivergence classifies a strided_slice or getitem disagreement
// by the first feature of the spec that TFLite's STRIDED_SLICE treats
// differently from TF (the rule whose error the engine raises or whose
// feature its trace records, and the predicates of internal/tfspec for
// what no rule decides, as the golden corpus's divergence classes ask
// them).
func stridedDivergence(r tfliteResult, pair string) string {
	invalid := r.want.kind == engine.InvalidSpec
	s, ok := tfspec.ReadStrided(r.m)
	switch {
	case ok && s.StridesLonger():
		return "strides longer than begin: the extra strides are ignored (" + pair + ")"
	case raised(r.m) == engine.RuleStridedTwoEllipses || raised(r.m) == engine.RuleGetItemTwoEllipses:
		return "several ellipses not checked (" + pair + ")"
	case r.want.kind == engine.OutOfRange && r.got.kind == engine.InvalidSpec && holdsRefusedItem(r.m):
		return "several faults: TF checks every item's type before its kernel runs, so an item NumPy refuses is reported first (" + pair + ")"
	case !ok:
		return ""
	case variantChanges(r.m, engine.EllipsisCoversOneDim):
		return "an ellipsis that covers no dimension: TFLite expands it over one, and the last entry falls off (" + pair + ")"
	case invalid && (exercises(r.m, engine.RuleStridedExtraIndices) || exercises(r.m, engine.RuleGetItemExtraIndices)):
		return "more indices than dimensions: the extra entries are ignored (" + pair + ")"
	case !invalid && exercises(r.m, engine.RuleStridedShrinkBeginMask):
		return "begin_mask applies to a shrink axis (TF ignores it there): the index becomes the first element (" + pair + ")"
	case raised(r.m) == engine.RuleStridedShrinkStride:
		return "shrink with a negative stride not checked (" + pair + ")"
	case s.ZeroStride() && r.want.kind == engine.OutOfRange && r.got.kind == engine.InvalidSpec:
		return "several faults: TFLite reports the zero stride first (" + pair + ")"
	case raised(r.m) == engine.RuleStridedShrinkOutOfBounds || raised(r.m) == engine.RuleGetItemIndexOutOfBounds:
		return "shrink index out of range clamped into the dimension, not checked (" + pair + ")"
	case invalid && s.TooLong():
		return "spec of 32 or more entries not checked (" + pair + ")"
	case variantChanges(r.m, engine.MaskBitsPastSpecApplied):
		return "mask bits past the spec's entries are applied (TF ignores them) (" + pair + ")"
	}
	return ""
}

// holdsRefusedItem reports whether a getitem case's subscript holds an
// item NumPy refuses whatever the input (a float, a string, a slice with
// a float bound: engine.Refused), which TF's Python rejects before the
// kernel sees the integer indices that NumPy's order checks first.
func holdsRefusedItem(m *casefile.Case) bool {
	index, _ := wire(m)["index"].(string)
	items, err := expr.Parse(index)
	return err == nil && engine.Refused(items) != nil
}

// variantChanges reports whether the engine's variant v of a rule changes
// its answer on the case m: the engine says whether a TF rule that TFLite
// replaces matters for the case.
func variantChanges(m *casefile.Case, v engine.Variant) bool {
	return m.Err == nil && m.VariantChanges(v)
}

// raised returns the rule whose error the engine raises on m under the
// reference rules, "" if none: the engine decides the rules of TF that
// TFLite does not check.
func raised(m *casefile.Case) engine.RuleID {
	_, err, ok := m.EvalSafely(engine.Rules{})
	if !ok {
		return ""
	}
	return engine.RuleOf(err)
}

// exercises reports whether the engine's evaluation of m under the
// reference rules records rule in its trace or raises its error.
func exercises(m *casefile.Case, rule engine.RuleID) bool {
	trace := new(engine.Trace)
	_, err, ok := m.EvalSafely(engine.Rules{Trace: trace})
	return ok && (trace.Has(rule) || engine.RuleOf(err) == rule)
}

// arange32 is an int32 tensor holding 0, 1, ... in C order.
func arange32(shape ...int) *engine.Tensor {
	n := engine.NumElements(shape)
	data := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(i))
	}
	t, err := engine.FromBytes(mustDType("<i4"), shape, data)
	if err != nil {
		panic(err)
	}
	return t
}

// TestTFLiteCases pins TFLite's answers on hand-picked cases, each with
// the rule it shows; the values were copied from running the oracle.
func TestTFLiteCases(t *testing.T) {
	c := startTFLite(t)
	x := func(t *engine.Tensor) map[string]*engine.Tensor { return map[string]*engine.Tensor{"x": t} }
	gi := func(index string, in *engine.Tensor) *casefile.Case {
		return casefile.New(map[string]any{"op": "getitem", "index": index}, x(in))
	}
	ss := func(spec map[string]any, in *engine.Tensor) *casefile.Case {
		spec["op"] = "strided_slice"
		return casefile.New(spec, x(in))
	}
	sl := func(begin, size []int64, in *engine.Tensor) *casefile.Case {
		return casefile.New(map[string]any{"op": "slice", "begin": begin, "size": size}, x(in))
	}
	gnd := func(params, indices *engine.Tensor) *casefile.Case {
		return casefile.New(map[string]any{"op": "gather_nd"}, map[string]*engine.Tensor{"params": params, "indices": indices})
	}
	i := func(v ...int64) []int64 { return append([]int64{}, v...) }
	g := gen{r: rand.New(rand.NewSource(5))}
	type answer struct {
		shape  []int
		values []int64 // as integers, for integer dtypes
		kind   engine.ErrorKind
		code   string // the skip's reason code ("-": any answer, as the engine's)
		crash  string // the code of the crash the oracle reports
		engine bool   // the engine gives the same answer
	}
	out := func(shape []int, v ...int64) answer { return answer{shape: shape, values: v} }
	same := func(a answer) answer { a.engine = true; return a }
	fail := func(k engine.ErrorKind) answer { return answer{kind: k} }
	skip := func(code string) answer { return answer{code: code} }
	crash := func(s string) answer { return answer{crash: s} }
	tests := []struct {
		why  string
		m    *casefile.Case
		want answer
	}{
		{"a range on each axis, as in TF",
			ss(map[string]any{"begin": i(0, 1), "end": i(2, 3)}, arange32(2, 3)), same(out([]int{2, 2}, 1, 2, 4, 5))},
		{"negative stride with a begin mask, through TF's x[...] encoding",
			gi("x[::-2]", arange32(5)), same(out([]int{3}, 4, 2, 0))},
		{"a shrink, a new axis and an ellipsis that covers one dimension",
			gi("x[1, None, ...]", arange32(2, 3)), same(out([]int{1, 3}, 3, 4, 5))},
		{"int64 runs as element positions; the bytes come back untouched",
			gi("x[-1, ::-1]", arangeTensor(2, 3)), same(out([]int{3}, 5, 4, 3))},
		{"big-endian int32 is swapped into the little-endian heap and back",
			gi("x[1:]", g.tensor(mustDType(">i4"), []int{3})), answer{engine: true, code: "-"}},
		{"float32 runs for real: NaN payloads and -0 come back bit for bit",
			gi("x[::-1]", g.tensor(mustDType("<f4"), []int{6})), answer{engine: true, code: "-"}},
		{"a zero stride is refused in Prepare",
			ss(map[string]any{"begin": i(0), "end": i(1), "strides": i(0)}, arange32(3)), same(fail(engine.InvalidSpec))},
		{"begin and end of different lengths are refused",
			ss(map[string]any{"begin": i(0, 0), "end": i(1)}, arange32(3, 3)), same(fail(engine.InvalidSpec))},
		{"an out-of-range shrink index is clamped to the dimension and read one past the end: no error",
			ss(map[string]any{"begin": i(9), "end": i(10), "shrink_axis_mask": 1}, arange32(5)), crash("read-outside")},
		{"begin_mask applies to a shrink axis: begin 2, begin_mask 1, shrink 1 gives x[0], not x[2]",
			ss(map[string]any{"begin": i(2), "end": i(3), "begin_mask": 1, "shrink_axis_mask": 1}, arange32(4)), out([]int{}, 0)},
		{"a shrink index below -d is clamped to 0: x[-9] on 5 elements gives x[0]",
			gi("x[-9]", arange32(5)), out([]int{}, 0)},
		{"an ellipsis that should cover no dimension covers one, and the index after it is dropped",
			gi("x[..., 0]", arange32(2)), out([]int{2}, 0, 1)},
		{"more indices than dimensions: the extra ones are ignored",
			gi("x[1, 0]", arange32(3)), out([]int{}, 1)},
		{"two ellipses are not refused",
			gi("x[..., ...]", arange32(3)), out([]int{3}, 0, 1, 2)},
		{"a shrink axis with stride -1 is not refused, and its output element is never written",
			ss(map[string]any{"begin": i(1), "end": i(2), "strides": i(-1), "shrink_axis_mask": 1}, arange32(3)), crash("read-outside")},
		{"more than 5 dimensions, counting new axes: TFLite cannot run it",
			gi("x[None, None, None, None, None, None]", arange32(2)), skip("unsupported-rank")},
		{"an input of rank 6: TFLite cannot run it",
			gi("x[...]", arange32(1, 1, 1, 1, 1, 2)), skip("unsupported-rank")},
		{"begin beyond int32: STRIDED_SLICE takes int32 only",
			ss(map[string]any{"begin": i(1 << 40), "end": i(0)}, arange32(3)), skip("int32-limit")},
		{"tf.slice runs as TFLite's SLICE: a plain slice",
			sl(i(1, 0), i(1, -1), arange32(2, 3)), same(out([]int{1, 3}, 3, 4, 5))},
		{"tf.slice of a rank-0 tensor is the identity",
			sl(i(), i(), arange32()), same(out([]int{}, 0))},
		{"SLICE refuses begin + size beyond the dimension",
			sl(i(1), i(3), arange32(3)), same(fail(engine.OutOfRange))},
		{"SLICE refuses a size below -1",
			sl(i(0), i(-2), arange32(3)), same(fail(engine.OutOfRange))},
		{"SLICE with size -1 and begin beyond the dimension: a negative size, refused when allocating",
			sl(i(5), i(-1), arange32(3)), same(fail(engine.OutOfRange))},
		{"SLICE does not check a negative begin and reads before the input",
			sl(i(-1), i(2), arange32(3)), crash("read-outside")},
		{"SLICE ignores begin/size entries beyond the rank",
			sl(i(1, 0, 0), i(1, 1, 1), arange32(2, 3)), out([]int{1, 1}, 3)},
		{"gather_nd: rows of a matrix",
			gnd(arange32(2, 3), int64Tensor([]int{2, 1}, 1, 0)), same(out([]int{2, 3}, 3, 4, 5, 0, 1, 2))},
		{"gather_nd: an index past the dimension is refused in Invoke",
			gnd(arange32(2, 3), int64Tensor([]int{1, 2}, 1, 3)), same(fail(engine.OutOfRange))},
		{"gather_nd: a negative index is refused in Invoke",
			gnd(arange32(2, 3), int64Tensor([]int{1, 2}, 1, -1)), same(fail(engine.OutOfRange))},
		{"gather_nd: index depth beyond the params rank is refused",
			gnd(arange32(2, 3), int64Tensor([]int{1, 3}, 0, 0, 0)), same(fail(engine.InvalidSpec))},
		{"gather_nd: float indices are refused",
			gnd(arange32(2, 3), g.tensor(mustDType("<f4"), []int{1, 2})), same(fail(engine.BadInput))},
		{"gather_nd: rows requested from params with no elements are refused",
			gnd(arange32(2, 0), int64Tensor([]int{1, 1}, 1)), same(fail(engine.OutOfRange))},
		{"gather_nd: only the flattened position of a row is checked: [0, 4] on a [2, 3] matrix is element 4",
			gnd(arange32(2, 3), int64Tensor([]int{1, 2}, 0, 4)), out([]int{1}, 4)},
		{"a stride whose product with the input size overflows int32: not run (TFLite traps or loops for seconds)",
			gi("x[::2147483647]", arange32(3)), crash("not-run-stride-overflow")},
		{"gather_nd: params with no elements and index depth 0: no rows are checked",
			gnd(arange32(0, 1), int64Tensor([]int{3, 0})), out([]int{3, 0, 1})},
		{"gather_nd with batch_dims: GATHER_ND has none",
			casefile.New(map[string]any{"op": "gather_nd", "batch_dims": 1}, map[string]*engine.Tensor{"params": arange32(2, 2), "indices": int64Tensor([]int{2, 1}, 0, 1)}), skip("unsupported-spec")},
	}
	for _, tt := range tests {
		resp := do(c, tt.m.Request(0))
		if tt.want.crash != "" {
			if resp.CrashKind != protocol.CrashReported || resp.ReasonCode != tt.want.crash {
				t.Errorf("%s: got %+v, want a crash the oracle reports with code %q", tt.why, resp, tt.want.crash)
			}
			continue
		}
		got, err := oracleOutcome(resp)
		if err != nil {
			t.Errorf("%s: %v", tt.why, err)
			continue
		}
		want := engineOutcome(tt.m)
		if tt.want.engine && differ(want, got) != "" {
			t.Errorf("%s: %v: engine %v, TFLite %v (%s); want the same", tt.why, disagreement{tt.m, ""}, want, got, resp.ErrMessage)
			continue
		}
		if !tt.want.engine && differ(want, got) == "" {
			t.Errorf("%s: %v: TFLite agrees with the engine (%v); want a difference", tt.why, disagreement{tt.m, ""}, got)
		}
		switch a := tt.want; {
		case a.code == "-":
		case a.code != "":
			if got.skip == "" || got.code != a.code {
				t.Errorf("%s: got %v (%s), want a skip with code %q", tt.why, got, resp.ErrMessage, a.code)
			}
		case a.kind != "":
			if got.kind != a.kind {
				t.Errorf("%s: got %v (%s), want %s", tt.why, got, resp.ErrMessage, a.kind)
			}
		default:
			if got.tensor == nil || !equalShape(got.tensor.Shape, a.shape) {
				t.Errorf("%s: got %v (%s), want shape %v", tt.why, got, resp.ErrMessage, a.shape)
				continue
			}
			var vals []string
			for _, v := range a.values {
				vals = append(vals, fmt.Sprint(v))
			}
			if gv := intValues(got.tensor); strings.Join(gv, " ") != strings.Join(vals, " ") {
				t.Errorf("%s: got values %v, want %v", tt.why, gv, vals)
			}
		}
	}
}

// TestTFLiteTrap checks that a trap inside the WebAssembly module is
// reported as a crash of that case only: SLICE reads begin from the input
// without checking it, so a begin of -2^29 int32 elements makes it load
// 2 GiB away from the input, outside the instance's memory. The oracle
// re-creates the instance and the next case runs normally.
func TestTFLiteTrap(t *testing.T) {
	c := startTFLite(t)
	trap := casefile.New(map[string]any{"op": "slice", "begin": []int64{-1 << 29}, "size": []int64{1}}, map[string]*engine.Tensor{"x": arange32(3)})
	normal := casefile.New(map[string]any{"op": "slice", "begin": []int64{1}, "size": []int64{2}}, map[string]*engine.Tensor{"x": arange32(3)})
	for round := 0; round < 2; round++ {
		r := do(c, trap.Request(0))
		if r.CrashKind != protocol.CrashReported || r.ReasonCode != "trap" {
			t.Fatalf("round %d: trap case: got %+v, want a crash the oracle reports with code trap", round, r)
		}
		if !strings.Contains(r.Crash, "RuntimeError") {
			t.Errorf("round %d: trap reason %q does not name the WebAssembly error", round, r.Crash)
		}
		t.Logf("trap reported as: %s", r.Crash)
		got, err := oracleOutcome(do(c, normal.Request(0)))
		if err != nil || got.tensor == nil || strings.Join(intValues(got.tensor), " ") != "1 2" {
			t.Fatalf("round %d: the case after the trap: got %v, %v; want [1 2]", round, got, err)
		}
	}
	if n := c.Restarts(); n != 0 {
		t.Errorf("%d restarts: the oracle should survive a trap", n)
	}
}

// TestTFLiteSeveralEllipsesIsolated checks that a STRIDED_SLICE spec with
// several ellipsis bits, which TFLite runs instead of refusing (class
// tflite-several-ellipses) and which leaves its heap corrupted, does not
// change the answers of the cases after it: found with every mask
// combination of 3-entry specs in a random order, where such specs made
// later, unrelated cases trap. The last case's answer must be the one it
// gets alone, in a fresh oracle.
func TestTFLiteSeveralEllipsesIsolated(t *testing.T) {
	x := map[string]*engine.Tensor{"x": arange32(2, 1, 3)}
	ss := func(begin, end, strides []int64, masks ...int64) *casefile.Case {
		spec := map[string]any{"op": "strided_slice", "begin": begin, "end": end, "strides": strides}
		for i, name := range []string{"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"} {
			spec[name] = masks[i]
		}
		return casefile.New(spec, x)
	}
	i := func(v ...int64) []int64 { return v }
	sequence := []*casefile.Case{
		ss(i(0, 0, 1), i(-1, 2, 2), i(1, -1, 1), 0, 0, 0, 0, 0),
		ss(i(-2, -2, 3), i(0, 0, 2), i(2, 1, 1), 5, 4, 7, 7, 1), // ellipsis bits 0-2
		ss(i(1, 0, 2), i(1, -2, 4), i(-1, 1, 3), 4, 2, 5, 7, 6), // ellipsis bits 0 and 2
	}
	last := ss(i(-2, -1, -3), i(3, 0, 4), i(1, 2, 3), 6, 4, 0, 6, 6)
	alone := do(startTFLite(t), last.Request(0))
	c := startTFLite(t)
	for _, m := range sequence {
		do(c, m.Request(0))
	}
	if got := do(c, last.Request(0)); fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", alone) {
		t.Errorf("after specs with several ellipses the case gets %+v; alone it gets %+v", got, alone)
	}
}

// TestTFLiteMalformedRequests checks that the TFLite oracle answers
// malformed requests with the error kind the engine gives them (or a
// skip), never crashes, and keeps running.
func TestTFLiteMalformedRequests(t *testing.T) {
	c := startTFLite(t)
	b64 := func(x *engine.Tensor) string { return base64.StdEncoding.EncodeToString(npy.Encode(x)) }
	reqs := append(malformedRequests(), literalRequests(t,
		`{"op":"slice","begin":[9223372036854775808],"size":[1],"inputs":{"x":"`+b64(arange32(3))+`"}}`,
		`{"op":"slice","begin":[0],"size":[1e3],"inputs":{"x":"`+b64(arange32(3))+`"}}`,
		`{"op":"strided_slice","begin":[0],"end":[1.0],"inputs":{"x":"`+b64(arange32(3))+`"}}`,
		`{"op":"onnx_slice","starts":[0],"ends":[1],"inputs":{"data":"`+b64(arange32(3))+`"}}`,
	)...)
	checkMalformed(t, c, reqs)
}

// BenchmarkTFLiteOracle measures pipelined throughput through the client
// (256 requests in flight), in cases/s: strided_slice and gather_nd on a
// [4,5,5] float32 input cycling through 1,000 requests as the other
// oracles' benchmarks do (after the first round every model is cached),
// and "uncached": every request a spec never seen before, so each one
// builds, prepares and runs a new interpreter.
func BenchmarkTFLiteOracle(b *testing.B) {
	if !haveTFLite() {
		b.Skip(tfliteMissing)
	}
	b.Run("strided_slice", func(b *testing.B) { benchOracle(b, "tflite", "strided_slice") })
	b.Run("gather_nd", func(b *testing.B) { benchOracle(b, "tflite", "gather_nd") })
	b.Run("uncached", func(b *testing.B) {
		argv, err := Command("tflite")
		if err != nil {
			b.Skip(err)
		}
		c, err := protocol.Start(argv, protocol.Options{})
		if err != nil {
			b.Skip(err)
		}
		defer c.Close()
		g := gen{r: rand.New(rand.NewSource(1))}
		x := g.tensor(mustDType("<f4"), []int{4, 5, 5})
		req := func(i int) map[string]any {
			// begin[1] and end[1] take 1,000 values each (clamped by
			// TFLite, but each a new model): a new spec for every i below
			// 4,000,000.
			m := casefile.New(map[string]any{"op": "strided_slice",
				"begin": []int64{int64(i % 4), -int64(i/4%1000) - 1}, "end": []int64{4, int64(i/4000) + 1},
				"strides": []int64{1, -1 - int64(i%2)}}, map[string]*engine.Tensor{"x": x})
			return m.Request(0)
		}
		benchRequests(b, c, req, func(r response) bool { return r.Crash != "" || r.Skip != "" || r.ErrKind != "" },
			"failed or were skipped")
	})
}
