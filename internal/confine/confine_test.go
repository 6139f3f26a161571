package confine

import (
	"encoding/binary"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// npyFile returns a version-1 .npy header for dict followed by payload.
func npyFile(dict string, payload []byte) []byte {
	h := dict + " "
	for (10+len(h)+1)%64 != 0 {
		h += " "
	}
	h += "\n"
	b := []byte("\x93NUMPY\x01\x00")
	b = binary.LittleEndian.AppendUint16(b, uint16(len(h)))
	return append(append(b, h...), payload...)
}

// testDir builds a directory "case" holding the files the tests read, and
// a file "secret" beside it that nothing may read through the directory.
func testDir(t *testing.T) string {
	t.Helper()
	top := t.TempDir()
	dir := filepath.Join(top, "case")
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Mkdir(dir, 0o755))
	must(os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	must(os.WriteFile(filepath.Join(top, "secret"), []byte("root:x:0:0"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "x.npy"), npyFile("{'descr': '|u1', 'fortran_order': False, 'shape': (3,), }", []byte{1, 2, 3}), 0o644))
	must(os.WriteFile(filepath.Join(dir, "text.npy"), []byte("root:x:0:0 and more"), 0o644))
	must(os.WriteFile(filepath.Join(dir, "big.bin"), make([]byte, 4096), 0o644))
	must(os.Symlink("x.npy", filepath.Join(dir, "inside.npy")))
	must(os.Symlink("../x.npy", filepath.Join(dir, "sub", "up.npy")))
	must(os.Symlink("../secret", filepath.Join(dir, "out.npy")))
	must(os.Symlink(filepath.Join(top, "secret"), filepath.Join(dir, "abs.npy")))
	must(os.Symlink("/dev/zero", filepath.Join(dir, "zero.npy")))
	must(os.Symlink("missing.npy", filepath.Join(dir, "dangling.npy")))
	must(syscall.Mkfifo(filepath.Join(dir, "fifo.npy"), 0o644))
	// A valid header claiming 4 GiB of float64s over a sparse file of
	// that size: refused by the limit before anything is read.
	huge := npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (536870912,), }", nil)
	must(os.WriteFile(filepath.Join(dir, "huge.npy"), huge, 0o644))
	must(os.Truncate(filepath.Join(dir, "huge.npy"), int64(len(huge))+4<<30))
	// A header claiming 4 GiB over a file of 64 bytes: refused from the
	// header, whatever the limit.
	must(os.WriteFile(filepath.Join(dir, "liar.npy"), huge, 0o644))
	return dir
}

func TestReadNPY(t *testing.T) {
	dir := testDir(t)
	root, err := Dir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rule    string
		name    string
		limit   int64
		wantErr string // a substring of the error; "" for success
	}{
		{"a regular .npy file inside the directory is read", "x.npy", 0, ""},
		{"a symbolic link that stays inside is followed", "inside.npy", 0, ""},
		{"a symbolic link to the parent inside the directory is followed", "sub/up.npy", 0, ""},
		{"a symbolic link leading out of the directory is refused", "out.npy", 0, "escapes"},
		{"an absolute symbolic link is refused", "abs.npy", 0, "escapes"},
		{"a symbolic link to a device is refused", "zero.npy", 0, "escapes"},
		{"a dangling symbolic link is an error", "dangling.npy", 0, "no such file"},
		{"a named pipe is refused without opening it", "fifo.npy", 0, "not a regular file (a named pipe)"},
		{"a directory is refused", "sub", 0, "not a regular file (a directory)"},
		{"a file above the limit is refused before it is read", "huge.npy", 0, "more than the input limit"},
		{"a lowered limit refuses smaller files", "big.bin", 1024, "more than the input limit"},
		{"a header claiming more than the file holds is refused", "liar.npy", 0, "payload truncated"},
		{"a file that is not .npy is refused without quoting it", "text.npy", 0, "does not start with the magic string"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			t.Parallel() // each with its own limit
			fsys := WithLimit(root, tt.limit)
			done := make(chan error, 1)
			go func() {
				_, err := ReadNPY(fsys, tt.name)
				done <- err
			}()
			var err error
			select {
			case err = <-done:
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: still reading after 10 s", tt.name)
			}
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("%s: %v", tt.name, err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("%s: error %v, want one containing %q", tt.name, err, tt.wantErr)
			case err != nil && strings.Contains(err.Error(), "root:x"):
				t.Fatalf("%s: the error quotes a file's contents: %v", tt.name, err)
			}
		})
	}
}

func TestCheckPath(t *testing.T) {
	tests := []struct {
		rule string
		path string
		ok   bool
	}{
		{"a plain name is inside", "x.npy", true},
		{"a path into a subdirectory is inside", "blobs/ab.npy", true},
		{"an absolute path is refused", "/etc/passwd", false},
		{"a path through .. is refused", "../x.npy", false},
		{"a path that comes back through .. is refused too", "sub/../x.npy", false},
		{"the directory itself is not a file", ".", false},
		{"an empty path is refused", "", false},
	}
	for _, tt := range tests {
		if err := CheckPath(tt.path); (err == nil) != tt.ok {
			t.Errorf("%s: CheckPath(%q) = %v", tt.rule, tt.path, err)
		}
	}
}

func TestReadPath(t *testing.T) {
	dir := testDir(t)
	if _, err := ReadPath("/dev/zero", 0); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a device named on the command line is read: %v", err)
	}
	data, err := ReadPath(filepath.Join(dir, "x.npy"), 0)
	if err != nil || len(data) == 0 {
		t.Errorf("a regular file named on the command line: %v", err)
	}
}

// TestLimitTravelsWithFS checks that the input limit belongs to the file
// system, not to the process: each row reads one file through its own
// limit, all rows at the same time, and a sub-tree keeps its limit.
func TestLimitTravelsWithFS(t *testing.T) {
	dir := testDir(t)
	root, err := Dir(dir, 0)
	if err != nil {
		t.Fatal(err)
	}
	size := func(name string) int64 {
		fi, err := os.Stat(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	n := size("x.npy")
	tests := []struct {
		rule  string
		fsys  func() (fs.FS, error)
		name  string
		limit int64
		ok    bool
	}{
		{"a file of exactly the limit is read", nil, "x.npy", n, true},
		{"a file one byte over the limit is refused", nil, "x.npy", n - 1, false},
		{"0 is the default limit", nil, "x.npy", 0, true},
		{"a sub-tree keeps the lowered limit", func() (fs.FS, error) { return fs.Sub(WithLimit(root, 1), "sub") }, "up.npy", -1, false},
		{"a sub-tree keeps the default limit", func() (fs.FS, error) { return fs.Sub(root, "sub") }, "up.npy", -1, true},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			t.Parallel()
			fsys := WithLimit(root, tt.limit)
			if tt.fsys != nil {
				var err error
				if fsys, err = tt.fsys(); err != nil {
					t.Fatal(err)
				}
			}
			for range 100 {
				if _, err := ReadFile(fsys, tt.name); (err == nil) != tt.ok {
					t.Fatalf("ReadFile(%s) under limit %d: %v", tt.name, LimitOf(fsys), err)
				}
			}
		})
	}
}
