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
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/conformsuite/conform/internal/confine"
)

// ManifestName is the name of the checksum manifest in a corpus directory.
const ManifestName = "MANIFEST"

// Entry is one case of a corpus: its ID, the directory its input paths are
// relative to, and its JSON object. An entry that cannot be read (a case
// file that is not a regular file or is too large, a case-list line that
// is not a JSON object with an "id", a second case of the same ID) has
// Err set, an ID naming where it is ("getitem.jsonl:17"), and no JSON:
// it fails on its own while the rest of the corpus runs.
type Entry struct {
	ID   string
	Dir  string
	JSON []byte
	Err  error
}

// Op returns the op the entry's case names, or "" if it names none (or
// cannot be read).
func (e Entry) Op() string {
	var head struct {
		Op string `json:"op"`
	}
	json.Unmarshal(e.JSON, &head)
	return head.Op
}

// Entries lists the cases under fsys in a stable order: every *.json file
// (ID: its path without ".json") and every line of every *.jsonl file (ID:
// the line's "id" field, which must be present and unique). Hidden
// directories are skipped. Files are read with package confine (regular
// files within the input limit). The error is non-nil only if the top of
// fsys cannot be read; everything below it that cannot be read is an
// entry with Err set.
func Entries(fsys fs.FS) ([]Entry, error) {
	var entries []Entry
	seen := map[string]string{}
	add := func(e Entry, where string) {
		if prev, dup := seen[e.ID]; dup && e.Err == nil {
			e = Entry{ID: where, Dir: e.Dir, Err: fmt.Errorf("case ID %q appears twice (%s and %s)", e.ID, prev, where)}
		}
		if _, dup := seen[e.ID]; dup {
			return // a bad entry already reported at the same place
		}
		seen[e.ID] = where
		entries = append(entries, e)
	}
	bad := func(where string, err error) {
		add(Entry{ID: where, Dir: path.Dir(where), Err: err}, where)
	}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			bad(p, err)
			return nil
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case strings.HasSuffix(p, ".json"):
			data, err := confine.ReadFile(fsys, p)
			if err != nil {
				bad(p, err)
				return nil
			}
			add(Entry{ID: strings.TrimSuffix(p, ".json"), Dir: path.Dir(p), JSON: data}, p)
		case strings.HasSuffix(p, ".jsonl"):
			data, err := confine.ReadFile(fsys, p)
			if err != nil {
				bad(p, err)
				return nil
			}
			for n, line := range bytes.Split(data, []byte("\n")) {
				line = bytes.TrimSpace(line)
				if len(line) == 0 {
					continue
				}
				where := fmt.Sprintf("%s:%d", p, n+1)
				var head struct {
					ID string `json:"id"`
				}
				if err := json.Unmarshal(line, &head); err != nil || head.ID == "" {
					bad(where, fmt.Errorf("a case list line must be a JSON object with an \"id\""))
					continue
				}
				add(Entry{ID: head.ID, Dir: path.Dir(p), JSON: line}, where)
			}
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
	// What is "changed", "missing", "extra", "unreadable" (the file
	// cannot be read within the input limit) or "malformed" (a MANIFEST
	// that is not a list of checksums).
	What   string
	Detail string // why, for "unreadable" and "malformed"
}

func (p ManifestProblem) String() string {
	if p.Detail != "" {
		return p.What + " file " + p.Path + ": " + p.Detail
	}
	return p.What + " file " + p.Path
}

// VerifyManifest checks every manifest found in fsys (a MANIFEST file
// covers the files of its directory tree, except itself) and returns the
// files that changed, are missing, are not listed or cannot be read. A
// directory without a MANIFEST is not checked, except that a directory
// holding a blob pack (PackName), which only Writer writes and always with
// its MANIFEST, must have one. The error is non-nil only if fsys cannot be
// walked at all.
func VerifyManifest(fsys fs.FS) ([]ManifestProblem, error) {
	var problems []ManifestProblem
	var dirs []string
	packs := map[string]bool{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			problems = append(problems, ManifestProblem{p, "unreadable", err.Error()})
			return nil
		}
		if d.IsDir() && p != "." && strings.HasPrefix(d.Name(), ".") {
			return fs.SkipDir
		}
		switch {
		case d.IsDir():
		case d.Name() == ManifestName:
			dirs = append(dirs, path.Dir(p))
		case d.Name() == PackName:
			packs[path.Dir(p)] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, dir := range dirs {
		problems = append(problems, verifyDir(fsys, dir)...)
		delete(packs, dir)
	}
	for dir := range packs {
		problems = append(problems, ManifestProblem{path.Join(dir, ManifestName), "missing",
			"a corpus directory with a blob pack must carry its MANIFEST"})
	}
	sort.Slice(problems, func(i, j int) bool { return problems[i].Path < problems[j].Path })
	return problems, nil
}

func verifyDir(fsys fs.FS, dir string) []ManifestProblem {
	manifest := path.Join(dir, ManifestName)
	data, err := confine.ReadFile(fsys, manifest)
	if err != nil {
		return []ManifestProblem{{manifest, "unreadable", err.Error()}}
	}
	want := map[string]string{}
	for n, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		sum, name, ok := strings.Cut(line, "  ")
		if !ok || len(sum) != 64 || name == "" {
			return []ManifestProblem{{manifest, "malformed", fmt.Sprintf("line %d is not \"<sha256>  <path>\"", n+1)}}
		}
		want[name] = sum
	}
	var problems []ManifestProblem
	have := map[string]bool{}
	fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			problems = append(problems, ManifestProblem{p, "unreadable", err.Error()})
			return nil
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
			problems = append(problems, ManifestProblem{Path: path.Join(dir, rel), What: "extra"})
			return nil
		}
		got, err := fileSum(fsys, p)
		switch {
		case err != nil:
			problems = append(problems, ManifestProblem{path.Join(dir, rel), "unreadable", err.Error()})
		case got != sum:
			problems = append(problems, ManifestProblem{Path: path.Join(dir, rel), What: "changed"})
		}
		return nil
	})
	for name := range want {
		if !have[name] {
			problems = append(problems, ManifestProblem{Path: path.Join(dir, name), What: "missing"})
		}
	}
	return problems
}

// fileSum returns the hex SHA-256 of a regular file of fsys within the
// input limit, reading it in pieces.
func fileSum(fsys fs.FS, name string) (string, error) {
	f, _, err := confine.Open(fsys, name)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
