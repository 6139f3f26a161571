package corpus

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Writer builds a corpus directory in a hidden sibling of its destination
// and, on Commit, swaps it in atomically: a run killed at any point leaves
// the previous corpus intact.
//
// A Writer only ever replaces a destination that CheckDest accepts, and
// only ever deletes unfinished corpora it can recognise as its own (see
// NewWriter).
type Writer struct {
	dest, tmp string
	sums      map[string]string // path -> sha256 of every file written
	blobs     map[string][]byte // pack member name -> content
}

// DestError is the error of CheckDest, NewWriter and Commit when the
// destination is not something a Writer may replace.
type DestError struct {
	Dest   string // the destination as given, cleaned
	Reason string // why it is refused
}

func (e *DestError) Error() string { return "refusing to replace " + e.Dest + ": " + e.Reason }

// unfinishedName is the marker file a Writer keeps in its hidden build
// directory until Commit: a directory holding it, with unfinishedText as
// its content, is an unfinished corpus a killed run left behind.
const (
	unfinishedName = ".conform-unfinished"
	unfinishedText = "conform corpus.Writer: unfinished corpus; safe to delete\n"
)

// CheckDest reports whether dest may be replaced by a corpus a Writer
// builds, which deletes everything in it. It returns nil if dest does not
// exist, is an empty directory, or is a conform corpus; otherwise an error
// of type *DestError that says why, or the error met reading dest.
//
// A directory is a conform corpus when
//   - it holds a regular file named MANIFEST (see ManifestName) of at most
//     64 MiB whose every line is "<sha256>  <path>" as FormatManifest
//     writes it: 64 lowercase hex digits, two spaces, and a clean,
//     relative, slash-separated path other than MANIFEST itself; and
//   - every file under it (at any depth, hidden ones and symbolic links
//     included; directories aside) is that MANIFEST or is listed in it.
//
// Listed files may be missing or changed (a damaged corpus can be
// rebuilt), but nothing the MANIFEST does not account for is ever deleted.
// A symbolic link, a regular file or any other non-directory at dest, and
// a dest spelled ".", ".." or "/", are refused.
func CheckDest(dest string) error {
	dest = filepath.Clean(dest)
	switch filepath.Base(dest) {
	case ".", "..", string(filepath.Separator):
		return &DestError{dest, fmt.Sprintf("name the corpus directory by a path that does not end in %q", filepath.Base(dest))}
	}
	st, err := os.Lstat(dest)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case st.Mode()&fs.ModeSymlink != 0:
		return &DestError{dest, "it is a symbolic link; name the directory itself"}
	case !st.IsDir():
		return &DestError{dest, "it is not a directory"}
	}
	entries, err := os.ReadDir(dest)
	if err != nil {
		return err
	}
	if len(entries) == 0 {
		return nil
	}
	listed, err := readManifest(filepath.Join(dest, ManifestName))
	if err != nil {
		return &DestError{dest, "it is not empty and " + err.Error() + ", so it is not a conform corpus"}
	}
	return filepath.WalkDir(dest, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, err := filepath.Rel(dest, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel != ManifestName && !listed[rel] {
			return &DestError{dest, fmt.Sprintf("it holds %s, which its %s does not list", rel, ManifestName)}
		}
		return nil
	})
}

