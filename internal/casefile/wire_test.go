package casefile_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/gen"
)

// viaJSON parses a case's fields the way a case file is parsed: written
// as one JSON document with its inputs named after themselves.
func viaJSON(fields map[string]any, inputs map[string]*engine.Tensor) (*casefile.Case, error) {
	doc := map[string]any{}
	for k, v := range fields {
		doc[k] = v
	}
	names := map[string]string{}
	for name := range inputs {
		names[name] = name
	}
	doc["inputs"] = names
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return casefile.Parse(data, func(name, value string) (*engine.Tensor, error) {
		return inputs[value], nil
	})
}

// built is a case's fields as values and its inputs, as a generator
// hands them to casefile.New.
type built struct {
	fields map[string]any
	inputs map[string]*engine.Tensor
}

// builtCases are generated cases of every op (their fields as the raw
// JSON values they were written as) plus fields whose values take
// encoding/json's general path.
func builtCases() []built {
	x := mustTensor(engine.Int64Type, []int{2, 3})
	var cases []built
	for _, op := range casefile.OpNames() {
		for i := 0; i < 300; i++ {
			c := gen.CaseOf(op).Example(gen.CaseSeed(7, op, i))
			fields := map[string]any{}
			for k, raw := range c.Fields {
				fields[k] = raw
			}
			cases = append(cases, built{fields, c.Inputs})
		}
	}
	odd := []map[string]any{
		{"op": "getitem", "index": `x["a"]`},                                                               // a quote
		{"op": "getitem", "index": `x[a\b]`},                                                               // a backslash
		{"op": "getitem", "index": "x[\t0]"},                                                               // a control character
		{"op": "getitem", "index": "x[<&>]"},                                                               // characters encoding/json escapes
		{"op": "getitem", "index": "x[é]"},                                                                 // non-ASCII
		{"op": "getitem", "index": "x[\x7f]"},                                                              // DEL
		{"op": "strided_slice", "begin": []int{0}, "end": []any{1.0}},                                      // a float where an integer belongs
		{"op": "strided_slice", "begin": []int64(nil), "end": []int64{}},                                   // null list
		{"op": "slice", "begin": []int64{0, 1}, "size": []int64{-1, 2}, "note": map[string]any{"k": true}}, // metadata
		{"op": "gather_nd", "batch_dims": int64(-9223372036854775808), "bad_indices": "zero"},
		{"op": 3}, // not a string
		{"index": "x[0]"},
	}
	for _, fields := range odd {
		inputs := map[string]*engine.Tensor{"x": x}
		if fields["op"] == "gather_nd" {
			inputs = map[string]*engine.Tensor{"params": x, "indices": x}
		}
		cases = append(cases, built{fields, inputs})
	}
	return cases
}

func mustTensor(dt engine.DType, shape []int) *engine.Tensor {
	t, err := engine.FromBytes(dt, shape, make([]byte, dt.Size*engine.NumElements(shape)))
	if err != nil {
		panic(err)
	}
	return t
}

// sameTensor reports whether two tensors are the same tensor or equal in
// dtype, shape and element bytes (arrays a subscript writes inline are
// parsed anew by each parse).
func sameTensor(a, b *engine.Tensor) bool {
	return a == b || (a != nil && b != nil && a.DType == b.DType && slices.Equal(a.Shape, b.Shape) && bytes.Equal(a.Bytes(), b.Bytes()))
}

// TestNew checks that New, which builds a case from field values without
// a JSON document, reads every case exactly as Parse reads the same case
// written as JSON: the same op, definition, typed spec and inputs, or an
// error of the same kind (then carried in Err, with Spec nil).
func TestNew(t *testing.T) {
	for _, b := range builtCases() {
		want, wantErr := viaJSON(b.fields, b.inputs)
		got := casefile.New(b.fields, b.inputs)
		if (wantErr == nil) != (got.Err == nil) || engine.KindOf(wantErr) != engine.KindOf(got.Err) {
			t.Fatalf("%s: error %v, want %v", got, got.Err, wantErr)
		}
		if wantErr != nil {
			if got.Spec != nil {
				t.Errorf("%s: a case with an error has the spec %v", got, got.Spec)
			}
			continue
		}
		if got.Op != want.Op || got.Def != want.Def {
			t.Errorf("%s: op %q (%p), want %q (%p)", got, got.Op, got.Def, want.Op, want.Def)
		}
		if diff := cmp.Diff(want.Spec, got.Spec, cmp.Comparer(sameTensor)); diff != "" {
			t.Errorf("%s: New's spec differs from Parse's (-want +got):\n%s", got, diff)
		}
		if diff := cmp.Diff(want.Inputs, got.Inputs, cmp.Comparer(sameTensor)); diff != "" {
			t.Errorf("%s: New's inputs differ from Parse's (-want +got):\n%s", got, diff)
		}
		// Fields holds the fields as JSON (a built case has no "inputs").
		delete(want.Fields, "inputs")
		if diff := cmp.Diff(decodeFields(t, want.Fields), decodeFields(t, got.Fields)); diff != "" {
			t.Errorf("%s: New has other Fields than Parse (-want +got):\n%s", got, diff)
		}
	}
}

