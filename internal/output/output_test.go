package output

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestCheck checks which destinations Check refuses, and why: each row
// prepares a directory holding in.txt (an input file) and corpus/ (an
// input directory with case.json) and returns the destination.
func TestCheck(t *testing.T) {
	tests := []struct {
		rule string
		dest func(t *testing.T, dir string) string
		want Problem // 0: accepted
	}{
		{"a new file is accepted", func(t *testing.T, dir string) string { return filepath.Join(dir, "new.xml") }, 0},
		{"an existing regular file that is no input is accepted", func(t *testing.T, dir string) string {
			os.WriteFile(filepath.Join(dir, "old.xml"), nil, 0o644)
			return filepath.Join(dir, "old.xml")
		}, 0},
		{"a new file inside an input directory is accepted (it is not read)", func(t *testing.T, dir string) string { return filepath.Join(dir, "corpus", "junit.xml") }, 0},
		{"a directory is refused", func(t *testing.T, dir string) string { return dir }, IsDir},
		{"a named pipe is refused", func(t *testing.T, dir string) string {
			if err := syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644); err != nil {
				t.Skip(err)
			}
			return filepath.Join(dir, "fifo")
		}, NotRegular},
		{"a device is refused", func(t *testing.T, dir string) string { return "/dev/null" }, NotRegular},
		{"an input file is refused", func(t *testing.T, dir string) string { return filepath.Join(dir, "in.txt") }, IsInput},
		{"an input file under another spelling is refused", func(t *testing.T, dir string) string { return dir + "/corpus/../in.txt" }, IsInput},
		{"a symbolic link to an input file is refused", func(t *testing.T, dir string) string {
			os.Symlink("in.txt", filepath.Join(dir, "link"))
			return filepath.Join(dir, "link")
		}, IsInput},
		{"a hard link to an input file is refused", func(t *testing.T, dir string) string {
			os.Link(filepath.Join(dir, "in.txt"), filepath.Join(dir, "hard"))
			return filepath.Join(dir, "hard")
		}, IsInput},
		{"a file of an input directory is refused", func(t *testing.T, dir string) string { return filepath.Join(dir, "corpus", "case.json") }, IsInput},
		{"a hard link to a file of an input directory is refused", func(t *testing.T, dir string) string {
			os.Link(filepath.Join(dir, "corpus", "case.json"), filepath.Join(dir, "hard.json"))
			return filepath.Join(dir, "hard.json")
		}, IsInput},
		{"an earlier output is refused", func(t *testing.T, dir string) string { return filepath.Join(dir, "first.xml") }, SameOutput},
		{"an earlier output under another spelling is refused", func(t *testing.T, dir string) string { return dir + "/corpus/../first.xml" }, SameOutput},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "in.txt"), []byte("input"), 0o644)
			os.Mkdir(filepath.Join(dir, "corpus"), 0o755)
			os.WriteFile(filepath.Join(dir, "corpus", "case.json"), []byte("{}"), 0o644)
			in := &Inputs{}
			in.AddFile(filepath.Join(dir, "in.txt"), "the input")
			in.AddDir(filepath.Join(dir, "corpus"), "a file of the corpus")
			if err := in.Check("--first", filepath.Join(dir, "first.xml")); err != nil {
				t.Fatal(err)
			}
			err := in.Check("--out", tt.dest(t, dir))
			var re *RefusedError
			switch {
			case tt.want == 0 && err != nil:
				t.Errorf("refused: %v", err)
			case tt.want != 0 && (!errors.As(err, &re) || re.Problem != tt.want):
				t.Errorf("got %v, want problem %d", err, tt.want)
			}
		})
	}
}

// TestWrite checks that Write replaces the destination whole, through a
// rename: a symbolic link is replaced and its target kept, a hard link's
// other name keeps the old bytes, the mode of a replaced file is kept,
// and a failed write leaves the destination and no temporary file.
func TestWrite(t *testing.T) {
	dir := t.TempDir()
	content := func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }
	read := func(p string) string { b, _ := os.ReadFile(p); return string(b) }

	os.WriteFile(filepath.Join(dir, "target"), []byte("old"), 0o644)
	os.Symlink("target", filepath.Join(dir, "link"))
	os.WriteFile(filepath.Join(dir, "a"), []byte("old"), 0o640)
	os.Chmod(filepath.Join(dir, "a"), 0o640)
	os.Link(filepath.Join(dir, "a"), filepath.Join(dir, "b"))
	for _, p := range []string{"link", "a"} {
		if err := Write(filepath.Join(dir, p), content); err != nil {
			t.Fatal(err)
		}
	}
	if got := read(filepath.Join(dir, "target")); got != "old" {
		t.Errorf("a symbolic link's target was written: %q", got)
	}
	if got := read(filepath.Join(dir, "link")); got != "new" {
		t.Errorf("the link holds %q", got)
	}
	if got := read(filepath.Join(dir, "b")); got != "old" {
		t.Errorf("a hard link's other name was written: %q", got)
	}
	if st, _ := os.Stat(filepath.Join(dir, "a")); st.Mode().Perm() != 0o640 || read(filepath.Join(dir, "a")) != "new" {
		t.Errorf("the replaced file: mode %v, %q", st.Mode(), read(filepath.Join(dir, "a")))
	}
	failing := func(w io.Writer) error { io.WriteString(w, "partial"); return errors.New("disk full") }
	if err := Write(filepath.Join(dir, "a"), failing); err == nil || !strings.HasPrefix(err.Error(), filepath.Join(dir, "a")+": ") {
		t.Errorf("a failed write: %v", err)
	}
	if got := read(filepath.Join(dir, "a")); got != "new" {
		t.Errorf("a failed write changed the destination: %q", got)
	}
	if temps, _ := filepath.Glob(filepath.Join(dir, ".conform-*")); len(temps) != 0 {
		t.Errorf("temporary files left: %v", temps)
	}
}
