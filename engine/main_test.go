package engine_test

import (
	"flag"
	"os"
	"testing"

	"github.com/conformsuite/conform/engine"
)

// TestMain raises rapid's default number of checks per property from 100
// to 3000, so that rare spec combinations are reached on every run. An
// explicit -rapid.checks flag or RAPID_CHECKS variable still wins. It also
// makes the kernels' new buffers start as a pattern instead of whatever
// the allocator returns, so that a byte a kernel fails to write shows up
// in every test (BenchmarkKernels turns this off while it runs).
func TestMain(m *testing.M) {
	flag.Parse()
	*engine.PoisonNewBytes = true
	explicit := os.Getenv("RAPID_CHECKS") != ""
	flag.Visit(func(f *flag.Flag) {
		if f.Name == "rapid.checks" {
			explicit = true
		}
	})
	if !explicit {
		flag.Set("rapid.checks", "3000")
	}
	os.Exit(m.Run())
}
