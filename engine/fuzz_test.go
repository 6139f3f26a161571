package engine_test

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/gen"
)

// FuzzOps drives every op with cases from the generators, the fuzzer's
// bytes steering rapid's choices: no spec and no shape may panic, every
// rejection must have one of the three kinds, and every output must hold
// exactly its elements.
func FuzzOps(f *testing.F) {
	f.Fuzz(rapid.MakeFuzz(func(t *rapid.T) {
		m := gen.Case().Draw(t, "case")
		c := m
		if err := c.Err; err != nil {
			if !engine.KindOf(err).Valid() {
				t.Fatalf("loading %v: error without a kind: %v", m, err)
			}
			return
		}
		out, err := c.Eval()
		if err != nil {
			if !engine.KindOf(err).Valid() {
				t.Fatalf("%v: error without a kind: %v", m, err)
			}
			return
		}
		if len(out.Bytes()) != out.Len()*out.DType.Size || out.Rank() > engine.MaxRank {
			t.Fatalf("%v: output of shape %v holds %d bytes", m, out.Shape, len(out.Bytes()))
		}
		if in := c.Inputs["x"]; in != nil && out.DType != in.DType {
			t.Fatalf("%v: output dtype %v, input %v", m, out.DType, in.DType)
		}
	}))
}
