package casefile_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/rawarray"
)

// TestAppendRawRequest checks that AppendRawRequest writes the request
// AppendRequest writes with each input as a raw array that reads back as
// the input.
func TestAppendRawRequest(t *testing.T) {
	for _, b := range builtCases() {
		c := casefile.New(b.fields, b.inputs)
		plain, err := c.AppendRequest(nil)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		raw, err := c.AppendRawRequest(nil)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		var got, want map[string]json.RawMessage
		if err := json.Unmarshal(raw, &got); err != nil {
			t.Fatalf("%s: AppendRawRequest wrote invalid JSON %s: %v", c, raw, err)
		}
		if err := json.Unmarshal(plain, &want); err != nil {
			t.Fatal(err)
		}
		var inputs map[string]json.RawMessage
		if err := json.Unmarshal(got["inputs"], &inputs); err != nil {
			t.Fatalf("%s: inputs %s: %v", c, got["inputs"], err)
		}
		delete(got, "inputs")
		delete(want, "inputs")
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: the fields differ from AppendRequest's (-want +got):\n%s", c, diff)
		}
		if len(inputs) != len(c.Inputs) {
			t.Errorf("%s: %d inputs, want %d", c, len(inputs), len(c.Inputs))
		}
		for name, in := range inputs {
			back, err := rawarray.Decode(in)
			if err != nil {
				t.Errorf("%s: input %s: %v", c, name, err)
				continue
			}
			if !sameTensor(c.Inputs[name], back) {
				t.Errorf("%s: input %s reads back as %v, want %v", c, name, back, c.Inputs[name])
			}
		}
	}
}

// TestAppendRawRequestAllocations checks that AppendRawRequest into a
// buffer of RequestSize bytes allocates nothing: fuzzing writes a request
// for every case.
func TestAppendRawRequestAllocations(t *testing.T) {
	x := mustTensor(engine.Int64Type, []int{2, 3})
	c := casefile.New(map[string]any{"op": "slice", "begin": []int64{0, 1}, "size": []int64{-1, 2}}, map[string]*engine.Tensor{"x": x})
	buf := make([]byte, 0, c.RequestSize())
	allocs := testing.AllocsPerRun(100, func() {
		if _, err := c.AppendRawRequest(buf); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 0 {
		t.Errorf("AppendRawRequest into a buffer of RequestSize: %v allocations, want none", allocs)
	}
}
