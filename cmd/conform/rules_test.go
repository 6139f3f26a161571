package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/conformsuite/conform/cases"
	"github.com/conformsuite/conform/engine"
)

// rulesDoc is the document generated from the table of rules.
const rulesDoc = "../../docs/rules.md"

// embeddedCoverage is the rule coverage of the embedded corpus, computed
// once for the tests that need it.
var embeddedCoverage = sync.OnceValues(func() (*coverage, error) { return ruleCoverage(cases.FS) })

// TestRulesDoc checks that docs/rules.md holds the tables generated from
// engine.RuleTable and the embedded corpus.
func TestRulesDoc(t *testing.T) {
	cov, err := embeddedCoverage()
	if err != nil {
		t.Fatal(err)
	}
	checkDocTable(t, rulesDoc, "rules-per-op", rulesPerOpTable())
	checkDocTable(t, rulesDoc, "rules", rulesDocTable(cov))
}

// TestCorpusErrorsNameRules checks, over the embedded corpus, that every
// error the engine answers a case with names a rule of the table, of
// the error's kind and of the case's op: the rule that decided the case.
func TestCorpusErrorsNameRules(t *testing.T) {
	errs := 0
	err := walkCorpus(cases.FS, func(a caseAnswer) {
		if a.unreadable || a.readErr != nil || a.err == nil {
			return
		}
		errs++
		id := engine.RuleOf(a.err)
		r, ok := engine.RuleByID(id)
		switch {
		case id == "":
			t.Errorf("case %s: engine error %v names no rule", a.id, a.err)
		case !ok:
			t.Errorf("case %s: engine error %v names rule %q, which is not in engine.RuleTable", a.id, a.err, id)
		case r.Kind != engine.KindOf(a.err):
			t.Errorf("case %s: error of kind %s raised by rule %s of kind %s", a.id, engine.KindOf(a.err), id, r.Kind)
		case !slices.Contains(r.Ops, a.op):
			t.Errorf("case %s of op %s: error raised by rule %s of ops %v", a.id, a.op, id, r.Ops)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if errs < 1000 {
		t.Errorf("only %d corpus cases are answered by an engine error", errs)
	}
}

// TestRulesCommand checks conform rules: one line per rule with its
// count, the gaps, the JSON form holding every rule, and a usage error for
// an argument.
func TestRulesCommand(t *testing.T) {
	var out, errout bytes.Buffer
	if code := run([]string{"rules"}, &out, &errout); code != exitOK {
		t.Fatalf("conform rules: exit %d, stderr %s", code, errout.String())
	}
	text := out.String()
	for _, want := range []string{"RULE", "getitem/zero-step", "coverage gaps:"} {
		if !strings.Contains(text, want) {
			t.Errorf("conform rules prints no %q", want)
		}
	}
	if got, want := strings.Count(text, "\n"), len(engine.RuleTable); got < want {
		t.Errorf("conform rules prints %d lines for %d rules", got, want)
	}

	out.Reset()
	if code := run([]string{"rules", "--json"}, &out, &errout); code != exitOK {
		t.Fatalf("conform rules --json: exit %d, stderr %s", code, errout.String())
	}
	var cov coverage
	if err := json.Unmarshal(out.Bytes(), &cov); err != nil {
		t.Fatalf("conform rules --json: %v", err)
	}
	if len(cov.Rules) != len(engine.RuleTable) || cov.Cases == 0 || cov.Unattributed != 0 {
		t.Errorf("conform rules --json: %d rules of %d, %d cases, %d unattributed errors", len(cov.Rules), len(engine.RuleTable), cov.Cases, cov.Unattributed)
	}
	for _, r := range cov.Rules {
		if want := r.Kind != "" && r.Variant == "" || slices.Contains(engine.TracedRules(), r.ID); (r.Cases != nil) != want {
			t.Errorf("rule %s: counted %v, want counted exactly for the reference's error rules and the traced rules", r.ID, r.Cases != nil)
		}
		if r.Cases != nil && *r.Cases == 0 && !slices.Contains(cov.Gaps, r.ID) {
			t.Errorf("rule %s has no case but is not listed as a gap", r.ID)
		}
	}

	errout.Reset()
	if code := run([]string{"rules", "extra"}, &out, &errout); code != exitUsage {
		t.Errorf("conform rules extra: exit %d, want %d", code, exitUsage)
	}
}
