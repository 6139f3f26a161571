package oracle

import (
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/npy"
)

// TestNumPyOracleGatherOps checks the NumPy oracle's answers on the
// gathering ops (take, take_along_axis, gather, onnx_gather,
// onnx_gather_elements), getitem with advanced indices and the foreign
// field rule: for each case, the error kind, or the output's dtype and
// shape (and values where they are short). Each expectation comes from
// NumPy's, TF's or ONNX's documented behaviour, given in the case's why.
func TestNumPyOracleGatherOps(t *testing.T) {
	requireOracle(t, "CONFORM_REQUIRE_NUMPY", haveNumPy(), "/usr/bin/python3 has no NumPy (apt-get install python3-numpy)")
	c := startOracle(t, "numpy")
	checkHelloOps(t, c.Hello(), []string{"take", "take_along_axis", "gather", "onnx_gather", "onnx_gather_elements", "getitem"})

	a23 := npArange("<i8", 2, 3)     // [[0 1 2] [3 4 5]]
	x234 := npArange("<i8", 2, 3, 4) // 0..23
	ok := func(dt string, shape []int, values ...int64) gatherWant {
		return gatherWant{dtype: dt, shape: shape, values: values}
	}
	fails := func(kind engine.ErrorKind) gatherWant { return gatherWant{kind: kind} }
	in := func(kv ...any) map[string]*engine.Tensor {
		m := map[string]*engine.Tensor{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1].(*engine.Tensor)
		}
		return m
	}
	I := func(shape []int, v ...int64) *engine.Tensor { return npIntTensor("<i8", shape, v...) }
	S := func(n ...int) []int { return append([]int{}, n...) }
	f := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}

	cases := []struct {
		why    string
		op     string
		fields map[string]any
		inputs map[string]*engine.Tensor
		want   gatherWant
	}{
		// take: np.take(a, indices, axis, mode)
		{"take without axis reads the flattened a; -6 is the first of 6", "take", nil, in("a", a23, "indices", I(S(2), 5, -6)), ok("<i8", S(2), 5, 0)},
		{"take along axis 1 puts the indices' dims in place of the axis", "take", f("axis", 1), in("a", a23, "indices", I(S(1, 2), 0, 2)), ok("<i8", S(2, 1, 2), 0, 2, 3, 5)},
		{"take of a 0-d index from the flattened a is NumPy's scalar: np.asarray gives native byte order", "take", f("axis", nil), in("a", npArange(">f4", 2, 3), "indices", I(S(), 4)), ok("<f4", S())},
		{"take wrap mode: -4 is 2 and 5 is 2 modulo 3", "take", f("axis", -1, "mode", "wrap"), in("a", a23, "indices", I(S(2), -4, 5)), ok("<i8", S(2, 2), 2, 2, 5, 5)},
		{"take clip mode: -4 clips to 0 and 5 to the last row", "take", f("axis", 0, "mode", "clip"), in("a", a23, "indices", I(S(2), -4, 5)), ok("<i8", S(2, 3), 0, 1, 2, 3, 4, 5)},
		{"take on a 0-d a with axis 0: NumPy reads a 0-d array as a vector", "take", f("axis", 0), in("a", npArange("<i8"), "indices", I(S(1), 0)), ok("<i8", S(1), 0)},
		{"take raise mode: 6 is outside the 6 elements (IndexError)", "take", nil, in("a", a23, "indices", I(S(1), 6)), fails(engine.OutOfRange)},
		{"take raise mode: -7 is outside the 6 elements", "take", nil, in("a", a23, "indices", I(S(1), -7)), fails(engine.OutOfRange)},
		{"take from an empty axis is an error in every mode ('cannot do a non-empty take')", "take", f("axis", 1, "mode", "clip"), in("a", npArange("<f8", 2, 0), "indices", I(S(1), 0)), fails(engine.OutOfRange)},
		{"take of nothing from an empty axis is an empty result", "take", f("axis", 1), in("a", npArange("<f8", 2, 0), "indices", I(S(0))), ok("<f8", S(2, 0))},
		{"take axis 2 of a matrix: AxisError", "take", f("axis", 2), in("a", a23, "indices", I(S(1), 0)), fails(engine.InvalidSpec)},
		{"take with bool indices: bool casts safely to intp, True is 1", "take", nil, in("a", a23, "indices", npBoolTensor(S(2), true, false)), ok("<i8", S(2), 1, 0)},
		{"take with uint32 indices: uint32 casts safely to intp", "take", nil, in("a", a23, "indices", npIntTensor("<u4", S(1), 4)), ok("<i8", S(1), 4)},
		{"take with uint64 indices: no safe cast to intp (TypeError)", "take", nil, in("a", a23, "indices", npIntTensor("<u8", S(1), 1)), fails(engine.InvalidSpec)},
		{"take with float indices: no safe cast to intp (TypeError)", "take", nil, in("a", a23, "indices", npFloatTensor(S(1), 1)), fails(engine.InvalidSpec)},
		{"take result of 39 dims: beyond NumPy's 32", "take", f("axis", 0), in("a", npArange("<i8", npOnes(20)...), "indices", npIntTensor("<i8", npOnes(20), 0)), fails(engine.InvalidSpec)},
		{"take mode must be raise, wrap or clip", "take", f("mode", "nearest"), in("a", a23, "indices", I(S(1), 0)), fails(engine.BadInput)},

		// take_along_axis: np.take_along_axis(arr, indices, axis)
		{"take_along_axis picks one element per row", "take_along_axis", f("axis", 1), in("arr", a23, "indices", I(S(2, 1), 2, 0)), ok("<i8", S(2, 1), 2, 3)},
		{"take_along_axis with axis null reads the flattened arr (1-D indices)", "take_along_axis", f("axis", nil), in("arr", a23, "indices", I(S(2), 5, 0)), ok("<i8", S(2), 5, 0)},
		{"take_along_axis: -3 counts from the end of a dim of 3", "take_along_axis", f("axis", 1), in("arr", a23, "indices", I(S(2, 1), -3, 0)), ok("<i8", S(2, 1), 0, 3)},
		{"take_along_axis broadcasts a dim of 1 of arr against the indices", "take_along_axis", f("axis", 1), in("arr", npArange("<f8", 1, 3), "indices", I(S(4, 1), 0, 1, 2, 0)), ok("<f8", S(4, 1))},
		{"take_along_axis without axis: the field is required", "take_along_axis", nil, in("arr", a23, "indices", I(S(2), 0, 0)), fails(engine.BadInput)},
		{"take_along_axis bool indices: '`indices` must be an integer array'", "take_along_axis", f("axis", 1), in("arr", a23, "indices", npBoolTensor(S(2, 1), true, false)), fails(engine.InvalidSpec)},
		{"take_along_axis indices of another rank (ValueError)", "take_along_axis", f("axis", 1), in("arr", a23, "indices", I(S(1), 0)), fails(engine.InvalidSpec)},
		{"take_along_axis: 3 rows of indices do not broadcast against 2", "take_along_axis", f("axis", 1), in("arr", a23, "indices", I(S(3, 1), 0, 0, 0)), fails(engine.InvalidSpec)},
		{"take_along_axis: 3 is outside a dim of 3", "take_along_axis", f("axis", 1), in("arr", a23, "indices", I(S(2, 1), 3, 0)), fails(engine.OutOfRange)},
		{"take_along_axis on an axis of size 0: any index is out of bounds", "take_along_axis", f("axis", 1), in("arr", npArange("<f8", 2, 0), "indices", I(S(2, 1), 0, 0)), fails(engine.OutOfRange)},
		{"take_along_axis axis 2 of a matrix: AxisError", "take_along_axis", f("axis", 2), in("arr", a23, "indices", I(S(1, 1), 0)), fails(engine.InvalidSpec)},

		// gather: tf.gather(params, indices, axis, batch_dims)
		{"gather rows: shape params.shape[:0] + indices.shape + params.shape[1:]", "gather", nil, in("params", a23, "indices", I(S(2), 1, 0)), ok("<i8", S(2, 3), 3, 4, 5, 0, 1, 2)},
		{"gather along axis 1 with 2-D indices", "gather", f("axis", 1), in("params", a23, "indices", I(S(1, 2), 2, 0)), ok("<i8", S(2, 1, 2), 2, 0, 5, 3)},
		{"gather batch_dims 1: row b reads indices[b]", "gather", f("axis", 1, "batch_dims", 1), in("params", a23, "indices", I(S(2, 1), 2, 0)), ok("<i8", S(2, 1), 2, 3)},
		{"gather batch_dims -1 counts from rank(indices) = 2", "gather", f("axis", 2, "batch_dims", -1), in("params", x234, "indices", I(S(2, 1), 3, 0)), ok("<i8", S(2, 3, 1), 3, 7, 11, 12, 16, 20)},
		{"gather bad_indices zero: -1 and 3 (out of range) give zero slices, as TF on GPU", "gather", f("axis", 1, "bad_indices", "zero"), in("params", a23, "indices", I(S(3), -1, 1, 3)), ok("<i8", S(2, 3), 0, 1, 0, 0, 4, 0)},
		{"gather: negative indices do not wrap (TF's CPU: InvalidArgument)", "gather", nil, in("params", a23, "indices", I(S(1), -1)), fails(engine.OutOfRange)},
		{"gather: 2 is outside params.shape[0] = 2", "gather", nil, in("params", a23, "indices", I(S(1), 2)), fails(engine.OutOfRange)},
		{"gather: uint64 indices are refused before the kernel runs (Tindices is int32 or int64)", "gather", nil, in("params", a23, "indices", npIntTensor("<u8", S(1), 1)), fails(engine.BadInput)},
		{"gather: int8 indices are refused before the kernel runs", "gather", nil, in("params", a23, "indices", npIntTensor("|i1", S(1), 1)), fails(engine.BadInput)},
		{"gather: on an empty gathered axis every index is out of range: an error on CPU", "gather", nil, in("params", npArange("<i8", 0, 3), "indices", I(S(1), 0)), fails(engine.OutOfRange)},
		{"gather: on an empty gathered axis every index is out of range: zero slices with zero (no 'params is empty' check)", "gather", f("bad_indices", "zero"), in("params", npArange("<i8", 0, 3), "indices", I(S(1), 0)), ok("<i8", S(1, 3), 0, 0, 0)},
		{"gather: an empty result needs no valid index", "gather", f("axis", 1), in("params", npArange("<f8", 0, 3), "indices", I(S(1), 7)), ok("<f8", S(0, 1))},
		{"gather: batch_dims must be <= axis", "gather", f("axis", 0, "batch_dims", 1), in("params", a23, "indices", I(S(2, 1), 0, 0)), fails(engine.InvalidSpec)},
		{"gather: batch_dims beyond rank(indices)", "gather", f("axis", 1, "batch_dims", 3), in("params", a23, "indices", I(S(2, 1), 0, 0)), fails(engine.InvalidSpec)},
		{"gather: batch dims of params and indices differ", "gather", f("axis", 1, "batch_dims", 1), in("params", a23, "indices", I(S(3, 1), 0, 0, 0)), fails(engine.InvalidSpec)},
		{"gather: axis 2 of a matrix", "gather", f("axis", 2), in("params", a23, "indices", I(S(1), 0)), fails(engine.InvalidSpec)},
		{"gather: scalar params ('params must be at least 1 dimensional')", "gather", nil, in("params", npArange("<i8"), "indices", I(S(1), 0)), fails(engine.InvalidSpec)},
		{"gather: bool indices are not integers, as for gather_nd", "gather", nil, in("params", a23, "indices", npBoolTensor(S(1), true)), fails(engine.BadInput)},
		{"gather: 'mode' is a take field", "gather", f("mode", "raise"), in("params", a23, "indices", I(S(1), 0)), fails(engine.BadInput)},

		// onnx_gather: ONNX Gather-13
		{"onnx_gather: -2 wraps to 0 (negative indices count from the end)", "onnx_gather", nil, in("data", a23, "indices", I(S(2), -2, 1)), ok("<i8", S(2, 3), 0, 1, 2, 3, 4, 5)},
		{"onnx_gather of a 0-d index drops the axis", "onnx_gather", f("axis", -1), in("data", a23, "indices", I(S(), 2)), ok("<i8", S(2), 2, 5)},
		{"onnx_gather of a 0-d index from a vector is 0-d, data's dtype", "onnx_gather", nil, in("data", npArange(">f4", 3), "indices", I(S(), 1)), ok(">f4", S())},
		{"onnx_gather: -3 is outside [-2, 1]", "onnx_gather", nil, in("data", a23, "indices", I(S(1), -3)), fails(engine.OutOfRange)},
		{"onnx_gather: 2 is outside [-2, 1]", "onnx_gather", nil, in("data", a23, "indices", I(S(1), 2)), fails(engine.OutOfRange)},
		{"onnx_gather: axis 2 outside [-2, 1]", "onnx_gather", f("axis", 2), in("data", a23, "indices", I(S(1), 0)), fails(engine.InvalidSpec)},
		{"onnx_gather: data of rank 0 (r >= 1)", "onnx_gather", nil, in("data", npArange("<i8"), "indices", I(S(1), 0)), fails(engine.InvalidSpec)},
		{"onnx_gather: int32 indices are Gather-13's Tind too", "onnx_gather", nil, in("data", a23, "indices", npIntTensor("<i4", S(1), 0)), ok("<i8", S(1, 3))},
		{"onnx_gather: int16 indices are not a Tind", "onnx_gather", nil, in("data", a23, "indices", npIntTensor("<i2", S(1), 0)), fails(engine.BadInput)},
		{"onnx_gather: 'batch_dims' is not a Gather attribute here", "onnx_gather", f("batch_dims", 0), in("data", a23, "indices", I(S(1), 0)), fails(engine.BadInput)},

		// onnx_gather_elements: ONNX GatherElements-13
		{"onnx_gather_elements along axis 1: out[i][j] = data[i][idx[i][j]], -1 is the last", "onnx_gather_elements", f("axis", 1), in("data", a23, "indices", I(S(2, 2), 2, -1, 0, 0)), ok("<i8", S(2, 2), 2, 2, 3, 3)},
		{"onnx_gather_elements: indices smaller than data on the other dim", "onnx_gather_elements", nil, in("data", a23, "indices", I(S(1, 2), 1, 0)), ok("<i8", S(1, 2), 3, 1)},
		{"onnx_gather_elements: indices.shape[1] = 4 > data.shape[1] = 3 (no broadcasting)", "onnx_gather_elements", nil, in("data", a23, "indices", I(S(1, 4), 0, 0, 0, 0)), fails(engine.InvalidSpec)},
		{"onnx_gather_elements: indices of another rank", "onnx_gather_elements", nil, in("data", a23, "indices", I(S(2), 0, 0)), fails(engine.InvalidSpec)},
		{"onnx_gather_elements: -3 outside [-2, 1]", "onnx_gather_elements", nil, in("data", a23, "indices", I(S(1, 1), -3)), fails(engine.OutOfRange)},
		{"onnx_gather_elements: axis -3 of a matrix", "onnx_gather_elements", f("axis", -3), in("data", a23, "indices", I(S(1, 1), 0)), fails(engine.InvalidSpec)},
		{"onnx_gather_elements: empty indices give an empty result", "onnx_gather_elements", nil, in("data", a23, "indices", I(S(0, 3))), ok("<i8", S(0, 3))},

		// getitem with advanced indices: np.asarray(x[key])
		{"x[i, 1:, j]: adjacent? no - separated by a slice, the broadcast dim goes first", "getitem", f("index", "x[i, 1:, j]"), in("x", x234, "i", I(S(2), 0, 1), "j", I(S(2), 0, 1)), ok("<i8", S(2, 2), 4, 8, 17, 21)},
		{"x[m] with a full boolean mask: one dim of the count of True", "getitem", f("index", "x[m]"), in("x", a23, "m", npBoolTensor(S(2, 3), true, false, true, false, false, true)), ok("<i8", S(3), 0, 2, 5)},
		{"x[..., i]: the array's dims replace the last dim in place", "getitem", f("index", "x[..., i]"), in("x", x234, "i", I(S(1, 2), 0, 3)), ok("<i8", S(2, 3, 1, 2))},
		{"x[None, i, :, j]: arrays separated by a slice go first", "getitem", f("index", "x[None, i, :, j]"), in("x", x234, "i", I(S(2), 0, 1), "j", I(S(2), 0, 1)), ok("<i8", S(2, 1, 3), 0, 4, 8, 13, 17, 21)},
		{"x[[0, 1], 1]: an integer next to an array acts as a 0-d array, adjacent", "getitem", f("index", "x[[0, 1], 1]"), in("x", x234), ok("<i8", S(2, 4))},
		{"x[True] adds a dim of 1", "getitem", f("index", "x[True]"), in("x", a23), ok("<i8", S(1, 2, 3))},
		{"x[False] adds a dim of 0", "getitem", f("index", "x[False]"), in("x", a23), ok("<i8", S(0, 2, 3))},
		{"x[[[0,1],[1,0]]]: a nested list is a 2-D index array", "getitem", f("index", "x[[[0,1],[1,0]]]"), in("x", a23), ok("<i8", S(2, 2, 3))},
		{"x[[]]: an empty list is an empty intp index", "getitem", f("index", "x[[]]"), in("x", a23), ok("<i8", S(0, 3))},
		{"x[x]: x itself as an index array of a vector", "getitem", f("index", "x[x]"), in("x", I(S(3), 1, 0, 1)), ok("<i8", S(3), 0, 1, 0)},
		{"x[i, i, i] with a 0-d int array: integers, so a scalar, native byte order", "getitem", f("index", "x[i, i, i]"), in("x", npArange(">f4", 2, 2, 2), "i", I(S(), 1)), ok("<f4", S())},
		{"x[i] on a big-endian x: an advanced index keeps the dtype", "getitem", f("index", "x[i]"), in("x", npArange(">f4", 3), "i", I(S(1), 2)), ok(">f4", S(1))},
		{"x[m] with an empty boolean dim: NumPy does not compare a dim of 0", "getitem", f("index", "x[m]"), in("x", a23, "m", npBoolTensor(S(0))), ok("<i8", S(0, 3))},
		{"x[i]: index 2 is out of bounds for a dim of 2", "getitem", f("index", "x[i]"), in("x", a23, "i", I(S(1), 2)), fails(engine.OutOfRange)},
		{"x[i]: a uint64 array is cast to intp as NumPy casts it: 2**64-1 is -1, the last row", "getitem", f("index", "x[i]"), in("x", a23, "i", npIntTensor("<u8", S(1), -1)), ok("<i8", S(1, 3))},
		{"x[i]: a 0-d uint64 above int64 is out of range (NumPy's OverflowError)", "getitem", f("index", "x[i]"), in("x", a23, "i", npIntTensor("<u8", S(), -1)), fails(engine.OutOfRange)},
		{"x[5, j, k]: the integer's bounds are checked before the arrays broadcast", "getitem", f("index", "x[5, j, k]"), in("x", x234, "j", I(S(2), 0, 1), "k", I(S(3), 0, 1, 2)), fails(engine.OutOfRange)},
		{"x[i, j]: shapes (2,) and (3,) do not broadcast", "getitem", f("index", "x[i, j]"), in("x", x234, "i", I(S(2), 0, 1), "j", I(S(3), 0, 1, 2)), fails(engine.InvalidSpec)},
		{"x[m]: boolean index of (2, 2) does not match dims (2, 3)", "getitem", f("index", "x[m]"), in("x", a23, "m", npBoolTensor(S(2, 2), true, true, true, true)), fails(engine.InvalidSpec)},
		{"x[7, m]: the boolean mismatch is found before the integer's bounds", "getitem", f("index", "x[7, m]"), in("x", a23, "m", npBoolTensor(S(2), true, true)), fails(engine.InvalidSpec)},
		{"x[0, 0, 0, i]: too many indices for a 3-D x", "getitem", f("index", "x[0, 0, 0, i]"), in("x", x234, "i", I(S(1), 0)), fails(engine.InvalidSpec)},
		{"x[i] with a float index array", "getitem", f("index", "x[i]"), in("x", a23, "i", npFloatTensor(S(1), 0)), fails(engine.InvalidSpec)},
		{"x[[1.5]]: a float list is not an index", "getitem", f("index", "x[[1.5]]"), in("x", a23), fails(engine.InvalidSpec)},
		{"x[[[0], []]]: a ragged list is not an array (ValueError)", "getitem", f("index", "x[[[0], []]]"), in("x", a23), fails(engine.InvalidSpec)},
		{"x[i] without an input i", "getitem", f("index", "x[i]"), in("x", a23), fails(engine.BadInput)},
		{"x[0] with an input i the index does not name", "getitem", f("index", "x[0]"), in("x", a23, "i", I(S(1), 0)), fails(engine.BadInput)},

		// foreign fields: a field of any other op is bad_input
		{"getitem with onnx_slice's 'axes'", "getitem", f("index", "x[0]", "axes", []int{0}), in("x", a23), fails(engine.BadInput)},
		{"getitem with take's 'axis'", "getitem", f("index", "x[0]", "axis", 0), in("x", a23), fails(engine.BadInput)},
		{"gather_nd with onnx_slice's 'starts'", "gather_nd", f("starts", []int{0}), in("params", a23, "indices", I(S(1, 1), 0)), fails(engine.BadInput)},
		{"onnx_gather_nd with gather's 'axis'", "onnx_gather_nd", f("axis", 0), in("data", a23, "indices", I(S(1, 1), 0)), fails(engine.BadInput)},
		{"take with getitem's 'index'", "take", f("index", "x[0]"), in("a", a23, "indices", I(S(1), 0)), fails(engine.BadInput)},
		{"an unknown field is metadata", "take", f("note", "anything"), in("a", a23, "indices", I(S(1), 0)), ok("<i8", S(1), 0)},
	}
	for i, tc := range cases {
		req := map[string]any{"op": tc.op}
		for k, v := range tc.fields {
			req[k] = v
		}
		inputs := map[string]string{}
		for name, tensor := range tc.inputs {
			inputs[name] = base64.StdEncoding.EncodeToString(npy.Encode(tensor))
		}
		req["inputs"] = inputs
		req["id"] = int64(i)
		r := do(c, req)
		if got := describeGatherAnswer(r); !tc.want.matches(got) {
			t.Errorf("%s (%s %v): got %s, want %s", tc.why, tc.op, tc.fields, got, tc.want)
		}
	}
}

