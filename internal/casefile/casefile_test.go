package casefile

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"testing"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
)

// memInputs is an InputLoader that hands out arange int64 tensors: the
// value names a shape, e.g. "2x3"; "" is a 0-d tensor; "bad" fails.
func memInputs(name, value string) (*engine.Tensor, error) {
	if value == "bad" {
		return nil, engine.Errorf(engine.BadInput, "input %q is unreadable", name)
	}
	var shape []int
	if value != "" {
		for _, part := range bytes.Split([]byte(value), []byte("x")) {
			var d int
			if _, err := fmt.Sscan(string(part), &d); err != nil || d < 0 || d > 16 {
				return nil, engine.Errorf(engine.BadInput, "bad test shape %q", value)
			}
			shape = append(shape, d)
		}
	}
	if len(shape) > 6 {
		return nil, engine.Errorf(engine.BadInput, "bad test shape %q", value)
	}
	n := engine.NumElements(shape)
	data := make([]byte, 8*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(data[8*i:], uint64(i))
	}
	return engine.FromBytes(engine.Int64Type, shape, data)
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		rule string
		json string
		want engine.ErrorKind
	}{
		{"a case must be a JSON object", `[1]`, engine.BadInput},
		{"null is not a case", `null`, engine.BadInput},
		{"trailing data after the object is malformed", `{"op":"slice","inputs":{"x":"2"},"begin":[0],"size":[1]} {}`, engine.BadInput},
		{"op is required", `{"inputs":{"x":"2"}}`, engine.BadInput},
		{"op must be known", `{"op":"gather","inputs":{"x":"2"}}`, engine.BadInput},
		{"a field of another op is malformed", `{"op":"slice","inputs":{"x":"2"},"begin":[0],"size":[1],"index":"x[0]"}`, engine.BadInput},
		{"getitem needs an index", `{"op":"getitem","inputs":{"x":"2"}}`, engine.BadInput},
		{"the index must be a string", `{"op":"getitem","inputs":{"x":"2"},"index":3}`, engine.BadInput},
		{"strided_slice needs begin", `{"op":"strided_slice","inputs":{"x":"2"},"end":[1]}`, engine.BadInput},
		{"begin must be a list", `{"op":"strided_slice","inputs":{"x":"2"},"begin":1,"end":[1]}`, engine.BadInput},
		{"begin entries must be integers", `{"op":"strided_slice","inputs":{"x":"2"},"begin":[1.5],"end":[1]}`, engine.BadInput},
		{"begin entries must fit int64", `{"op":"strided_slice","inputs":{"x":"2"},"begin":[9223372036854775808],"end":[1]}`, engine.BadInput},
		{"a mask must be an integer or a list", `{"op":"strided_slice","inputs":{"x":"2"},"begin":[0],"end":[1],"begin_mask":"1"}`, engine.BadInput},
		{"list mask entries must be 0 or 1", `{"op":"strided_slice","inputs":{"x":"2"},"begin":[0],"end":[1],"begin_mask":[2]}`, engine.InvalidSpec},
		{"slice needs size", `{"op":"slice","inputs":{"x":"2"},"begin":[0]}`, engine.BadInput},
		{"batch_dims must be an integer", `{"op":"gather_nd","inputs":{"params":"2","indices":"1x1"},"batch_dims":"1"}`, engine.BadInput},
		{"bad_indices must be error or zero", `{"op":"gather_nd","inputs":{"params":"2","indices":"1x1"},"bad_indices":"clamp"}`, engine.BadInput},
		{"inputs is required", `{"op":"slice","begin":[0],"size":[1]}`, engine.BadInput},
		{"inputs must be an object", `{"op":"slice","inputs":["x"],"begin":[0],"size":[1]}`, engine.BadInput},
		{"an op's input must be present", `{"op":"gather_nd","inputs":{"params":"2"}}`, engine.BadInput},
		{"an input the op does not take is malformed", `{"op":"slice","inputs":{"x":"2","y":"2"},"begin":[0],"size":[1]}`, engine.BadInput},
		{"an input value must be a string", `{"op":"slice","inputs":{"x":2},"begin":[0],"size":[1]}`, engine.BadInput},
		{"an unreadable input is bad input", `{"op":"slice","inputs":{"x":"bad"},"begin":[0],"size":[1]}`, engine.BadInput},
		{"a subscript name needs an input", `{"op":"getitem","inputs":{"x":"2"},"index":"x[i]"}`, engine.BadInput},
		{"every getitem input but x is named in the subscript", `{"op":"getitem","inputs":{"x":"2","i":"1","j":"1"},"index":"x[i]"}`, engine.BadInput},
		{"a field of another op is malformed", `{"op":"getitem","inputs":{"x":"2"},"index":"x[0]","axis":0}`, engine.BadInput},
		{"take's mode is raise, wrap or clip", `{"op":"take","inputs":{"a":"2","indices":"1"},"mode":"clamp"}`, engine.BadInput},
		{"take_along_axis needs axis", `{"op":"take_along_axis","inputs":{"arr":"2","indices":"1"}}`, engine.BadInput},
		{"an axis beyond int32 is invalid_spec", `{"op":"gather","inputs":{"params":"2","indices":"1"},"axis":4294967296}`, engine.InvalidSpec},
	}
	for _, tt := range tests {
		_, err := Parse([]byte(tt.json), memInputs)
		if kind := engine.KindOf(err); kind != tt.want {
			t.Errorf("%s: got %v, want kind %s", tt.rule, err, tt.want)
		}
	}
}

