package check

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/casefile/casefiletest"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/protocol"
	"github.com/conformsuite/conform/internal/signature"
)

// refusesNegativeSteps is the engine with one planted bug: it refuses
// every slice with a negative step (invalid_spec), as PyTorch does.
type refusesNegativeSteps struct{ impl.Engine }

func (e refusesNegativeSteps) Run(ctx context.Context, c *casefile.Case) protocol.Answer {
	trace := new(engine.Trace)
	c.EvalUnder(engine.Rules{Trace: trace})
	if trace.Has(engine.RuleGetItemNegativeStep) {
		return protocol.Error(engine.InvalidSpec, "negative steps are not supported")
	}
	return e.Engine.Run(ctx, c)
}

// causesCorpus has cases of getitem on x = [0 1 2 3]: four with a
// negative step, six without, and one whose expected output is wrong.
func causesCorpus() fstest.MapFS {
	fsys := fstest.MapFS{"c/x.npy": {Data: casefiletest.Int32NPY(0, 1, 2, 3)}}
	var lines []string
	for i, tc := range []struct {
		index string
		want  []int32
	}{
		{"x[::-1]", []int32{3, 2, 1, 0}},
		{"x[::-2]", []int32{3, 1}},
		{"x[2::-1]", []int32{2, 1, 0}},
		{"x[:0:-1]", []int32{3, 2, 1}},
		{"x[::1]", []int32{0, 1, 2, 3}},
		{"x[1:3]", []int32{1, 2}},
		{"x[::2]", []int32{0, 2}},
		{"x[1:]", []int32{1, 2, 3}},
		{"x[:2]", []int32{0, 1}},
		{"x[-2:]", []int32{2, 3}},
		{"x[:3]", []int32{0, 1, 9}}, // a wrong expectation: a failure no rule explains
	} {
		out := fmt.Sprintf("out%d.npy", i)
		fsys["c/"+out] = &fstest.MapFile{Data: casefiletest.Int32NPY(tc.want...)}
		lines = append(lines, fmt.Sprintf(`{"id":"c/%02d","op":"getitem","inputs":{"x":"x.npy"},"index":%q,"expect":{"output":%q,"source":"test"}}`, i, tc.index, out))
	}
	fsys["c/cases.jsonl"] = &fstest.MapFile{Data: []byte(strings.Join(lines, "\n") + "\n")}
	return fsys
}