// gatherWant is an expected answer: an error kind, or an output's dtype,
// shape and (when given) values.
type gatherWant struct {
	kind   engine.ErrorKind
	dtype  string
	shape  []int
	values []int64
}

type gatherGot struct {
	gatherWant
	other string // a skip, crash or undecodable output
}

func (w gatherWant) matches(g gatherGot) bool {
	if g.other != "" || w.kind != g.kind {
		return false
	}
	if w.kind != "" {
		return true
	}
	if w.dtype != g.dtype || !reflect.DeepEqual(append([]int{}, w.shape...), append([]int{}, g.shape...)) {
		return false
	}
	return w.values == nil || reflect.DeepEqual(w.values, g.values)
}

func (w gatherWant) String() string {
	if w.kind != "" {
		return "error " + string(w.kind)
	}
	if w.values != nil {
		return fmt.Sprintf("%s %v %v", w.dtype, w.shape, w.values)
	}
	return fmt.Sprintf("%s %v", w.dtype, w.shape)
}

func (g gatherGot) String() string {
	if g.other != "" {
		return g.other
	}
	return g.gatherWant.String()
}

func describeGatherAnswer(r response) gatherGot {
	switch {
	case r.Crash != "":
		return gatherGot{other: "crash: " + r.Crash}
	case r.Skip != "":
		return gatherGot{other: "skip: " + r.Skip}
	case r.ErrKind != "":
		return gatherGot{gatherWant: gatherWant{kind: r.ErrKind}}
	}
	out, err := npy.Decode(r.Output)
	if err != nil {
		return gatherGot{other: "bad output: " + err.Error()}
	}
	g := gatherGot{gatherWant: gatherWant{dtype: out.DType.String(), shape: out.Shape}}
	if out.DType.Kind == engine.Int && out.DType.Size == 8 {
		data := out.Bytes()
		for i := 0; i+8 <= len(data); i += 8 {
			var v uint64
			if out.DType.String()[0] == '>' {
				v = binary.BigEndian.Uint64(data[i:])
			} else {
				v = binary.LittleEndian.Uint64(data[i:])
			}
			g.values = append(g.values, int64(v))
		}
	}
	return g
}

