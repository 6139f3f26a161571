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
	"io"
	"io/fs"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"

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
			lines := bytes.Split(data, []byte("\n"))
			for n, id := range lineIDs(lines) {
				line := bytes.TrimSpace(lines[n])
				if len(line) == 0 {
					continue
				}
				where := fmt.Sprintf("%s:%d", p, n+1)
				if id == "" {
					bad(where, fmt.Errorf("a case list line must be a JSON object with an \"id\""))
					continue
				}
				add(Entry{ID: id, Dir: path.Dir(p), JSON: line}, where)
			}
		}
		return nil
	})
	sort.Slice(entries, func(i, j int) bool { return entries[i].ID < entries[j].ID })
	return entries, err
}

// lineIDs returns the "id" field of each line of a case list, "" for a
// line that is blank, not a JSON object or without an "id". The lines are
// parsed on runtime.GOMAXPROCS goroutines, in consecutive ranges.
func lineIDs(lines [][]byte) []string {
	ids := make([]string, len(lines))
	parse := func(lo, hi int) {
		for n := lo; n < hi; n++ {
			line := bytes.TrimSpace(lines[n])
			if len(line) == 0 {
				continue
			}
			var head struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(line, &head) == nil {
				ids[n] = head.ID
			}
		}
	}
	workers := runtime.GOMAXPROCS(0)
	size := max(1024, (len(lines)+workers-1)/workers)
	var wg sync.WaitGroup
	for lo := size; lo < len(lines); lo += size {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parse(lo, min(lo+size, len(lines)))
		}()
	}
	parse(0, min(size, len(lines)))
	wg.Wait()
	return ids
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

// The bounds of verifying a corpus against its manifests. A MANIFEST may
// be at most MaxManifestBytes long and list at most MaxManifestFiles
// files; a larger one is reported as a problem instead of read.
// VerifyManifest lists the first MaxListedProblems problems by path and
// counts the rest.
const (
	MaxManifestBytes  = 64 << 20
	MaxManifestFiles  = 1 << 18
	MaxListedProblems = 100
)

// VerifyManifest checks every manifest found in fsys (a MANIFEST file
// covers the files of its directory tree, except itself) and finds the
// files that changed, are missing, are not listed or cannot be read. It
// returns the first MaxListedProblems of them in path order and how many
// there are in all (a file the MANIFEST lists twice and is missing counts
// twice). A directory without a MANIFEST is not checked, except that a
// directory holding a blob pack (PackName), which only Writer writes and
// always with its MANIFEST, must have one. Memory is proportional to the
// files present, whatever the MANIFEST lists; the files it lists are
// hashed as they are read. The error is non-nil only if fsys cannot be
// walked at all.
func VerifyManifest(fsys fs.FS) (problems []ManifestProblem, total int, err error) {
	var found problemList
	var dirs []string
	packs := map[string]bool{}
	err = fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == "." {
				return err
			}
			found.add(ManifestProblem{p, "unreadable", err.Error()})
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
		return nil, 0, err
	}
	for _, dir := range dirs {
		found.merge(verifyDir(fsys, dir))
		delete(packs, dir)
	}
	for dir := range packs {
		found.add(ManifestProblem{path.Join(dir, ManifestName), "missing",
			"a corpus directory with a blob pack must carry its MANIFEST"})
	}
	found.trim()
	return found.kept, found.total, nil
}

// problemList keeps the first MaxListedProblems problems in path order
// and counts all of them.
type problemList struct {
	kept  []ManifestProblem
	total int
	// last is the path of the last problem kept when the list was last
	// trimmed full: a problem of a later path is only counted.
	last string
	full bool
}

// add counts p and keeps it if it is among the first by path.
func (l *problemList) add(p ManifestProblem) {
	l.total++
	if !l.wants(p.Path) {
		return
	}
	l.kept = append(l.kept, p)
	if len(l.kept) >= 2*MaxListedProblems {
		l.trim()
	}
}

// wants reports whether a problem of the file at path would be kept: the
// list has not been full, or path comes before the last problem kept.
func (l *problemList) wants(path string) bool { return !l.full || path < l.last }

// merge adds the problems of o, which holds all of its problems or the
// first of them, to l.
func (l *problemList) merge(o problemList) {
	total := l.total + o.total
	for _, p := range o.kept {
		l.add(p)
	}
	l.total = total
}

