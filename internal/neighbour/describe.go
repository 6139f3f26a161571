package neighbour

import (
	"fmt"
	"strings"

	"github.com/conformsuite/conform/internal/casefile"
)

// maxShownValues bounds the index inputs whose values Describe shows.
const maxShownValues = 8

// Describe writes a case in one line as a maintainer reads it: the
// case's own description (casefile.Case.Describe, as conform check
// prints a failing case: `getitem x[::-1]; x: <i8 (1,)`), with the values
// of its small index inputs, which the edits of Of change (`take
// axis=0; a: <f4 (3,), indices: <i4 (2,) = [1, -1]`).
func Describe(c *casefile.Case) string {
	var b strings.Builder
	b.WriteString(c.Describe())
	first := true
	for _, name := range indexNames(c) {
		t := c.Inputs[name]
		if t.Len() > maxShownValues {
			continue
		}
		if first {
			b.WriteString("; values ")
			first = false
		} else {
			b.WriteString(", ")
		}
		v := ints(t)
		if t.Rank() == 0 {
			fmt.Fprintf(&b, "%s = %d", name, v[0])
		} else {
			fmt.Fprintf(&b, "%s = %s", name, list(v))
		}
	}
	return b.String()
}

// indexNames returns the names of c's integer index inputs (all inputs
// but the op's data input), sorted.
func indexNames(c *casefile.Case) []string {
	if c.Def == nil {
		return nil
	}
	e := &editor{c: c}
	return e.indexInputs()
}
