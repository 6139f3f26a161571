package neighbour

import (
	"testing"

	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/gen"
)

func TestExplore(t *testing.T) {
	for _, op := range casefile.OpNames() {
		cases := gen.Corpus(1, map[string]int{op: 40})
		for _, c := range cases {
			t.Logf("== %s", Describe(c))
			for _, n := range Of(c) {
				t.Logf("   %s: %s", n.Edit, Describe(n.Case))
			}
		}
	}
}