// readManifest reads and parses the MANIFEST at name strictly (see
// CheckDest) and returns the set of paths it lists.
func readManifest(name string) (map[string]bool, error) {
	st, err := os.Lstat(name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("has no %s", ManifestName)
	case err != nil:
		return nil, err
	case !st.Mode().IsRegular():
		return nil, fmt.Errorf("its %s is not a regular file", ManifestName)
	case st.Size() > MaxManifestBytes:
		return nil, fmt.Errorf("its %s is larger than a conform manifest can be", ManifestName)
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	listed := map[string]bool{}
	if len(data) == 0 {
		return listed, nil
	}
	if data[len(data)-1] != '\n' {
		return nil, fmt.Errorf("its %s is not a conform manifest (no final newline)", ManifestName)
	}
	for n, line := range strings.Split(string(data[:len(data)-1]), "\n") {
		sum, p, ok := strings.Cut(line, "  ")
		if !ok || !isSum(sum) || !fs.ValidPath(p) || p == "." || p == ManifestName || listed[p] {
			return nil, fmt.Errorf("its %s is not a conform manifest (line %d is not \"<sha256>  <path>\")", ManifestName, n+1)
		}
		listed[p] = true
	}
	return listed, nil
}

// isSum reports whether s is a hex SHA-256 as Sum writes it.
func isSum(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// NewWriter starts a corpus that will replace the directory dest. It
// refuses a dest that CheckDest refuses, before creating anything.
//
// The Writer builds the corpus in a new hidden sibling ".<base>-new-*" of
// dest, marked as unfinished until Commit. NewWriter first deletes the
// siblings of that name that killed runs left behind, but only those it
// recognises as its own: directories (not symbolic links) that hold the
// unfinished marker, or that are conform corpora by CheckDest's rule
// (a run killed during Commit), or that are empty. Anything else of that
// name is left alone.
func NewWriter(dest string) (*Writer, error) {
	dest = filepath.Clean(dest)
	if err := CheckDest(dest); err != nil {
		return nil, err
	}
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	removeStale(parent, "."+filepath.Base(dest)+"-new-")
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dest)+"-new-")
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, unfinishedName), []byte(unfinishedText), 0o644); err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return &Writer{dest: dest, tmp: tmp, sums: map[string]string{}, blobs: map[string][]byte{}}, nil
}

// removeStale deletes the unfinished corpora that killed runs left in
// parent under names starting with prefix, as NewWriter describes.
func removeStale(parent, prefix string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), prefix) || !e.IsDir() { // e.IsDir is false for a symbolic link
			continue
		}
		dir := filepath.Join(parent, e.Name())
		if isUnfinished(dir) || CheckDest(dir) == nil {
			os.RemoveAll(dir)
			continue
		}
		unix.Rmdir(dir) // succeeds only if empty: a run killed before it wrote its marker
	}
}

// isUnfinished reports whether dir holds the marker of a Writer's
// unfinished corpus.
func isUnfinished(dir string) bool {
	name := filepath.Join(dir, unfinishedName)
	st, err := os.Lstat(name)
	if err != nil || !st.Mode().IsRegular() || st.Size() != int64(len(unfinishedText)) {
		return false
	}
	data, err := os.ReadFile(name)
	return err == nil && string(data) == unfinishedText
}

// Blob stores a .npy file in the corpus's pack (see PackName), named by
// its content, and returns the path case files use for it,
// "blobs/<name>.npy".
func (w *Writer) Blob(data []byte) (string, error) {
	name := Sum(data)[:24] + ".npy"
	if _, ok := w.blobs[name]; !ok {
		w.blobs[name] = append([]byte(nil), data...)
	}
	return "blobs/" + name, nil
}

// File writes a file at the slash-separated path name in the corpus.
func (w *Writer) File(name string, data []byte) error {
	p := filepath.Join(w.tmp, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return err
	}
	w.sums[name] = Sum(data)
	return nil
}

// Commit writes the blob pack and the MANIFEST, syncs, checks the
// destination again with CheckDest, and atomically replaces it with the new
// corpus. After an error the caller should Abort.
func (w *Writer) Commit() error {
	if len(w.blobs) > 0 {
		pack, err := writePack(w.blobs)
		if err != nil {
			return err
		}
		if err := w.File(PackName, pack); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(w.tmp, ManifestName), FormatManifest(w.sums), 0o644); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(w.tmp, unfinishedName)); err != nil {
		return err
	}
	if err := syncTree(w.tmp); err != nil {
		return err
	}
	// dest may have changed while the corpus was built.
	if err := CheckDest(w.dest); err != nil {
		return err
	}
	if _, err := os.Stat(w.dest); errors.Is(err, os.ErrNotExist) {
		if err := os.Rename(w.tmp, w.dest); err != nil {
			return err
		}
		return nil
	}
	// Exchange the two directories in one step, then delete the old one.
	if err := unix.Renameat2(unix.AT_FDCWD, w.tmp, unix.AT_FDCWD, w.dest, unix.RENAME_EXCHANGE); err != nil {
		return fmt.Errorf("swapping in the new corpus: %w", err)
	}
	return os.RemoveAll(w.tmp)
}

// Abort removes the unfinished corpus.
func (w *Writer) Abort() error { return os.RemoveAll(w.tmp) }

// syncTree flushes the file system holding dir (syncfs), so that the
// new corpus is on disk before it is swapped in.
func syncTree(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Syncfs(int(f.Fd()))
}
