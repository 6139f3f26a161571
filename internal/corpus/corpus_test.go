package corpus

import (
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/conformsuite/conform/internal/confine"
	"github.com/google/go-cmp/cmp"
)

func TestEntries(t *testing.T) {
	fsys := fstest.MapFS{
		"a/one.json":     {Data: []byte(`{"op":"slice"}`)},
		"b/list.jsonl":   {Data: []byte("{\"id\":\"b/2\",\"op\":\"slice\"}\n\n{\"id\":\"b/1\",\"op\":\"getitem\"}\n")},
		".hidden/x.json": {Data: []byte(`{}`)},
		"a/input.npy":    {Data: []byte("not a case")},
		"README.md":      {Data: []byte("# not a case")},
	}
	got, err := Entries(fsys)
	if err != nil {
		t.Fatal(err)
	}
	var ids, dirs []string
	for _, e := range got {
		ids = append(ids, e.ID)
		dirs = append(dirs, e.Dir)
	}
	if diff := cmp.Diff([]string{"a/one", "b/1", "b/2"}, ids); diff != "" {
		t.Errorf("IDs (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a", "b", "b"}, dirs); diff != "" {
		t.Errorf("dirs (-want +got):\n%s", diff)
	}
}

func TestEntriesErrors(t *testing.T) {
	good := &fstest.MapFile{Data: []byte(`{"id":"good"}`)}
	tests := []struct {
		rule   string
		fsys   fstest.MapFS
		badIDs []string // the entries that must carry an error
	}{
		{"a case list line needs an id", fstest.MapFS{"l.jsonl": {Data: []byte(`{"op":"slice"}`)}}, []string{"l.jsonl:1"}},
		{"a case list line must be JSON", fstest.MapFS{"l.jsonl": {Data: []byte("{\"id\":\"a\"}\n{\"id\":")}}, []string{"l.jsonl:2"}},
		{"IDs must be unique", fstest.MapFS{"l.jsonl": {Data: []byte("{\"id\":\"x\"}\n{\"id\":\"x\"}\n")}}, []string{"l.jsonl:2"}},
		{"IDs must be unique across files", fstest.MapFS{"x.json": {Data: []byte(`{}`)}, "l.jsonl": {Data: []byte(`{"id":"x"}`)}}, []string{"x.json"}},
		{"a case file must be a regular file", fstest.MapFS{"d.json": {Mode: fs.ModeNamedPipe}}, []string{"d.json"}},
		{"a case file must be within the input limit", fstest.MapFS{"big.json": {Data: make([]byte, 2048)}}, []string{"big.json"}},
	}
	for _, tt := range tests {
		tt.fsys["other.jsonl"] = good
		entries, err := Entries(confine.WithLimit(tt.fsys, 1024))
		if err != nil {
			t.Errorf("%s: the whole listing failed: %v", tt.rule, err)
			continue
		}
		var bad []string
		sawGood := false
		for _, e := range entries {
			if e.Err != nil {
				bad = append(bad, e.ID)
			}
			sawGood = sawGood || (e.ID == "good" && e.Err == nil)
		}
		if diff := cmp.Diff(tt.badIDs, bad); diff != "" {
			t.Errorf("%s: entries with errors (-want +got):\n%s", tt.rule, diff)
		}
		if !sawGood {
			t.Errorf("%s: the good case of another file was lost", tt.rule)
		}
	}
}

func TestVerifyManifest(t *testing.T) {
	files := map[string][]byte{"g/a.jsonl": []byte("a"), "g/blobs/b.npy": []byte("b")}
	manifest := FormatManifest(map[string]string{"a.jsonl": Sum([]byte("a")), "blobs/b.npy": Sum([]byte("b"))})
	tests := []struct {
		rule   string
		change func(fstest.MapFS)
		want   []ManifestProblem
	}{
		{"an intact corpus has no problems", func(fstest.MapFS) {}, nil},
		{"a changed file is named", func(m fstest.MapFS) { m["g/blobs/b.npy"] = &fstest.MapFile{Data: []byte("c")} }, []ManifestProblem{{Path: "g/blobs/b.npy", What: "changed"}}},
		{"a missing file is named", func(m fstest.MapFS) { delete(m, "g/a.jsonl") }, []ManifestProblem{{Path: "g/a.jsonl", What: "missing"}}},
		{"an extra file is named", func(m fstest.MapFS) { m["g/blobs/x.npy"] = &fstest.MapFile{Data: []byte("x")} }, []ManifestProblem{{Path: "g/blobs/x.npy", What: "extra"}}},
		{"files outside the manifest's directory are not its concern", func(m fstest.MapFS) { m["other/x.json"] = &fstest.MapFile{Data: []byte("x")} }, nil},
	}
	for _, tt := range tests {
		fsys := fstest.MapFS{"g/MANIFEST": {Data: manifest}}
		for name, data := range files {
			fsys[name] = &fstest.MapFile{Data: data}
		}
		tt.change(fsys)
		got, _, err := VerifyManifest(fsys)
		if err != nil {
			t.Fatalf("%s: %v", tt.rule, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.rule, diff)
		}
	}
}

