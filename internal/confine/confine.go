// Package confine reads the files of cases and corpora, which conform does
// not trust: a case file may come from anyone, a corpus may be downloaded.
//
// Every read goes through an fs.FS. Dir opens a directory as one whose
// paths cannot leave it (no absolute paths, no "..", no symbolic links
// pointing outside it). Open and ReadFile read regular files only — a
// FIFO, a device or a directory is refused before it is opened, so nothing
// blocks or reads forever — and check a file's size against the input
// limit before a byte of it is read. The input limit travels with the file
// system: WithLimit returns one whose files may be larger or smaller than
// DefaultLimit, so that runs with different limits can go on at once. ReadNPY also checks a
// .npy file's header against the file's real size before it allocates the
// payload. Error messages name files but never quote their contents.
package confine

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/npy"
)

// DefaultLimit is the default input limit: 1 GiB, the default output
// limit of the engine too.
const DefaultLimit = 1 << 30

// limitedFS is a file system with its own input limit (see WithLimit).
type limitedFS struct {
	fs.FS
	limit int64
}

// WithLimit returns fsys with the input limit n: Open, ReadFile and
// ReadNPY refuse its files larger than n bytes (case files, case lists,
// .npy inputs and expected outputs, pack members) before reading them.
// n <= 0 means DefaultLimit. Any other file system has the input limit
// DefaultLimit. A sub-tree of the result (fs.Sub) keeps its limit.
func WithLimit(fsys fs.FS, n int64) fs.FS {
	if l, ok := fsys.(limitedFS); ok {
		fsys = l.FS
	}
	if n <= 0 {
		n = DefaultLimit
	}
	return limitedFS{fsys, n}
}

// LimitOf returns the input limit of fsys in bytes (see WithLimit).
func LimitOf(fsys fs.FS) int64 {
	if l, ok := fsys.(limitedFS); ok {
		return l.limit
	}
	return DefaultLimit
}

// Stat implements fs.StatFS.
func (l limitedFS) Stat(name string) (fs.FileInfo, error) { return fs.Stat(l.FS, name) }

// ReadDir implements fs.ReadDirFS.
func (l limitedFS) ReadDir(name string) ([]fs.DirEntry, error) { return fs.ReadDir(l.FS, name) }

// Sub implements fs.SubFS: the sub-tree keeps the limit.
func (l limitedFS) Sub(dir string) (fs.FS, error) {
	sub, err := fs.Sub(l.FS, dir)
	if err != nil {
		return nil, err
	}
	return limitedFS{sub, l.limit}, nil
}

// Dir returns the directory dir as a file system whose paths cannot leave
// it, with the input limit limit (see WithLimit): a symbolic link may
// point elsewhere inside dir, but one that leads out of it cannot be
// followed.
func Dir(dir string, limit int64) (fs.FS, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	// The root stays open for the life of the program, as the file
	// systems it serves are used until the command ends.
	return WithLimit(root.FS(), limit), nil
}

// ReadPath reads the file at path, a path the user named (on the command
// line, say): it may be anywhere, but it must be a regular file within
// the input limit limit (0 or less: DefaultLimit).
func ReadPath(path string, limit int64) ([]byte, error) {
	return readFile(WithLimit(os.DirFS(filepath.Dir(path)), limit), filepath.Base(path), path)
}

// CheckPath reports whether name, a path from a case or corpus, is a
// relative slash-separated path that stays inside its directory: not
// absolute, no "." or ".." elements, not empty.
func CheckPath(name string) error {
	if !fs.ValidPath(name) || name == "." {
		return fmt.Errorf("path %q is not a relative path inside the case's directory (absolute paths and .. are not allowed)", name)
	}
	return nil
}

// Open opens the regular file name of fsys for reading and returns it
// with its size. Anything but a regular file, and a file larger than the
// input limit, is refused before it is opened.
func Open(fsys fs.FS, name string) (fs.File, int64, error) {
	return open(fsys, name, name)
}

