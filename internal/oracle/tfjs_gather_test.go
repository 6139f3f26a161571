package oracle

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/protocol"
)

// What the gather tables of the node oracles share (tfjs_gather_test.go,
// ort_gather_test.go, tflite_gather_test.go): a case, the answer the
// library documents for it, and the rule it shows. The answers are the
// libraries' own (their sources and documentation, confirmed by running
// them), not the engine's; where a library departs from the reference
// rules of the op, the rule says so.

// libAnswer is an expected answer: an error kind, a skip (its reason
// code), or an output of dtype, shape and values (compare.Format of each
// element; nil values: not checked).
type libAnswer struct {
	kind   engine.ErrorKind
	skip   string
	dtype  string
	shape  []int
	values []string
}

// libCase is one row of a table: rule is the behaviour it pins, in one
// line.
type libCase struct {
	rule   string
	spec   map[string]any // with "op"
	inputs map[string]*engine.Tensor
	want   libAnswer
}

func gotOut(dtype string, shape []int, v ...int64) libAnswer {
	vals := []string{}
	for _, x := range v {
		vals = append(vals, fmt.Sprint(x))
	}
	return libAnswer{dtype: dtype, shape: shape, values: vals}
}

func gotErr(k engine.ErrorKind) libAnswer { return libAnswer{kind: k} }
func gotSkip(code string) libAnswer       { return libAnswer{skip: code} }

// intTensor makes a tensor of dtype dt (an integer or bool dtype, either
// byte order) holding v.
func intTensor(dt string, shape []int, v ...int64) *engine.Tensor {
	d := mustDType(dt)
	data := make([]byte, d.Size*len(v))
	var order binary.ByteOrder = binary.LittleEndian
	if d.BigEndian {
		order = binary.BigEndian
	}
	for i, x := range v {
		b := data[i*d.Size : (i+1)*d.Size]
		switch d.Size {
		case 1:
			b[0] = byte(x)
		case 2:
			order.PutUint16(b, uint16(x))
		case 4:
			order.PutUint32(b, uint32(x))
		default:
			order.PutUint64(b, uint64(x))
		}
	}
	t, err := engine.FromBytes(d, shape, data)
	if err != nil {
		panic(err)
	}
	return t
}

// arangeOf is intTensor of 0, 1, ... in C order.
func arangeOf(dt string, shape ...int) *engine.Tensor {
	v := make([]int64, engine.NumElements(shape))
	for i := range v {
		v[i] = int64(i)
	}
	return intTensor(dt, shape, v...)
}

// runLibCases runs every case on c and checks the answer: the error kind,
// the skip's reason code, or the output's dtype, shape and values. A crash
// fails the case.
func runLibCases(t *testing.T, c *protocol.Client, tests []libCase) {
	t.Helper()
	for _, tt := range tests {
		m := casefile.New(tt.spec, tt.inputs)
		r := do(c, m.Request(0))
		if why := checkLibAnswer(tt.want, r); why != "" {
			t.Errorf("%s (%s %v): %s", tt.rule, tt.spec["op"], tt.spec, why)
		}
	}
	checkNoRestarts(t, c)
}

func checkLibAnswer(want libAnswer, r response) string {
	got := fmt.Sprintf("%+v", r)
	switch {
	case r.Crash != "":
		return "crash: " + r.Crash
	case want.skip != "":
		if r.Skip == "" || r.ReasonCode != want.skip {
			return fmt.Sprintf("got %s, want a skip with code %s", got, want.skip)
		}
		return ""
	case want.kind != "":
		if r.ErrKind != want.kind {
			return fmt.Sprintf("got %s, want error kind %s", got, want.kind)
		}
		return ""
	case r.Output == nil:
		return fmt.Sprintf("got %s, want an output", got)
	}
	out, err := npy.Decode(r.Output)
	if err != nil {
		return fmt.Sprintf("output: %v", err)
	}
	if want.dtype != "" && out.DType.String() != want.dtype {
		return fmt.Sprintf("got dtype %v, want %s", out.DType, want.dtype)
	}
	if !equalShape(out.Shape, want.shape) {
		return fmt.Sprintf("got shape %v, want %v", out.Shape, want.shape)
	}
	if want.values != nil {
		if g := intValues(out); strings.Join(g, " ") != strings.Join(want.values, " ") {
			return fmt.Sprintf("got values %v, want %v", g, want.values)
		}
	}
	return ""
}

