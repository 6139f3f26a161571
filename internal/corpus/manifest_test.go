package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/internal/confine"
)

// manifestLines returns n MANIFEST lines listing the files "<prefix><i>".
func manifestLines(n int, prefix string) string {
	var b strings.Builder
	sum := Sum(nil)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%s  %s%07d\n", sum, prefix, i)
	}
	return b.String()
}

// TestVerifyManifestForms checks how a MANIFEST's lines are read.
func TestVerifyManifestForms(t *testing.T) {
	line := Sum([]byte("a")) + "  a.jsonl\n"
	tests := []struct {
		rule     string
		manifest string
		want     []ManifestProblem
	}{
		{"blank lines may end the file", line + "\n\n", nil},
		{"a blank line before another line is malformed", "\n" + line, []ManifestProblem{{Path: "g/MANIFEST", What: "malformed", Detail: `line 1 is not "<sha256>  <path>"`}}},
		{"an empty MANIFEST is malformed", "", []ManifestProblem{{Path: "g/MANIFEST", What: "malformed", Detail: `line 1 is not "<sha256>  <path>"`}}},
		{"a last line without a newline is read", strings.TrimSuffix(line, "\n"), nil},
		{"a carriage return belongs to the path", strings.Replace(line, "\n", "\r\n", 1),
			[]ManifestProblem{{Path: "g/a.jsonl", What: "extra"}, {Path: "g/a.jsonl\r", What: "missing"}}},
		{"a line longer than 64 KiB is malformed", line + Sum(nil) + "  " + strings.Repeat("x", 64<<10) + "\n",
			[]ManifestProblem{{Path: "g/MANIFEST", What: "malformed", Detail: `line 2 is not "<sha256>  <path>"`}}},
		{"a MANIFEST listing more than MaxManifestFiles files is refused", line + manifestLines(MaxManifestFiles, "x"),
			[]ManifestProblem{{Path: "g/MANIFEST", What: "malformed", Detail: fmt.Sprintf("it lists more than %d files, the most a MANIFEST may list", MaxManifestFiles)}}},
	}
	for _, tt := range tests {
		fsys := fstest.MapFS{"g/MANIFEST": {Data: []byte(tt.manifest)}, "g/a.jsonl": {Data: []byte("a")}}
		got, total, err := VerifyManifest(fsys)
		if err != nil {
			t.Fatalf("%s: %v", tt.rule, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" || total != len(tt.want) {
			t.Errorf("%s: %d problems (-want +got):\n%s", tt.rule, total, diff)
		}
	}
}

// TestVerifyManifestBounds checks that a MANIFEST listing many files
// costs memory for the files present only, lists the first
// MaxListedProblems problems by path and counts all of them.
func TestVerifyManifestBounds(t *testing.T) {
	const n = 200000
	present := Sum([]byte("a")) + "  a.jsonl\n" + Sum([]byte("z")) + "  zz.jsonl\n"
	fsys := fstest.MapFS{
		"g/MANIFEST": {Data: []byte(present + manifestLines(n, "missing/"))},
		"g/a.jsonl":  {Data: []byte("changed")},
		"g/b.jsonl":  {Data: []byte("extra")},
		"g/zz.jsonl": {Data: []byte("z")},
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, total, err := VerifyManifest(fsys)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if total != n+2 {
		t.Errorf("%d problems, want %d", total, n+2)
	}
	want := []ManifestProblem{{Path: "g/a.jsonl", What: "changed"}, {Path: "g/b.jsonl", What: "extra"}}
	for i := 0; i < MaxListedProblems-2; i++ {
		want = append(want, ManifestProblem{Path: fmt.Sprintf("g/missing/%07d", i), What: "missing"})
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems listed (-want +got):\n%s", diff)
	}
	if grew, size := after.TotalAlloc-before.TotalAlloc, uint64(len(fsys["g/MANIFEST"].Data)); grew > size/8 {
		t.Errorf("verifying a MANIFEST of %d MiB allocated %d MiB", size>>20, grew>>20)
	}
}

// TestVerifyManifestTooLarge checks that a MANIFEST beyond
// MaxManifestBytes is reported without being read.
func TestVerifyManifestTooLarge(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, ManifestName)
	if err := os.WriteFile(name, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(name, MaxManifestBytes+1); err != nil {
		t.Fatal(err)
	}
	root, err := confine.Dir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, total, err := VerifyManifest(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || total != 1 || got[0].Path != ManifestName || got[0].What != "unreadable" {
		t.Errorf("problems %v (%d)", got, total)
	}
}

// TestVerifyManifestNested checks files in subdirectories, whose walk
// order is not the order of their paths ("a/b" is walked before
// "a.jsonl").
func TestVerifyManifestNested(t *testing.T) {
	fsys := fstest.MapFS{"a/b": {Data: []byte("b")}, "a.jsonl": {Data: []byte("a")}, "a-c": {Data: []byte("c")}}
	fsys[ManifestName] = &fstest.MapFile{Data: FormatManifest(map[string]string{"a/b": Sum([]byte("b")), "a.jsonl": Sum([]byte("a")), "a-c": Sum([]byte("c"))})}
	if got, total, err := VerifyManifest(fsys); err != nil || total != 0 {
		t.Errorf("an intact nested corpus: %v %d %v", got, total, err)
	}
}
