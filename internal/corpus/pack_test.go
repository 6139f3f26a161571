package corpus

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"testing/fstest"

	"github.com/conformsuite/conform/internal/confine"
)

// blobName returns the pack member name of content.
func blobName(content []byte) string { return Sum(content)[:24] + ".npy" }

// packOf returns a stored zip holding the blob first, n members
// "<i>.npy" of no content, and the blob last, written as Go's archive/zip
// writes them (zip64 records once there are 65535 members or more).
func packOf(t testing.TB, first []byte, n int, last []byte) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	add := func(blob []byte) {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: blobName(blob), Method: zip.Store, Modified: packTime})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(blob)
	}
	add(first)
	for i := 0; i < n; i++ {
		if _, err := zw.CreateRaw(&zip.FileHeader{Name: fmt.Sprintf("%d.npy", i), Method: zip.Store}); err != nil {
			t.Fatal(err)
		}
	}
	add(last)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestPackZip64 checks that a pack of more than 65535 members, which has
// zip64 end records, serves its members.
func TestPackZip64(t *testing.T) {
	a, b := []byte("first"), []byte("last")
	fsys := Open(fstest.MapFS{"g/" + PackName: {Data: packOf(t, a, 70000, b)}})
	for _, want := range [][]byte{a, b} {
		got, err := fs.ReadFile(fsys, "g/blobs/"+blobName(want))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("member %s: %q, %v", blobName(want), got, err)
		}
	}
	if _, err := fs.ReadFile(fsys, "g/blobs/"+blobName([]byte("absent"))); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("an absent member: %v", err)
	}
}

// TestPackNumPy checks that an archive np.savez writes serves its
// members.
func TestPackNumPy(t *testing.T) {
	dir := t.TempDir()
	script := `
import hashlib, io, sys
import numpy as np
arrays = {}
for a in (np.arange(6, dtype='<i4').reshape(2, 3), np.array([1.5, -2.0]), np.zeros((0, 3), dtype='>u2')):
    f = io.BytesIO()
    np.save(f, a)
    arrays[hashlib.sha256(f.getvalue()).hexdigest()[:24]] = a
np.savez(sys.argv[1], **arrays)
`
	out, err := exec.Command("/usr/bin/python3", "-c", script, filepath.Join(dir, PackName)).CombinedOutput()
	if err != nil {
		t.Skipf("NumPy is not available: %v: %s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, PackName))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	fsys := Open(fstest.MapFS{PackName: {Data: data}})
	for _, f := range zr.File {
		got, err := fs.ReadFile(fsys, "blobs/"+f.Name)
		if err != nil || blobName(got) != f.Name {
			t.Errorf("member %s: %d bytes, %v", f.Name, len(got), err)
		}
	}
	if len(zr.File) != 3 {
		t.Errorf("%d members, want 3", len(zr.File))
	}
}

// dir64 returns the zip64 end records, placed at offset at of a file,
// of a zip claiming count members in a central directory of dirSize bytes
// at offset 0.
func dir64(at, count, dirSize uint64) []byte {
	var b bytes.Buffer
	le := func(v any) { binary.Write(&b, binary.LittleEndian, v) }
	le(uint32(dir64EndSig))
	le(uint64(dir64EndLen - 12))
	le(uint16(45))
	le(uint16(45))
	le(uint32(0))
	le(uint32(0))
	le(count)
	le(count)
	le(dirSize)
	le(uint64(0))
	le(uint32(dir64LocatorSig))
	le(uint32(0))
	le(at)
	le(uint32(1))
	le(uint32(dirEndSig))
	le([4]uint16{0, 0, 0xffff, 0xffff})
	le([2]uint32{0xffffffff, 0xffffffff})
	le(uint16(0))
	return b.Bytes()
}

// TestPackLimits checks what a pack whose central directory is beyond
// the limits, or not a central directory, gets: every member read fails
// with one line naming the pack, and nothing is allocated for the members
// it claims.
func TestPackLimits(t *testing.T) {
	tests := []struct {
		rule string
		pad  int64 // zero bytes (a hole) before the end records
		end  []byte
		want error
	}{
		{"more than MaxPackMembers members are refused before the directory is read",
			0, dir64(0, MaxPackMembers+1, 0), &PackLimitError{Members: true, Have: MaxPackMembers + 1, Max: MaxPackMembers}},
		{"a directory of more than MaxPackDirectory bytes is refused before it is read",
			MaxPackDirectory + 1, dir64(MaxPackDirectory+1, 1, MaxPackDirectory+1), &PackLimitError{Have: MaxPackDirectory + 1, Max: MaxPackDirectory}},
		{"a directory too small for the members it claims is refused",
			0, dir64(0, 1000, 46), ErrNotZip},
		{"a directory that does not lie before its end record is refused",
			0, dir64(0, 1, 1<<20), ErrNotZip},
		{"a file without an end record is refused",
			0, []byte("not a zip"), ErrNotZip},
	}
	for _, tt := range tests {
		dir := t.TempDir()
		f, err := os.Create(filepath.Join(dir, PackName))
		if err != nil {
			t.Fatal(err)
		}
		f.WriteAt(tt.end, tt.pad)
		f.Close()
		root, err := confine.Dir(dir, 0)
		if err != nil {
			t.Fatal(err)
		}
		fsys := Open(root)
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err = fs.ReadFile(fsys, "blobs/"+blobName(nil))
		runtime.ReadMemStats(&after)
		var limit *PackLimitError
		switch want, isLimit := tt.want.(*PackLimitError); {
		case isLimit && (!errors.As(err, &limit) || *limit != *want):
			t.Errorf("%s: %v, want %v", tt.rule, err, want)
		case !isLimit && !errors.Is(err, tt.want):
			t.Errorf("%s: %v, want %v", tt.rule, err, tt.want)
		}
		if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
			t.Errorf("%s: allocated %d KiB", tt.rule, grew>>10)
		}
	}
}

// TestPackIndexMemory checks that opening a pack costs a few bytes per
// member, not a parsed header each: 200,000 empty members and one blob,
// of which one is read.
func TestPackIndexMemory(t *testing.T) {
	const n = 200000
	blob := []byte("the one blob a case reads")
	fsys := Open(fstest.MapFS{"g/" + PackName: {Data: packOf(t, []byte("first"), n, blob)}})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := fs.ReadFile(fsys, "g/blobs/"+blobName(blob))
	runtime.ReadMemStats(&after)
	if err != nil || !bytes.Equal(got, blob) {
		t.Fatalf("the blob: %q, %v", got, err)
	}
	// The index takes 16 bytes a member.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 32*n {
		t.Errorf("opening a pack of %d members allocated %d MiB (%d bytes a member)", n, grew>>20, grew/n)
	}
}
