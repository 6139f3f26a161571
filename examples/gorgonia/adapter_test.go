package gorgonia

import (
	"os"
	"strings"
	"testing"

	"github.com/conformsuite/conform/conformtest"
)

const knownFailures = "testdata/known-failures.txt"

// TestConformance runs conform's corpus against gorgonia's Dense.Slice;
// the failures it is known to have are listed in testdata, panics
// included (hence AllowKnownCrashes).
func TestConformance(t *testing.T) {
	conformtest.Run(t, Adapter{}, conformtest.KnownFailuresFile(knownFailures), conformtest.AllowKnownCrashes())
}

// TestKnownFailuresNeeded checks that every entry of the known-failures
// file is needed: the corpus fails without it.
func TestKnownFailuresNeeded(t *testing.T) {
	data, err := os.ReadFile(knownFailures)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	for i, line := range lines {
		entry := strings.TrimSpace(line)
		if entry == "" || strings.HasPrefix(entry, "#") {
			continue
		}
		entry, _, _ = strings.Cut(entry, "#")
		entry = strings.TrimSpace(entry)
		t.Run(entry, func(t *testing.T) {
			t.Parallel()
			rest := append(append([]string{}, lines[:i]...), lines[i+1:]...)
			path := t.TempDir() + "/known-failures.txt"
			if err := os.WriteFile(path, []byte(strings.Join(rest, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
			err := conformtest.Check(Adapter{}, conformtest.KnownFailuresFile(path), conformtest.AllowKnownCrashes())
			if err == nil {
				t.Fatalf("the corpus passes without %s", entry)
			}
		})
	}
}
