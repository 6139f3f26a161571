package oracle

import (
	"context"
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/npy"
)

// TestNumPyOracleErrorType checks that the NumPy oracle's error answers
// on NumPy's own ops carry the class of the exception NumPy raises
// (checked against NumPy 1.24 by hand: the class named in each row is
// what `python3 -c` shows for the same call), and that an error that is
// conform's own carries none.
func TestNumPyOracleErrorType(t *testing.T) {
	requireOracle(t, "CONFORM_REQUIRE_NUMPY", haveNumPy(), "/usr/bin/python3 has no NumPy (apt-get install python3-numpy)")
	c := startOracle(t, "numpy")
	a23 := npArange("<i8", 2, 3)
	I := func(shape []int, v ...int64) *engine.Tensor { return npIntTensor("<i8", shape, v...) }
	a0 := npArange("<i8")
	a2 := npArange("<i8", 2)
	bools := func(n int, more ...string) string { // x[True, True, ..., more...]
		return "x[" + strings.Join(append(slices.Repeat([]string{"True"}, n), more...), ", ") + "]"
	}
	tests := []struct {
		rule   string
		op     string
		fields map[string]any
		inputs map[string]*engine.Tensor
		kind   engine.ErrorKind
		typ    string
	}{
		{"x[5] on 2 rows: IndexError out of bounds", "getitem", map[string]any{"index": "x[5]"}, map[string]*engine.Tensor{"x": a23}, engine.OutOfRange, "IndexError"},
		{"x[0, 0, 0]: too many indices is an IndexError", "getitem", map[string]any{"index": "x[0, 0, 0]"}, map[string]*engine.Tensor{"x": a23}, engine.InvalidSpec, "IndexError"},
		{"x[::0]: a zero step is a ValueError", "getitem", map[string]any{"index": "x[::0]"}, map[string]*engine.Tensor{"x": a23}, engine.InvalidSpec, "ValueError"},
		{"x[1.5:]: a float slice bound is a TypeError", "getitem", map[string]any{"index": "x[1.5:]"}, map[string]*engine.Tensor{"x": a23}, engine.InvalidSpec, "TypeError"},
		{"x[]: a subscript Python cannot parse is its SyntaxError", "getitem", map[string]any{"index": "x[]"}, map[string]*engine.Tensor{"x": a23}, engine.InvalidSpec, "SyntaxError"},
		{"x[[1.5]]: a float in a list is an IndexError", "getitem", map[string]any{"index": "x[[1.5]]"}, map[string]*engine.Tensor{"x": a23}, engine.InvalidSpec, "IndexError"},
		{"x[..., ...]: two ellipses are an IndexError", "getitem", map[string]any{"index": "x[..., ...]"}, map[string]*engine.Tensor{"x": a23}, engine.InvalidSpec, "IndexError"},
		{"x[[[0], []]]: a ragged list is a ValueError", "getitem", map[string]any{"index": "x[[[0], []]]"}, map[string]*engine.Tensor{"x": a23}, engine.InvalidSpec, "ValueError"},
		{"x[i, j] not broadcasting: IndexError", "getitem", map[string]any{"index": "x[i, j]"}, map[string]*engine.Tensor{"x": a23, "i": I([]int{2}, 0, 1), "j": I([]int{3}, 0, 1, 2)}, engine.InvalidSpec, "IndexError"},
		{"take with axis 5 of a 2-D a: numpy.AxisError", "take", map[string]any{"axis": 5}, map[string]*engine.Tensor{"a": a23, "indices": I([]int{1}, 0)}, engine.InvalidSpec, "numpy.AxisError"},
		{"take of 9 from 6 elements: IndexError", "take", nil, map[string]*engine.Tensor{"a": a23, "indices": I([]int{1}, 9)}, engine.OutOfRange, "IndexError"},
		{"take_along_axis with indices of another rank: ValueError", "take_along_axis", map[string]any{"axis": 1}, map[string]*engine.Tensor{"arr": a23, "indices": I([]int{1}, 0)}, engine.InvalidSpec, "ValueError"},
		{"take_along_axis with axis 5: numpy.AxisError", "take_along_axis", map[string]any{"axis": 5}, map[string]*engine.Tensor{"arr": a23, "indices": I([]int{1, 1}, 0)}, engine.InvalidSpec, "numpy.AxisError"},
		{"32 index arrays and a one-element subspace: NumPy's iterator refuses them (IndexError)", "getitem", map[string]any{"index": bools(32)}, map[string]*engine.Tensor{"x": a0}, engine.InvalidSpec, "IndexError"},
		{"33 index arrays: too many for NumPy's iterator, whatever the subspace (IndexError)", "getitem", map[string]any{"index": bools(33, ":")}, map[string]*engine.Tensor{"x": a2}, engine.InvalidSpec, "IndexError"},
		{"31 index arrays and a one-element subspace are taken: the value 5 is then out of bounds", "getitem", map[string]any{"index": bools(30, "[5]")}, map[string]*engine.Tensor{"x": a2}, engine.OutOfRange, "IndexError"},
		{"take with an axis beyond C int: NumPy's ValueError", "take", map[string]any{"axis": int64(1) << 31}, map[string]*engine.Tensor{"a": a23, "indices": I([]int{1}, 0)}, engine.InvalidSpec, "ValueError"},
		{"take_along_axis with an axis beyond C int: NumPy's OverflowError", "take_along_axis", map[string]any{"axis": int64(-1) << 40}, map[string]*engine.Tensor{"arr": a23, "indices": I([]int{1, 1}, 0)}, engine.InvalidSpec, "OverflowError"},
		{"x[i] without the input i is conform's own bad_input: no class", "getitem", map[string]any{"index": "x[i]"}, map[string]*engine.Tensor{"x": a23}, engine.BadInput, ""},
		{"gather is TF's op: no Python class", "gather", nil, map[string]*engine.Tensor{"params": a23, "indices": I([]int{1}, 9)}, engine.OutOfRange, ""},
	}
	for i, tc := range tests {
		req := map[string]any{"op": tc.op, "id": int64(i)}
		for k, v := range tc.fields {
			req[k] = v
		}
		inputs := map[string]string{}
		for name, x := range tc.inputs {
			inputs[name] = base64.StdEncoding.EncodeToString(npy.Encode(x))
		}
		req["inputs"] = inputs
		a := c.Do(context.Background(), req)
		if !a.IsError() || a.Kind() != tc.kind || a.Type() != tc.typ {
			t.Errorf("%s: got %v type %q, want %s type %q", tc.rule, a, a.Type(), tc.kind, tc.typ)
		}
	}
}