// TestTFJSGather pins tf.gather as TF.js 4.22.0 (cpu backend) does it,
// and the TF.js oracle's handling of the cases TF.js cannot express.
func TestTFJSGather(t *testing.T) {
	requireOracle(t, "CONFORM_REQUIRE_TFJS", haveTFJS(), "the node packages are not installed (run `conform setup`, which installs @tensorflow/tfjs-core and tfjs-backend-cpu) or node is not installed")
	c := startOracle(t, "tfjs")
	checkHelloOps(t, c.Hello(), []string{"gather"})
	type in = map[string]*engine.Tensor
	pi := func(params, indices *engine.Tensor) in { return in{"params": params, "indices": indices} }
	g := func(fields ...any) map[string]any { return opSpec("gather", fields...) }
	a34 := arangeOf("<i4", 3, 4)
	tests := []libCase{
		{"rows of a matrix by int32 indices (axis 0 by default)",
			g(), pi(a34, intTensor("<i4", []int{2}, 2, 0)), gotOut("<i4", []int{2, 4}, 8, 9, 10, 11, 0, 1, 2, 3)},
		{"axis 1: the output is params.shape[:1] + indices.shape + params.shape[2:]",
			g("axis", 1), pi(a34, intTensor("<i4", []int{2}, 3, 0)), gotOut("<i4", []int{3, 2}, 3, 0, 7, 4, 11, 8)},
		{"a negative axis counts from the rank",
			g("axis", -1), pi(a34, intTensor("<i4", []int{1}, 1)), gotOut("<i4", []int{3, 1}, 1, 5, 9)},
		{"0-d indices remove the axis",
			g(), pi(a34, intTensor("<i4", []int{}, 2)), gotOut("<i4", []int{4}, 8, 9, 10, 11)},
		{"int64 indices run as int32 values, as a TF.js user converts them",
			g(), pi(a34, intTensor(">i8", []int{1}, 1)), gotOut("<i4", []int{1, 4}, 4, 5, 6, 7)},
		{"uint8 indices run as int32 values",
			g(), pi(a34, intTensor("|u1", []int{1}, 2)), gotOut("<i4", []int{1, 4}, 8, 9, 10, 11)},
		{"an index value beyond int32 cannot be given to TF.js",
			g(), pi(a34, intTensor("<i8", []int{1}, 1<<40)), gotSkip("int32-limit")},
		{"an index past the axis is refused by the cpu kernel (TF's CPU rule)",
			g("axis", 1), pi(a34, intTensor("<i4", []int{1}, 4)), gotErr(engine.OutOfRange)},
		{"a negative index is refused, not wrapped (TF's rule)",
			g(), pi(a34, intTensor("<i4", []int{1}, -1)), gotErr(engine.OutOfRange)},
		{"bad_indices \"zero\" with every index in range: both policies agree, so it runs",
			g("bad_indices", "zero"), pi(a34, intTensor("<i4", []int{1}, 1)), gotOut("<i4", []int{1, 4}, 4, 5, 6, 7)},
		{"bad_indices \"zero\" with an index out of range: TF.js has no zero-filling mode",
			g("bad_indices", "zero"), pi(a34, intTensor("<i4", []int{2}, 1, 3)), gotSkip("unsupported-spec")},
		{"an axis outside [-rank, rank) is refused",
			g("axis", 2), pi(a34, intTensor("<i4", []int{1}, 0)), gotErr(engine.InvalidSpec)},
		{"rank-0 params: no axis is in range",
			g(), pi(arangeOf("<i4"), intTensor("<i4", []int{1}, 0)), gotErr(engine.InvalidSpec)},
		{"batch_dims 1: each row of params gathered by its row of indices",
			g("axis", 1, "batch_dims", 1), pi(a34, intTensor("<i4", []int{3, 2}, 1, 0, 2, 3, 0, 0)), gotOut("<i4", []int{3, 2}, 1, 0, 6, 7, 8, 8)},
		{"a negative batch_dims counts from the indices' rank",
			g("axis", 1, "batch_dims", -1), pi(a34, intTensor("<i4", []int{3, 2}, 1, 0, 2, 3, 0, 0)), gotOut("<i4", []int{3, 2}, 1, 0, 6, 7, 8, 8)},
		{"batch dims of params and indices must match",
			g("axis", 1, "batch_dims", 1), pi(a34, intTensor("<i4", []int{2, 2}, 1, 0, 2, 3)), gotErr(engine.InvalidSpec)},
		{"batch_dims beyond the indices' rank is refused",
			g("axis", 1, "batch_dims", 3), pi(a34, intTensor("<i4", []int{3, 2}, 0, 0, 0, 0, 0, 0)), gotErr(engine.InvalidSpec)},
		{"TF.js checks the indices before batch_dims: batch_dims > axis with an index past the axis is out_of_range (TF: invalid_spec)",
			g("axis", 0, "batch_dims", 1), pi(a34, intTensor("<i4", []int{3, 2}, 1, 0, 2, 3, 0, 0)), gotErr(engine.OutOfRange)},
		{"batch_dims > axis with the indices in range is refused",
			g("axis", 0, "batch_dims", 1), pi(a34, intTensor("<i4", []int{3, 1}, 0, 1, 2)), gotErr(engine.InvalidSpec)},
		{"bool indices are refused by tf.gather (int32 only)",
			g(), pi(a34, intTensor("|b1", []int{1}, 1)), gotErr(engine.BadInput)},
		{"float indices are refused by tf.gather",
			g(), pi(a34, g0f32()), gotErr(engine.BadInput)},
		{"empty indices on an empty axis: an empty result",
			g(), pi(arangeOf("<i4", 0, 3), intTensor("<i4", []int{0})), gotOut("<i4", []int{0, 3})},
		{"an index into an empty axis is refused",
			g(), pi(arangeOf("<i4", 0, 3), intTensor("<i4", []int{1}, 0)), gotErr(engine.OutOfRange)},
		{"bool params run as TF.js bool tensors",
			g(), pi(intTensor("|b1", []int{3}, 1, 0, 1), intTensor("<i4", []int{2}, 1, 2)), libAnswer{dtype: "|b1", shape: []int{2}, values: []string{"false", "true"}}},
		{"big-endian int16 params run as positions; the bytes come back untouched",
			g(), pi(arangeOf(">i2", 4), intTensor("<i4", []int{2}, 3, 1)), gotOut(">i2", []int{2}, 3, 1)},
		{"string params: tf.gather refuses them (\"must be numeric tensor\")",
			g(), pi(stringTensor("ab", "c"), intTensor("<i4", []int{1}, 1)), gotSkip("unsupported-dtype")},
		{"a field of another op is bad_input",
			g("mode", "raise"), pi(a34, intTensor("<i4", []int{1}, 0)), gotErr(engine.BadInput)},
	}
	runLibCases(t, c, tests)
}

