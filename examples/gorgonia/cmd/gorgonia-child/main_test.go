package main

import (
	"os"
	"strings"
	"testing"
)

// TestTensorVersion checks that the hello's version is the one of
// gorgonia.org/tensor that go.mod requires.
func TestTensorVersion(t *testing.T) {
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	v := tensorVersion()
	if v == "unknown" || !strings.Contains(string(mod), "gorgonia.org/tensor "+v+"\n") {
		t.Errorf("tensorVersion() = %q, not the version go.mod requires:\n%s", v, mod)
	}
}
