package oracle

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"sync"
)

// programs holds the oracle programs the children run: the NumPy oracle,
// the node oracles, the op table they read (ops.json, generated from the
// registry: see TestOpsJSON) and the package files that pin their node
// packages (never node_modules, which "conform setup" installs in the
// directory above them).
//
//go:embed package.json package-lock.json ops.json *.js numpy/*.py tfjs/*.js ort/*.js tflite/*.js
var programs embed.FS

// Programs returns the oracle programs embedded in the binary, laid out as
// in the module's internal/oracle/ directory.
func Programs() fs.FS { return programs }

// ProgramFiles returns the slash-separated paths of the embedded oracle
// programs, sorted.
func ProgramFiles() []string {
	files, _ := programFiles()
	return files
}

var programsOnce = sync.OnceValues(func() ([]string, string) {
	var files []string
	err := fs.WalkDir(programs, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		panic(err) // an embed.FS cannot fail to walk
	}
	sort.Strings(files)
	h := sha256.New()
	for _, f := range files {
		data, err := programs.ReadFile(f)
		if err != nil {
			panic(err)
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(data))
		h.Write(data)
	}
	return files, hex.EncodeToString(h.Sum(nil))[:16]
})

func programFiles() ([]string, string) { return programsOnce() }

// ProgramsHash returns the content hash of the embedded oracle programs
// (16 hex digits of a SHA-256 over their paths and bytes), which names the
// directory Extract writes them to.
func ProgramsHash() string {
	_, h := programFiles()
	return h
}

// nodeFiles are the embedded files that decide what npm ci installs.
var nodeFiles = []string{"package.json", "package-lock.json"}

var lockOnce = sync.OnceValue(func() string {
	h := sha256.New()
	for _, f := range nodeFiles {
		data, err := programs.ReadFile(f)
		if err != nil {
			panic(err) // both are embedded
		}
		fmt.Fprintf(h, "%s\x00%d\x00", f, len(data))
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
})

// LockHash returns the content hash of the embedded package.json and
// package-lock.json (16 hex digits of a SHA-256), which names the
// directory whose node_modules "conform setup" installs.
func LockHash() string { return lockOnce() }

// writeFile writes one extracted file; tests replace it to inject faults.
var writeFile = os.WriteFile

// NodeDir returns the directory under cacheDir whose node_modules holds
// the node packages pinned by the embedded package-lock.json:
// cacheDir/conform/node-<LockHash>. The programs are unpacked below it
// (see ExtractDir), so node finds the packages by walking up from a
// script's directory, and a new version of the programs with the same
// lock file uses the packages already installed.
func NodeDir(cacheDir string) string {
	return filepath.Join(cacheDir, "conform", "node-"+LockHash())
}

// ExtractDir returns the directory Extract writes the embedded programs
// to under cacheDir: NodeDir(cacheDir)/oracle-<ProgramsHash>.
func ExtractDir(cacheDir string) string {
	return filepath.Join(NodeDir(cacheDir), "oracle-"+ProgramsHash())
}

// Extract writes the embedded oracle programs to ExtractDir(cacheDir) and
// returns that directory. The files are written to a temporary directory
// next to it, which is then renamed into place, so the directory is
// either absent or complete, also when several processes extract at once.
// An existing directory is reused only if it holds exactly the embedded
// programs, byte for byte, as regular files in real directories (no
// symbolic links, nothing else); any other is moved aside, removed and
// written again.
func Extract(cacheDir string) (string, error) {
	final := ExtractDir(cacheDir)
	if ok, err := extracted(final); err != nil {
		return "", err
	} else if ok {
		return final, nil
	}
	parent := filepath.Dir(final)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("unpacking the oracle programs: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-oracle-")
	if err != nil {
		return "", fmt.Errorf("unpacking the oracle programs: %w", err)
	}
	defer os.RemoveAll(tmp) // nothing left after a successful rename
	files, _ := programFiles()
	for _, f := range files {
		data, err := programs.ReadFile(f)
		if err != nil {
			return "", err
		}
		dst := filepath.Join(tmp, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return "", fmt.Errorf("unpacking the oracle programs: %w", err)
		}
		if err := writeFile(dst, data, 0o644); err != nil {
			return "", fmt.Errorf("unpacking the oracle programs: %w", err)
		}
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", fmt.Errorf("unpacking the oracle programs: %w", err)
	}
	if err := os.Rename(tmp, final); err != nil {
		// Another process may have put a complete directory there first.
		if ok, _ := extracted(final); ok {
			return final, nil
		}
		return "", fmt.Errorf("unpacking the oracle programs: %w", err)
	}
	return final, nil
}

// extracted reports whether dir holds exactly the embedded programs (see
// sameAsEmbedded). A directory entry there that does not is moved aside
// and removed, so that Extract can write it again.
func extracted(dir string) (bool, error) {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	why := sameAsEmbedded(dir)
	if why == "" {
		return true, nil
	}
	broken := fmt.Sprintf("%s.broken-%d", dir, os.Getpid())
	if err := os.Rename(dir, broken); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("oracle directory %s is not the embedded programs (%s) and cannot be replaced: %w", dir, why, err)
	}
	os.RemoveAll(broken)
	return false, nil
}

// sameAsEmbedded returns "" if dir is a directory (not a symbolic link)
// holding exactly the embedded programs: every directory of the embedded
// tree is a real directory listing only the embedded entries, and every
// program is a regular file with the embedded bytes. Otherwise it returns
// the first difference. Reading about 250 KB, it is cheap enough to run
// at every oracle start.
func sameAsEmbedded(dir string) string {
	files, _ := programFiles()
	want := map[string]map[string]bool{".": {}} // directory -> entry -> is a directory
	for _, f := range files {
		for p := f; p != "."; p = path.Dir(p) {
			d := path.Dir(p)
			if want[d] == nil {
				want[d] = map[string]bool{}
			}
			want[d][path.Base(p)] = p != f
		}
	}
	if info, err := os.Lstat(dir); err != nil || !info.IsDir() {
		return "not a directory"
	}
	for d, entries := range want {
		got, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(d)))
		if err != nil {
			return err.Error()
		}
		if len(got) != len(entries) {
			return fmt.Sprintf("%s holds %d entries, want %d", d, len(got), len(entries))
		}
		for _, e := range got {
			isDir, ok := entries[e.Name()]
			switch {
			case !ok:
				return fmt.Sprintf("%s is not an oracle program", path.Join(d, e.Name()))
			case isDir && e.Type() != fs.ModeDir, !isDir && !e.Type().IsRegular():
				return fmt.Sprintf("%s is a %v, not a regular file or directory", path.Join(d, e.Name()), e.Type())
			}
		}
	}
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f)))
		if err != nil {
			return err.Error()
		}
		data, _ := programs.ReadFile(f)
		if !bytes.Equal(got, data) {
			return f + " differs from the embedded program"
		}
	}
	return ""
}
