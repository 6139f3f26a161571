package corpus

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/conformsuite/conform/internal/confine"
)

// PackName is the archive that holds a corpus directory's blobs: an .npz
// (a zip of .npy files, NumPy's own multi-array format), stored without
// compression, each member named by the SHA-256 of its content. Case
// files refer to a member as "blobs/<name>.npy".
const PackName = "blobs.npz"

// packTime is the fixed modification time of every member, so that the
// same blobs always give the same archive bytes.
var packTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// writePack renders blobs (name -> content, names without "blobs/") as an
// uncompressed zip in name order.
func writePack(blobs map[string][]byte) ([]byte, error) {
	names := make([]string, 0, len(blobs))
	for name := range blobs {
		names = append(names, name)
	}
	sort.Strings(names)
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, name := range names {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store, Modified: packTime})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(blobs[name]); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// packFS serves "<dir>/blobs/<name>" from "<dir>/blobs.npz" when that
// archive exists, and everything else from the underlying file system.
type packFS struct {
	base fs.FS

	mu    sync.Mutex
	packs map[string]*pack // by directory; nil: no archive there
}

// pack is one loaded archive: its bytes and its members by name.
type pack struct {
	name    string // the archive's path, for messages
	members map[string]*packMember
}

// packMember is one member of a pack, checked the first time it is
// served.
type packMember struct {
	f       *zip.File
	archive io.ReaderAt // the archive's bytes
	size    int64       // the archive's size

	once    sync.Once
	content []byte // the member's bytes, a range of data
	err     error  // why it cannot be served
}

// check checks the member once (see checkMember) and returns why it
// cannot be served, if it cannot.
func (m *packMember) check(archive string) error {
	m.once.Do(func() {
		m.content, m.err = checkMember(m.f, m.archive, m.size)
		if m.err != nil {
			m.err = fmt.Errorf("%s in %s %v", m.f.Name, archive, m.err)
		}
	})
	return m.err
}

// memberFile is an open member of a pack.
type memberFile struct {
	*bytes.Reader
	info fs.FileInfo
}

func (f memberFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f memberFile) Close() error               { return nil }

// Open returns fsys extended so that blobs stored in a pack read like
// files: fs.ReadFile(Open(fsys), "golden/blobs/ab12.npy") reads the member
// ab12.npy of golden/blobs.npz. The archive is read with package confine
// (a regular file within the input limit). A member is refused if it is
// compressed — a pack stores its members as they are, as np.savez does,
// so that no member can expand beyond the bytes on disk — or if its
// content does not match the checksum in its name.
func Open(fsys fs.FS) fs.FS { return &packFS{base: fsys, packs: map[string]*pack{}} }

func (p *packFS) pack(dir string) (*pack, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pk, ok := p.packs[dir]; ok {
		return pk, nil
	}
	name := path.Join(dir, PackName)
	if _, err := fs.Stat(p.base, name); err != nil {
		p.packs[dir] = nil
		return nil, nil
	}
	// The archive is read where it lies when its file can be read at any
	// offset (an embedded corpus, a file on disk): each member is then
	// read, and checked, when it is first served.
	f, size, err := confine.Open(p.base, name)
	if err != nil {
		return nil, err
	}
	ra, ok := f.(io.ReaderAt)
	if !ok {
		data, err := io.ReadAll(io.LimitReader(f, size))
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		ra, size = bytes.NewReader(data), int64(len(data))
	}
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	pk := &pack{name: name, members: make(map[string]*packMember, len(zr.File))}
	for _, f := range zr.File {
		pk.members[f.Name] = &packMember{f: f, archive: ra, size: size}
	}
	p.packs[dir] = pk
	return pk, nil
}

// checkMember reads and checks a member f of a pack of size bytes:
// stored, not compressed, within the pack, and holding the content its
// name's checksum says. It returns the member's content.
func checkMember(f *zip.File, archive io.ReaderAt, size int64) ([]byte, error) {
	if f.Method != zip.Store {
		return nil, fmt.Errorf("is compressed (method %d): a pack's members must be stored uncompressed", f.Method)
	}
	off, err := f.DataOffset()
	if err != nil || f.CompressedSize64 != f.UncompressedSize64 || off < 0 || off > size || f.CompressedSize64 > uint64(size-off) {
		return nil, fmt.Errorf("cannot be read: its data lies outside the pack")
	}
	content := make([]byte, f.CompressedSize64)
	if _, err := archive.ReadAt(content, off); err != nil {
		return nil, fmt.Errorf("cannot be read: %v", err)
	}
	sum := sha256.Sum256(content)
	if !strings.HasPrefix(f.Name, hex.EncodeToString(sum[:])[:24]) {
		return nil, fmt.Errorf("is corrupt: its content does not match its checksum")
	}
	return content, nil
}

// member splits "<dir>/blobs/<name>" into dir and name.
func member(name string) (dir, file string, ok bool) {
	d, file := path.Split(name)
	d = strings.TrimSuffix(d, "/")
	if path.Base(d) != "blobs" || file == "" {
		return "", "", false
	}
	return path.Dir(d), file, true
}

// memberOf returns the checked member that serves name, or nil if name
// is not served from a pack.
func (p *packFS) memberOf(name string) (*packMember, error) {
	dir, file, ok := member(name)
	if !ok {
		return nil, nil
	}
	pk, err := p.pack(dir)
	if err != nil || pk == nil {
		return nil, err
	}
	m, ok := pk.members[file]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	if err := m.check(pk.name); err != nil {
		return nil, err
	}
	return m, nil
}

// Open implements fs.FS.
func (p *packFS) Open(name string) (fs.File, error) {
	m, err := p.memberOf(name)
	switch {
	case err != nil:
		return nil, err
	case m != nil:
		return memberFile{bytes.NewReader(m.content), m.f.FileInfo()}, nil
	}
	return p.base.Open(name)
}

// Stat implements fs.StatFS, so that a file of the underlying file system
// is looked at without being opened (see package confine).
func (p *packFS) Stat(name string) (fs.FileInfo, error) {
	m, err := p.memberOf(name)
	switch {
	case err != nil:
		return nil, err
	case m != nil:
		return m.f.FileInfo(), nil
	}
	return fs.Stat(p.base, name)
}
