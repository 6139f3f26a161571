package neighbour

import (
	"fmt"
	"strings"

	"github.com/conformsuite/conform/engine"
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
	b.WriteString(normalized(c).Describe())
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

// normalized returns c, or for a getitem case whose subscript can be
// written back from its items (see render) the same case with the
// subscript so written.
func normalized(c *casefile.Case) *casefile.Case {
	s, ok := c.Spec.(engine.GetItemSpec)
	if !ok || s.ParseErr != nil || engine.Refused(s.Items) != nil {
		return c
	}
	index := "x[" + render(s.Items) + "]"
	if index == s.Index {
		return c
	}
	fields := map[string]any{}
	for k, raw := range c.Fields {
		if k != "inputs" {
			fields[k] = raw
		}
	}
	fields["index"] = index
	if n := casefile.New(fields, c.Inputs); n.Err == nil {
		return n
	}
	return c
}
