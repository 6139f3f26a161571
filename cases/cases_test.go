package cases_test

import (
	"context"
	"testing"

	"github.com/conformsuite/conform/cases"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/impl"
)

// TestEmbeddedCorpus runs the whole embedded corpus against the engine:
// the same gate as `conform check`, inside `go test ./...`.
func TestEmbeddedCorpus(t *testing.T) {
	s, err := check.Run(context.Background(), cases.FS, impl.Engine{}, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range s.Integrity {
		t.Errorf("integrity: %s", p)
	}
	for _, r := range s.Results {
		if r.Status == check.Fail {
			t.Errorf("%s (expected: %s): %s", r.ID, r.Source, r.Detail)
		}
	}
	if s.Passed == 0 {
		t.Fatal("the embedded corpus is empty")
	}
	t.Log(s.Line())
}

// BenchmarkCheck measures the gate: one iteration checks the whole
// embedded corpus (manifest verification included).
func BenchmarkCheck(b *testing.B) {
	for i := 0; i < b.N; i++ {
		s, err := check.Run(context.Background(), cases.FS, impl.Engine{}, check.Options{})
		if err != nil || !s.OK() {
			b.Fatalf("%v %v", err, s.Line())
		}
		b.ReportMetric(float64(len(s.Results)), "cases/op")
	}
}