// open is Open, naming the file shown in errors.
func open(fsys fs.FS, name, shown string) (fs.File, int64, error) {
	return openWithin(fsys, name, shown, LimitOf(fsys))
}

// openWithin is open with the size limit limit, at most the input limit
// of fsys.
func openWithin(fsys fs.FS, name, shown string, limit int64) (fs.File, int64, error) {
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, 0, plain(err, shown)
	}
	if !fi.Mode().IsRegular() {
		return nil, 0, fmt.Errorf("%s is not a regular file (%s)", shown, FileKind(fi.Mode()))
	}
	if fi.Size() > limit {
		if limit < LimitOf(fsys) {
			return nil, 0, fmt.Errorf("%s is %d bytes, more than the limit of %d bytes for such a file", shown, fi.Size(), limit)
		}
		return nil, 0, fmt.Errorf("%s is %d bytes, more than the input limit of %d bytes (raise it with --max-input)", shown, fi.Size(), limit)
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, 0, plain(err, shown)
	}
	// The file may have been replaced since Stat: check what was opened.
	if fi, err = f.Stat(); err != nil || !fi.Mode().IsRegular() || fi.Size() > limit {
		f.Close()
		return nil, 0, fmt.Errorf("%s changed while it was opened", shown)
	}
	return f, fi.Size(), nil
}

// ReadFile reads the regular file name of fsys, within the input limit.
func ReadFile(fsys fs.FS, name string) ([]byte, error) {
	return readFile(fsys, name, name)
}

// readFile is ReadFile, naming the file shown in errors.
func readFile(fsys fs.FS, name, shown string) ([]byte, error) {
	return readFileWithin(fsys, name, shown, LimitOf(fsys))
}

// ReadPathWithin is ReadPath with the smaller of limit and the input
// limit inputLimit, for a file whose format needs less (a known-failures
// list).
func ReadPathWithin(path string, limit, inputLimit int64) ([]byte, error) {
	fsys := WithLimit(os.DirFS(filepath.Dir(path)), inputLimit)
	return readFileWithin(fsys, filepath.Base(path), path, min(limit, LimitOf(fsys)))
}

// readFileWithin is readFile with the size limit limit.
func readFileWithin(fsys fs.FS, name, shown string, limit int64) ([]byte, error) {
	f, size, err := openWithin(fsys, name, shown, limit)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data := make([]byte, size)
	n, err := io.ReadFull(f, data)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, plain(err, shown)
	}
	var extra [1]byte
	if k, _ := f.Read(extra[:]); n < len(data) || k > 0 {
		return nil, fmt.Errorf("%s changed size while it was read", shown)
	}
	return data, nil
}

// ReadNPY reads the .npy file name of fsys: a regular file within the
// input limit, whose header must describe exactly the payload the file
// holds before the payload is read. Every error is bad_input and names
// the file.
func ReadNPY(fsys fs.FS, name string) (*engine.Tensor, error) {
	f, size, err := Open(fsys, name)
	if err != nil {
		return nil, engine.Errorf(engine.BadInput, "npy: %v", err)
	}
	defer f.Close()
	t, err := npy.ReadFrom(f, size)
	if err != nil {
		var e *engine.Error
		if errors.As(err, &e) {
			return nil, engine.Errorf(e.Kind, "npy: %s: %s", name, strings.TrimPrefix(e.Message, "npy: "))
		}
		return nil, engine.Errorf(engine.BadInput, "npy: %s: %v", name, err)
	}
	return t, nil
}

// plain returns err as "<shown>: <reason>", without the operation and
// path of an *fs.PathError.
func plain(err error, shown string) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("%s: %v", shown, err)
}

// FileKind names the type of a file that is not regular: "a directory",
// "a named pipe", "a character device", ...
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "type " + m.Type().String()
}
