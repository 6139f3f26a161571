package oracle

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// notPrograms are the files of the source tree's internal/oracle/ directory that
// the children never run, so the binary does not embed them.
func notProgram(p string, d fs.DirEntry) bool {
	base := d.Name()
	switch {
	case d.IsDir():
		return base == "node_modules" || base == "testdata" || base == "__pycache__" || (strings.HasPrefix(base, ".") && p != ".")
	case strings.HasSuffix(base, ".go"), base == "README.md", strings.HasPrefix(base, "."):
		return true
	}
	return false
}

// sourceDir is this package's directory, the internal/oracle/ directory of the
// source tree (tests may change the working directory).
var sourceDir, _ = os.Getwd()

// sourcePrograms returns the oracle program files of the source tree
// (this package's directory), slash-separated and sorted.
func sourcePrograms(t *testing.T) []string {
	t.Helper()
	var files []string
	err := fs.WalkDir(os.DirFS(sourceDir), ".", func(p string, d fs.DirEntry, err error) error {
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
			files = append(files, p)
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
	entries, err := os.ReadDir(NodeDir(cache))
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
		want, err := os.ReadFile(filepath.Join(sourceDir, filepath.FromSlash(f)))
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
	// Nothing else (directories end in /), and no symbolic link or other
	// special file.
	if info, err := os.Lstat(dir); err != nil || !info.IsDir() {
		t.Fatalf("extracted %s is not a directory (%v)", dir, err)
	}
	var want, got []string
	for _, f := range sourcePrograms(t) {
		want = append(want, f)
		for d := path.Dir(f); d != "."; d = path.Dir(d) {
			if !slices.Contains(want, d+"/") {
				want = append(want, d+"/")
			}
		}
	}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case p == ".":
		case d.IsDir():
			got = append(got, p+"/")
		default:
			got = append(got, p)
			if !d.Type().IsRegular() {
				t.Errorf("extracted %s is a %v, not a regular file", p, d.Type())
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(want)
	slices.Sort(got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("extracted entries differ from the source tree's programs (-want +got):\n%s", diff)
	}
}

func TestEmbeddedProgramsAreTheSourceTree(t *testing.T) {
	src := sourcePrograms(t)
	emb := ProgramFiles()
	for _, f := range src {
		if !slices.Contains(emb, f) {
			t.Errorf("internal/oracle/%s is not embedded: add it to the //go:embed line of embed.go", f)
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
	if want := filepath.Join(cache, "conform", "node-"+LockHash(), "oracle-"+ProgramsHash()); dir != want {
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
	// What conform setup installs in the directory above, and a file's
	// time before reuse.
	marker := filepath.Join(NodeDir(cache), "node_modules", ".package-lock.json")
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

// TestExtractRepairsTheDirectory changes an unpacked directory in each way
// a reuse must not accept; Extract must notice and write it again.
func TestExtractRepairsTheDirectory(t *testing.T) {
	// sameSizeEdit flips one byte of the file at p.
	sameSizeEdit := func(p string) error {
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		data[len(data)/2] ^= 0x20
		return os.WriteFile(p, data, 0o644)
	}
	// linkToCopy replaces p by a symbolic link to a copy of it (same
	// size, same bytes) made outside the directory.
	linkToCopy := func(t *testing.T, p string) error {
		cp := filepath.Join(t.TempDir(), filepath.Base(p))
		info, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if info.IsDir() {
			err = os.CopyFS(cp, os.DirFS(p))
		} else {
			var data []byte
			if data, err = os.ReadFile(p); err == nil {
				err = os.WriteFile(cp, data, 0o644)
			}
		}
		if err != nil {
			return err
		}
		if err := os.RemoveAll(p); err != nil {
			return err
		}
		return os.Symlink(cp, p)
	}
	tests := []struct {
		rule   string
		change func(t *testing.T, dir string) error
	}{
		{"a missing program is written again", func(t *testing.T, dir string) error {
			return os.Remove(filepath.Join(dir, "tfjs", "oracle.js"))
		}},
		{"a same-size edit of a program is undone", func(t *testing.T, dir string) error {
			return sameSizeEdit(filepath.Join(dir, "numpy", "oracle.py"))
		}},
		{"a same-size edit of the lock file is undone", func(t *testing.T, dir string) error {
			return sameSizeEdit(filepath.Join(dir, "package-lock.json"))
		}},
		{"a symbolic link to an identical copy of a program is replaced", func(t *testing.T, dir string) error {
			return linkToCopy(t, filepath.Join(dir, "tfjs", "oracle.js"))
		}},
		{"a symbolic link to an identical copy of a program directory is replaced", func(t *testing.T, dir string) error {
			return linkToCopy(t, filepath.Join(dir, "numpy"))
		}},
		{"the directory as a symbolic link to an identical copy is replaced", func(t *testing.T, dir string) error {
			return linkToCopy(t, dir)
		}},
		{"an extra file next to a program (a module the program would import) is removed", func(t *testing.T, dir string) error {
			return os.WriteFile(filepath.Join(dir, "numpy", "json.py"), []byte("raise SystemExit(3)\n"), 0o644)
		}},
		{"a node_modules next to a node program is removed", func(t *testing.T, dir string) error {
			return os.MkdirAll(filepath.Join(dir, "tfjs", "node_modules", "@tensorflow", "tfjs-core"), 0o755)
		}},
		{"a FIFO in place of a program is replaced", func(t *testing.T, dir string) error {
			p := filepath.Join(dir, "ort", "json.js")
			if err := os.Remove(p); err != nil {
				return err
			}
			return syscall.Mkfifo(p, 0o644)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			cache := t.TempDir()
			dir, err := Extract(cache)
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.change(t, dir); err != nil {
				t.Fatal(err)
			}
			again, err := Extract(cache)
			if err != nil {
				t.Fatal(err)
			}
			if again != dir {
				t.Errorf("Extract = %s, want %s", again, dir)
			}
			checkExtracted(t, dir)
			if left := tempEntries(t, cache); len(left) > 0 {
				t.Errorf("Extract left %v", left)
			}
		})
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
