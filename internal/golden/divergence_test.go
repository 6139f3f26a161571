package golden

import (
	"encoding/binary"
	"encoding/json"
	"io/fs"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/cases"
	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/protocol"
)

func tensor(t *testing.T, dt engine.DType, shape ...int) *engine.Tensor {
	t.Helper()
	x, err := engine.Zeros(dt, shape)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// ints is an int32 tensor of shape holding v.
func ints(t *testing.T, shape []int, v ...int32) *engine.Tensor {
	t.Helper()
	data := make([]byte, 4*len(v))
	for i, n := range v {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(n))
	}
	x, err := engine.FromBytes(engine.Int32Type, shape, data)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// withoutMessages returns o with every message replaced, its codes kept:
// a class must not depend on message text.
func withoutMessages(o protocol.Answer) protocol.Answer {
	switch {
	case o.IsError() && o.Message() != "":
		return protocol.Error(o.Kind(), "?")
	case o.IsSkip():
		return protocol.Skip("?", o.Code())
	case o.IsCrash():
		return protocol.Crash(o.Code(), "?")
	}
	return o
}

// TestClassify has one case per TF.js class, and cases that no class may
// take; each row says the rule it shows.
func TestClassify(t *testing.T) {
	s1, _ := engine.ParseDType("|S1")
	s3, _ := engine.ParseDType("|S3")
	i32 := engine.Int32Type
	out := func(x *engine.Tensor) protocol.Answer { return protocol.EncodedOutput(npy.Encode(x)) }
	replaced, _ := engine.FromBytes(s3, []int{1}, []byte("\xef\xbf\xbd"))
	fail := func(kind engine.ErrorKind, msg string) protocol.Answer { return protocol.Error(kind, msg) }
	tests := []struct {
		rule     string
		m        *casefile.Case
		ref, got protocol.Answer
		want     string
	}{
		{"bytes replaced by U+FFFD in a string result",
			casefile.New(map[string]any{"op": "slice", "begin": []int64{0}, "size": []int64{1}}, map[string]*engine.Tensor{"x": tensor(t, s1, 1)}),
			out(tensor(t, s1, 1)), out(replaced), "tfjs-strings-not-byte-safe"},
		{"a tensor no .npy can hold",
			casefile.New(map[string]any{"op": "slice", "begin": []int64{-1}, "size": []int64{-1}}, map[string]*engine.Tensor{"x": tensor(t, i32, 2)}),
			fail(engine.OutOfRange, "begin"), protocol.Skip("TF.js returned an invalid tensor: shape [-2]", CodeInvalidTensor), "tfjs-invalid-tensor"},
		{"an empty strided range that TF.js turns into a negative size",
			casefile.New(map[string]any{"op": "strided_slice", "begin": []int64{3}, "end": []int64{1}}, map[string]*engine.Tensor{"x": tensor(t, i32, 4)}),
			out(tensor(t, i32, 0)), fail(engine.OutOfRange, "Negative size values should be exactly -1 but got -2"), "tfjs-strided-slice-empty-range-throws"},
		{"a shrink axis before a strided axis reads the wrong elements",
			casefile.New(map[string]any{"op": "strided_slice", "begin": []int64{0, 0}, "end": []int64{1, 4}, "strides": []int64{1, 2}, "shrink_axis_mask": 1}, map[string]*engine.Tensor{"x": tensor(t, i32, 2, 4)}),
			out(tensor(t, i32, 2)), out(tensor(t, i32, 2)), "tfjs-strided-slice-shrink-misaligned"},
		{"an empty range with a shrink axis and stride 2 takes TF.js's general path, not the fast path",
			casefile.New(map[string]any{"op": "strided_slice", "begin": []int64{0, 3}, "end": []int64{1, 1}, "strides": []int64{1, 2}, "shrink_axis_mask": 1}, map[string]*engine.Tensor{"x": tensor(t, i32, 2, 4)}),
			out(tensor(t, i32, 0)), fail(engine.OutOfRange, "Requested out of range element"), "tfjs-strided-slice-shrink-misaligned"},
		{"tf.slice of a scalar",
			casefile.New(map[string]any{"op": "slice", "begin": []int64{}, "size": []int64{}}, map[string]*engine.Tensor{"x": tensor(t, i32)}),
			out(tensor(t, i32)), fail(engine.InvalidSpec, "Slicing scalar is not possible"), "tfjs-slice-rank0"},
		{"tf.slice with a begin shorter than the rank",
			casefile.New(map[string]any{"op": "slice", "begin": []int64{1}, "size": []int64{1}}, map[string]*engine.Tensor{"x": tensor(t, i32, 2, 2)}),
			fail(engine.InvalidSpec, "length"), out(tensor(t, i32, 1, 2)), "tfjs-slice-short-spec"},
		{"tf.slice with a negative begin",
			casefile.New(map[string]any{"op": "slice", "begin": []int64{-2}, "size": []int64{1}}, map[string]*engine.Tensor{"x": tensor(t, i32, 2)}),
			fail(engine.OutOfRange, "begin"), out(tensor(t, i32, 1)), "tfjs-slice-begin-unchecked"},
		{"a result of more than 32 dims",
			casefile.New(map[string]any{"op": "strided_slice", "begin": []int64{}, "end": []int64{}}, map[string]*engine.Tensor{"x": tensor(t, i32)}),
			fail(engine.InvalidSpec, "number of dimensions must be within [0, 32], the result would have 33"), protocol.EncodedOutput([]byte("x")), "tfjs-result-over-32-dims"},
		{"a gather row out of range per component but not flattened ([0, 4] on [2, 3] is element 4)",
			casefile.New(map[string]any{"op": "gather_nd"}, map[string]*engine.Tensor{"params": tensor(t, i32, 2, 3), "indices": ints(t, []int{1, 2}, 0, 4)}),
			fail(engine.OutOfRange, "row"), out(tensor(t, i32, 1)), "tfjs-gather-nd-flat-bounds"},
		{"gather from empty params with no rows",
			casefile.New(map[string]any{"op": "gather_nd"}, map[string]*engine.Tensor{"params": tensor(t, i32, 0), "indices": tensor(t, i32, 0, 1)}),
			out(tensor(t, i32, 0)), fail(engine.InvalidSpec, "empty"), "tfjs-gather-nd-empty-params"},
		{"tf.gather with batch_dims on empty params fails where TF returns the empty result",
			casefile.New(map[string]any{"op": "gather", "batch_dims": int64(1)}, map[string]*engine.Tensor{"params": tensor(t, i32, 0, 3), "indices": tensor(t, i32, 0, 2)}),
			out(tensor(t, i32, 0, 2)), fail(engine.InvalidSpec, "The new shape (0,NaN) has NaN elements"), "tfjs-gather-batch-dims-empty"},
		{"tf.gather checks index values before batch_dims",
			casefile.New(map[string]any{"op": "gather", "batch_dims": int64(2)}, map[string]*engine.Tensor{"params": tensor(t, i32, 3, 1), "indices": ints(t, []int{1, 2}, 0, 5)}),
			fail(engine.InvalidSpec, "batch_dims"), fail(engine.OutOfRange, "GatherV2: the index value 5 is not in [0, 1]"), "tfjs-gather-indices-first"},
		{"tf.gather bounds-checks indices when the result is empty",
			casefile.New(map[string]any{"op": "gather", "axis": int64(1)}, map[string]*engine.Tensor{"params": tensor(t, i32, 0, 1), "indices": ints(t, []int{1}, 3)}),
			out(tensor(t, i32, 0, 1)), fail(engine.OutOfRange, "GatherV2: the index value 3 is not in [0, 0]"), "tfjs-gather-empty-output-checked"},
		{"a refused invalid tensor of ONNX Runtime's is not a TF.js class (wrong oracle) but a TF.js skip without the code is not one either",
			casefile.New(map[string]any{"op": "slice", "begin": []int64{-1}, "size": []int64{-1}}, map[string]*engine.Tensor{"x": tensor(t, i32, 2)}),
			fail(engine.OutOfRange, "begin"), protocol.Skip("TF.js returned an invalid tensor: shape [-2]", ""), "unexplained"},
		{"an error on an empty range with no strided op is not the strided fast path",
			casefile.New(map[string]any{"op": "slice", "begin": []int64{1}, "size": []int64{0}}, map[string]*engine.Tensor{"x": tensor(t, i32, 4)}),
			out(tensor(t, i32, 0)), fail(engine.OutOfRange, "Negative size values should be exactly -1 but got -2"), "unexplained"},
		{"a disagreement no class explains stays unexplained",
			casefile.New(map[string]any{"op": "slice", "begin": []int64{0}, "size": []int64{1}}, map[string]*engine.Tensor{"x": tensor(t, i32, 2)}),
			out(tensor(t, i32, 1)), fail(engine.OutOfRange, "something new"), "unexplained"},
	}
	for _, tt := range tests {
		if got := Classify("tfjs", tt.m, tt.ref, tt.got); got.ID != tt.want {
			t.Errorf("%s: classified as %s, want %s", tt.rule, got.ID, tt.want)
		}
		if got := Classify("tfjs", tt.m, withoutMessages(tt.ref), withoutMessages(tt.got)); got.ID != tt.want {
			t.Errorf("%s: without its messages classified as %s, want %s", tt.rule, got.ID, tt.want)
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
	a := protocol.EncodedOutput(npy.Encode(tensor(t, engine.Int32Type, 2)))
	b := protocol.EncodedOutput(npy.Encode(tensor(t, engine.Int32Type, 3)))
	oracles := []*Oracle{{Name: "numpy"}, {Name: "tfjs"}, {Name: "tflite"}}
	s := &Summary{Pairs: map[string]map[string]int{}}
	for _, res := range []map[string]protocol.Answer{
		{"numpy": a, "tfjs": a, "tflite": b}, // tflite differs from both
		{"numpy": protocol.Error(engine.OutOfRange, "x"), "tfjs": protocol.Error(engine.OutOfRange, "y"), "tflite": protocol.Skip("rank 6", "")}, // same kind; a skip is not counted
		{"numpy": a, "tfjs": protocol.Crash("died", "died"), "tflite": a},                                                                        // a crash is not counted
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

// TestClassifyTFLite has one minimal case per TFLite class (the examples
// internal/oracle/tflite_test.go pins against the oracle), and the rule it shows.
func TestClassifyTFLite(t *testing.T) {
	i32 := engine.Int32Type
	x := func(shape ...int) map[string]*engine.Tensor {
		return map[string]*engine.Tensor{"x": tensor(t, i32, shape...)}
	}
	gi := func(index string, shape ...int) *casefile.Case {
		return casefile.New(map[string]any{"op": "getitem", "index": index}, x(shape...))
	}
	ss := func(spec map[string]any, shape ...int) *casefile.Case {
		spec["op"] = "strided_slice"
		return casefile.New(spec, x(shape...))
	}
	sl := func(begin, size []int64, shape ...int) *casefile.Case {
		return casefile.New(map[string]any{"op": "slice", "begin": begin, "size": size}, x(shape...))
	}
	gnd := func(params, indices *engine.Tensor) *casefile.Case {
		return casefile.New(map[string]any{"op": "gather_nd"}, map[string]*engine.Tensor{"params": params, "indices": indices})
	}
	i := func(v ...int64) []int64 { return append([]int64{}, v...) }
	out := func(shape ...int) protocol.Answer {
		return protocol.EncodedOutput(npy.Encode(tensor(t, i32, shape...)))
	}
	fail := func(kind engine.ErrorKind) protocol.Answer { return protocol.Error(kind, "TF's message") }
	crash := func(code string) protocol.Answer {
		return protocol.Crash(code, "the child reported a crash: ...")
	}
	readOutside := crash(tfliteReadOutside)
	tests := []struct {
		rule     string
		m        *casefile.Case
		ref, got protocol.Answer
		want     string
	}{
		{"a stride whose product with the input size overflows int32 (not run)",
			ss(map[string]any{"begin": i(0), "end": i(3), "strides": i(2147483647)}, 3), out(1),
			crash(tfliteStrideOverflow),
			"tflite-stride-overflow"},
		{"a spec whose expansion reads past TFLite's operands (not run)",
			gi("x[..., None]"), out(1),
			crash(tfliteReadsOperands),
			"tflite-spec-expansion-reads-past"},
		{"SLICE begin/size shorter than the rank (not run)",
			sl(i(0), i(1), 2, 2), fail(engine.InvalidSpec),
			crash(tfliteSliceShortSpec),
			"tflite-slice-short-spec"},
		{"two ellipses in a subscript (which the parser refuses) are expanded",
			gi("x[..., ...]", 3), fail(engine.InvalidSpec), out(3), "tflite-several-ellipses"},
		{"an ellipsis_mask bit past the spec counts as a second ellipsis in TF only",
			ss(map[string]any{"begin": i(0), "end": i(0), "ellipsis_mask": 5}, 4), fail(engine.InvalidSpec), out(4), "tflite-several-ellipses"},
		{"an index past the last dimension is ignored",
			gi("x[1, 0]", 3), fail(engine.InvalidSpec), out(), "tflite-extra-indices-ignored"},
		{"a shrink axis with stride -1 is not refused, and its element never written",
			ss(map[string]any{"begin": i(1), "end": i(2), "strides": i(-1), "shrink_axis_mask": 1}, 3), fail(engine.InvalidSpec), readOutside, "tflite-shrink-negative-stride"},
		{"an out-of-range index before a zero stride: TFLite reports the stride",
			gi("x[5, 0:2:0]", 3, 3), fail(engine.OutOfRange), fail(engine.InvalidSpec), "tflite-zero-stride-reported-first"},
		{"begin_mask on a shrink axis takes the first element",
			ss(map[string]any{"begin": i(2), "end": i(3), "begin_mask": 1, "shrink_axis_mask": 1}, 4), out(), out(), "tflite-begin-mask-on-shrink-axis"},
		{"a shrink index past the dimension reads one past the end",
			ss(map[string]any{"begin": i(9), "end": i(10), "shrink_axis_mask": 1}, 5), fail(engine.OutOfRange), readOutside, "tflite-shrink-index-read-past-end"},
		{"a shrink index below -d is clamped to the first element",
			gi("x[-9]", 5), fail(engine.OutOfRange), out(), "tflite-shrink-index-clamped"},
		{"an ellipsis TF expands over no dimension covers one; the index after it falls off",
			gi("x[..., 0]", 2), out(), out(2), "tflite-ellipsis-covers-one-dim"},
		{"new_axis and shrink bits past an empty spec are applied",
			ss(map[string]any{"begin": i(), "end": i(), "begin_mask": 1, "new_axis_mask": 1, "shrink_axis_mask": 1}, 0, 2), out(0, 2), out(1, 0), "tflite-mask-bits-past-spec"},
		{"SLICE ignores begin/size entries past the rank",
			sl(i(1, 0, 0), i(1, 1, 1), 2, 3), fail(engine.InvalidSpec), out(1, 1), "tflite-slice-extra-entries-ignored"},
		{"SLICE truncates an int64 begin to 32 bits",
			sl(i(1<<40), i(-1), 3), fail(engine.OutOfRange), out(3), "tflite-slice-int64-truncated"},
		{"SLICE reads before its input for a negative begin",
			sl(i(-1), i(2), 3), fail(engine.OutOfRange), readOutside, "tflite-slice-negative-begin"},
		{"SLICE traps for a negative begin far below its input",
			sl(i(-1<<29), i(1), 3), fail(engine.OutOfRange), crash(tfliteTrapped), "tflite-slice-negative-begin"},
		{"SLICE's begin + size overflows int32 and passes the check",
			sl(i(2), i(math.MaxInt32), 3), fail(engine.OutOfRange), out(1), "tflite-slice-begin-size-overflow"},
		{"SLICE with size -1 and begin past the dimension makes a negative dimension",
			sl(i(5, 0), i(-1, -1), 0, 0), fail(engine.OutOfRange), crash(tfliteInvalidTensor), "tflite-slice-negative-dim"},
		{"GATHER_ND with index depth 0 on params with no elements",
			gnd(tensor(t, i32, 0, 1), tensor(t, i32, 3, 0)), fail(engine.OutOfRange), out(3, 0, 1), "tflite-gather-nd-empty-params-depth-0"},
		{"GATHER_ND checks only the flattened position: [0, 4] on [2, 3] is element 4",
			gnd(tensor(t, i32, 2, 3), ints(t, []int{1, 2}, 0, 4)), fail(engine.OutOfRange), out(1), "tflite-gather-nd-flat-bounds"},
		{"an out-of-range shrink index refused with another kind is not a known TFLite behaviour",
			ss(map[string]any{"begin": i(9), "end": i(10), "shrink_axis_mask": 1}, 5), fail(engine.OutOfRange), fail(engine.BadInput), "unexplained"},
		{"a trap on a plain slice stays unexplained",
			sl(i(1), i(1), 3), out(1), crash(tfliteTrapped), "unexplained"},
		{"a read outside on a stride overflow's spec, run, is not the not-run class: the code decides",
			ss(map[string]any{"begin": i(0), "end": i(3), "strides": i(2147483647)}, 3), out(1), readOutside, "unexplained"},
		{"GATHER with batch_dims reads an index beyond its axis where its offset lands (another batch entry)",
			casefile.New(map[string]any{"op": "gather", "batch_dims": int64(1)}, map[string]*engine.Tensor{"params": ints(t, []int{2, 1}, 0, 1), "indices": ints(t, []int{2, 1}, 1, 0)}),
			fail(engine.OutOfRange), protocol.EncodedOutput(npy.Encode(ints(t, []int{2, 1}, 1, 1))), "tflite-gather-flat-bounds"},
		{"GATHER refuses a negative index when the result is empty",
			casefile.New(map[string]any{"op": "gather"}, map[string]*engine.Tensor{"params": tensor(t, i32, 0, 0), "indices": ints(t, []int{}, -1)}),
			protocol.EncodedOutput(npy.Encode(tensor(t, i32, 0))), fail(engine.OutOfRange), "tflite-gather-negative-index-on-empty"},
		{"GATHER refuses int16 indices in Prepare",
			casefile.New(map[string]any{"op": "gather"}, map[string]*engine.Tensor{"params": tensor(t, i32, 2), "indices": tensor(t, engine.Int16Type, 1)}),
			out(1), fail(engine.BadInput), "tflite-gather-index-dtype"},
		{"GATHER_ND with a negative component is refused by TFLite, so an output there is not the flat-bounds rule",
			gnd(tensor(t, i32, 2, 3), ints(t, []int{1, 2}, 1, -1)), fail(engine.OutOfRange), out(1), "unexplained"},
	}
	covered := map[string]bool{}
	for _, tt := range tests {
		covered[tt.want] = true
		if got := Classify("tflite", tt.m, tt.ref, tt.got); got.ID != tt.want {
			t.Errorf("%s: classified as %s, want %s", tt.rule, got.ID, tt.want)
		}
		if got := Classify("tflite", tt.m, withoutMessages(tt.ref), withoutMessages(tt.got)); got.ID != tt.want {
			t.Errorf("%s: without its messages classified as %s, want %s", tt.rule, got.ID, tt.want)
		}
		if got := Classify("ort", tt.m, tt.ref, tt.got); got.ID != Unexplained.ID {
			t.Errorf("%s: a TFLite class matched another oracle: %s", tt.rule, got.ID)
		}
	}
	for _, d := range Divergences {
		if d.Oracle == "tflite" && !covered[d.ID] {
			t.Errorf("class %s has no case here", d.ID)
		}
	}
}

// TestCorpusReasonCodes checks that every skip and crash the TF.js, ONNX
// Runtime and TFLite oracles gave in the embedded corpus carries a reason
// code, since the classes match on codes, never on reasons.
func TestCorpusReasonCodes(t *testing.T) {
	fsys, err := fs.Sub(corpus.Open(cases.FS), "golden")
	if err != nil {
		t.Fatal(err)
	}
	entries, err := corpus.Entries(fsys)
	if err != nil {
		t.Fatal(err)
	}
	coded := 0
	for _, e := range entries {
		var head struct {
			Oracles map[string]json.RawMessage `json:"oracles"`
		}
		if err := json.Unmarshal(e.JSON, &head); err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		for _, name := range []string{"tfjs", "ort", "tflite"} {
			raw, ok := head.Oracles[name]
			if !ok {
				continue
			}
			o, err := stored(fsys, e, raw)
			if err != nil {
				t.Fatalf("%s: %v", e.ID, err)
			}
			switch {
			case o.Ran():
			case o.Code() == "" || o.Code() == protocol.CrashNoAnswer:
				t.Errorf("%s: %s: %v without a code", e.ID, name, o)
			default:
				coded++
			}
		}
	}
	if coded == 0 {
		t.Error("no skip or crash with a code in the corpus")
	}
}
