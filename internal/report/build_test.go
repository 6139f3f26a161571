package report

import (
	"bytes"
	"context"
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
)

// refusesNegativeSteps is the engine with one planted bug: it refuses
// every slice with a negative step (invalid_spec), as PyTorch does.
type refusesNegativeSteps struct{ impl.Engine }

func (refusesNegativeSteps) Name() string { return "broken" }

func (e refusesNegativeSteps) Run(ctx context.Context, c *casefile.Case) protocol.Answer {
	trace := new(engine.Trace)
	c.EvalUnder(engine.Rules{Trace: trace})
	if trace.Has(engine.RuleGetItemNegativeStep) {
		return protocol.Error(engine.InvalidSpec, "negative steps are not supported")
	}
	return e.Engine.Run(ctx, c)
}

// negativeStepCorpus has getitem cases on x = [0 1 2 3]: four with a
// negative step (two of them empty), seven without (three empty), and
// one whose expected output is wrong, which no rule explains.
func negativeStepCorpus() fstest.MapFS {
	fsys := fstest.MapFS{"c/x.npy": {Data: casefiletest.Int32NPY(0, 1, 2, 3)}, "c/empty.npy": {Data: casefiletest.Int32NPY()}}
	var lines []string
	for i, tc := range []struct {
		index string
		want  []int32 // nil: the empty result
	}{
		{"x[0:2:-1]", nil},
		{"x[1:3:-1]", nil},
		{"x[::-1]", []int32{3, 2, 1, 0}},
		{"x[::-2]", []int32{3, 1}},
		{"x[2:1]", nil},
		{"x[3:0]", nil},
		{"x[4:]", nil},
		{"x[1:3]", []int32{1, 2}},
		{"x[::2]", []int32{0, 2}},
		{"x[1:]", []int32{1, 2, 3}},
		{"x[:2]", []int32{0, 1}},
		{"x[:3]", []int32{0, 1, 9}}, // a wrong expectation
	} {
		out := "empty.npy"
		if tc.want != nil {
			out = fmt.Sprintf("out%d.npy", i)
			fsys["c/"+out] = &fstest.MapFile{Data: casefiletest.Int32NPY(tc.want...)}
		}
		lines = append(lines, fmt.Sprintf(`{"id":"c/%02d","op":"getitem","inputs":{"x":"x.npy"},"index":%q,"expect":{"output":%q,"source":"test"}}`, i, tc.index, out))
	}
	fsys["c/cases.jsonl"] = &fstest.MapFile{Data: []byte(strings.Join(lines, "\n") + "\n")}
	return fsys
}

// TestBuildCauses checks the report's divergence section: a library's
// failures are grouped by the rule that explains them, with the rule's
// statement and source and the smallest case; the failure no rule
// explains stays grouped by op and symptom; and a variant the run
// contradicts (empty-range-refused: the library passes the empty results
// without a negative step) is named nowhere in the report; the cause is
// confirmed by a neighbour of its smallest case.
func TestBuildCauses(t *testing.T) {
	r, err := Build(context.Background(), negativeStepCorpus(), "test", []impl.Impl{impl.Engine{}, refusesNegativeSteps{}})
	if err != nil {
		t.Fatal(err)
	}
	rule, _ := engine.RuleByID(engine.RuleGetItemNegativeStep)
	type brief struct {
		Impl, Rule, Statement, Source, Group, Smallest string
		Cases                                          int
	}
	var got []brief
	for _, c := range r.Causes {
		got = append(got, brief{c.Impl, c.Rule, c.Statement, c.Source, c.Group, c.Smallest.ID, c.Cases})
	}
	want := []brief{ // in the order of the implementations, the engine failing the wrong expectation too
		{"engine", "", "", "", "getitem/values", "c/11", 1},
		{"broken", string(rule.ID), rule.Statement, rule.Source, "getitem/error/invalid_spec", "c/00", 4},
		{"broken", "", "", "", "getitem/values", "c/11", 1},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("causes (-want +got):\n%s", diff)
	}
	// The planted bug's cause is confirmed: its smallest case fails, a
	// neighbour without a negative step passes.
	if conf := r.Causes[1].Confirmation; conf == nil || !conf.Confirmed || conf.Edit == "" || !strings.Contains(conf.Passing, "getitem x[") {
		t.Errorf("the cause of the planted bug is not confirmed by a neighbour: %+v", conf)
	}
	if r.Causes[0].Confirmation != nil || r.Causes[2].Confirmation != nil {
		t.Errorf("a group no rule explains has a confirmation")
	}
	var md, js bytes.Buffer
	if err := r.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{md.String(), js.String()} {
		if strings.Contains(out, "empty-range-refused") {
			t.Errorf("the report names the variant the run contradicts:\n%s", out)
		}
	}
	if !strings.Contains(md.String(), "| broken | `getitem/negative-step` | `getitem/error/invalid_spec` | 4 |") ||
		!strings.Contains(md.String(), "| broken | none: no rule explains these | `getitem/values` | 1 |") {
		t.Errorf("the Markdown does not list the causes:\n%s", md.String())
	}
	if !strings.Contains(md.String(), "Confirmed by a neighbour: getitem x\\[") {
		t.Errorf("the Markdown does not show the confirmation:\n%s", md.String())
	}
}
