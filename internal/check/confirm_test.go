package check

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/casefile/casefiletest"
	"github.com/conformsuite/conform/internal/cause"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/protocol"
	"github.com/conformsuite/conform/internal/signature"
)

// TestConfirmCauses checks that a cause is confirmed by a neighbour of
// its smallest failing case on an implementation with one planted bug
// (negative steps refused), that the text and JSON reports say so, and
// that a failure no rule explains gets no confirmation.
func TestConfirmCauses(t *testing.T) {
	fsys := causesCorpus()
	var im impl.Impl = refusesNegativeSteps{}
	s, err := Run(context.Background(), fsys, im, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FindCauses(fsys); err != nil {
		t.Fatal(err)
	}
	if err := s.ConfirmCauses(context.Background(), fsys, im); err != nil {
		t.Fatal(err)
	}
	if len(s.Confirmations) != 2 || s.Confirmations[0] == nil || s.Confirmations[1] != nil {
		t.Fatalf("confirmations %v: want one for the cause with a rule, none for the failure no rule explains", s.Confirmations)
	}
	conf := s.Confirmations[0]
	if !conf.Confirmed || conf.Failing != "getitem x[::-1]; x: <i4 (4,)" || conf.Passing == "" || conf.Edit == "" {
		t.Errorf("the negative-step cause is confirmed from x[::-1]: %+v", conf)
	}

	var text bytes.Buffer
	s.WriteText(&text, TextOptions{})
	lines := strings.Split(text.String(), "\n")
	want := "    confirmed: `getitem x[::-1]; x: <i4 (4,)` fails (error/invalid_spec), `" + conf.Passing + "` passes (" + conf.Edit + ")"
	if len(lines) < 4 || lines[3] != want {
		t.Errorf("the confirmation follows its cause's line and its rule's: want %q in\n%s", want, text.String())
	}

	var js bytes.Buffer
	if err := s.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Causes []struct {
			Rule      string `json:"rule"`
			Confirmed *bool  `json:"confirmed"`
			Failing   string `json:"failing"`
			Passing   string `json:"passing"`
			Edit      string `json:"edit"`
		} `json:"causes"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if c := doc.Causes[0]; c.Confirmed == nil || !*c.Confirmed || c.Failing != conf.Failing || c.Passing != conf.Passing || c.Edit != conf.Edit {
		t.Errorf("JSON: the cause's confirmation: %+v", c)
	}
	if c := doc.Causes[1]; c.Confirmed != nil {
		t.Errorf("JSON: a failure no rule explains has no confirmation: %+v", c)
	}
}

// TestConfirmationLine checks the line under a cause for each outcome
// of its confirmation.
func TestConfirmationLine(t *testing.T) {
	for _, tc := range []struct {
		why  string
		c    Confirmation
		want string
	}{
		{"confirmed: both cases and the edit", Confirmation{Confirmed: true, Reproduced: true, Failing: "f", Passing: "p", Edit: "e", Tried: 1},
			"confirmed: `f` fails (values), `p` passes (e)"},
		{"no neighbour passed: how many were tried", Confirmation{Reproduced: true, Failing: "f", Tried: 3},
			"not confirmed by neighbours (3 tried)"},
		{"the smallest case did not fail so again", Confirmation{Failing: "f"},
			"not confirmed by neighbours: `f` does not fail with values against the engine (0 tried)"},
		{"no case could be read", Confirmation{},
			"not confirmed by neighbours: no failing case of the cause can be read"},
	} {
		tc.c.Symptom = "values"
		if got := tc.c.Line(); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.why, got, tc.want)
		}
	}
}

// TestConfirmCauseOfSeveralSymptoms checks that a cause whose failures
// have several symptoms is confirmed with its smallest case's own
// symptom, not the cause's commonest one.
func TestConfirmCauseOfSeveralSymptoms(t *testing.T) {
	fsys := causesCorpus()
	s := &Summary{
		Results: []Result{{ID: "c/00", Status: Fail, Signature: signature.Signature{Op: "getitem", Symptom: signature.ErrorForOutput, Detail: "invalid_spec"}}},
		Causes: []cause.Cause{{Rule: engine.RuleGetItemNegativeStep, Op: "getitem", Symptom: "values",
			Symptoms: []string{"values", "error/invalid_spec"}, Cases: []string{"c/00"}}},
	}
	if err := s.ConfirmCauses(context.Background(), fsys, refusesNegativeSteps{}); err != nil {
		t.Fatal(err)
	}
	if conf := s.Confirmations[0]; !conf.Confirmed || conf.Symptom != "error/invalid_spec" {
		t.Errorf("confirmed with the case's symptom error/invalid_spec: %+v", conf)
	}
}

// refusesSizeMinusOne is the engine with one planted bug: slice refuses a
// size of -1, "to the end" (invalid_spec).
type refusesSizeMinusOne struct{ impl.Engine }

func (e refusesSizeMinusOne) Run(ctx context.Context, c *casefile.Case) protocol.Answer {
	if spec, ok := c.Spec.(engine.SliceSpec); ok && slices.Contains(spec.Size, -1) {
		return protocol.Error(engine.InvalidSpec, "size -1 is not supported")
	}
	return e.Engine.Run(ctx, c)
}

// TestNeighbourTakesBackVariant checks that a variant the failures of a
// confirmed cause name is taken back when a neighbour the variant changes
// passes: a library refusing slice size -1 refuses the empty slices of
// size -1 as empty-range-refused would, but passes the same slices of
// size 0, which that variant refuses too. No case of the corpus passes
// with an empty result, so only the neighbours can tell.
func TestNeighbourTakesBackVariant(t *testing.T) {
	fsys := fstest.MapFS{"c/x.npy": {Data: casefiletest.Int32NPY(0, 1, 2, 3)}, "c/empty.npy": {Data: casefiletest.Int32NPY()}}
	var lines []string
	for i, tc := range []struct {
		begin, size int
		want        []int32 // nil: the empty result
	}{
		{4, -1, nil}, // empty, refused by the library
		{4, -1, nil},
		{2, -1, []int32{2, 3}},
		{1, -1, []int32{1, 2, 3}},
		{1, 2, []int32{1, 2}},
		{0, 1, []int32{0}},
		{0, 4, []int32{0, 1, 2, 3}},
		{0, 2, []int32{0, 1}},
		{0, 3, []int32{0, 1, 2}},
		{1, 1, []int32{1}},
		{1, 3, []int32{1, 2, 3}},
		{2, 1, []int32{2}},
		{2, 2, []int32{2, 3}},
		{3, 1, []int32{3}},
	} {
		out := "empty.npy"
		if tc.want != nil {
			out = fmt.Sprintf("out%d.npy", i)
			fsys["c/"+out] = &fstest.MapFile{Data: casefiletest.Int32NPY(tc.want...)}
		}
		lines = append(lines, fmt.Sprintf(`{"id":"c/%02d","op":"slice","inputs":{"x":"x.npy"},"begin":[%d],"size":[%d],"expect":{"output":%q,"source":"test"}}`, i, tc.begin, tc.size, out))
	}
	fsys["c/cases.jsonl"] = &fstest.MapFile{Data: []byte(strings.Join(lines, "\n") + "\n")}
	var im impl.Impl = refusesSizeMinusOne{}
	s, err := Run(context.Background(), fsys, im, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.FindCauses(fsys); err != nil {
		t.Fatal(err)
	}
	variant := func(id string) string {
		for _, r := range s.Results {
			if r.ID == id {
				return r.Signature.Variant
			}
		}
		return "?"
	}
	if got := variant("c/00"); got != "empty-range-refused" {
		t.Fatalf("before confirmation the empty refused slice names %q, want empty-range-refused (the test's premise)", got)
	}
	if err := s.ConfirmCauses(context.Background(), fsys, im); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"c/00", "c/01"} {
		if got := variant(id); got != "" {
			t.Errorf("%s still names variant %q: its neighbour of size 0 passed", id, got)
		}
	}
}
