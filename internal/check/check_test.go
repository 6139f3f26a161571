package check

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile/casefiletest"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/npy"
)

// testCorpus has one passing, one failing, one skipped and one
// error-expecting case.
func testCorpus() fstest.MapFS {
	return fstest.MapFS{
		"c/x.npy":        {Data: casefiletest.Int32NPY(0, 1, 2, 3)},
		"c/rev.npy":      {Data: casefiletest.Int32NPY(3, 2, 1, 0)},
		"c/wrong.npy":    {Data: casefiletest.Int32NPY(3, 2, 9, 0)},
		"c/pass.json":    {Data: []byte(`{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[::-1]","expect":{"output":"rev.npy","source":"test"}}`)},
		"c/fail.json":    {Data: []byte(`{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[::-1]","expect":{"output":"wrong.npy","source":"test"}}`)},
		"c/skip.json":    {Data: []byte(`{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[::-1]"}`)},
		"c/errors.jsonl": {Data: []byte(`{"id":"c/oob","op":"getitem","inputs":{"x":"x.npy"},"index":"x[9]","expect":{"error":"out_of_range","source":"test"}}` + "\n")},
	}
}

func run(fsys fstest.MapFS) (*Summary, error) {
	return Run(context.Background(), fsys, impl.Engine{}, Options{})
}

func TestRun(t *testing.T) {
	s, err := run(testCorpus())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Status{}
	for _, r := range s.Results {
		got[r.ID] = r.Status
	}
	want := map[string]Status{"c/pass": Pass, "c/fail": Fail, "c/skip": Skip, "c/oob": Pass}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("statuses (-want +got):\n%s", diff)
	}
	if s.Line() != "2 passed, 1 failed, 1 skipped" || s.OK() {
		t.Errorf("summary %q, OK %v", s.Line(), s.OK())
	}
	for _, r := range s.Results {
		if r.ID == "c/fail" && (!strings.Contains(r.Detail, "element [2]") || r.Source != "test") {
			t.Errorf("the failure should name the element and the source: %+v", r)
		}
	}
}

func TestRunVerifiesManifest(t *testing.T) {
	fsys := testCorpus()
	sums := map[string]string{}
	for name, f := range fsys {
		sums[strings.TrimPrefix(name, "c/")] = corpus.Sum(f.Data)
	}
	fsys["c/MANIFEST"] = &fstest.MapFile{Data: corpus.FormatManifest(sums)}
	fsys["c/rev.npy"] = &fstest.MapFile{Data: casefiletest.Int32NPY(3, 2, 1, 1)}
	s, err := run(fsys)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Integrity) != 1 || s.Integrity[0].Path != "c/rev.npy" || s.OK() {
		t.Fatalf("integrity problems %v, OK %v", s.Integrity, s.OK())
	}
}

func TestReports(t *testing.T) {
	s, err := run(testCorpus())
	if err != nil {
		t.Fatal(err)
	}
	var j bytes.Buffer
	if err := s.WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Passed, Failed, Skipped int
		Results                 []struct{ ID, Status string }
	}
	if err := json.Unmarshal(j.Bytes(), &doc); err != nil || doc.Passed != 2 || doc.Failed != 1 || doc.Skipped != 1 || len(doc.Results) != 4 {
		t.Errorf("JSON report %s: %v", j.Bytes(), err)
	}
	var x bytes.Buffer
	if err := s.WriteJUnit(&x); err != nil {
		t.Fatal(err)
	}
	var suite struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Cases    []struct {
			Name    string    `xml:"name,attr"`
			Failure *struct{} `xml:"failure"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(x.Bytes(), &suite); err != nil || suite.Tests != 4 || suite.Failures != 1 || suite.Skipped != 1 {
		t.Fatalf("JUnit report %s: %v", x.Bytes(), err)
	}
	for _, c := range suite.Cases {
		if (c.Failure != nil) != (c.Name == "c/fail") {
			t.Errorf("testcase %s failure %v", c.Name, c.Failure != nil)
		}
	}
}

// TestReportsCountUnlistedIntegrityProblems checks that integrity
// problems beyond those listed are counted in both reports: one JUnit
// testcase for them all, and the total in the JSON report.
func TestReportsCountUnlistedIntegrityProblems(t *testing.T) {
	s := &Summary{Integrity: []corpus.ManifestProblem{{Path: "c/a", What: "missing"}}, IntegrityTotal: 5}
	if n, _ := s.MoreIntegrity(); n != 4 || s.OK() {
		t.Errorf("MoreIntegrity %d, OK %v", n, s.OK())
	}
	var j bytes.Buffer
	if err := s.WriteJSON(&j); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Integrity      []string
		IntegrityTotal int `json:"integrity_total"`
	}
	if err := json.Unmarshal(j.Bytes(), &doc); err != nil || len(doc.Integrity) != 1 || doc.IntegrityTotal != 5 {
		t.Errorf("JSON report %s: %v", j.Bytes(), err)
	}
	var x bytes.Buffer
	if err := s.WriteJUnit(&x); err != nil {
		t.Fatal(err)
	}
	var suite struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name string `xml:"name,attr"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(x.Bytes(), &suite); err != nil || suite.Tests != 2 || suite.Failures != 2 || len(suite.Cases) != 2 || suite.Cases[1].Name != "more-integrity-problems" {
		t.Errorf("JUnit report %s: %v", x.Bytes(), err)
	}
}

func corpusEntry(line string) corpus.Entry {
	return corpus.Entry{ID: "x", Dir: "c", JSON: []byte(line)}
}

func encode(t *engine.Tensor) []byte { return npy.Encode(t) }

// TestReadKnownFailures checks the known-failures format, one row per
// rule.
func TestReadKnownFailures(t *testing.T) {
	tests := []struct {
		rule string
		text string
		want map[string]string // nil: an error
	}{
		{"an ID with a reason after ' #'", "slice/00042 # stops short\n", map[string]string{"slice/00042": "stops short"}},
		{"an ID without a reason", "slice/00042\n", map[string]string{"slice/00042": "no reason given"}},
		{"a signature's class is part of the entry", "slice/values#tfjs-slice-rank0 # TF.js refuses\n", map[string]string{"slice/values#tfjs-slice-rank0": "TF.js refuses"}},
		{"comments and blank lines are ignored", "# a list\n\n\tslice/values\t# tabs\n", map[string]string{"slice/values": "tabs"}},
		{"two words without '#' are an error", "slice/00042 stops short\n", nil},
	}
	for _, tt := range tests {
		got, err := ReadKnownFailures([]byte(tt.text))
		switch {
		case tt.want == nil && err == nil:
			t.Errorf("%s: no error, got %v", tt.rule, got)
		case tt.want != nil && err != nil:
			t.Errorf("%s: %v", tt.rule, err)
		case tt.want != nil:
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.rule, diff)
			}
		}
	}
}