func decodeFields(t *testing.T, fields map[string]json.RawMessage) map[string]any {
	out := map[string]any{}
	for k, raw := range fields {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("field %q is not JSON: %s", k, raw)
		}
		out[k] = v
	}
	return out
}

// TestAppendRequest checks that AppendRequest encodes the same JSON
// object as Request, without the id.
func TestAppendRequest(t *testing.T) {
	for _, b := range builtCases() {
		c := casefile.New(b.fields, b.inputs)
		line, err := c.AppendRequest(nil)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		var got, want map[string]any
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatalf("%s: AppendRequest wrote invalid JSON %s: %v", c, line, err)
		}
		req := c.Request(0)
		delete(req, "id")
		data, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: AppendRequest differs from Request (-want +got):\n%s", c, diff)
		}
	}
}

// The base64 .npy files of the inputs of TestRequestBytes.
const (
	npyX = "k05VTVBZAQB2AHsnZGVzY3InOiAnPGk0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoBAAAAAgAAAA=="
	npyI = "k05VTVBZAQB2AHsnZGVzY3InOiAnPGk4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoBAAAAAAAAAA=="
)

// TestRequestBytes pins the exact request bytes and one-line description
// of a few cases, valid or not: what a child receives must not change
// with the way a case is held.
func TestRequestBytes(t *testing.T) {
	x, err := engine.FromBytes(engine.Int32Type, []int{2}, []byte{1, 0, 0, 0, 2, 0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	i, err := engine.FromBytes(engine.Int64Type, []int{1}, []byte{1, 0, 0, 0, 0, 0, 0, 0})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rule     string
		fields   map[string]any
		inputs   map[string]*engine.Tensor
		want     string
		describe string
	}{
		{
			"a string is written as encoding/json writes it, HTML-safe",
			map[string]any{"op": "getitem", "index": "x[<1>]"}, map[string]*engine.Tensor{"x": x},
			`{"index":"x[\u003c1\u003e]","op":"getitem","inputs":{"x":"` + npyX + `"}}`,
			"getitem x[<1>]; x: <i4 (2,)",
		},
		{
			"a getitem subscript that parses is sent with its structured key, among the sorted fields",
			map[string]any{"op": "getitem", "index": "x[i, ::-1]", "comment": "c"}, map[string]*engine.Tensor{"x": x, "i": i},
			`{"comment":"c","index":"x[i, ::-1]","key":[{"name":"i"},{"start":null,"stop":null,"step":-1}],"op":"getitem","inputs":{"i":"` + npyI + `","x":"` + npyX + `"}}`,
			`getitem comment="c" x[i, ::-1]; i: <i8 (1,), x: <i4 (2,)`,
		},
		{
			"a field called key written in a getitem case is replaced by the structured key",
			map[string]any{"op": "getitem", "index": "x[0]", "key": "mine"}, map[string]*engine.Tensor{"x": x},
			`{"index":"x[0]","key":[0],"op":"getitem","inputs":{"x":"` + npyX + `"}}`,
			`getitem x[0] key="mine"; x: <i4 (2,)`,
		},
		{
			"a subscript holding an item NumPy refuses has no structured key, nor a written one",
			map[string]any{"op": "getitem", "index": "x[1.5]", "key": "mine"}, map[string]*engine.Tensor{"x": x},
			`{"index":"x[1.5]","op":"getitem","inputs":{"x":"` + npyX + `"}}`,
			`getitem x[1.5] key="mine"; x: <i4 (2,)`,
		},
		{
			"a getitem case that is not valid (an input its subscript does not name) still has its key",
			map[string]any{"op": "getitem", "index": "x[:]"}, map[string]*engine.Tensor{"x": x, "i": i},
			`{"index":"x[:]","key":[{"start":null,"stop":null,"step":null}],"op":"getitem","inputs":{"i":"` + npyI + `","x":"` + npyX + `"}}`,
			`getitem x[:]; i: <i8 (1,), x: <i4 (2,)`,
		},
		{
			"a field called key of another op is sent as written",
			map[string]any{"op": "take", "axis": nil, "key": int64(3)}, map[string]*engine.Tensor{"a": x, "indices": i},
			`{"axis":null,"key":3,"op":"take","inputs":{"a":"` + npyX + `","indices":"` + npyI + `"}}`,
			`take axis=null key=3; a: <i4 (2,), indices: <i8 (1,)`,
		},
		{
			"a mask keeps the wire form it was written in: a 0/1 list or an integer",
			map[string]any{"op": "strided_slice", "begin": []int64{0}, "end": []int64{-1}, "begin_mask": []int64{1}, "shrink_axis_mask": int64(0)}, map[string]*engine.Tensor{"x": x},
			`{"begin":[0],"begin_mask":[1],"end":[-1],"op":"strided_slice","shrink_axis_mask":0,"inputs":{"x":"` + npyX + `"}}`,
			"strided_slice begin=[0] begin_mask=[1] end=[-1] shrink_axis_mask=0; x: <i4 (2,)",
		},
		{
			"null is written as null; inputs come sorted by name",
			map[string]any{"op": "take", "axis": nil, "mode": "clip"}, map[string]*engine.Tensor{"a": x, "indices": i},
			`{"axis":null,"mode":"clip","op":"take","inputs":{"a":"` + npyX + `","indices":"` + npyI + `"}}`,
			`take axis=null mode="clip"; a: <i4 (2,), indices: <i8 (1,)`,
		},
		{
			"a field of the wrong type is sent as written",
			map[string]any{"op": "gather", "axis": "0"}, map[string]*engine.Tensor{"params": x, "indices": i},
			`{"axis":"0","op":"gather","inputs":{"indices":"` + npyI + `","params":"` + npyX + `"}}`,
			`gather axis="0"; indices: <i8 (1,), params: <i4 (2,)`,
		},
		{
			"a case of an unknown op is sent as written",
			map[string]any{"op": "no_such_op", "k": []int64{1}}, map[string]*engine.Tensor{"x": x},
			`{"k":[1],"op":"no_such_op","inputs":{"x":"` + npyX + `"}}`,
			"no_such_op k=[1]; x: <i4 (2,)",
		},
	}
	for _, tt := range tests {
		c := casefile.New(tt.fields, tt.inputs)
		got, err := c.AppendRequest(nil)
		if err != nil {
			t.Fatalf("%s: %v", tt.rule, err)
		}
		if string(got) != tt.want {
			t.Errorf("%s: request\n%s\nwant\n%s", tt.rule, got, tt.want)
		}
		if d := c.Describe(); d != tt.describe {
			t.Errorf("%s: Describe() = %q, want %q", tt.rule, d, tt.describe)
		}
		if n := c.RequestSize(); n < len(got) {
			t.Errorf("%s: RequestSize() = %d, below the request's %d bytes", tt.rule, n, len(got))
		}
	}
}

// TestFromFields checks that a case read from its fields as written keeps
// them as written, compacted to one line.
func TestFromFields(t *testing.T) {
	x := mustTensor(engine.Int32Type, []int{4})
	tests := []struct {
		rule   string
		fields map[string]json.RawMessage
		want   string // the start of the request: its fields
	}{
		{"compact values stay byte for byte", map[string]json.RawMessage{"op": []byte(`"slice"`), "begin": []byte(`[1]`), "size": []byte(`[2]`)},
			`{"begin":[1],"op":"slice","size":[2],`},
		{"white space between values goes, that inside a string stays", map[string]json.RawMessage{"op": []byte(`"getitem"`), "index": []byte(`"x[1, ::2]"`), "note": []byte("[ 1,\n 2 ]")},
			`{"index":"x[1, ::2]","key":[1,{"start":null,"stop":null,"step":2}],"note":[1,2],"op":"getitem",`},
		{"a string is kept as written, escapes and all", map[string]json.RawMessage{"op": []byte(`"getitem"`), "index": []byte(`"x[\u0031]"`)},
			`{"index":"x[\u0031]","key":[1],"op":"getitem",`},
	}
	for _, tt := range tests {
		c := casefile.FromFields(tt.fields, map[string]*engine.Tensor{"x": x})
		if c.Err != nil {
			t.Fatalf("%s: %v", tt.rule, c.Err)
		}
		line, err := c.AppendRequest(nil)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(line), tt.want) {
			t.Errorf("%s: request %s, want it to start %s", tt.rule, line, tt.want)
		}
	}
}

