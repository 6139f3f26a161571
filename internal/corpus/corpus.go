// Package corpus stores and reads case corpora.
//
// A corpus directory holds case files (*.json, one case each, inputs beside
// them) and case lists (*.jsonl, one case per line). The golden corpus that
// `conform golden` writes is a directory of case lists, one per op, whose
// .npy files live under blobs/ named by their SHA-256, plus a MANIFEST of
// the checksums of every file, a PROVENANCE.json and a DISAGREEMENTS.md.
// Writer builds such a directory beside its destination and swaps it in
// atomically.
package corpus

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// ManifestName is the name of the checksum manifest in a corpus directory.
const ManifestName = "MANIFEST"

// Entry is one case of a corpus: its ID, the directory its input paths are
// relative to, and its JSON object.
type Entry struct {
	ID   string
	Dir  string
	JSON []byte
}

// Entries lists the cases under fsys in a stable order: every *.json file
// (ID: its path without ".json") and every line of every *.jsonl file (ID:
// the line's "id" field, which must be present and unique). Hidden
// directories are skipped.
func Entries(fsys fs.FS) ([]Entry, error) {
	var entries []Entry
	seen := map[string]string{}
	add := func(e Entry, where string) error {
		if prev, dup := seen[e.ID]; dup {
			return fmt.Errorf("case ID %q appears twice (%s and %s)", e.ID, prev, where)
		}
		seen[e.ID] = where
		entries = append(entries, e)
		return nil
	}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(p, ".json"):
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			return add(Entry{ID: strings.TrimSuffix(p, ".json"), Dir: path.Dir(p), JSON: data}, p)
		case strings.HasSuffix(p, ".jsonl"):
			data, err := fs.ReadFile(fsys, p)
			if err != nil {
				return err
			}
			sc := bufio.NewScanner(bytes.NewReader(data))
			sc.Buffer(nil, len(data)+1)
			for n := 1; sc.Scan(); n++ {
				line := bytes.TrimSpace(sc.Bytes())
				if len(line) == 0 {
					continue
				}
				var head struct {
					ID string `json:"id"`
				}
				if err := json.Unmarshal(line, &head); err != nil || head.ID == "" {
					return fmt.Errorf("%s:%d: a case list line must be a JSON object with an \"id\"", p, n)
				}
				if err := add(Entry{ID: head.ID, Dir: path.Dir(p), JSON: append([]byte(nil), line...)}, fmt.Sprintf("%s:%d", p, n)); err != nil {
					return err
				}
			}
			return sc.Err()
		}
		return nil
	})
	sort.Slice(entries, func(i, j int) bool { return entries[i].ID < entries[j].ID })
	return entries, err
}

// Sum returns the hex SHA-256 of data.
func Sum(data []byte) string {
	h := sha256.Sum256(data)
	return hex.EncodeToString(h[:])
}

// FormatManifest renders a manifest: one "<sha256>  <path>" line per file,
// sorted by path.
func FormatManifest(sums map[string]string) []byte {
	paths := make([]string, 0, len(sums))
	for p := range sums {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var b bytes.Buffer
	for _, p := range paths {
		fmt.Fprintf(&b, "%s  %s\n", sums[p], p)
	}
	return b.Bytes()
}

// ManifestProblem is one file that does not match a manifest.
type ManifestProblem struct {
	Path string
	What string // "changed", "missing" or "extra"
}

func (p ManifestProblem) String() string { return p.What + " file " + p.Path }

// VerifyManifest checks every manifest found in fsys (a MANIFEST file
// covers the files of its directory tree, except itself) and returns the
// files that changed, are missing, or are not listed. A directory without
// a MANIFEST is not checked.
func VerifyManifest(fsys fs.FS) ([]ManifestProblem, error) {
	var problems []ManifestProblem
	var dirs []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != "." && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir
		}
		if !d.IsDir() && d.Name() == ManifestName {
			dirs = append(dirs, path.Dir(p))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, dir := range dirs {
		ps, err := verifyDir(fsys, dir)
		if err != nil {
			return nil, err
		}
		problems = append(problems, ps...)
	}
	return problems, nil
}

func verifyDir(fsys fs.FS, dir string) ([]ManifestProblem, error) {
	data, err := fs.ReadFile(fsys, path.Join(dir, ManifestName))
	if err != nil {
		return nil, err
	}
	want := map[string]string{}
	for n, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != 64 || name == "" {
			return nil, fmt.Errorf("%s line %d is not \"<sha256>  <path>\"", path.Join(dir, ManifestName), n+1)
		}
		want[name] = sum
	}
	var problems []ManifestProblem
	have := map[string]bool{}
	err = fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		rel := strings.TrimPrefix(p, dir+"/")
		if dir == "." {
			rel = p
		}
		if rel == ManifestName {
			return nil
		}
		have[rel] = true
		sum, listed := want[rel]
		if !listed {
			problems = append(problems, ManifestProblem{path.Join(dir, rel), "extra"})
			return nil
		}
		content, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		if Sum(content) != sum {
			problems = append(problems, ManifestProblem{path.Join(dir, rel), "changed"})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for name := range want {
		if !have[name] {
			problems = append(problems, ManifestProblem{path.Join(dir, name), "missing"})
		}
	}
	sort.Slice(problems, func(i, j int) bool { return problems[i].Path < problems[j].Path })
	return problems, nil
}
