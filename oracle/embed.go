package oracle

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
)

// programs holds the oracle programs the children run: the NumPy oracle,
// the node oracles and the package files that pin their node packages
// (never node_modules, which "conform setup" installs next to them).
//
//go:embed package.json package-lock.json *.js numpy/*.py tfjs/*.js ort/*.js tflite/*.js
var programs embed.FS

// Programs returns the oracle programs embedded in the binary, laid out as
// in the module's oracle/ directory.
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

// writeFile writes one extracted file; tests replace it to inject faults.
var writeFile = os.WriteFile

// ExtractDir returns the directory Extract writes the embedded programs
// to under cacheDir: cacheDir/conform/oracle-<ProgramsHash>.
func ExtractDir(cacheDir string) string {
	return filepath.Join(cacheDir, "conform", "oracle-"+ProgramsHash())
}

// Extract writes the embedded oracle programs to ExtractDir(cacheDir) and
// returns that directory. The files are written to a temporary directory
// next to it, which is then renamed into place, so the directory is
// either absent or complete, also when several processes extract at once.
// A complete directory is reused as it is (with the node_modules that
// "conform setup" installed in it); one missing a program file is moved
// aside and written again.
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

// extracted reports whether dir holds every embedded program file with
// its size. A directory that exists but lacks one is moved aside and
// removed, so that Extract can write it again.
func extracted(dir string) (bool, error) {
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	} else if err != nil {
		return false, err
	}
	files, _ := programFiles()
	for _, f := range files {
		info, err := os.Stat(filepath.Join(dir, filepath.FromSlash(f)))
		want, _ := fs.Stat(programs, f)
		if err == nil && info.Mode().IsRegular() && info.Size() == want.Size() {
			continue
		}
		broken := fmt.Sprintf("%s.broken-%d", dir, os.Getpid())
		if err := os.Rename(dir, broken); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return false, fmt.Errorf("oracle directory %s is incomplete (%s) and cannot be replaced: %w", dir, f, err)
		}
		os.RemoveAll(broken)
		return false, nil
	}
	return true, nil
}
