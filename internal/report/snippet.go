package report

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/conformsuite/conform/casefile"
	"github.com/conformsuite/conform/engine"
)

// Snippet returns Python code that reproduces a case in NumPy and in
// TensorFlow, with the inputs written out exactly.
func Snippet(m casefile.Memory) string {
	var b strings.Builder
	b.WriteString("import numpy as np\nimport tensorflow as tf\n")
	c, err := m.Case()
	if err != nil {
		for _, name := range sortedNames(m.Inputs) {
			fmt.Fprintf(&b, "%s = %s\n", name, pyLiteral(m.Inputs[name]))
		}
		spec, _ := json.Marshal(m.Spec)
		fmt.Fprintf(&b, "# the case spec is malformed (%v): %s\n", err, spec)
		return b.String()
	}
	names := slices.Clone(c.Def.Inputs)
	for _, name := range sortedNames(c.Inputs) {
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	for _, name := range names {
		fmt.Fprintf(&b, "%s = %s\n", name, pyLiteral(c.Inputs[name]))
	}
	c.WriteSnippet(&b)
	return b.String()
}

// sortedNames returns the names of inputs, sorted.
func sortedNames(inputs map[string]*engine.Tensor) []string {
	names := make([]string, 0, len(inputs))
	for name := range inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}
