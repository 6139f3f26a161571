package golden

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sort"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/corpus"
)

// numpyOps are the ops NumPy defines, whose golden errors record the
// exception class NumPy raised.
var numpyOps = []string{"getitem", "take", "take_along_axis"}

// knownClassDisagreements lists the engine rules whose RefError names
// another class than NumPy raised on the golden cases, by "rule: recorded
// class", with the reason. It is empty: a new entry is a defect of the
// rule table to fix there.
var knownClassDisagreements = map[string]string{}

// TestGoldenErrorClassesMatchRuleTable checks that every golden error of
// a NumPy-defined op records the exception class NumPy raised, and that
// the engine's rule for the same case (engine.RuleOf, then Rule.RefClass)
// names that class: the rule table and the observed reference agree.
// Errors that are conform's own (no class recorded, and a rule naming
// none) are counted apart.
func TestGoldenErrorClassesMatchRuleTable(t *testing.T) {
	fsys := corpus.Open(os.DirFS("../../cases/golden"))
	entries, err := corpus.Entries(fsys)
	if err != nil {
		t.Fatal(err)
	}
	typed := 0
	disagree := map[string][]string{} // "rule: recorded" -> case IDs
	for _, e := range entries {
		if !slices.Contains(numpyOps, e.Op()) {
			continue
		}
		var doc struct {
			Expect *check.Expectation `json:"expect"`
		}
		if err := json.Unmarshal(e.JSON, &doc); err != nil {
			t.Fatalf("%s: %v", e.ID, err)
		}
		if doc.Expect == nil || doc.Expect.Error == "" {
			continue
		}
		c, err := check.LoadCase(fsys, e)
		if err == nil {
			_, err = c.Eval()
		}
		rule, ok := engine.RuleByID(engine.RuleOf(err))
		if !ok {
			// A case the loader rejects (a field missing): conform's
			// own error, of no NumPy class.
			if doc.Expect.Type != "" {
				t.Errorf("%s: NumPy raised %s, the engine's error %v names no rule", e.ID, doc.Expect.Type, err)
			}
			continue
		}
		want := rule.RefClass()
		if doc.Expect.Type == "" {
			if want != "" && rule.Kind != engine.BadInput {
				t.Errorf("%s: no exception class recorded, rule %s names %s", e.ID, rule.ID, want)
			}
			continue
		}
		typed++
		if want != doc.Expect.Type {
			key := fmt.Sprintf("%s: %s", rule.ID, doc.Expect.Type)
			disagree[key] = append(disagree[key], e.ID)
		}
	}
	t.Logf("%d golden errors of NumPy-defined ops compared by class, %d disagreements", typed, len(disagree))
	if typed == 0 {
		t.Fatal("no golden error of a NumPy-defined op records its exception class")
	}
	var keys []string
	for k := range disagree {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if _, known := knownClassDisagreements[k]; known {
			continue
		}
		ids := disagree[k]
		t.Errorf("rule %s recorded by NumPy but the rule table names another class (%d cases, e.g. %s)", k, len(ids), ids[0])
	}
	for k := range knownClassDisagreements {
		if disagree[k] == nil {
			t.Errorf("known disagreement %q no longer occurs: remove it", k)
		}
	}
}
