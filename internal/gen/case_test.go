package gen

import (
	"testing"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/npy"
)

// checkCase checks what every generated case must satisfy: it names its
// op, its inputs are valid tensors within the size bounds that encode as
// .npy, and the engine either evaluates it or rejects it with one of the
// three error kinds, never a panic or an untyped error.
func checkCase(m *casefile.Case) string {
	op := m.Op
	if _, ok := casefile.Lookup(op); !ok {
		return "unknown op " + op
	}
	for name, x := range m.Inputs {
		if x.Rank() > engine.MaxRank || engine.NumElements(nonZero(x.Shape)) > MaxElements {
			return "input " + name + " is too large"
		}
		if _, err := npy.Decode(npy.Encode(x)); err != nil {
			return "input " + name + " does not round-trip through .npy: " + err.Error()
		}
	}
	e := evaluate(m)
	if e.err != nil && !e.kind().Valid() {
		return "engine error without a kind: " + e.err.Error()
	}
	if e.out != nil && engine.NumElements(nonZero(e.out.Shape)) > MaxElements {
		return "the result is too large"
	}
	return ""
}

// TestEveryCaseEvaluates checks checkCase on the shared pool (3000 cases
// of every op).
func TestEveryCaseEvaluates(t *testing.T) {
	for _, op := range casefile.OpNames() {
		for _, e := range pool()[op] {
			if e.m.Op != op {
				t.Fatalf("pool of %s holds a %s case", op, e.m.Op)
			}
			if why := checkCase(e.m); why != "" {
				t.Errorf("%v: %s", e.m, why)
			}
		}
	}
}

// TestCaseProperty checks checkCase on rapid-drawn cases of every op.
func TestCaseProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := Case().Draw(t, "case")
		if why := checkCase(m); why != "" {
			t.Fatalf("%v: %s", m, why)
		}
	})
}

// TestSpecGenerators checks that the exported spec generators produce
// specs that parse and evaluate (or fail with a kind) on a tensor of the
// shape they were made for.
func TestSpecGenerators(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		shape := Shape().Draw(t, "shape")
		x := Tensor(rapid.Just(engine.Int64Type), rapid.Just(shape)).Draw(t, "x")
		inputs := map[string]*engine.Tensor{"x": x}
		for _, spec := range []map[string]any{
			{"op": casefile.OpGetItem, "index": Subscript(shape).Draw(t, "index")},
			StridedSliceSpec(shape).Draw(t, "strided_slice"),
			SliceSpec(shape).Draw(t, "slice"),
		} {
			m := casefile.New(spec, inputs)
			if why := checkCase(m); why != "" {
				t.Fatalf("%v: %s", m, why)
			}
		}
	})
}

// TestCaseOf checks that Case draws every op and CaseOf only its own.
func TestCaseOf(t *testing.T) {
	for _, op := range casefile.OpNames() {
		if !findAny(Case(), 100, func(m *casefile.Case) bool { return m.Op == op }) {
			t.Errorf("Case gave no %s case in 100 draws", op)
		}
		if findAny(CaseOf(op), 100, func(m *casefile.Case) bool { return m.Op != op }) {
			t.Errorf("CaseOf(%q) gave a case of another op", op)
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("CaseOf of an unknown op did not panic")
		}
	}()
	CaseOf("no_such_op")
}