// TestInvalidCase checks that a case whose fields or inputs do not make a
// valid case is still a case: it carries the error (of the kind Parse
// gives), keeps its inputs, is sent as written and cannot be evaluated.
func TestInvalidCase(t *testing.T) {
	x := mustTensor(engine.Int32Type, []int{4})
	tests := []struct {
		rule    string
		fields  map[string]any
		inputs  map[string]*engine.Tensor
		kind    engine.ErrorKind
		wantDef bool
	}{
		{"an unknown op has no definition", map[string]any{"op": "no_such_op"}, map[string]*engine.Tensor{"x": x}, engine.BadInput, false},
		{"a field of the wrong type", map[string]any{"op": "slice", "begin": "0", "size": []int64{1}}, map[string]*engine.Tensor{"x": x}, engine.BadInput, true},
		{"a field of another op", map[string]any{"op": "slice", "begin": []int64{0}, "size": []int64{1}, "mode": "clip"}, map[string]*engine.Tensor{"x": x}, engine.BadInput, true},
		{"an input the op does not take", map[string]any{"op": "slice", "begin": []int64{0}, "size": []int64{1}}, map[string]*engine.Tensor{"x": x, "y": x}, engine.BadInput, true},
		{"a missing input", map[string]any{"op": "slice", "begin": []int64{0}, "size": []int64{1}}, map[string]*engine.Tensor{}, engine.BadInput, true},
		{"an int32 field out of range", map[string]any{"op": "gather", "axis": int64(1) << 40}, map[string]*engine.Tensor{"params": x, "indices": x}, engine.InvalidSpec, true},
	}
	for _, tt := range tests {
		c := casefile.New(tt.fields, tt.inputs)
		if engine.KindOf(c.Err) != tt.kind {
			t.Errorf("%s: Err %v, want kind %s", tt.rule, c.Err, tt.kind)
		}
		if c.Spec != nil || (c.Def != nil) != tt.wantDef {
			t.Errorf("%s: Spec %v, Def %v", tt.rule, c.Spec, c.Def)
		}
		if len(c.Inputs) != len(tt.inputs) {
			t.Errorf("%s: inputs %v, want %v", tt.rule, c.Inputs, tt.inputs)
		}
		if out, err := c.Eval(); out != nil || err != c.Err {
			t.Errorf("%s: Eval() = %v, %v, want the case's error", tt.rule, out, err)
		}
		if _, err := c.AppendRequest(nil); err != nil {
			t.Errorf("%s: AppendRequest: %v (a case that is not valid is sent as written)", tt.rule, err)
		}
		if c.Def != nil {
			if out, err := c.Def.Call(nil, c); out != nil || err != c.Err {
				t.Errorf("%s: Def.Call() = %v, %v, want the case's error", tt.rule, out, err)
			}
			var b strings.Builder
			if c.WriteSnippet(&b); b.Len() > 0 {
				t.Errorf("%s: WriteSnippet wrote %q", tt.rule, b.String())
			}
		}
	}
}

// TestWithInputs checks that a copy with other inputs keeps the case's
// fields and spec, leaves the original alone, and checks the names again.
func TestWithInputs(t *testing.T) {
	x, y := mustTensor(engine.Int32Type, []int{4}), mustTensor(engine.Int32Type, []int{2})
	c := casefile.New(map[string]any{"op": "slice", "begin": []int64{0}, "size": []int64{1}}, map[string]*engine.Tensor{"x": x})
	d := c.WithInputs(map[string]*engine.Tensor{"x": y})
	if d.Err != nil || d.Inputs["x"] != y || c.Inputs["x"] != x {
		t.Fatalf("WithInputs: err %v, inputs %v (original %v)", d.Err, d.Inputs, c.Inputs)
	}
	if !cmp.Equal(d.Spec, c.Spec) || !cmp.Equal(d.Fields, c.Fields) {
		t.Errorf("WithInputs changed the spec %v or fields %v", d.Spec, d.Fields)
	}
	if e := c.WithInputs(map[string]*engine.Tensor{"z": y}); engine.KindOf(e.Err) != engine.BadInput {
		t.Errorf("an input the op does not take: Err %v, want bad_input", e.Err)
	}
}
