package report

import (
	"context"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/neighbour"
	"github.com/conformsuite/conform/internal/protocol"
	"github.com/conformsuite/conform/internal/signature"
)

// Confirmation is the evidence, from the neighbours of a cause's
// smallest case (see package neighbour), that the failures follow the
// cause's rule: the case fails, and a neighbour one edit away that does
// not exercise the rule passes.
type Confirmation struct {
	// Confirmed says a neighbour without the rule passes.
	Confirmed bool `json:"confirmed"`
	// Failing describes the smallest case in one line
	// (neighbour.Describe).
	Failing string `json:"failing"`
	// Passing describes the neighbour that passes, Edit what changed
	// ("step -1 → 1") and Snippet reproduces it; empty when not
	// confirmed.
	Passing string `json:"passing,omitempty"`
	Edit    string `json:"edit,omitempty"`
	Snippet string `json:"passing_snippet,omitempty"`
	// Tried counts the neighbours judged.
	Tried int `json:"tried"`
}

// confirm confirms the cause of rule by its smallest case c, which the
// implementation im fails with symptom (check.CauseSymptom): it judges
// c's neighbours without the rule on im against the engine
// (neighbour.Confirm).
func confirm(ctx context.Context, im impl.Impl, c *casefile.Case, rule engine.RuleID, symptom string) *Confirmation {
	conf, ok := neighbour.Confirm(ctx, judgeOn(im), c, rule, symptom)
	out := &Confirmation{Confirmed: ok, Failing: neighbour.Describe(c), Tried: conf.Tried}
	if ok {
		out.Passing = neighbour.Describe(conf.Passing.Case)
		out.Edit = conf.Passing.Edit
		out.Snippet = Snippet(conf.Passing.Case)
	}
	return out
}

// judgeOn returns the judge of im: a case fails when im's answer differs
// from the engine's, with the symptom check.CauseSymptom gives its
// signature; a case im does not run or skips, or whose answers could not
// be compared, is not judged.
func judgeOn(im impl.Impl) neighbour.Judge {
	return func(ctx context.Context, c *casefile.Case) (string, bool, bool) {
		if !im.Supports(c.Op) {
			return "", false, false
		}
		want, got := impl.Engine{}.Run(ctx, c), im.Run(ctx, c)
		a := protocol.Compare(want, got)
		switch {
		case !a.Compared:
			return "", false, false
		case a.Agree():
			return "", false, true
		}
		return check.CauseSymptom(signature.Classify(c, want, got)), true, true
	}
}
