package casefile_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/conformsuite/conform/internal/casefile"
	_ "github.com/conformsuite/conform/internal/gen" // hangs the generators on the ops
)

// TestOpCompleteness checks, for every op of the registry, each place
// outside its definition that the checklist "Adding an op" of
// docs/development.md names: a generator (package gen), an entry of
// internal/oracle/ops.json, an entry of the NumPy oracle's op table, an example and
// a paragraph in docs/case-format.md and a row of the README's ops table.
func TestOpCompleteness(t *testing.T) {
	read := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	opsJSON := read("../oracle/ops.json")
	numpyOracle := read("../oracle/numpy/oracle.py")
	caseFormat := read("../../docs/case-format.md")
	readme := read("../../README.md")
	for _, d := range casefile.Defs() {
		q := regexp.QuoteMeta(d.Name)
		checks := []struct {
			where string
			ok    bool
		}{
			{"a generator (gen registers one from init)", d.Generator() != nil},
			{"an entry in internal/oracle/ops.json (UPDATE=1 go test ./internal/oracle -run TestOpsJSON)", strings.Contains(opsJSON, `"name": "`+d.Name+`"`)},
			{"an entry in OPS_FUNC of internal/oracle/numpy/oracle.py", regexp.MustCompile(`(?m)^    "` + q + `": op_` + q + `,$`).MatchString(numpyOracle)},
			{"an example case in docs/case-format.md", strings.Contains(caseFormat, `{"op": "`+d.Name+`"`)},
			{"a paragraph in docs/case-format.md (a line \"- `" + d.Name + "`: ...\")", regexp.MustCompile("(?m)^- (`[a-z_]+`, )*`" + q + "`[,:]").MatchString(caseFormat)},
			{"a row of the README's ops table", strings.Contains(readme, "| `"+d.Name+"` |")},
		}
		for _, c := range checks {
			if !c.ok {
				t.Errorf("op %s lacks %s", d.Name, c.where)
			}
		}
	}
}
