package corpus

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// snapshotTree returns every file under root (relative slash path ->
// content; symbolic links as "-> target"), and the directories as "dir/".
func snapshotTree(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			files[rel] = "-> " + target
			return err
		case d.IsDir():
			files[rel+"/"] = ""
		default:
			data, err := os.ReadFile(p)
			files[rel] = string(data)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sameTree(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func manifestOf(files map[string]string) string {
	sums := map[string]string{}
	for name, content := range files {
		sums[name] = Sum([]byte(content))
	}
	return string(FormatManifest(sums))
}

// writeTree creates files (relative slash path -> content) under root.
func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNewWriterRefusesNonCorpus checks the destinations NewWriter refuses
// (leaving them byte for byte as they were) and accepts (then replaced by
// Commit).
func TestNewWriterRefusesNonCorpus(t *testing.T) {
	corpusFiles := map[string]string{"a.jsonl": "{}\n", "blobs.npz": "pk"}
	tests := []struct {
		rule  string
		setup func(t *testing.T, dest string) // nil: dest does not exist
		ok    bool
	}{
		{"a missing destination is created", nil, true},
		{"an empty directory is replaced", func(t *testing.T, dest string) { os.Mkdir(dest, 0o755) }, true},
		{"a corpus whose MANIFEST lists every file is replaced", func(t *testing.T, dest string) {
			writeTree(t, dest, corpusFiles)
			writeTree(t, dest, map[string]string{ManifestName: manifestOf(corpusFiles)})
		}, true},
		{"a damaged corpus (a listed file changed or missing) is still replaced", func(t *testing.T, dest string) {
			writeTree(t, dest, map[string]string{"a.jsonl": "changed", ManifestName: manifestOf(corpusFiles)})
		}, true},
		{"a directory with files and no MANIFEST is refused", func(t *testing.T, dest string) {
			writeTree(t, dest, map[string]string{"notes.txt": "mine", "sub/deep.txt": "mine too"})
		}, false},
		{"a MANIFEST that is not a conform manifest is refused", func(t *testing.T, dest string) {
			writeTree(t, dest, map[string]string{ManifestName: "include README\nrecursive-include src *\n"})
		}, false},
		{"a MANIFEST with an upper-case checksum is refused", func(t *testing.T, dest string) {
			writeTree(t, dest, map[string]string{"a": "x", ManifestName: strings.ToUpper(Sum([]byte("x"))) + "  a\n"})
		}, false},
		{"a MANIFEST naming a path outside the directory is refused", func(t *testing.T, dest string) {
			writeTree(t, dest, map[string]string{ManifestName: Sum(nil) + "  ../x\n"})
		}, false},
		{"a corpus holding a file its MANIFEST does not list is refused", func(t *testing.T, dest string) {
			writeTree(t, dest, corpusFiles)
			writeTree(t, dest, map[string]string{ManifestName: manifestOf(corpusFiles), "sub/.hidden/mine.txt": "mine"})
		}, false},
		{"a MANIFEST that is a symbolic link is refused", func(t *testing.T, dest string) {
			writeTree(t, dest, map[string]string{"real": Sum(nil) + "  real\n"})
			os.Symlink("real", filepath.Join(dest, ManifestName))
		}, false},
		{"a regular file is refused", func(t *testing.T, dest string) {
			os.WriteFile(dest, []byte("a file"), 0o644)
		}, false},
		{"a symbolic link to a corpus is refused", func(t *testing.T, dest string) {
			real := dest + "-real"
			writeTree(t, real, corpusFiles)
			writeTree(t, real, map[string]string{ManifestName: manifestOf(corpusFiles)})
			os.Symlink(filepath.Base(real), dest)
		}, false},
	}
	for i, tt := range tests {
		parent := filepath.Join(t.TempDir(), "p")
		os.Mkdir(parent, 0o755)
		dest := filepath.Join(parent, "golden")
		if tt.setup != nil {
			tt.setup(t, dest)
		}
		before := snapshotTree(t, parent)
		w, err := NewWriter(dest)
		if !tt.ok {
			var de *DestError
			if !errors.As(err, &de) {
				t.Errorf("%d %s: NewWriter: %v, want a *DestError", i, tt.rule, err)
			}
			if w != nil {
				// As a caller would: the check below then sees what a
				// Writer that accepted dest would have deleted.
				w.File("new.jsonl", []byte("new"))
				if w.Commit() != nil {
					w.Abort()
				}
			}
			if after := snapshotTree(t, parent); !sameTree(before, after) {
				t.Errorf("%d %s: the directory changed:\nbefore %q\nafter  %q", i, tt.rule, before, after)
			}
			continue
		}
		if err != nil {
			t.Errorf("%d %s: NewWriter: %v", i, tt.rule, err)
			continue
		}
		if err := w.File("new.jsonl", []byte("new")); err != nil {
			t.Fatal(err)
		}
		if err := w.Commit(); err != nil {
			t.Errorf("%d %s: Commit: %v", i, tt.rule, err)
			continue
		}
		want := map[string]string{"new.jsonl": "new", ManifestName: manifestOf(map[string]string{"new.jsonl": "new"})}
		if got := snapshotTree(t, dest); !sameTree(got, map[string]string{"./": "", "new.jsonl": want["new.jsonl"], ManifestName: want[ManifestName]}) {
			t.Errorf("%d %s: the new corpus is %q", i, tt.rule, got)
		}
		if left, _ := filepath.Glob(filepath.Join(parent, ".golden-new-*")); len(left) != 0 {
			t.Errorf("%d %s: left behind %v", i, tt.rule, left)
		}
	}
}

// TestCheckDestRefusesDot checks that "." and ".." are refused even when
// they are conform corpora: the swap cannot rename them.
func TestCheckDestRefusesDot(t *testing.T) {
	for _, dest := range []string{".", "..", "/", "x/.."} {
		var de *DestError
		if err := CheckDest(dest); !errors.As(err, &de) {
			t.Errorf("CheckDest(%q) = %v, want a *DestError", dest, err)
		}
	}
}

// TestCheckDestAcceptsWrittenCorpus checks that what a Writer commits
// is a conform corpus by CheckDest's rule, pack and nested files included.
func TestCheckDestAcceptsWrittenCorpus(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "golden")
	w, err := NewWriter(dest)
	if err != nil {
		t.Fatal(err)
	}
	w.Blob([]byte("blob"))
	w.File("sub/dir/case.json", []byte("{}"))
	w.File("PROVENANCE", []byte("p"))
	if err := w.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := CheckDest(dest); err != nil {
		t.Fatalf("a committed corpus is refused: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dest, unfinishedName)); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the unfinished marker survives Commit: %v", err)
	}
	if err := CheckDest("../../cases/golden"); err != nil {
		t.Fatalf("the embedded golden corpus is refused: %v", err)
	}
}

// TestNewWriterStaleCleanup checks which ".<base>-new-*" siblings
// NewWriter deletes: only unfinished corpora it recognises as its own.
func TestNewWriterStaleCleanup(t *testing.T) {
	marker := map[string]string{unfinishedName: unfinishedText}
	tests := []struct {
		rule    string
		name    string
		setup   func(t *testing.T, p string)
		removed bool
	}{
		{"a directory with the unfinished marker is a killed run's: removed", ".golden-new-1", func(t *testing.T, p string) {
			writeTree(t, p, marker)
			writeTree(t, p, map[string]string{"a.jsonl": "partial", "blobs/x.npy": "x"})
		}, true},
		{"a finished corpus (killed during Commit) is removed", ".golden-new-2", func(t *testing.T, p string) {
			writeTree(t, p, map[string]string{"a.jsonl": "a", ManifestName: manifestOf(map[string]string{"a.jsonl": "a"})})
		}, true},
		{"an empty directory (killed before the marker) is removed", ".golden-new-3", func(t *testing.T, p string) {
			os.Mkdir(p, 0o755)
		}, true},
		{"a directory without the marker is kept", ".golden-new-4", func(t *testing.T, p string) {
			writeTree(t, p, map[string]string{"mine.txt": "mine"})
		}, false},
		{"a marker with other content is kept", ".golden-new-5", func(t *testing.T, p string) {
			writeTree(t, p, map[string]string{unfinishedName: "something else\n", "mine.txt": "mine"})
		}, false},
		{"a regular file of that name is kept", ".golden-new-6", func(t *testing.T, p string) {
			os.WriteFile(p, []byte("mine"), 0o644)
		}, false},
		{"a symbolic link of that name, and what it points to, are kept", ".golden-new-7", func(t *testing.T, p string) {
			writeTree(t, filepath.Join(filepath.Dir(p), "target"), marker)
			os.Symlink("target", p)
		}, false},
	}
	parent := t.TempDir()
	for _, tt := range tests {
		tt.setup(t, filepath.Join(parent, tt.name))
	}
	keep := map[string]map[string]string{}
	for _, tt := range tests {
		if !tt.removed {
			keep[tt.name] = snapshotTree(t, filepath.Join(parent, tt.name))
		}
	}
	target := snapshotTree(t, filepath.Join(parent, "target"))
	w, err := NewWriter(filepath.Join(parent, "golden"))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Abort()
	for _, tt := range tests {
		_, err := os.Lstat(filepath.Join(parent, tt.name))
		switch {
		case tt.removed && !errors.Is(err, fs.ErrNotExist):
			t.Errorf("%s: not removed (%v)", tt.rule, err)
		case !tt.removed && err != nil:
			t.Errorf("%s: removed", tt.rule)
		case !tt.removed && !sameTree(keep[tt.name], snapshotTree(t, filepath.Join(parent, tt.name))):
			t.Errorf("%s: changed", tt.rule)
		}
	}
	if !sameTree(target, snapshotTree(t, filepath.Join(parent, "target"))) {
		t.Errorf("the target of a symbolic link changed")
	}
	if !bytes.Equal([]byte(unfinishedText), mustRead(t, filepath.Join(w.tmp, unfinishedName))) {
		t.Errorf("the new build directory has no unfinished marker")
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestCommitRechecksDest checks that Commit refuses a destination that
// stopped being replaceable while the corpus was built, and leaves it.
func TestCommitRechecksDest(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "golden")
	w, err := NewWriter(dest)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, dest, map[string]string{"mine.txt": "mine"})
	before := snapshotTree(t, dest)
	w.File("new.jsonl", []byte("new"))
	var de *DestError
	if err := w.Commit(); !errors.As(err, &de) {
		t.Errorf("Commit: %v, want a *DestError", err)
	}
	w.Abort()
	if after := snapshotTree(t, dest); !sameTree(before, after) {
		t.Errorf("the directory changed: %q -> %q", before, after)
	}
}
