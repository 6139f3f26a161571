package gen

import (
	"slices"
	"sort"
	"testing"

	"github.com/conformsuite/conform/internal/casefile"
)

// TestEveryOpHasAGenerator checks that this package hangs a generator on
// every op's definition: an op added to casefile without one fails here.
func TestEveryOpHasAGenerator(t *testing.T) {
	for _, d := range casefile.Defs() {
		if d.Generator() == nil {
			t.Errorf("op %s has no generator (gen registers one per op from init)", d.Name)
		}
	}
}

// TestGeneratedFieldsAreTheOpsFields checks, on the shared pool, that the
// generators write the field and input names of each op's definition:
// every spec key of a generated case is "op" or a field of its op, every
// field of the op appears in some case, and the inputs are the op's (a
// getitem case adds the names its subscript uses).
func TestGeneratedFieldsAreTheOpsFields(t *testing.T) {
	for _, d := range casefile.Defs() {
		used := map[string]bool{}
		for _, e := range pool()[d.Name] {
			for k := range wire(e.m) {
				if k != "op" && !slices.Contains(d.Fields, k) {
					t.Fatalf("a generated %s case has the field %q, which is not one of the op's %v", d.Name, k, d.Fields)
				}
				used[k] = true
			}
			for _, in := range d.Inputs {
				if e.m.Inputs[in] == nil {
					t.Fatalf("a generated %s case has no input %q", d.Name, in)
				}
			}
			if d.Name != casefile.OpGetItem && len(e.m.Inputs) != len(d.Inputs) {
				t.Fatalf("a generated %s case has inputs %v, want %v", d.Name, sortedKeys(e.m.Inputs), d.Inputs)
			}
		}
		for _, f := range d.Fields {
			if !used[f] {
				t.Errorf("no generated %s case has the field %q", d.Name, f)
			}
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
