package casefile

import (
	"fmt"
	"strings"

	"github.com/conformsuite/conform/engine"
)

// WriteSnippet writes Python code that runs the case's op on the inputs
// (already bound to their names, see pysrc.Input) in the libraries whose
// semantics it follows, e.g. "np.take(a, indices, axis=1)  # NumPy". The
// code is generated from the parsed spec: text of the case that is not
// part of a parsed spec appears only in a string literal or a comment.
// A case that is not valid has no code.
func (c *Case) WriteSnippet(b *strings.Builder) {
	if c.Err == nil && c.Def.snippet != nil {
		c.Def.snippet(b, c)
	}
}

// planIndex writes a NumPy subscript that selects what the plan selects:
// per output axis the resolved range, integers for dropped axes, None for
// new axes.
func planIndex(plan *engine.Plan, rank int) string {
	used := map[int]bool{}
	for _, a := range plan.Axes {
		used[a.Input] = true
	}
	var parts []string
	next := 0 // next input axis to place
	flush := func(upto int) {
		for ; next < upto; next++ {
			if !used[next] {
				parts = append(parts, fmt.Sprint(plan.Fixed[next]))
			}
		}
	}
	for _, a := range plan.Axes {
		if a.Input == engine.NewAxis {
			parts = append(parts, "None")
			continue
		}
		flush(a.Input)
		next = a.Input + 1
		if a.Count == 0 {
			parts = append(parts, "0:0")
			continue
		}
		stop := a.Start + a.Count*a.Step
		stopText := fmt.Sprint(stop)
		if stop < 0 {
			stopText = "None"
		}
		parts = append(parts, fmt.Sprintf("%d:%s:%d", a.Start, stopText, a.Step))
	}
	flush(rank)
	switch len(parts) {
	case 0:
		return "..."
	case 1:
		return parts[0] + ","
	}
	return strings.Join(parts, ", ")
}