// TestFindCauses checks that the failures of a run are grouped by the
// rule that explains them, that the failure no rule explains stays
// grouped by its symptom, and that text, JSON and JUnit reports name the
// causes.
func TestFindCauses(t *testing.T) {
	fsys := causesCorpus()
	s, err := Run(context.Background(), fsys, refusesNegativeSteps{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FindCauses(fsys); err != nil {
		t.Fatal(err)
	}
	type found struct {
		Rule  engine.RuleID
		Group string
		Cases []string
	}
	var got []found
	for _, c := range s.Causes {
		got = append(got, found{c.Rule, c.Group(), c.Cases})
	}
	want := []found{
		{engine.RuleGetItemNegativeStep, "getitem/error/invalid_spec", []string{"c/00", "c/01", "c/02", "c/03"}},
		{"", "getitem/values", []string{"c/10"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("causes (-want +got):\n%s", diff)
	}

	var text bytes.Buffer
	s.WriteText(&text, TextOptions{})
	lines := strings.Split(text.String(), "\n")
	wantText := []string{
		"failures by cause (1 causes, 1 groups that no rule explains; -v lists every failing case):",
		"  cause getitem/negative-step — getitem/error/invalid_spec: 4 failing cases; 4 of 4 cases exercising the rule fail so, 0 of 7 without (first: c/00)",
		"    rule: a negative step walks the dimension backwards (NumPy 1.24 user guide, Indexing on ndarrays, Slicing and striding)",
		"  symptom getitem/values: 1 failing case that no rule explains (first: c/10)",
	}
	if diff := cmp.Diff(wantText, lines[:4]); diff != "" {
		t.Errorf("the causes come first (-want +got):\n%s", diff)
	}
	if strings.Contains(text.String(), "fail c/") {
		t.Errorf("without -v no failing case is listed:\n%s", text.String())
	}
	text.Reset()
	s.WriteText(&text, TextOptions{Verbose: true})
	if !strings.Contains(text.String(), "fail c/00") || !strings.Contains(text.String(), " — cause getitem/negative-step\n") {
		t.Errorf("with -v every failing case is listed with its cause:\n%s", text.String())
	}

	var js bytes.Buffer
	if err := s.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Causes []struct {
			Rule, Statement, Source string
			Cases                   int
		} `json:"causes"`
		Results []struct {
			ID      string  `json:"id"`
			Cause   *string `json:"cause"`
			Symptom string  `json:"symptom"`
		} `json:"results"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Causes) != 2 || doc.Causes[0].Rule != "getitem/negative-step" || doc.Causes[0].Cases != 4 ||
		doc.Causes[0].Statement == "" || doc.Causes[0].Source == "" || doc.Causes[1].Rule != "" || doc.Causes[1].Statement != "" {
		t.Errorf("JSON: the causes, a rule's with its statement and source: %+v", doc.Causes)
	}
	causes := map[string]string{}
	for _, r := range doc.Results {
		if r.Cause != nil {
			causes[r.ID] = *r.Cause + " " + r.Symptom
		}
	}
	wantJSON := map[string]string{
		"c/00": "getitem/negative-step getitem/error/invalid_spec", "c/01": "getitem/negative-step getitem/error/invalid_spec",
		"c/02": "getitem/negative-step getitem/error/invalid_spec", "c/03": "getitem/negative-step getitem/error/invalid_spec",
		"c/10": " getitem/values",
	}
	if diff := cmp.Diff(wantJSON, causes); diff != "" {
		t.Errorf("JSON: each failing case names its cause, \"\" where no rule explains it, and no passing case does (-want +got):\n%s", diff)
	}

	var junit bytes.Buffer
	if err := s.WriteJUnit(&junit); err != nil {
		t.Fatal(err)
	}
	var suite struct {
		Cases []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Type string `xml:"type,attr"`
			} `xml:"failure"`
		} `xml:"testcase"`
	}
	if err := xml.Unmarshal(junit.Bytes(), &suite); err != nil {
		t.Fatal(err)
	}
	types := map[string]string{}
	for _, c := range suite.Cases {
		if c.Failure != nil {
			types[c.Name] = c.Failure.Type
		}
	}
	wantTypes := map[string]string{"c/00": "getitem/negative-step", "c/01": "getitem/negative-step", "c/02": "getitem/negative-step", "c/03": "getitem/negative-step", "c/10": ""}
	if diff := cmp.Diff(wantTypes, types); diff != "" {
		t.Errorf("JUnit: a failure's type is its cause's rule (-want +got):\n%s", diff)
	}
}

// TestFindCausesNothingFailed checks that a run without failures
// evaluates nothing and finds no cause, and that its text is unchanged.
func TestFindCausesNothingFailed(t *testing.T) {
	fsys := causesCorpus()
	s, err := Run(context.Background(), fsys, impl.Engine{}, Options{KnownFailures: map[string]string{"c/10": "wrong on purpose"}})
	if err != nil {
		t.Fatal(err)
	}
	var before bytes.Buffer
	s.WriteText(&before, TextOptions{})
	obs, err := Observe(fsys, s.Results)
	if err != nil || obs != nil {
		t.Errorf("Observe = %v, %v; want nothing observed", obs, err)
	}
	if err := s.FindCauses(fsys); err != nil || s.Causes != nil {
		t.Errorf("FindCauses: %v, causes %v; want none", err, s.Causes)
	}
	var after bytes.Buffer
	s.WriteText(&after, TextOptions{})
	if before.String() != after.String() {
		t.Errorf("the text changed:\n%s\nwant\n%s", after.String(), before.String())
	}
}

// TestObserve checks what is observed of each case: its op, the rules
// its engine evaluation exercises (the error's rule included), whether
// it failed and the symptom causes group by.
func TestObserve(t *testing.T) {
	fsys := fstest.MapFS{
		"c/x.npy":   {Data: casefiletest.Int32NPY(0, 1, 2, 3)},
		"c/rev.npy": {Data: casefiletest.Int32NPY(3, 2, 1, 0)},
		"c/cases.jsonl": {Data: []byte(`{"id":"c/rev","op":"getitem","inputs":{"x":"x.npy"},"index":"x[::-1]","expect":{"output":"rev.npy","source":"test"}}
{"id":"c/oob","op":"getitem","inputs":{"x":"x.npy"},"index":"x[9]","expect":{"error":"out_of_range","source":"test"}}
{"id":"c/take","op":"take","inputs":{"x":"x.npy","indices":"x.npy"},"expect":{"output":"x.npy","source":"test"}}
{"id":"c/skip","op":"getitem","inputs":{"x":"x.npy"},"index":"x[::-1]"}
{"id":"c/noinput","op":"getitem","inputs":{"x":"missing.npy"},"index":"x[0]","expect":{"error":"out_of_range","source":"test"}}
`)},
	}
	refused := signature.Signature{Op: "getitem", Symptom: signature.ErrorKind, Detail: "invalid_spec-for-out_of_range"}
	results := []Result{
		{ID: "c/rev", Status: Pass},
		{ID: "c/oob", Status: Fail, Signature: refused},
		{ID: "c/take", Status: Pass},
		{ID: "c/skip", Status: Skip},
		// The engine answers bad_input for a case whose input is missing:
		// a fault of the corpus, listed on its own, not a cause's case.
		{ID: "c/noinput", Status: Fail, Signature: signature.Signature{Op: "getitem", Symptom: signature.ErrorKind, Detail: "bad_input-for-out_of_range"}},
	}
	obs, err := Observe(fsys, results)
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		ID      string
		Failed  bool
		Symptom string
		Rules   []engine.RuleID
	}
	var got []seen
	for _, o := range obs {
		if o.Op != "getitem" {
			t.Errorf("%s of op %s observed: only the ops with a failure are", o.ID, o.Op)
		}
		got = append(got, seen{o.ID, o.Failed, o.Symptom, o.Rules})
	}
	want := []seen{
		// The error's rule is exercised; the evaluation stops there.
		{"c/oob", true, "error/invalid_spec", []engine.RuleID{engine.RuleGetItemIndexOutOfBounds}},
		{"c/rev", false, "", []engine.RuleID{engine.RuleGetItemNegativeStep, engine.RuleGetItemNegativeStepNoStart, engine.RuleGetItemNegativeStepNoStop}},
	}
	opts := cmp.Transformer("set", func(rs []engine.RuleID) map[engine.RuleID]bool {
		m := map[engine.RuleID]bool{}
		for _, r := range rs {
			m[r] = true
		}
		return m
	})
	if diff := cmp.Diff(want, got, opts); diff != "" {
		t.Errorf("observations (-want +got):\n%s", diff)
	}
}

func TestCauseSymptom(t *testing.T) {
	tests := []struct {
		rule string
		sig  signature.Signature
		want string
	}{
		{"an error for an output is the error answered", signature.Signature{Op: "take", Symptom: signature.ErrorForOutput, Detail: "invalid_spec"}, "error/invalid_spec"},
		{"another error kind is the error answered too", signature.Signature{Op: "take", Symptom: signature.ErrorKind, Detail: "invalid_spec-for-out_of_range"}, "error/invalid_spec"},
		{"an output for an error keeps the kind expected", signature.Signature{Op: "take", Symptom: signature.OutputForError, Detail: "out_of_range"}, "output-for-error/out_of_range"},
		{"a symptom without detail is the symptom", signature.Signature{Op: "take", Symptom: signature.Values}, "values"},
		{"variant and class do not split a group", signature.Signature{Op: "take", Symptom: signature.Shape, Detail: "rank", Variant: "v", Class: "k"}, "shape/rank"},
	}
	for _, tt := range tests {
		if got := CauseSymptom(tt.sig); got != tt.want {
			t.Errorf("%s: CauseSymptom(%v) = %q, want %q", tt.rule, tt.sig, got, tt.want)
		}
	}
}

// TestContradictedVariantTakenBack checks that a variant the run
// contradicts is taken back from the failures it names: a library that
// refuses negative steps fails an empty result with a negative step as
// empty-range-refused would, but passes the other empty results, which
// that variant would refuse; the variant of its own rule stays.
func TestContradictedVariantTakenBack(t *testing.T) {
	fsys := fstest.MapFS{"c/x.npy": {Data: casefiletest.Int32NPY(0, 1, 2, 3)}, "c/empty.npy": {Data: casefiletest.Int32NPY()}}
	var lines []string
	for i, tc := range []struct {
		index string
		want  []int32 // nil: the empty result
	}{
		{"x[0:2:-1]", nil}, // negative step, empty: refused by the library
		{"x[1:3:-1]", nil}, // negative step, empty: refused by the library
		{"x[::-1]", []int32{3, 2, 1, 0}},
		{"x[::-2]", []int32{3, 1}},
		{"x[2:1]", nil}, // empty without a negative step: passed
		{"x[3:0]", nil},
		{"x[4:]", nil},
		{"x[1:3]", []int32{1, 2}},
	} {
		out := "empty.npy"
		if tc.want != nil {
			out = fmt.Sprintf("out%d.npy", i)
			fsys["c/"+out] = &fstest.MapFile{Data: casefiletest.Int32NPY(tc.want...)}
		}
		lines = append(lines, fmt.Sprintf(`{"id":"c/%02d","op":"getitem","inputs":{"x":"x.npy"},"index":%q,"expect":{"output":%q,"source":"test"}}`, i, tc.index, out))
	}
	fsys["c/cases.jsonl"] = &fstest.MapFile{Data: []byte(strings.Join(lines, "\n") + "\n")}
	s, err := Run(context.Background(), fsys, refusesNegativeSteps{}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	variants := func() map[string]string {
		got := map[string]string{}
		for _, r := range s.Results {
			if r.Status == Fail {
				got[r.ID] = r.Signature.Variant
			}
		}
		return got
	}
	before := variants()
	if before["c/00"] != "empty-range-refused" {
		t.Fatalf("before: the empty negative-step failure is named %q, want empty-range-refused (the test's premise)", before["c/00"])
	}
	if err := s.FindCauses(fsys); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"c/00": "", "c/01": "", // empty-range-refused taken back: three empty results passed
		"c/02": "negative-step-refused", "c/03": "negative-step-refused", // no case of the op contradicts it
	}
	if diff := cmp.Diff(want, variants()); diff != "" {
		t.Errorf("variants after FindCauses (-want +got):\n%s", diff)
	}
}
