// Package output writes the files conform's commands produce — eval's
// result, check's JUnit and JSON reports, report's pages, the cases fuzz
// saves — so that writing one never destroys anything else.
//
// Inputs.Check refuses, before a run starts, a destination that is a
// directory or anything else that is not a regular file, and one that is
// a file the run reads: the corpus, the case and its inputs, the
// known-failures list, the implementation's program. Inputs are compared
// with os.SameFile, so other spellings, hard links and symbolic links are
// caught. Two outputs of one run that name the same file are refused too.
//
// Write writes through a new temporary file beside the destination,
// renamed into place: the destination never holds a partial file, a
// symbolic link there is replaced rather than followed, and a file that
// is linked to it elsewhere keeps its bytes. A replaced file keeps its
// permission bits; a new one gets 0644 less the umask.
package output

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/conformsuite/conform/internal/confine"
)

// Problem says why a destination is refused.
type Problem int

// The problems Check reports.
const (
	// IsDir: the destination is an existing directory.
	IsDir Problem = iota + 1
	// NotRegular: the destination exists and is not a regular file (a
	// device, a named pipe, a socket).
	NotRegular
	// IsInput: the destination is a file the run reads.
	IsInput
	// SameOutput: another output of the run names the same file.
	SameOutput
)

// RefusedError is a destination Check refuses.
type RefusedError struct {
	Flag    string // the option naming the destination ("--junit", "-o")
	Path    string // the destination as given
	Problem Problem
	// What describes the input or the other output it is, or the kind of
	// file it is.
	What string
}

func (e *RefusedError) Error() string {
	switch e.Problem {
	case IsDir:
		return fmt.Sprintf("%s %s is a directory; name a file", e.Flag, e.Path)
	case NotRegular:
		return fmt.Sprintf("%s %s is not a regular file (%s); refusing to replace it", e.Flag, e.Path, e.What)
	case SameOutput:
		return fmt.Sprintf("%s %s is the file %s writes too; name another file", e.Flag, e.Path, e.What)
	}
	return fmt.Sprintf("%s %s is %s; refusing to overwrite it", e.Flag, e.Path, e.What)
}

// Inputs is the set of files a run reads, which no output may replace,
// and the outputs accepted so far.
type Inputs struct {
	files   []named
	dirs    []named
	outputs []named // path: the output's key (see key)
}

// named is a path with a description.
type named struct{ path, what string }

// AddFile records the file at path as an input, described as what ("the
// known-failures file"): Check refuses it, named "what (path)".
func (in *Inputs) AddFile(path, what string) {
	in.files = append(in.files, named{path, what})
}

// AddDir records every file under the directory dir as an input,
// described as what ("a file of the corpus DIR"): Check refuses any of
// them, named "what (path inside dir)".
func (in *Inputs) AddDir(dir, what string) {
	in.dirs = append(in.dirs, named{dir, what})
}

// Check refuses path, named by the option flag, as a destination: an
// existing directory or other file that is not regular, a file the run
// reads (see AddFile, AddDir), or the destination of an output checked
// before. The error is a *RefusedError. A destination that cannot be
// examined (a missing parent, say) is accepted: writing it will say why
// it fails.
func (in *Inputs) Check(flag, path string) error {
	k := key(path)
	for _, o := range in.outputs {
		if o.path == k {
			return &RefusedError{Flag: flag, Path: path, Problem: SameOutput, What: o.what}
		}
	}
	if err := in.Refuse(flag, path); err != nil {
		return err
	}
	in.outputs = append(in.outputs, named{k, flag})
	return nil
}

// Refuse is Check without recording path as an output: for files written
// one after another into a directory (the cases fuzz saves), from several
// goroutines at once if need be.
func (in *Inputs) Refuse(flag, path string) error {
	st, err := os.Stat(path)
	lst, lerr := os.Lstat(path)
	if err == nil {
		switch {
		case st.IsDir():
			return &RefusedError{Flag: flag, Path: path, Problem: IsDir}
		case !st.Mode().IsRegular():
			return &RefusedError{Flag: flag, Path: path, Problem: NotRegular, What: confine.FileKind(st.Mode())}
		}
	}
	same := func(fi fs.FileInfo) bool {
		return fi != nil && ((err == nil && os.SameFile(st, fi)) || (lerr == nil && os.SameFile(lst, fi)))
	}
	if err == nil || lerr == nil {
		for _, f := range in.files {
			fi, ferr := os.Stat(f.path)
			if ferr != nil {
				fi = nil
			}
			li, lerr := os.Lstat(f.path)
			if lerr != nil {
				li = nil
			}
			if same(fi) || same(li) {
				return &RefusedError{Flag: flag, Path: path, Problem: IsInput, What: fmt.Sprintf("%s (%s)", f.what, f.path)}
			}
		}
		for _, d := range in.dirs {
			if rel := find(d.path, same); rel != "" {
				return &RefusedError{Flag: flag, Path: path, Problem: IsInput, What: fmt.Sprintf("%s (%s)", d.what, rel)}
			}
		}
	}
	return nil
}

