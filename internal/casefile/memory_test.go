package casefile_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/gen"
)

// viaJSON parses m the way a case file is parsed: its spec marshalled
// with encoding/json, inputs named after themselves.
func viaJSON(m casefile.Memory) (*casefile.Case, error) {
	doc := map[string]any{}
	for k, v := range m.Spec {
		doc[k] = v
	}
	names := map[string]string{}
	for name := range m.Inputs {
		names[name] = name
	}
	doc["inputs"] = names
	data, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return casefile.Parse(data, func(name, value string) (*engine.Tensor, error) {
		return m.Inputs[value], nil
	})
}

// memoryCases are generated cases of every op plus specs whose values
// take encoding/json's general path.
func memoryCases() []casefile.Memory {
	x := mustTensor(engine.Int64Type, []int{2, 3})
	var cases []casefile.Memory
	for _, op := range casefile.OpNames() {
		for i := 0; i < 300; i++ {
			cases = append(cases, gen.CaseOf(op).Example(gen.CaseSeed(7, op, i)))
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
	for _, spec := range odd {
		inputs := map[string]*engine.Tensor{"x": x}
		if spec["op"] == "gather_nd" {
			inputs = map[string]*engine.Tensor{"params": x, "indices": x}
		}
		cases = append(cases, casefile.Memory{Spec: spec, Inputs: inputs})
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

// TestMemoryCase checks that Memory.Case, which skips the JSON document,
// reads every case exactly as Parse reads the same case written as JSON.
// sameTensor reports whether two tensors are the same tensor or equal in
// dtype, shape and element bytes (arrays a subscript writes inline are
// parsed anew by each parse).
func sameTensor(a, b *engine.Tensor) bool {
	return a == b || (a != nil && b != nil && a.DType == b.DType && slices.Equal(a.Shape, b.Shape) && bytes.Equal(a.Bytes(), b.Bytes()))
}

func TestMemoryCase(t *testing.T) {
	ignoreRaw := cmpopts.IgnoreFields(casefile.Case{}, "Fields")
	for _, m := range memoryCases() {
		want, wantErr := viaJSON(m)
		got, gotErr := m.Case()
		if (wantErr == nil) != (gotErr == nil) || engine.KindOf(wantErr) != engine.KindOf(gotErr) {
			t.Fatalf("%s: error %v, want %v", m, gotErr, wantErr)
		}
		if wantErr != nil {
			if gotErr.Error() != wantErr.Error() {
				t.Errorf("%s: error %q, want %q", m, gotErr, wantErr)
			}
			continue
		}
		if diff := cmp.Diff(want, got, ignoreRaw, cmp.Comparer(sameTensor), cmp.Comparer(func(a, b *casefile.OpDef) bool { return a == b })); diff != "" {
			t.Errorf("%s: Memory.Case differs from Parse (-want +got):\n%s", m, diff)
		}
		// Fields holds the spec as JSON (a Memory has no "inputs" field).
		delete(want.Fields, "inputs")
		if diff := cmp.Diff(decodeFields(t, want.Fields), decodeFields(t, got.Fields)); diff != "" {
			t.Errorf("%s: Memory.Case has other Fields than Parse (-want +got):\n%s", m, diff)
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
	for _, m := range memoryCases() {
		line, err := m.AppendRequest(nil)
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		var got, want map[string]any
		if err := json.Unmarshal(line, &got); err != nil {
			t.Fatalf("%s: AppendRequest wrote invalid JSON %s: %v", m, line, err)
		}
		req := m.Request(0)
		delete(req, "id")
		data, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(data, &want); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: AppendRequest differs from Request (-want +got):\n%s", m, diff)
		}
	}
}