func TestParseAndEval(t *testing.T) {
	tests := []struct {
		rule  string
		json  string
		shape []int
		err   engine.ErrorKind
	}{
		{"unknown fields are metadata and ignored", `{"op":"slice","inputs":{"x":"4"},"begin":[1],"size":[2],"id":"a","note":"b"}`, []int{2}, ""},
		{"absent strides are all ones", `{"op":"strided_slice","inputs":{"x":"4"},"begin":[1],"end":[3]}`, []int{2}, ""},
		{"absent masks are 0", `{"op":"strided_slice","inputs":{"x":"4"},"begin":[0],"end":[0]}`, []int{0}, ""},
		{"an integer mask sets bits", `{"op":"strided_slice","inputs":{"x":"4"},"begin":[0],"end":[0],"end_mask":1}`, []int{4}, ""},
		{"a list mask sets entries", `{"op":"strided_slice","inputs":{"x":"4"},"begin":[0],"end":[0],"end_mask":[1]}`, []int{4}, ""},
		{"batch_dims defaults to 0 and bad_indices to error", `{"op":"gather_nd","inputs":{"params":"4","indices":"1x1"}}`, []int{1}, ""},
		{"a getitem syntax error is invalid_spec", `{"op":"getitem","inputs":{"x":"4"},"index":"x[1,,]"}`, nil, engine.InvalidSpec},
		{"an inline integer list is an advanced index", `{"op":"getitem","inputs":{"x":"4"},"index":"x[[1, 2]]"}`, []int{2}, ""},
		{"a name in the subscript is bound to the input of that name", `{"op":"getitem","inputs":{"x":"8x5","i":"2x3"},"index":"x[i, 1:]"}`, []int{2, 3, 4}, ""},
		{"a name used twice is one input", `{"op":"getitem","inputs":{"x":"4x5","i":"3"},"index":"x[i, i]"}`, []int{3}, ""},
		{"a subscript that does not parse names no inputs: an input besides x is malformed", `{"op":"getitem","inputs":{"x":"4","i":"2"},"index":"x[i,,]"}`, nil, engine.BadInput},
		{"take's axis defaults to None (flattened)", `{"op":"take","inputs":{"a":"2x3","indices":"4"}}`, []int{4}, ""},
		{"take along an axis", `{"op":"take","inputs":{"a":"2x3","indices":"4"},"axis":1,"mode":"clip"}`, []int{2, 4}, ""},
		{"take_along_axis with axis null flattens", `{"op":"take_along_axis","inputs":{"arr":"2x3","indices":"4"},"axis":null}`, []int{4}, ""},
		{"gather along axis 1", `{"op":"gather","inputs":{"params":"2x3","indices":"3"},"axis":1}`, []int{2, 3}, ""},
		{"onnx_gather along axis -1", `{"op":"onnx_gather","inputs":{"data":"2x3","indices":"3x1"},"axis":-1}`, []int{2, 3, 1}, ""},
		{"onnx_gather_elements has the shape of indices", `{"op":"onnx_gather_elements","inputs":{"data":"2x3","indices":"1x2"},"axis":1}`, []int{1, 2}, ""},
		{"np.newaxis is None", `{"op":"getitem","inputs":{"x":"4"},"index":"x[np.newaxis, 1:]"}`, []int{1, 3}, ""},
		{"negative batch_dims are invalid", `{"op":"gather_nd","inputs":{"params":"4","indices":"1x1"},"batch_dims":-1}`, nil, engine.InvalidSpec},
	}
	for _, tt := range tests {
		c, err := Parse([]byte(tt.json), memInputs)
		var got *engine.Tensor
		if err == nil {
			got, err = c.Eval()
		}
		if engine.KindOf(err) != tt.err {
			t.Errorf("%s: got error %v, want kind %q", tt.rule, err, tt.err)
			continue
		}
		if err == nil && fmt.Sprint(got.Shape) != fmt.Sprint(tt.shape) {
			t.Errorf("%s: shape %v, want %v", tt.rule, got.Shape, tt.shape)
		}
	}
}

