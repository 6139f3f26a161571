package casefile_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/gen"
)

// variantSample is the number of generated cases per op on which
// TestVariantDeclarations evaluates the variants.
const variantSample = 800

// appliedAfterEveryOp are the variants the engine applies to the result
// of every op (in one place, after the op), so they change cases of ops
// that do not declare them: an op declares them only where
// implementations of it depart from the rule that way.
var appliedAfterEveryOp = []engine.Variant{engine.EmptyRangeRefused, engine.DropSize1Dims}

// TestVariantDeclarations checks each op's declared variants against the
// engine on generated cases of the op (seed 1):
// a declared variant changes the answer of some case (else the
// declaration is dead), an undeclared variant changes none (else the op
// is missing from a variant that affects it; the variants applied after
// every op are exempt), and every variant is declared by some op.
func TestVariantDeclarations(t *testing.T) {
	perOp := map[string]int{}
	for _, op := range casefile.OpNames() {
		perOp[op] = variantSample
	}
	byOp := map[string][]*casefile.Case{}
	for _, m := range gen.Corpus(1, perOp) {
		c := m
		if err := c.Err; err != nil {
			continue // a case the parser refuses has no variants
		}
		byOp[m.Op] = append(byOp[m.Op], c)
	}
	declared := map[engine.Variant]bool{}
	for _, d := range casefile.Defs() {
		for _, info := range engine.Variants {
			v := info.Variant
			if d.HasVariant(v) {
				declared[v] = true
			} else if slices.Contains(appliedAfterEveryOp, v) {
				continue
			}
			changed := slices.IndexFunc(byOp[d.Name], func(c *casefile.Case) bool { return casefile.EngineChanges(c, v) })
			switch {
			case d.HasVariant(v) && changed < 0:
				t.Errorf("op %s declares the variant %s, which changes none of its %d generated cases", d.Name, v, len(byOp[d.Name]))
			case !d.HasVariant(v) && changed >= 0:
				t.Errorf("op %s does not declare the variant %s, which changes its generated case %d", d.Name, v, changed)
			}
		}
	}
	for _, info := range engine.Variants {
		if !declared[info.Variant] {
			t.Errorf("no op declares the variant %s", info.Name)
		}
	}
}

// TestVariantsTableOps checks the "ops" column of docs/commands.md's table
// of variants against the ops' declarations, in OpNames order ("every op"
// when all declare it).
func TestVariantsTableOps(t *testing.T) {
	doc, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range engine.Variants {
		var ops []string
		for _, d := range casefile.Defs() {
			if d.HasVariant(info.Variant) {
				ops = append(ops, d.Name)
			}
		}
		want := strings.Join(ops, ", ")
		if len(ops) == len(casefile.Defs()) {
			want = "every op"
		}
		if row := "| `" + info.Name + "` | " + want + " |"; !strings.Contains(string(doc), row) {
			t.Errorf("docs/commands.md has no row starting %q", row)
		}
	}
}