// trim sorts the kept problems and drops all but the first
// MaxListedProblems.
func (l *problemList) trim() {
	sort.Slice(l.kept, func(i, j int) bool {
		a, b := l.kept[i], l.kept[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.What < b.What
	})
	if len(l.kept) >= MaxListedProblems {
		l.kept = l.kept[:MaxListedProblems]
		l.full, l.last = true, l.kept[MaxListedProblems-1].Path
	}
}

// verifyDir checks the files of dir against dir's MANIFEST: it walks dir,
// then reads the MANIFEST line by line, keeping the checksums of the
// listed files that are present and counting the missing ones, then hashes
// the listed files. A MANIFEST that cannot be read, is too large or is
// malformed is the only problem returned.
func verifyDir(fsys fs.FS, dir string) problemList {
	manifest := path.Join(dir, ManifestName)
	var found problemList
	rel := func(p string) string {
		if dir == "." {
			return p
		}
		return strings.TrimPrefix(p, dir+"/")
	}
	var present []string // sorted below
	fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			found.add(ManifestProblem{p, "unreadable", err.Error()})
			return nil
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if r := rel(p); r != ManifestName {
			present = append(present, r)
		}
		return nil
	})
	sort.Strings(present)
	var joined []byte
	want, err := scanManifest(fsys, manifest, present, func(name []byte) {
		// Most missing files of a long list are only counted: compare
		// the path without making a string of it.
		switch {
		case !fs.ValidPath(string(name)):
			joined = append(joined[:0], path.Join(dir, string(name))...)
		case dir == ".":
			joined = append(joined[:0], name...)
		default:
			joined = append(append(append(joined[:0], dir...), '/'), name...)
		}
		if found.full && string(joined) >= found.last {
			found.total++
			return
		}
		found.add(ManifestProblem{Path: string(joined), What: "missing"})
	})
	if err != nil {
		return problemList{kept: []ManifestProblem{*err}, total: 1}
	}
	for _, r := range present {
		sum, listed := want[r]
		if !listed {
			found.add(ManifestProblem{Path: path.Join(dir, r), What: "extra"})
			continue
		}
		got, err := fileSum(fsys, path.Join(dir, r))
		switch {
		case err != nil:
			found.add(ManifestProblem{path.Join(dir, r), "unreadable", err.Error()})
		case got != sum:
			found.add(ManifestProblem{Path: path.Join(dir, r), What: "changed"})
		}
	}
	return found
}

// scanManifest reads the MANIFEST at name line by line and returns the
// checksums it lists for the files of present (sorted paths relative to
// its directory), calling missing with each file it lists that is not
// present (file is only valid during the call). A MANIFEST that is not a regular file within the input limit
// and MaxManifestBytes, lists more than MaxManifestFiles files or has a
// line that is not "<sha256>  <path>" is returned as a problem.
func scanManifest(fsys fs.FS, name string, present []string, missing func(name []byte)) (map[string]string, *ManifestProblem) {
	f, size, err := confine.Open(fsys, name)
	if err != nil {
		return nil, &ManifestProblem{name, "unreadable", err.Error()}
	}
	defer f.Close()
	if size > MaxManifestBytes {
		return nil, &ManifestProblem{name, "unreadable", fmt.Sprintf("%s is %d bytes, more than the limit of %d bytes for a MANIFEST", name, size, MaxManifestBytes)}
	}
	malformed := func(line int) (map[string]string, *ManifestProblem) {
		return nil, &ManifestProblem{name, "malformed", fmt.Sprintf("line %d is not \"<sha256>  <path>\"", line)}
	}
	want := map[string]string{}
	sc := bufio.NewScanner(io.LimitReader(f, size))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<10)
	sc.Split(splitLines)
	lines, blank := 0, 0 // blank: the first of the blank lines read last
	for sc.Scan() {
		lines++
		line := sc.Bytes()
		if len(line) == 0 {
			// Blank lines may end the file, nothing else.
			if blank == 0 {
				blank = lines
			}
			continue
		}
		if blank != 0 {
			return malformed(blank)
		}
		if lines > MaxManifestFiles {
			return nil, &ManifestProblem{name, "malformed", fmt.Sprintf("it lists more than %d files, the most a MANIFEST may list", MaxManifestFiles)}
		}
		sum, file, ok := bytes.Cut(line, []byte("  "))
		if !ok || len(sum) != 64 || len(file) == 0 {
			return malformed(lines)
		}
		if i := search(present, file); i >= 0 {
			want[present[i]] = string(sum)
		} else {
			missing(file)
		}
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return malformed(lines + 1)
		}
		return nil, &ManifestProblem{name, "unreadable", err.Error()}
	}
	if lines == blank {
		return malformed(1) // no line at all
	}
	return want, nil
}

// search returns the index of name in the sorted list, or -1. It
// compares without converting name to a string, which would allocate.
func search(list []string, name []byte) int {
	lo, hi := 0, len(list)
	for lo < hi {
		if m := int(uint(lo+hi) >> 1); list[m] < string(name) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(list) && list[lo] == string(name) {
		return lo
	}
	return -1
}

// splitLines is bufio.ScanLines without dropping a carriage return: a
// MANIFEST's lines end in "\n" only.
func splitLines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
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
