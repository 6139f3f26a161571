package fuzz

import (
	"context"
	"sort"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/neighbour"
	"github.com/conformsuite/conform/internal/signature"
)

// Cause is a cause of disagreements: a rule of the reference semantics
// (engine.RuleTable) whose feature the disagreements of one op follow,
// confirmed by neighbours (see package neighbour), or named by a
// known-failures entry.
type Cause struct {
	Op   string
	Rule engine.RuleID
	// Symptoms are the symptoms of the disagreements the rule explains,
	// as check.CauseSymptom spells them ("error/invalid_spec"), the one
	// first confirmed first.
	Symptoms []string
	// Count is the number of disagreements counted under the cause: its
	// finding's, and each later one whose case exercises the rule and
	// shows one of its symptoms.
	Count int
	// Known is set for a cause a known-failures entry names: its
	// disagreements are counted, not shrunk, and not failures. Reason is
	// the entry's reason.
	Known  bool
	Reason string
	// Finding is the saved minimal case that confirmed the cause (nil for
	// a known cause).
	Finding *Finding
}

// Group names the cause's disagreements by op and symptom:
// "getitem/error/invalid_spec" (several symptoms joined by ", ").
func (c *Cause) Group() string {
	var parts []string
	for _, s := range c.Symptoms {
		parts = append(parts, c.Op+"/"+s)
	}
	return strings.Join(parts, ", ")
}

// explains reports whether the cause explains a disagreement of its op
// exercising its rule with symptom.
func (c *Cause) explains(symptom string) bool {
	for _, s := range c.Symptoms {
		if s == symptom {
			return true
		}
	}
	return false
}

// knownCauses returns the entries of a known-failures list that name
// causes, with their reasons.
func knownCauses(list map[string]string) map[check.KnownCause]string {
	known := map[check.KnownCause]string{}
	for entry, reason := range list {
		if k, err := check.ParseCause(entry); err == nil {
			known[k] = reason
		}
	}
	return known
}

// causeKey identifies a cause: its op and rule.
type causeKey struct {
	op   string
	rule engine.RuleID
}

// symptomOf returns the symptom of a disagreement with signature sig, as
// causes know it (check.CauseSymptom).
func symptomOf(sig signature.Signature) string { return check.CauseSymptom(sig) }

// byRarity orders rules by how few of the run's traced passing cases of
// the op exercised them (passes), fewest first, keeping their order
// otherwise: the rarer a rule among passes, the likelier it is the cause.
func byRarity(rules []engine.RuleID, passes map[engine.RuleID]int) []engine.RuleID {
	out := append([]engine.RuleID(nil), rules...)
	sort.SliceStable(out, func(i, j int) bool { return passes[out[i]] < passes[out[j]] })
	return out
}

// judgeFor returns the judge neighbour.Confirm asks for, confirming a
// cause with symptom: it runs a case on the implementation and its
// reference and returns the symptom when they disagree; ok is false when
// the case could not be judged (skipped, no reference ran it, cut short)
// and when it is no evidence: its reference answers the very error the
// symptom names ("error/invalid_spec"), so that it passes whether the
// implementation refuses the rule's feature or not (coincidental
// correctness).
func (s *shrinker) judgeFor(symptom string) neighbour.Judge {
	return func(ctx context.Context, c *casefile.Case) (string, bool, bool) {
		out := compareCase(ctx, s.opts.Impl, s.opts.Oracles, c)
		if ctx.Err() != nil || out.skipped {
			return "", false, false
		}
		if out.diff == "" {
			if out.want.IsError() && symptom == "error/"+string(out.want.Kind()) {
				return "", false, false
			}
			return "", false, true
		}
		return symptomOf(classify(s.opts.Impl.Name(), c, out)), true, true
	}
}

// confirm looks for the cause of a minimal disagreement m with symptom:
// among the rules it exercises that neighbour.Confirm confirms, the one
// whose passing neighbour changed the fewest rules of m's (the cleanest
// evidence: a neighbour that drops a whole index item drops every rule of
// the item, one that casts an index array drops its dtype's rule alone),
// the rarest among the run's passing cases first (byRarity) on a tie. It
// reports false when no rule is confirmed.
func (s *shrinker) confirm(m *casefile.Case, symptom string, passes map[engine.RuleID]int) (neighbour.Confirmation, bool) {
	trace := new(engine.Trace)
	rules := neighbour.Rules(m, trace)
	var best neighbour.Confirmation
	bestChanged := -1
	for _, rule := range byRarity(rules, passes) {
		if s.ctx.Err() != nil {
			break
		}
		c, ok := neighbour.Confirm(s.ctx, s.judgeFor(symptom), m, rule, symptom)
		if !ok {
			continue
		}
		changed := changedRules(rules, neighbour.Rules(c.Passing.Case, trace))
		if bestChanged < 0 || changed < bestChanged {
			best, bestChanged = c, changed
		}
		if changed <= 1 {
			break // the rule alone: nothing can be cleaner
		}
	}
	return best, bestChanged >= 0
}

// changedRules counts the rules in one of a and b and not the other.
func changedRules(a, b []engine.RuleID) int {
	in := map[engine.RuleID]int{}
	for _, r := range a {
		in[r] |= 1
	}
	for _, r := range b {
		in[r] |= 2
	}
	n := 0
	for _, v := range in {
		if v != 3 {
			n++
		}
	}
	return n
}
