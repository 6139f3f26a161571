package gen

import (
	"fmt"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/internal/casefile"
)

// register hangs the case generator of an op on the op's definition
// (casefile.OpDef.SetGenerator); the files of the generators call it from
// init.
func register(op string, g *rapid.Generator[*casefile.Case]) {
	d, ok := casefile.Lookup(op)
	if !ok {
		panic("gen: a generator of an unknown op " + op)
	}
	d.SetGenerator(g)
}

// Case returns a generator of cases of every op, each op equally often
// (in casefile.OpNames order; rapid shrinks towards getitem).
func Case() *rapid.Generator[*casefile.Case] {
	ops := casefile.OpNames()
	weights := make([]int, len(ops))
	for i := range weights {
		weights[i] = 1
	}
	return rapid.Custom(func(t *rapid.T) *casefile.Case {
		op := ops[pick(t, "op", weights...)]
		return CaseOf(op).Draw(t, op)
	})
}

// CaseOf returns the case generator of one op (one of
// casefile.OpNames). It panics on an unknown op.
func CaseOf(op string) *rapid.Generator[*casefile.Case] {
	d, ok := casefile.Lookup(op)
	if !ok || d.Generator() == nil {
		panic(fmt.Sprintf("gen.CaseOf: no generator of op %q", op))
	}
	return d.Generator()
}
