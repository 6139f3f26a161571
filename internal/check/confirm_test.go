package check

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/cause"
	"github.com/conformsuite/conform/internal/impl"
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
	if len(lines) < 3 || lines[2] != want {
		t.Errorf("the confirmation follows its cause's line: want %q in\n%s", want, text.String())
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
