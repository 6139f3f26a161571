package conformtest

import (
	"go/build"
	"path/filepath"
	"strings"
	"testing"
)

// module is the import path of this module.
const module = "github.com/conformsuite/conform"

// TestDoesNotLinkOracles: conformtest, which a user's test imports, does
// not link the oracle programs (package oracle embeds them): it runs an
// implementation in process, or serves it, and never starts an oracle.
func TestDoesNotLinkOracles(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]string{} // package -> a package that imports it
	var walk func(path string)
	walk = func(path string) {
		dir := filepath.Join(root, strings.TrimPrefix(strings.TrimPrefix(path, module), "/"))
		pkg, err := build.ImportDir(dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			if imp != module && !strings.HasPrefix(imp, module+"/") {
				continue
			}
			if _, ok := seen[imp]; ok {
				continue
			}
			seen[imp] = path
			walk(imp)
		}
	}
	walk(module + "/conformtest")
	if by, ok := seen[module+"/oracle"]; ok {
		t.Errorf("conformtest links package oracle (imported by %s)", by)
	}
	if len(seen) == 0 {
		t.Error("found no imports of conformtest: the walk is broken")
	}
}
