package expr_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/conformsuite/conform/internal/expr"
	"github.com/conformsuite/conform/internal/gen"
)

// TestPlainReadingOfGeneratedSubscripts checks that Parse, which reads
// plain subscripts without gpython, reads every subscript the case
// generator writes (white space, parentheses, big integers and all)
// exactly as gpython's parser does.
func TestPlainReadingOfGeneratedSubscripts(t *testing.T) {
	shape := rapid.SliceOfN(rapid.IntRange(0, 5), 0, 6)
	rapid.Check(t, func(t *rapid.T) {
		src := gen.Subscript(shape.Draw(t, "shape")).Draw(t, "src")
		fast, fastErr := expr.Parse(src)
		slow, slowErr := expr.ParseGpython(src)
		if diff := cmp.Diff(slow, fast); diff != "" {
			t.Fatalf("%q: Parse differs from gpython's reading (-gpython +Parse):\n%s", src, diff)
		}
		if (fastErr == nil) != (slowErr == nil) || fastErr != nil && fastErr.Error() != slowErr.Error() {
			t.Fatalf("%q: Parse's error is %v, gpython's %v", src, fastErr, slowErr)
		}
	})
}
