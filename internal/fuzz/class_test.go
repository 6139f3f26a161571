package fuzz

import (
	"context"
	"testing"

	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/protocol"
	"github.com/conformsuite/conform/internal/signature"
)

// classed is the engine answering each error with an exception class:
// its errors are Python exceptions (impl.ClassErrors) when python is set.
type classed struct {
	impl.Engine
	class  string
	python bool
}

func (c classed) Run(ctx context.Context, m *casefile.Case) protocol.Answer {
	a := c.Engine.Run(ctx, m)
	if !a.IsError() {
		return a
	}
	return protocol.TypedError(a.Kind(), "an error", c.class)
}

func (c classed) ErrorClasses() bool { return c.python }

// TestFuzzComparesErrorClasses checks that fuzz compares errors as check
// does (impl.CompareFor): an implementation whose errors are Python
// exceptions and that raises the right kind but the wrong class
// disagrees on NumPy-defined ops (symptom error-class); one whose errors
// are not Python exceptions is compared by kind and agrees.
func TestFuzzComparesErrorClasses(t *testing.T) {
	reference := classed{class: "IndexError"}
	for _, tt := range []struct {
		rule      string
		im        impl.Impl
		disagrees bool
	}{
		{"Python errors of another class disagree", classed{class: "RuntimeError", python: true}, true},
		{"a subclass of the reference's class agrees", classed{class: "numpy.AxisError", python: true}, false},
		{"errors that are not Python exceptions are compared by kind", classed{class: "RuntimeError"}, false},
	} {
		s, err := Run(context.Background(), Options{
			Impl: tt.im, Oracles: []impl.Impl{reference}, MaxCases: 300, Seed: 1, Workers: 2,
			Ops: []string{casefile.OpTake}, MaxShrinks: 1, StopAfter: 1,
		})
		if err != nil {
			t.Fatal(err)
		}
		classes := 0
		for _, g := range s.Groups {
			if g.Signature.Symptom == signature.ErrorClass {
				classes++
			}
		}
		for _, c := range s.Causes {
			for _, sym := range c.Symptoms {
				if sym == "error-class/RuntimeError-for-IndexError" {
					classes++
				}
			}
		}
		if (s.Disagreed > 0) != tt.disagrees || (classes > 0) != tt.disagrees {
			t.Errorf("%s: %s, %d error-class groups or causes; want disagreements %v", tt.rule, s.Line(), classes, tt.disagrees)
		}
	}
}
