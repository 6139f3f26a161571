package gen

import (
	"fmt"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/casefile"
)

// opGenerators maps each op to its case generator. The file of each
// generator registers it (see register).
var opGenerators = map[string]*rapid.Generator[casefile.Memory]{}

// register adds the case generator of an op; the files of the generators
// call it from init.
func register(op string, g *rapid.Generator[casefile.Memory]) {
	if _, dup := opGenerators[op]; dup {
		panic("gen: two generators of op " + op)
	}
	opGenerators[op] = g
}

// Case returns a generator of cases of every op, each op equally often
// (in casefile.OpNames order; rapid shrinks towards getitem).
func Case() *rapid.Generator[casefile.Memory] {
	ops := casefile.OpNames()
	weights := make([]int, len(ops))
	for i := range weights {
		weights[i] = 1
	}
	return rapid.Custom(func(t *rapid.T) casefile.Memory {
		op := ops[pick(t, "op", weights...)]
		return CaseOf(op).Draw(t, op)
	})
}

// CaseOf returns the case generator of one op (one of
// casefile.OpNames). It panics on an unknown op.
func CaseOf(op string) *rapid.Generator[casefile.Memory] {
	g, ok := opGenerators[op]
	if !ok {
		panic(fmt.Sprintf("gen.CaseOf: unknown op %q", op))
	}
	return g
}
