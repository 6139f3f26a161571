package check

import (
	"bytes"
	"encoding/json"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/internal/casefile/casefiletest"
)

// TestJSONDescribesFailures checks that the JSON report gives a failed
// case its op, spec fields, inputs' dtypes and shapes and the conform
// show command that reproduces it, and every case with a source what its
// expected answer stands for.
func TestJSONDescribesFailures(t *testing.T) {
	fsys := testCorpus()
	fsys["c/tf.json"] = &fstest.MapFile{Data: []byte(`{"op":"gather","inputs":{"params":"x.npy","indices":"x.npy"},"axis":0,"expect":{"output":"wrong.npy","source":"numpy 1.24.2"}}`)}
	s, err := run(fsys)
	if err != nil {
		t.Fatal(err)
	}
	s.CasesDir = "my cases"
	var j bytes.Buffer
	if err := s.WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	type result struct {
		ID       string
		Op       string
		Spec     map[string]json.RawMessage
		Inputs   []Input
		Show     string
		Source   string
		Expected string
	}
	var doc struct{ Results []result }
	if err := json.Unmarshal(j.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	got := map[string]result{}
	for _, r := range doc.Results {
		got[r.ID] = r
	}
	want := map[string]result{
		// A failure: its op, spec, inputs and the command, the directory quoted for a shell.
		"c/fail": {ID: "c/fail", Op: "getitem", Spec: map[string]json.RawMessage{"index": json.RawMessage(`"x[::-1]"`)},
			Inputs: []Input{{Name: "x", DType: "<i4", Shape: []int{4}}}, Show: "conform show c/fail --cases 'my cases'",
			Source: "test", Expected: "test"},
		// A TF op's failure: its expected answer names the reference and the oracle.
		"c/tf": {ID: "c/tf", Op: "gather", Spec: map[string]json.RawMessage{"axis": json.RawMessage(`0`)},
			Inputs: []Input{{Name: "indices", DType: "<i4", Shape: []int{4}}, {Name: "params", DType: "<i4", Shape: []int{4}}},
			Show:   "conform show c/tf --cases 'my cases'", Source: "numpy 1.24.2", Expected: "tf.gather (TF semantics), computed with numpy 1.24.2"},
		// A pass: its source only.
		"c/pass": {ID: "c/pass", Source: "test", Expected: "test"},
		"c/oob":  {ID: "c/oob", Source: "test", Expected: "test"},
		// A skip: nothing.
		"c/skip": {ID: "c/skip"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JSON results (-want +got):\n%s", diff)
	}
}

// TestShowCommand checks how the conform show command quotes its words.
func TestShowCommand(t *testing.T) {
	tests := []struct{ id, dir, want string }{
		// The embedded corpus: no --cases.
		{"getitem/00018", "", "conform show getitem/00018"},
		// A plain directory as it is.
		{"take/1", "/tmp/c", "conform show take/1 --cases /tmp/c"},
		// A quote inside a word is closed, escaped and reopened.
		{"it's", "a b", `conform show 'it'\''s' --cases 'a b'`},
	}
	for _, tt := range tests {
		if got := ShowCommand(tt.id, tt.dir); got != tt.want {
			t.Errorf("ShowCommand(%q, %q) = %q, want %q", tt.id, tt.dir, got, tt.want)
		}
	}
}

// TestTextNamesReference checks that check's text says what a TF op's
// expected answer stands for and which oracle computed it.
func TestTextNamesReference(t *testing.T) {
	fsys := fstest.MapFS{
		"c/x.npy":     {Data: casefiletest.Int32NPY(0, 1, 2, 3)},
		"c/wrong.npy": {Data: casefiletest.Int32NPY(3, 2, 9, 0)},
		"c/tf.json":   {Data: []byte(`{"op":"gather","inputs":{"params":"x.npy","indices":"x.npy"},"axis":0,"expect":{"output":"wrong.npy","source":"numpy 1.24.2"}}`)},
	}
	s, err := run(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	s.WriteText(&b, TextOptions{})
	if want := "(expected: tf.gather (TF semantics), computed with numpy 1.24.2)"; !bytes.Contains(b.Bytes(), []byte(want)) {
		t.Errorf("the text does not say %q:\n%s", want, b.Bytes())
	}
}
