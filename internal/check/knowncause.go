package check

import (
	"fmt"
	"sort"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/signature"
)

// KnownCause is a known-failures entry that names a cause: the
// disagreements whose case exercises Rule and whose symptom is Symptom
// are known. It is written "cause:RULE@SYMPTOM", the rule and the symptom
// as conform check --json prints a failure's cause and symptom (the
// symptom with or without its op): "cause:getitem/negative-step@error/invalid_spec".
type KnownCause struct {
	Rule    engine.RuleID
	Symptom string
}

// causePrefix starts a known-failures entry that names a cause.
const causePrefix = "cause:"

// String writes the entry as ParseCause reads it.
func (k KnownCause) String() string { return causePrefix + string(k.Rule) + "@" + k.Symptom }

// IsCauseEntry reports whether a known-failures entry is meant to name a
// cause (starts with "cause:"), well written or not.
func IsCauseEntry(entry string) bool { return strings.HasPrefix(entry, causePrefix) }

// causeSymptoms are the first words of the symptoms check.CauseSymptom
// returns.
var causeSymptoms = map[string]bool{
	"error": true, string(signature.ErrorClass): true, string(signature.OutputForError): true, string(signature.Shape): true,
	string(signature.DType): true, string(signature.Values): true, string(signature.Crash): true,
}

// ParseCause parses a known-failures entry naming a cause,
// "cause:getitem/negative-step@error/invalid_spec" (or
// "...@getitem/error/invalid_spec"). The rule must be one of
// engine.RuleTable's and the symptom one check.CauseSymptom returns.
func ParseCause(entry string) (KnownCause, error) {
	rest, ok := strings.CutPrefix(entry, causePrefix)
	if !ok {
		return KnownCause{}, fmt.Errorf("%q does not start with %q", entry, causePrefix)
	}
	rule, symptom, ok := strings.Cut(rest, "@")
	if !ok || rule == "" || symptom == "" {
		return KnownCause{}, fmt.Errorf("%q is not cause:RULE@SYMPTOM", entry)
	}
	r, ok := engine.RuleByID(engine.RuleID(rule))
	if !ok {
		return KnownCause{}, fmt.Errorf("%q: no rule %s (conform rules lists them)", entry, rule)
	}
	for _, op := range r.Ops {
		if s, ok := strings.CutPrefix(symptom, op+"/"); ok {
			symptom = s
			break
		}
	}
	first, _, _ := strings.Cut(symptom, "/")
	if !causeSymptoms[first] {
		return KnownCause{}, fmt.Errorf("%q: %s is not a symptom (error/KIND, error-class/..., output-for-error/KIND, shape/..., dtype/..., values, crash/...)", entry, symptom)
	}
	return KnownCause{Rule: r.ID, Symptom: symptom}, nil
}

// ApplyKnownCauses turns into XFail each failure whose cause (found by
// FindCauses) is named by a cause entry of known ("cause:RULE@SYMPTOM",
// see ParseCause): the cause's rule is RULE and the failure's own symptom
// (CauseSymptom) is SYMPTOM. A crash or timeout is known so only with
// crashes, as for a signature entry (see ApplyKnownFailures). A cause
// entry that no failure of the run matches is stale: it is listed in
// StaleCauses, which fails the run as an unexpected pass does (the list
// must shrink as the implementation improves).
func (s *Summary) ApplyKnownCauses(known map[string]string, crashes bool) {
	causes := map[KnownCause]string{}
	for entry, reason := range known {
		if k, err := ParseCause(entry); err == nil {
			causes[k] = reason
		}
	}
	if len(causes) == 0 {
		return
	}
	seen := map[KnownCause]bool{}
	for i := range s.Results {
		r := &s.Results[i]
		if r.Status != Fail || r.Cause == nil || r.Cause.Rule == "" || r.Signature.IsZero() {
			continue
		}
		k := KnownCause{Rule: r.Cause.Rule, Symptom: CauseSymptom(r.Signature)}
		reason, ok := causes[k]
		if !ok {
			continue
		}
		seen[k] = true
		if r.Signature.Symptom == signature.Crash {
			r.KnownCrash = k.String()
			s.CountKnownCrash(*r)
			if !crashes {
				r.Detail += " (the known-failure entry " + k.String() + " matches this crash; crashes and timeouts count as known only with --allow-known-crashes)"
				continue
			}
		}
		r.Status = XFail
		r.Detail = "known failure (" + reason + "): " + r.Detail
		s.Failed--
		s.Passed++
		s.KnownFailures++
	}
	for k := range causes {
		if !seen[k] {
			s.StaleCauses = append(s.StaleCauses, k.String())
		}
	}
	sort.Strings(s.StaleCauses)
}