// npArange returns the tensor 0, 1, 2, ... of dtype dt (an integer or float
// dtype of either byte order) and shape.
func npArange(dt string, shape ...int) *engine.Tensor {
	n := 1
	for _, d := range shape {
		n *= d
	}
	v := make([]int64, n)
	for i := range v {
		v[i] = int64(i)
	}
	if mustDType(dt).Kind == engine.Float {
		return npFloatTensorOf(dt, shape, v...)
	}
	return npIntTensor(dt, shape, v...)
}

// npIntTensor returns an integer tensor of dtype dt holding v, each
// truncated to the dtype's size (-1 as uint64 is 2**64-1).
func npIntTensor(dt string, shape []int, v ...int64) *engine.Tensor {
	d := mustDType(dt)
	data := make([]byte, d.Size*len(v))
	for i, x := range v {
		for b := 0; b < d.Size; b++ {
			byt := byte(uint64(x) >> (8 * b))
			if dt[0] == '>' {
				data[d.Size*i+d.Size-1-b] = byt
			} else {
				data[d.Size*i+b] = byt
			}
		}
	}
	return npMustTensor(d, shape, data)
}

func npFloatTensor(shape []int, v ...int64) *engine.Tensor {
	return npFloatTensorOf("<f8", shape, v...)
}

// npFloatTensorOf returns a float tensor (<f8, >f4, ...) holding v.
func npFloatTensorOf(dt string, shape []int, v ...int64) *engine.Tensor {
	d := mustDType(dt)
	data := make([]byte, d.Size*len(v))
	for i, x := range v {
		var bits uint64
		if d.Size == 4 {
			bits = uint64(math.Float32bits(float32(x)))
		} else {
			bits = math.Float64bits(float64(x))
		}
		for b := 0; b < d.Size; b++ {
			byt := byte(bits >> (8 * b))
			if dt[0] == '>' {
				data[d.Size*i+d.Size-1-b] = byt
			} else {
				data[d.Size*i+b] = byt
			}
		}
	}
	return npMustTensor(d, shape, data)
}

func npBoolTensor(shape []int, v ...bool) *engine.Tensor {
	data := make([]byte, len(v))
	for i, b := range v {
		if b {
			data[i] = 1
		}
	}
	return npMustTensor(engine.BoolType, shape, data)
}

func npMustTensor(d engine.DType, shape []int, data []byte) *engine.Tensor {
	t, err := engine.FromBytes(d, shape, data)
	if err != nil {
		panic(err)
	}
	return t
}

func npOnes(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}