// TestListMasksEqualBitmasks checks that a case with OpenVINO 0/1 list
// masks evaluates exactly like the same case with TF integer bitmasks.
func TestListMasksEqualBitmasks(t *testing.T) {
	names := []string{"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"}
	rapid.Check(t, func(t *rapid.T) {
		rank := rapid.IntRange(0, 4).Draw(t, "rank")
		shape := ""
		for i := 0; i < rank; i++ {
			if i > 0 {
				shape += "x"
			}
			shape += fmt.Sprint(rapid.IntRange(0, 4).Draw(t, "dim"))
		}
		n := rapid.IntRange(0, 5).Draw(t, "n")
		spec := map[string]any{
			"op":      "strided_slice",
			"inputs":  map[string]string{"x": shape},
			"begin":   rapid.SliceOfN(rapid.Int64Range(-6, 6), n, n).Draw(t, "begin"),
			"end":     rapid.SliceOfN(rapid.Int64Range(-6, 6), n, n).Draw(t, "end"),
			"strides": rapid.SliceOfN(rapid.Int64Range(-3, 3), n, n).Draw(t, "strides"),
		}
		lists := map[string]any{}
		for k, v := range spec {
			lists[k] = v
		}
		for _, name := range names {
			// Lists may be shorter or longer than the spec, like bit
			// patterns with bits beyond the spec length.
			list := rapid.SliceOfN(rapid.Int64Range(0, 1), 0, n+2).Draw(t, name)
			bits := int64(0)
			for i, v := range list {
				bits |= v << uint(i)
			}
			spec[name] = bits
			lists[name] = list
		}
		a, errA := evalJSON(spec)
		b, errB := evalJSON(lists)
		if errA != nil || errB != nil {
			if engine.KindOf(errA) != engine.KindOf(errB) {
				t.Fatalf("bitmask form: %v; list form: %v", errA, errB)
			}
			return
		}
		if fmt.Sprint(a.Shape) != fmt.Sprint(b.Shape) || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("bitmask form gives %v, list form %v", a.Shape, b.Shape)
		}
	})
}

func evalJSON(v any) (*engine.Tensor, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	c, err := Parse(data, memInputs)
	if err != nil {
		return nil, err
	}
	return c.Eval()
}

// FuzzParse checks that no case document, however malformed, makes the
// loader or the engine panic, and that every rejection has a valid kind.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"op":"getitem","inputs":{"x":"2x3"},"index":"x[1, ::-1, None, ...]"}`,
		`{"op":"strided_slice","inputs":{"x":"2x3"},"begin":[1,0,0],"end":[0,0,2],"strides":[1,1,1],"begin_mask":[0,1,1],"end_mask":[1,1,0]}`,
		`{"op":"strided_slice","inputs":{"x":"3x4"},"begin":[0,-1],"end":[0,0],"strides":[1,-1],"begin_mask":1,"shrink_axis_mask":2,"ellipsis_mask":4,"new_axis_mask":8}`,
		`{"op":"slice","inputs":{"x":"2x3"},"begin":[1,0],"size":[1,-1]}`,
		`{"op":"gather_nd","inputs":{"params":"2x2x2","indices":"2x1"},"batch_dims":1,"bad_indices":"zero"}`,
		`{"op":"gather_nd","inputs":{"params":"","indices":"0"}}`,
		`{}`, `[]`, `{"op":1}`, `{"op":"slice","inputs":{"x":"bad"}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data, memInputs)
		if err != nil {
			if !engine.KindOf(err).Valid() {
				t.Fatalf("Parse error without a kind: %v", err)
			}
			return
		}
		out, err := c.Eval()
		if err != nil {
			if !engine.KindOf(err).Valid() {
				t.Fatalf("Eval error without a kind: %v", err)
			}
			return
		}
		if len(out.Bytes()) != out.Len()*out.DType.Size {
			t.Fatalf("output of shape %v holds %d bytes", out.Shape, len(out.Bytes()))
		}
	})
}

func TestIntList(t *testing.T) {
	tests := []struct {
		rule string
		in   string
		want []int64
		ok   bool
	}{
		{"a plain list", "[1, -2, 3]", []int64{1, -2, 3}, true},
		{"an empty list", " [ ] ", []int64{}, true},
		{"int64 extremes", "[-9223372036854775808,9223372036854775807]", []int64{-1 << 63, 1<<63 - 1}, true},
		{"beyond int64 goes the general way", "[9223372036854775808]", nil, false},
		{"a float goes the general way", "[1.0]", nil, false},
		{"a leading zero is not JSON", "[01]", nil, false},
		{"a trailing comma is not JSON", "[1,]", nil, false},
		{"a lone minus is not a number", "[-]", nil, false},
		{"not a list", "3", nil, false},
	}
	for _, tt := range tests {
		got, ok := intList([]byte(tt.in))
		if ok != tt.ok || fmt.Sprint(got) != fmt.Sprint(tt.want) && tt.ok {
			t.Errorf("%s: intList(%q) = %v, %v", tt.rule, tt.in, got, ok)
		}
	}
}