// TestTFJSGetItemAdvanced checks the TF.js oracle's getitem with the case
// format's advanced indices: TF's x[...] encoding has none, so such a
// subscript is skipped (advanced-index); names must match the inputs.
func TestTFJSGetItemAdvanced(t *testing.T) {
	requireOracle(t, "CONFORM_REQUIRE_TFJS", haveTFJS(), "the node packages are not installed (run `conform setup`) or node is not installed")
	c := startOracle(t, "tfjs")
	x := arangeOf("<i4", 3, 4)
	gi := func(index string, extra ...any) (map[string]any, map[string]*engine.Tensor) {
		in := map[string]*engine.Tensor{"x": x}
		for i := 0; i+1 < len(extra); i += 2 {
			in[extra[i].(string)] = extra[i+1].(*engine.Tensor)
		}
		return map[string]any{"op": "getitem", "index": index}, in
	}
	row := func(rule string, want libAnswer, index string, extra ...any) libCase {
		s, in := gi(index, extra...)
		return libCase{rule, s, in, want}
	}
	i1 := intTensor("<i8", []int{2}, 0, 2)
	tests := []libCase{
		row("a named integer array", gotSkip("advanced-index"), "x[i]", "i", i1),
		row("two named arrays around a slice", gotSkip("advanced-index"), "x[i, :, j]", "i", i1, "j", i1),
		row("an inline list", gotSkip("advanced-index"), "x[[0, 2], 1]"),
		row("a nested inline list", gotSkip("advanced-index"), "x[[[0, 1], [1, 0]]]"),
		row("True is a boolean index", gotSkip("advanced-index"), "x[True]"),
		row("x itself as an index", gotSkip("advanced-index"), "x[x]"),
		row("a name with no input is bad_input", gotErr(engine.BadInput), "x[i]"),
		row("an input the subscript does not use is bad_input", gotErr(engine.BadInput), "x[1]", "i", i1),
		row("basic indexing still runs", gotOut("<i4", []int{1, 4}, 4, 5, 6, 7), "x[1:2]"),
	}
	runLibCases(t, c, tests)
}

func g0f32() *engine.Tensor {
	t, err := engine.FromBytes(mustDType("<f4"), []int{1}, make([]byte, 4))
	if err != nil {
		panic(err)
	}
	return t
}

// stringTensor is an |S tensor of the given strings (NUL-padded to the
// longest).
func stringTensor(s ...string) *engine.Tensor {
	w := 1
	for _, x := range s {
		w = max(w, len(x))
	}
	data := make([]byte, w*len(s))
	for i, x := range s {
		copy(data[i*w:], x)
	}
	t, err := engine.FromBytes(mustDType(fmt.Sprintf("|S%d", w)), []int{len(s)}, data)
	if err != nil {
		panic(err)
	}
	return t
}
