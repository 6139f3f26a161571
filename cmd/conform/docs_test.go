package main

import (
	"os"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
)

// TestVariantsDocumented checks that docs/commands.md lists every rule
// variant of the engine, in the order a classifier tries them.
func TestVariantsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/commands.md")
	if err != nil {
		t.Fatal(err)
	}
	last := -1
	for _, info := range engine.Variants {
		at := strings.Index(string(doc), "| `"+info.Name+"` |")
		switch {
		case at < 0:
			t.Errorf("docs/commands.md does not list the variant %s", info.Name)
		case at < last:
			t.Errorf("docs/commands.md lists the variant %s out of engine.Variants order", info.Name)
		}
		last = at
	}
}
