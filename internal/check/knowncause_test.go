package check

import (
	"context"
	"slices"
	"testing"

	"github.com/conformsuite/conform/engine"
)

// TestParseCause checks the known-failures syntax for causes.
func TestParseCause(t *testing.T) {
	for _, tt := range []struct {
		rule, entry string
		want        KnownCause
		ok          bool
	}{
		{"a rule and a symptom as check's --json spells a cause's", "cause:getitem/negative-step@error/invalid_spec",
			KnownCause{engine.RuleGetItemNegativeStep, "error/invalid_spec"}, true},
		{"the symptom may carry its op, as check's --json symptom does", "cause:getitem/negative-step@getitem/error/invalid_spec",
			KnownCause{engine.RuleGetItemNegativeStep, "error/invalid_spec"}, true},
		{"an output symptom", "cause:getitem/separated-advanced-first@shape/dims",
			KnownCause{engine.RuleGetItemSeparatedFirst, "shape/dims"}, true},
		{"a rule the table does not have is refused", "cause:getitem/no-such-rule@error/invalid_spec", KnownCause{}, false},
		{"a symptom that is not one is refused", "cause:getitem/negative-step@refused", KnownCause{}, false},
		{"no symptom is refused", "cause:getitem/negative-step", KnownCause{}, false},
		{"a signature is not a cause", "getitem/error-for-output/invalid_spec", KnownCause{}, false},
	} {
		got, err := ParseCause(tt.entry)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("%s: ParseCause(%q) = %v, %v; want %v (ok %v)", tt.rule, tt.entry, got, err, tt.want, tt.ok)
		}
		if tt.ok && got.String() != "cause:"+string(tt.want.Rule)+"@"+tt.want.Symptom {
			t.Errorf("%s: String() = %q", tt.rule, got.String())
		}
	}
}

// TestReadKnownFailuresCauses checks that a known-failures list may name
// causes, and that a cause entry that is not one is refused with its line.
func TestReadKnownFailuresCauses(t *testing.T) {
	for _, tt := range []struct {
		rule, list string
		ok         bool
	}{
		{"a cause entry with a reason is read", "cause:getitem/negative-step@error/invalid_spec # torch refuses them\n", true},
		{"an error-class symptom is one", "cause:take/negative-index@error-class/RuntimeError-for-IndexError\n", true},
		{"a cause entry naming no rule is refused", "cause:getitem/no-such-rule@error/invalid_spec\n", false},
		{"a cause entry without a symptom is refused", "cause:getitem/negative-step # why\n", false},
	} {
		_, err := ReadKnownFailures([]byte(tt.list))
		if (err == nil) != tt.ok {
			t.Errorf("%s: %v", tt.rule, err)
		}
	}
}

// TestApplyKnownCauses checks that a cause entry makes known exactly the
// failures whose cause conform found is its rule with its symptom, that
// a listed cause no failure has is stale and fails the run, and that the
// other entries are left to ApplyKnownFailures.
func TestApplyKnownCauses(t *testing.T) {
	for _, tt := range []struct {
		rule           string
		known          map[string]string
		failed, xfail  int
		stale          []string
		ok             bool
		unknownEntries int
	}{
		{"the cause's rule and symptom make its four failures known; the failure no rule explains stays",
			map[string]string{"cause:getitem/negative-step@error/invalid_spec": "refused"}, 1, 4, nil, false, 0},
		{"the symptom may carry the op",
			map[string]string{"cause:getitem/negative-step@getitem/error/invalid_spec": "refused"}, 1, 4, nil, false, 0},
		{"another symptom of the rule is not this cause: stale, and the failures stay",
			map[string]string{"cause:getitem/negative-step@shape/dims": "no"}, 5, 0, []string{"cause:getitem/negative-step@shape/dims"}, false, 0},
		{"with the other failure known by ID, every failure is known and the run passes",
			map[string]string{"cause:getitem/negative-step@error/invalid_spec": "refused", "c/10": "wrong expectation"}, 0, 5, nil, true, 0},
		{"a cause no failure has is stale and fails the run",
			map[string]string{"cause:getitem/negative-step@error/invalid_spec": "refused", "c/10": "x",
				"cause:getitem/step-over-1@error/invalid_spec": "fixed since"}, 0, 5, []string{"cause:getitem/step-over-1@error/invalid_spec"}, false, 0},
	} {
		fsys := causesCorpus()
		s, err := Run(context.Background(), fsys, refusesNegativeSteps{}, Options{KnownFailures: tt.known})
		if err != nil {
			t.Fatal(err)
		}
		if err := s.FindCauses(fsys); err != nil {
			t.Fatal(err)
		}
		s.ApplyKnownCauses(tt.known, false)
		xfail := 0
		for _, r := range s.Results {
			if r.Status == XFail {
				xfail++
			}
		}
		if s.Failed != tt.failed || xfail != tt.xfail || s.KnownFailures != tt.xfail || s.OK() != tt.ok ||
			len(s.UnknownIDs) != tt.unknownEntries || !slices.Equal(s.StaleCauses, tt.stale) {
			t.Errorf("%s: %d failed, %d xfail (%d known), stale %v, unknown %v, ok %v; want %d, %d, %v, ok %v",
				tt.rule, s.Failed, xfail, s.KnownFailures, s.StaleCauses, s.UnknownIDs, s.OK(), tt.failed, tt.xfail, tt.stale, tt.ok)
		}
	}
}