// find returns the path, relative to dir, of the first entry under dir
// for which same is true, or "". Symbolic links are not followed: a link
// inside dir that points inside it is found as its target, and a target
// outside it is not a file of dir.
func find(dir string, same func(fs.FileInfo) bool) string {
	found := ""
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if fi, err := d.Info(); err == nil && same(fi) {
			found, _ = filepath.Rel(dir, p)
			return filepath.SkipAll
		}
		return nil
	})
	return found
}

// key identifies a destination that may not exist yet: its absolute path
// with the symbolic links of its directory resolved.
func key(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// TestHookTempWritten, if set, runs while a temporary file exists, after
// it is written and before it is renamed into place (tests interrupt a
// write there).
var TestHookTempWritten func()

// Write writes the file at path with write, through a new temporary file
// ".conform-<random>" (followed by path's extension) in the same
// directory, renamed into place. A replaced file keeps its permission
// bits; a new one gets 0644 less the umask. An existing path that is not
// a regular file is left alone and refused. On an error only the
// temporary file is removed; the error is "path: reason".
func Write(path string, write func(io.Writer) error) error {
	return writeFile(path, write, &tempFile{})
}

// WriteExitingOnSignal is Write for a command's own output: SIGINT,
// SIGTERM or SIGHUP while the temporary file exists remove it and end
// the process with status 128 plus the signal number (130, 143, 129).
func WriteExitingOnSignal(path string, write func(io.Writer) error) error {
	tmp := &tempFile{}
	stop := tmp.removeOnSignal()
	defer stop()
	return writeFile(path, write, tmp)
}

func writeFile(path string, write func(io.Writer) error, tmp *tempFile) error {
	var existing fs.FileInfo
	if st, err := os.Stat(path); err == nil {
		if !st.Mode().IsRegular() {
			return fmt.Errorf("%s: is %s, not a regular file", path, confine.FileKind(st.Mode()))
		}
		existing = st
	}
	f, err := tmp.create(filepath.Dir(path), filepath.Ext(path))
	if err != nil {
		return fmt.Errorf("%s: %v", path, reason(err))
	}
	err = write(f)
	if err == nil && existing != nil {
		err = f.Chmod(existing.Mode().Perm())
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && TestHookTempWritten != nil {
		TestHookTempWritten()
	}
	if err == nil {
		err = tmp.rename(path)
	}
	if err != nil {
		tmp.remove()
		return fmt.Errorf("%s: %v", path, reason(err))
	}
	return nil
}

// reason returns the cause of a file system error without the operation
// and the (temporary) file name.
func reason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// tempFile is a temporary output file that is removed unless it is renamed
// into place, also when the process is interrupted.
type tempFile struct {
	mu   sync.Mutex
	name string // "" before create and after rename or remove
}

// create creates a new file ".conform-<random><ext>" in dir, with mode
// 0644 less the umask (the kernel applies it, so the umask is never
// changed).
func (t *tempFile) create(dir, ext string) (*os.File, error) {
	for try := 0; ; try++ {
		var b [8]byte
		rand.Read(b[:])
		name := filepath.Join(dir, ".conform-"+hex.EncodeToString(b[:])+ext)
		t.mu.Lock()
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			t.name = name
		}
		t.mu.Unlock()
		if errors.Is(err, fs.ErrExist) && try < 100 {
			continue
		}
		return f, err
	}
}

// rename moves the file into place at path.
func (t *tempFile) rename(path string) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if err := os.Rename(t.name, path); err != nil {
		return err
	}
	t.name = ""
	return nil
}

// remove deletes the file if it exists and was not renamed.
func (t *tempFile) remove() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.name != "" {
		os.Remove(t.name)
		t.name = ""
	}
}

// removeOnSignal makes SIGINT, SIGTERM and SIGHUP remove the file and
// exit the process with status 128 plus the signal number, until stop is
// called.
func (t *tempFile) removeOnSignal() (stop func()) {
	sigs := make(chan os.Signal, 1)
	done := make(chan struct{})
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		select {
		case sig := <-sigs:
			// Holding the lock until the process ends, so that nothing is
			// created or renamed after the removal.
			t.mu.Lock()
			if t.name != "" {
				os.Remove(t.name)
			}
			os.Exit(128 + int(sig.(syscall.Signal)))
		case <-done:
		}
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}