func TestWriterReplacesAtomically(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "golden")
	build := func(content string, commit bool) {
		w, err := NewWriter(dest)
		if err != nil {
			t.Fatal(err)
		}
		name, err := w.Blob([]byte(content))
		if err != nil {
			t.Fatal(err)
		}
		if err := w.File("cases.jsonl", []byte(`{"id":"x","blob":"`+name+`"}`)); err != nil {
			t.Fatal(err)
		}
		if commit {
			err = w.Commit()
		} else {
			err = w.Abort()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	verify := func(rule string) {
		problems, _, err := VerifyManifest(os.DirFS(dest))
		if err != nil || len(problems) != 0 {
			t.Fatalf("%s: manifest: %v %v", rule, problems, err)
		}
	}
	build("first", true)
	verify("a first commit creates the corpus")
	build("second", false)
	verify("an aborted build leaves the previous corpus intact")
	if data, _ := os.ReadFile(filepath.Join(dest, "cases.jsonl")); string(data) != `{"id":"x","blob":"blobs/`+Sum([]byte("first"))[:24]+`.npy"}` {
		t.Fatalf("after an abort the corpus changed: %s", data)
	}
	build("third", true)
	verify("a second commit replaces the corpus")
	if _, err := fs.ReadFile(Open(os.DirFS(dest)), "blobs/"+Sum([]byte("third"))[:24]+".npy"); err != nil {
		t.Fatalf("the new blob is not readable: %v", err)
	}
	if _, err := fs.ReadFile(Open(os.DirFS(dest)), "blobs/"+Sum([]byte("first"))[:24]+".npy"); err == nil {
		t.Fatalf("an old blob survives the swap")
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(dest), ".golden-new-*"))
	if len(left) != 0 {
		t.Fatalf("temporary directories left behind: %v", left)
	}
}

func TestPack(t *testing.T) {
	blobs := map[string][]byte{Sum([]byte("a"))[:24] + ".npy": []byte("a"), Sum([]byte("b"))[:24] + ".npy": []byte("b")}
	pack, err := writePack(blobs)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := writePack(blobs)
	if string(pack) != string(again) {
		t.Fatal("the same blobs give different archives")
	}
	fsys := Open(fstest.MapFS{"g/" + PackName: {Data: pack}, "g/x.json": {Data: []byte("{}")}})
	for name, want := range blobs {
		got, err := fs.ReadFile(fsys, "g/blobs/"+name)
		if err != nil || string(got) != string(want) {
			t.Errorf("member %s: %q, %v", name, got, err)
		}
	}
	if _, err := fs.ReadFile(fsys, "g/x.json"); err != nil {
		t.Errorf("files outside the pack: %v", err)
	}
	// Flip one byte of one member's content: the read must fail and name it.
	corrupt := append([]byte(nil), pack...)
	zr, err := zip.NewReader(bytes.NewReader(pack), int64(len(pack)))
	if err != nil {
		t.Fatal(err)
	}
	off, err := zr.File[0].DataOffset()
	if err != nil {
		t.Fatal(err)
	}
	corrupt[off] ^= 1
	name := zr.File[0].Name
	bad := Open(fstest.MapFS{"g/" + PackName: {Data: corrupt}})
	if _, err := fs.ReadFile(bad, "g/blobs/"+name); err == nil || !strings.Contains(err.Error(), name) {
		t.Errorf("a corrupted member reads without an error naming it: %v", err)
	}
}
