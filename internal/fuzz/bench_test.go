package fuzz

import (
	"context"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/gen"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/neighbour"
	"github.com/conformsuite/conform/internal/oracle"
)

func sampleCases(n int) []*casefile.Case {
	var cases []*casefile.Case
	for i := 0; i < n; i++ {
		op := casefile.OpNames()[i%4]
		cases = append(cases, gen.CaseOf(op).Example(gen.CaseSeed(1, op, i)))
	}
	return cases
}

// BenchmarkGenerate measures generating a case as fuzz does, the ops in
// turn.
func BenchmarkGenerate(b *testing.B) {
	ops := casefile.OpNames()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		op := ops[i%len(ops)]
		gen.CaseOf(op).Example(gen.CaseSeed(1, op, i))
	}
}

func BenchmarkEngineRun(b *testing.B) {
	cases := sampleCases(1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		impl.Engine{}.Run(context.Background(), cases[i%1000])
	}
}

func BenchmarkRequest(b *testing.B) {
	cases := sampleCases(1000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		cases[i%1000].Request(1)
	}
}

// BenchmarkFuzzEngineVsNumPy measures `conform fuzz --impl engine --oracle
// numpy`: one iteration is one case, generated, run on both and compared.
func BenchmarkFuzzEngineVsNumPy(b *testing.B) {
	numpy, err := oracle.Open("numpy", 0)
	if err != nil {
		b.Skipf("NumPy oracle not available: %v", err)
	}
	defer numpy.Close()
	b.ResetTimer()
	s, err := Run(context.Background(), Options{Impl: impl.Engine{}, Oracles: []impl.Impl{numpy}, MaxCases: b.N, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	if s.Disagreed > 0 {
		b.Fatalf("the engine disagrees with NumPy: %s", s.Line())
	}
	b.ReportMetric(s.Rate(), "cases/s")
}

// BenchmarkTraceRules measures what tracing one generated case costs (the
// rules it exercises, read from the engine): what fuzz pays for each
// agreeing case it traces (one in passSample).
func BenchmarkTraceRules(b *testing.B) {
	cases := sampleCases(1000)
	trace := new(engine.Trace)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		neighbour.Rules(cases[i%1000], trace)
	}
}
