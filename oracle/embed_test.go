package oracle

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// notPrograms are the files of the source tree's oracle/ directory that
// the children never run, so the binary does not embed them.
func notProgram(p string, d fs.DirEntry) bool {
	base := d.Name()
	switch {
	case d.IsDir():
		return base == "node_modules" || base == "testdata" || base == "__pycache__" || (strings.HasPrefix(base, ".") && p != ".")
	case strings.HasSuffix(base, ".go"), base == "README.md", base == "setup.sh", base == ".gitignore":
		return true
	}
	return false
}

// sourcePrograms returns the oracle program files of the source tree
// (this package's directory), slash-separated and sorted.
func sourcePrograms(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if notProgram(p, d) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() {
			files = append(files, filepath.ToSlash(p))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files)
	return files
}

// tempEntries returns the names in the directory that holds the extracted
// directories which are left-over temporary or broken directories.
func tempEntries(t *testing.T, cache string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(cache, "conform"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var left []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".tmp-oracle-") || strings.Contains(e.Name(), ".broken-") {
			left = append(left, e.Name())
		}
	}
	return left
}

// checkExtracted fails the test unless dir holds every source program
// byte for byte.
func checkExtracted(t *testing.T, dir string) {
	t.Helper()
	for _, f := range sourcePrograms(t) {
		want, err := os.ReadFile(filepath.FromSlash(f))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			t.Errorf("extracted %s: %v", f, err)
			continue
		}
		if !bytes.Equal(got, want) {
			t.Errorf("extracted %s differs from the source tree's (%d bytes, want %d)", f, len(got), len(want))
		}
	}
}

func TestEmbeddedProgramsAreTheSourceTree(t *testing.T) {
	src := sourcePrograms(t)
	emb := ProgramFiles()
	for _, f := range src {
		if !slices.Contains(emb, f) {
			t.Errorf("oracle/%s is not embedded: add it to the //go:embed line of embed.go", f)
		}
	}
	for _, f := range emb {
		if !slices.Contains(src, f) {
			t.Errorf("embedded %s is not an oracle program of the source tree", f)
		}
		if strings.HasPrefix(f, "node_modules/") {
			t.Errorf("embedded %s: node_modules must not be embedded", f)
		}
	}
	for _, must := range []string{"numpy/oracle.py", "tfjs/oracle.js", "ort/oracle.js", "tflite/oracle.js", "package.json", "package-lock.json"} {
		if !slices.Contains(emb, must) {
			t.Errorf("%s is not embedded", must)
		}
	}
}

func TestExtract(t *testing.T) {
	cache := t.TempDir()
	dir, err := Extract(cache)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(cache, "conform", "oracle-"+ProgramsHash()); dir != want {
		t.Errorf("Extract = %s, want %s", dir, want)
	}
	checkExtracted(t, dir)
	if left := tempEntries(t, cache); len(left) > 0 {
		t.Errorf("Extract left %v", left)
	}
	for _, p := range []string{"", "numpy"} {
		info, err := os.Stat(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != 0o755 {
			t.Errorf("%s has mode %v, want 0755 (readable by everyone, as the source tree)", filepath.Join(dir, p), info.Mode().Perm())
		}
	}
}

func TestExtractReusesTheDirectory(t *testing.T) {
	cache := t.TempDir()
	dir, err := Extract(cache)
	if err != nil {
		t.Fatal(err)
	}
	// What conform setup installs there, and a file's time before reuse.
	marker := filepath.Join(dir, "node_modules", ".package-lock.json")
	if err := os.MkdirAll(filepath.Dir(marker), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(marker, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	lock := filepath.Join(dir, "package-lock.json")
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	again, err := Extract(cache)
	if err != nil {
		t.Fatal(err)
	}
	if again != dir {
		t.Errorf("second Extract = %s, want the first one's %s", again, dir)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("node_modules did not survive a second Extract: %v", err)
	}
	if info, err := os.Stat(lock); err != nil || !info.ModTime().Equal(old) {
		t.Errorf("a second Extract rewrote package-lock.json (%v, %v)", info.ModTime(), err)
	}
}

func TestExtractRepairsAnIncompleteDirectory(t *testing.T) {
	cache := t.TempDir()
	dir, err := Extract(cache)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, "tfjs", "oracle.js")); err != nil {
		t.Fatal(err)
	}
	if _, err := Extract(cache); err != nil {
		t.Fatal(err)
	}
	checkExtracted(t, dir)
	if left := tempEntries(t, cache); len(left) > 0 {
		t.Errorf("Extract left %v", left)
	}
}

func TestExtractIsAtomic(t *testing.T) {
	n := len(ProgramFiles())
	tests := []struct {
		rule   string
		failAt int // the write that fails, counting from 1
	}{
		{"a failed first write leaves no directory", 1},
		{"a failed write halfway leaves no directory", n / 2},
		{"a failed last write leaves no directory", n},
	}
	for _, tt := range tests {
		cache := t.TempDir()
		writes := 0
		writeFile = func(name string, data []byte, perm os.FileMode) error {
			writes++
			if writes == tt.failAt {
				return errors.New("disk full")
			}
			return os.WriteFile(name, data, perm)
		}
		_, err := Extract(cache)
		writeFile = os.WriteFile
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%s: Extract = %v, want the write's error", tt.rule, err)
		}
		if _, err := os.Stat(ExtractDir(cache)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %s exists after the failure (%v)", tt.rule, ExtractDir(cache), err)
		}
		if left := tempEntries(t, cache); len(left) > 0 {
			t.Errorf("%s: the failed Extract left %v", tt.rule, left)
		}
		dir, err := Extract(cache)
		if err != nil {
			t.Fatalf("%s: Extract after the failure: %v", tt.rule, err)
		}
		checkExtracted(t, dir)
	}
}

func TestExtractConcurrently(t *testing.T) {
	cache := t.TempDir()
	const n = 8
	dirs := make([]string, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dirs[i], errs[i] = Extract(cache)
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil || dirs[i] != ExtractDir(cache) {
			t.Errorf("Extract %d of %d at once = %s, %v; want %s", i, n, dirs[i], errs[i], ExtractDir(cache))
		}
	}
	checkExtracted(t, ExtractDir(cache))
	if left := tempEntries(t, cache); len(left) > 0 {
		t.Errorf("concurrent Extracts left %v", left)
	}
}
