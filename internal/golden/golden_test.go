package golden

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/gen"
	"github.com/conformsuite/conform/internal/impl"
)

// startNumPy starts the NumPy oracle, skipping the test visibly when NumPy
// is missing (failing instead under CONFORM_REQUIRE_NUMPY=1).
func startNumPy(t *testing.T) []*Oracle {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-I", "-c", "import numpy").Run(); err != nil {
		if os.Getenv("CONFORM_REQUIRE_NUMPY") == "1" {
			t.Fatalf("NumPy required but not available: %v", err)
		}
		t.Skip("NumPy not available: install python3-numpy (or run `conform setup`)")
	}
	oracles, err := StartOracles([]string{Reference}, 1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { CloseOracles(oracles) })
	return oracles
}

func build(t *testing.T, oracles []*Oracle, dest string, seed uint64) *Summary {
	t.Helper()
	perOp := map[string]int{}
	for _, op := range casefile.OpNames() {
		perOp[op] = 40
	}
	s, err := Build(context.Background(), Options{Dest: dest, Seed: seed, PerOp: perOp, Oracles: []string{Reference}, Workers: 8, Log: io.Discard},
		gen.Corpus(seed, perOp), oracles)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestBuildIsDeterministicAndVerifies(t *testing.T) {
	oracles := startNumPy(t)
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	s := build(t, oracles, a, 7)
	build(t, oracles, b, 7)
	if s.Cases != 40*len(casefile.OpNames()) || s.Outputs+s.Errors != s.Cases {
		t.Fatalf("summary %+v", s)
	}
	for _, name := range []string{"getitem.jsonl", "gather_nd.jsonl", "blobs.npz", "MANIFEST", "PROVENANCE", "DISAGREEMENTS.md"} {
		x, err1 := os.ReadFile(filepath.Join(a, name))
		y, err2 := os.ReadFile(filepath.Join(b, name))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two builds with the same seed (%v, %v)", name, err1, err2)
		}
	}
	// The engine passes the corpus it was built for.
	result, err := check.Run(context.Background(), os.DirFS(a), impl.Engine{}, check.Options{})
	if err != nil || !result.OK() {
		t.Fatalf("check: %v %s", err, result.Line())
	}
	v, err := Verify(context.Background(), os.DirFS(a), oracles, 0, 1, 8, io.Discard)
	if err != nil || v.Drifted != 0 || v.Passed != s.Cases {
		t.Fatalf("verify: %v %+v", err, v)
	}
}

func TestVerifyReportsDrift(t *testing.T) {
	oracles := startNumPy(t)
	dir := filepath.Join(t.TempDir(), "golden")
	build(t, oracles, dir, 3)
	// Pretend NumPy once said out_of_range where it says invalid_spec (or
	// the reverse) for the first error case of the slice list.
	path := filepath.Join(dir, "slice.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	var changed string
	for i, line := range lines {
		from, to := `"error":"out_of_range"`, `"error":"invalid_spec"`
		if !strings.Contains(line, from) {
			from, to = to, from
		}
		if strings.Contains(line, from) {
			lines[i] = strings.Replace(line, from, to, -1)
			changed = line[strings.Index(line, `"id":"`)+6:]
			changed = changed[:strings.Index(changed, `"`)]
			break
		}
	}
	if changed == "" {
		t.Fatal("no error case in the slice list")
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	v, err := Verify(context.Background(), os.DirFS(dir), oracles, 0, 1, 8, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if v.Drifted != 1 || len(v.Drifts) != 1 || v.Drifts[0].ID != changed || v.Drifts[0].Oracle != Reference {
		t.Fatalf("want one drift on %s, got %+v", changed, v.Drifts)
	}
}
