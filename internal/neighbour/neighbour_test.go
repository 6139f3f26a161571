package neighbour

import (
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

// takeCase is take(a, indices, axis=0) with a float32 of shape (3,) and
// int32 indices.
func takeCase(indices ...int64) *casefile.Case {
	return casefile.New(map[string]any{"op": "take", "axis": 0}, map[string]*engine.Tensor{
		"a":       arange(engine.Float32Type, []int{3}),
		"indices": fromInts(engine.Int32Type, []int{len(indices)}, indices),
	})
}

func TestOfTake(t *testing.T) {
	c := takeCase(1, -1)
	if c.Err != nil {
		t.Fatal(c.Err)
	}
	for _, n := range Of(c) {
		t.Logf("%s: %s", n.Edit, Describe(n.Case))
	}
}
