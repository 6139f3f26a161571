package golden

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/engine/npy"
	"github.com/conformsuite/conform/internal/casefile"
)

func tensor(t *testing.T, dt engine.DType, shape ...int) *engine.Tensor {
	t.Helper()
	x, err := engine.Zeros(dt, shape)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

func TestClassify(t *testing.T) {
	s1, _ := engine.ParseDType("|S1")
	s3, _ := engine.ParseDType("|S3")
	i32 := engine.Int32Type
	out := func(x *engine.Tensor) Outcome { return Outcome{Output: npy.Encode(x)} }
	replaced, _ := engine.FromBytes(s3, []int{1}, []byte("\xef\xbf\xbd"))
	fail := func(kind engine.ErrorKind, msg string) Outcome { return Outcome{Kind: kind, Message: msg} }
	tests := []struct {
		rule     string
		m        casefile.Memory
		ref, got Outcome
		want     string
	}{
		{"bytes replaced by U+FFFD in a string result",
			casefile.Memory{Spec: map[string]any{"op": "slice", "begin": []int64{0}, "size": []int64{1}}, Inputs: map[string]*engine.Tensor{"x": tensor(t, s1, 1)}},
			out(tensor(t, s1, 1)), out(replaced), "tfjs-strings-not-byte-safe"},
		{"a tensor no .npy can hold",
			casefile.Memory{Spec: map[string]any{"op": "slice", "begin": []int64{-1}, "size": []int64{-1}}, Inputs: map[string]*engine.Tensor{"x": tensor(t, i32, 2)}},
			fail(engine.OutOfRange, "begin"), Outcome{Skip: "TF.js returned an invalid tensor: shape [-2]"}, "tfjs-invalid-tensor"},
		{"an empty strided range that TF.js turns into a negative size",
			casefile.Memory{Spec: map[string]any{"op": "strided_slice", "begin": []int64{3}, "end": []int64{1}}, Inputs: map[string]*engine.Tensor{"x": tensor(t, i32, 4)}},
			out(tensor(t, i32, 0)), fail(engine.OutOfRange, "Negative size values should be exactly -1 but got -2"), "tfjs-strided-slice-empty-range-throws"},
		{"a shrink axis before a strided axis reads the wrong elements",
			casefile.Memory{Spec: map[string]any{"op": "strided_slice", "begin": []int64{0, 0}, "end": []int64{1, 4}, "strides": []int64{1, 2}, "shrink_axis_mask": 1}, Inputs: map[string]*engine.Tensor{"x": tensor(t, i32, 2, 4)}},
			out(tensor(t, i32, 2)), out(tensor(t, i32, 2)), "tfjs-strided-slice-shrink-misaligned"},
		{"tf.slice of a scalar",
			casefile.Memory{Spec: map[string]any{"op": "slice", "begin": []int64{}, "size": []int64{}}, Inputs: map[string]*engine.Tensor{"x": tensor(t, i32)}},
			out(tensor(t, i32)), fail(engine.InvalidSpec, "Slicing scalar is not possible"), "tfjs-slice-rank0"},
		{"tf.slice with a begin shorter than the rank",
			casefile.Memory{Spec: map[string]any{"op": "slice", "begin": []int64{1}, "size": []int64{1}}, Inputs: map[string]*engine.Tensor{"x": tensor(t, i32, 2, 2)}},
			fail(engine.InvalidSpec, "length"), out(tensor(t, i32, 1, 2)), "tfjs-slice-short-spec"},
		{"tf.slice with a negative begin",
			casefile.Memory{Spec: map[string]any{"op": "slice", "begin": []int64{-2}, "size": []int64{1}}, Inputs: map[string]*engine.Tensor{"x": tensor(t, i32, 2)}},
			fail(engine.OutOfRange, "begin"), out(tensor(t, i32, 1)), "tfjs-slice-begin-unchecked"},
		{"a result of more than 32 dims",
			casefile.Memory{Spec: map[string]any{"op": "strided_slice", "begin": []int64{}, "end": []int64{}}, Inputs: map[string]*engine.Tensor{"x": tensor(t, i32)}},
			fail(engine.InvalidSpec, "number of dimensions must be within [0, 32], the result would have 33"), Outcome{Output: []byte("x")}, "tfjs-result-over-32-dims"},
		{"a gather row out of range per component but not flattened",
			casefile.Memory{Spec: map[string]any{"op": "gather_nd"}, Inputs: map[string]*engine.Tensor{"params": tensor(t, i32, 3, 3), "indices": tensor(t, i32, 1, 2)}},
			fail(engine.OutOfRange, "row"), out(tensor(t, i32, 1)), "tfjs-gather-nd-flat-bounds"},
		{"gather from empty params with no rows",
			casefile.Memory{Spec: map[string]any{"op": "gather_nd"}, Inputs: map[string]*engine.Tensor{"params": tensor(t, i32, 0), "indices": tensor(t, i32, 0, 1)}},
			out(tensor(t, i32, 0)), fail(engine.InvalidSpec, "empty"), "tfjs-gather-nd-empty-params"},
		{"a disagreement no class explains stays unexplained",
			casefile.Memory{Spec: map[string]any{"op": "slice", "begin": []int64{0}, "size": []int64{1}}, Inputs: map[string]*engine.Tensor{"x": tensor(t, i32, 2)}},
			out(tensor(t, i32, 1)), fail(engine.OutOfRange, "something new"), "unexplained"},
	}
	for _, tt := range tests {
		if got := Classify("tfjs", tt.m, tt.ref, tt.got); got.ID != tt.want {
			t.Errorf("%s: classified as %s, want %s", tt.rule, got.ID, tt.want)
		}
		if got := Classify("ort", tt.m, tt.ref, tt.got); got.ID != Unexplained.ID {
			t.Errorf("%s: a TF.js class matched another oracle: %s", tt.rule, got.ID)
		}
	}
}

// TestCountPairs checks the per-pair agreement counts: a pair counts a
// case only when both oracles ran it, outputs agree by bytes and errors
// by kind.
func TestCountPairs(t *testing.T) {
	a := Outcome{Output: npy.Encode(tensor(t, engine.Int32Type, 2))}
	b := Outcome{Output: npy.Encode(tensor(t, engine.Int32Type, 3))}
	oracles := []*Oracle{{Name: "numpy"}, {Name: "tfjs"}, {Name: "tflite"}}
	s := &Summary{Pairs: map[string]map[string]int{}}
	for _, res := range []map[string]Outcome{
		{"numpy": a, "tfjs": a, "tflite": b}, // tflite differs from both
		{"numpy": {Kind: engine.OutOfRange, Message: "x"}, "tfjs": {Kind: engine.OutOfRange, Message: "y"}, "tflite": {Skip: "rank 6"}}, // same kind; a skip is not counted
		{"numpy": a, "tfjs": {Crash: "died"}, "tflite": a}, // a crash is not counted
	} {
		countPairs(s, res, oracles)
	}
	want := map[string]map[string]int{
		"numpy/tfjs":   {"agree": 2},
		"numpy/tflite": {"agree": 1, "disagree": 1},
		"tfjs/tflite":  {"disagree": 1},
	}
	if diff := cmp.Diff(want, s.Pairs); diff != "" {
		t.Errorf("pair counts (-want +got):\n%s", diff)
	}
}
