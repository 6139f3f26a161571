package corpus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// Writer builds a corpus directory in a hidden sibling of its destination
// and, on Commit, swaps it in atomically: a run killed at any point leaves
// the previous corpus intact.
type Writer struct {
	dest, tmp string
	sums      map[string]string // path -> sha256 of every file written
	blobs     map[string][]byte // pack member name -> content
}

// NewWriter starts a corpus that will replace the directory dest.
func NewWriter(dest string) (*Writer, error) {
	dest = filepath.Clean(dest)
	parent := filepath.Dir(dest)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	// Directories left by killed runs are garbage: the corpus they were
	// building was never swapped in.
	stale, _ := filepath.Glob(filepath.Join(parent, "."+filepath.Base(dest)+"-new-*"))
	for _, dir := range stale {
		os.RemoveAll(dir)
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(dest)+"-new-")
	if err != nil {
		return nil, err
	}
	return &Writer{dest: dest, tmp: tmp, sums: map[string]string{}, blobs: map[string][]byte{}}, nil
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

// Commit writes the blob pack and the MANIFEST, syncs, and atomically replaces the
// destination with the new corpus.
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
	if err := syncTree(w.tmp); err != nil {
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
