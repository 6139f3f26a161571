package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/conformsuite/conform/internal/corpus"
)

// TestGoldenKilledLeavesCorpusIntact builds a corpus, then starts a
// rebuild with another seed and kills it (SIGKILL) at several points: the
// previous corpus must be byte-for-byte intact each time, and a later run
// must finish and clean up what the killed ones left.
func TestGoldenKilledLeavesCorpusIntact(t *testing.T) {
	if testing.Short() {
		t.Skip("builds corpora")
	}
	if err := exec.Command("/usr/bin/python3", "-I", "-c", "import numpy").Run(); err != nil {
		if os.Getenv("CONFORM_REQUIRE_NUMPY") == "1" {
			t.Fatal("NumPy required but not available")
		}
		t.Skip("NumPy not available: install python3-numpy")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "conform")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dest := filepath.Join(dir, "golden")
	golden := func(seed string, perOp string) *exec.Cmd {
		cmd := exec.Command(bin, "golden", "--out", dest, "--oracles", "numpy", "--seed", seed, "--per-op", perOp)
		cmd.Dir = "../.." // the oracles are found from the module root
		return cmd
	}
	if out, err := golden("1", "50").CombinedOutput(); err != nil {
		t.Fatalf("first build: %v\n%s", err, out)
	}
	snapshot := func() map[string][]byte {
		files := map[string][]byte{}
		entries, _ := os.ReadDir(dest)
		for _, e := range entries {
			data, _ := os.ReadFile(filepath.Join(dest, e.Name()))
			files[e.Name()] = data
		}
		return files
	}
	before := snapshot()
	for _, delay := range []time.Duration{50 * time.Millisecond, 400 * time.Millisecond, 1500 * time.Millisecond, 3 * time.Second} {
		cmd := golden("2", "20000")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(delay)
		cmd.Process.Signal(syscall.SIGKILL)
		if err := cmd.Wait(); err == nil {
			t.Fatalf("the run finished within %v; it must be killed mid-way", delay)
		}
		after := snapshot()
		if len(after) != len(before) {
			t.Fatalf("killed after %v: the corpus has %d files, had %d", delay, len(after), len(before))
		}
		for name, data := range before {
			if !bytes.Equal(after[name], data) {
				t.Fatalf("killed after %v: %s changed", delay, name)
			}
		}
		if problems, _, err := corpus.VerifyManifest(os.DirFS(dest)); err != nil || len(problems) > 0 {
			t.Fatalf("killed after %v: manifest %v %v", delay, problems, err)
		}
	}
	if out, err := golden("3", "50").CombinedOutput(); err != nil {
		t.Fatalf("a build after the killed ones: %v\n%s", err, out)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".golden-new-*")); len(left) != 0 {
		t.Fatalf("directories of killed runs survive a successful run: %v", left)
	}
	if bytes.Equal(snapshot()["MANIFEST"], before["MANIFEST"]) {
		t.Fatal("the last build did not replace the corpus")
	}
}
