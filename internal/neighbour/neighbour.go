// Package neighbour derives the neighbours of a case — the cases one
// small edit away from it (a slice step's sign flipped, an index array
// cast to int64, a negative index made non-negative, an empty axis made
// non-empty) — and confirms a cause with them: a failure follows a rule
// when the case that exercises it fails and a neighbour that does not
// exercise it passes.
//
// The edits are generic: they change a case's spec fields and inputs, and
// the engine, not this package, says which rules a neighbour exercises
// (Without runs each neighbour on the engine with a trace). No rule of
// the reference semantics is decided here.
package neighbour

import (
	"cmp"
	"context"
	"slices"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

// Neighbour is a case one small edit away from another.
type Neighbour struct {
	Case *casefile.Case
	Edit string // what changed, in one line: "step -1 → 1", "indices int32 → int64"
}

// MaxTries is the number of neighbours Confirm judges at most.
const MaxTries = 8

// Of returns the neighbours of c, each one edit away (deterministic
// order): the edits of the op's spec fields first (a getitem subscript's
// items, a slice's strides, masks and bounds, a gather's axis and mode),
// then those of its index inputs (cast to int64, negative indices made
// non-negative, every index made 0, reshaped to 1-D), then those of its data input (an empty
// dimension grown to 1, a dimension shrunk, cast to another dtype). Every
// neighbour is a valid case (casefile.New accepts it) and differs from
// c; a case that is not valid itself has none.
func Of(c *casefile.Case) []Neighbour {
	if c == nil || c.Err != nil || c.Def == nil {
		return nil
	}
	e := newEditor(c)
	e.specEdits()
	e.indexEdits()
	e.dataEdits()
	return e.out
}

// Without returns the neighbours of c whose reference evaluation does not
// exercise rule (engine trace and error rule), closest first (fewest
// other rules changed: the symmetric difference of their rules and c's,
// rule aside), ties in the order of Of.
func Without(c *casefile.Case, rule engine.RuleID) []Neighbour {
	trace := new(engine.Trace)
	base := set(Rules(c, trace))
	type scored struct {
		n    Neighbour
		diff int
	}
	var out []scored
	for _, n := range Of(c) {
		rules := Rules(n.Case, trace)
		if slices.Contains(rules, rule) {
			continue
		}
		diff := 0
		seen := set(rules)
		for r := range seen {
			if !base[r] {
				diff++
			}
		}
		for r := range base {
			if r != rule && !seen[r] {
				diff++
			}
		}
		out = append(out, scored{n, diff})
	}
	slices.SortStableFunc(out, func(a, b scored) int { return cmp.Compare(a.diff, b.diff) })
	ns := make([]Neighbour, len(out))
	for i, s := range out {
		ns[i] = s.n
	}
	return ns
}

// Rules returns the rules the engine's evaluation of c exercises: its
// trace and the rule of its error, if it answers one (as conform check
// computes them for causes). trace is reset and reused; nil makes one.
func Rules(c *casefile.Case, trace *engine.Trace) []engine.RuleID {
	if trace == nil {
		trace = new(engine.Trace)
	}
	trace.Reset()
	_, err, ok := c.EvalSafely(engine.Rules{Trace: trace})
	rules := trace.Rules()
	if id := engine.RuleOf(err); ok && id != "" && !slices.Contains(rules, id) {
		rules = append(rules, id)
	}
	return rules
}

// set returns the rules as a set.
func set(rules []engine.RuleID) map[engine.RuleID]bool {
	m := make(map[engine.RuleID]bool, len(rules))
	for _, r := range rules {
		m[r] = true
	}
	return m
}

// Judge runs a case on the implementation and its reference: failed and
// the symptom (as check.CauseSymptom spells it) when the implementation's
// answer differs; ok false when the case could not be judged (skipped,
// the reference did not run, cancelled).
type Judge func(ctx context.Context, c *casefile.Case) (symptom string, failed, ok bool)

// Confirmation is the evidence that a failure follows a rule: Failing
// exercises the rule and fails with the symptom; Passing is its neighbour
// without the rule, which passes.
type Confirmation struct {
	Rule    engine.RuleID
	Symptom string
	Failing *casefile.Case
	Passing Neighbour
	// Reproduced says c failed with the symptom when judged; Tried
	// counts the neighbours judged after it.
	Reproduced bool
	Tried      int
}

// Confirm judges c (which exercises rule) and its neighbours without
// rule, closest first, at most MaxTries of them: confirmed when c fails
// with symptom and a neighbour passes. The Confirmation returned
// unconfirmed says whether c failed so and how many neighbours were
// tried. A neighbour that fails otherwise, or cannot be judged, does not
// confirm.
func Confirm(ctx context.Context, judge Judge, c *casefile.Case, rule engine.RuleID, symptom string) (Confirmation, bool) {
	conf := Confirmation{Rule: rule, Symptom: symptom, Failing: c}
	got, failed, ok := judge(ctx, c)
	if !ok || !failed || got != symptom {
		return conf, false
	}
	conf.Reproduced = true
	for _, n := range Without(c, rule) {
		if conf.Tried == MaxTries || ctx.Err() != nil {
			break
		}
		conf.Tried++
		_, failed, ok := judge(ctx, n.Case)
		if ok && !failed {
			conf.Passing = n
			return conf, true
		}
	}
	return conf, false
}
