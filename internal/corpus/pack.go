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

// pack is one opened archive: the index of its members, or why it cannot
// be read, and the members served so far.
type pack struct {
	name  string    // the archive's path, for messages
	index *zipIndex // nil if err is set
	err   error     // why the archive cannot be read

	mu     sync.Mutex
	served map[string]*packMember // by name, the members looked up
}

// packMember is one member of a pack, checked the first time it is
// served.
type packMember struct {
	once    sync.Once
	content []byte // the member's bytes
	err     error  // why it cannot be served (fs.ErrNotExist: no such member)
}

// memberFile is an open member of a pack.
type memberFile struct {
	*bytes.Reader
	info fs.FileInfo
}

func (f memberFile) Stat() (fs.FileInfo, error) { return f.info, nil }
func (f memberFile) Close() error               { return nil }

// memberInfo describes a member of a pack as a read-only regular file.
type memberInfo struct {
	name string
	size int64
}

func (i memberInfo) Name() string       { return i.name }
func (i memberInfo) Size() int64        { return i.size }
func (i memberInfo) Mode() fs.FileMode  { return 0o444 }
func (i memberInfo) ModTime() time.Time { return packTime }
func (i memberInfo) IsDir() bool        { return false }
func (i memberInfo) Sys() any           { return nil }

// Open returns fsys extended so that blobs stored in a pack read like
// files: fs.ReadFile(Open(fsys), "golden/blobs/ab12.npy") reads the member
// ab12.npy of golden/blobs.npz. The archive is read with package confine
// (a regular file within the input limit). Its central directory is
// indexed in a few bytes per member, and refused if it lists more than
// MaxPackMembers members or takes more than MaxPackDirectory bytes; a
// member is read when it is first served. A member is refused if it is
// compressed — a pack stores its members as they are, as np.savez does,
// so that no member can expand beyond the bytes on disk — or if its
// content does not match the checksum in its name. A pack that cannot be
// read fails the reads of its members only.
func Open(fsys fs.FS) fs.FS { return &packFS{base: fsys, packs: map[string]*pack{}} }

// pack returns the pack of directory dir, opening it the first time;
// nil if dir holds none.
func (p *packFS) pack(dir string) *pack {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pk, ok := p.packs[dir]; ok {
		return pk
	}
	name := path.Join(dir, PackName)
	if _, err := fs.Stat(p.base, name); err != nil {
		p.packs[dir] = nil
		return nil
	}
	pk := &pack{name: name, served: map[string]*packMember{}}
	pk.index, pk.err = openIndex(p.base, name)
	if pk.err != nil {
		pk.err = fmt.Errorf("%s: %w", name, pk.err)
	}
	p.packs[dir] = pk
	return pk
}

// openIndex opens the archive name of fsys and indexes its members. The
// archive is read where it lies when its file can be read at any offset
// (an embedded corpus, a file on disk), otherwise read whole.
func openIndex(fsys fs.FS, name string) (*zipIndex, error) {
	f, size, err := confine.Open(fsys, name)
	if err != nil {
		return nil, err
	}
	ra, ok := f.(io.ReaderAt)
	if !ok {
		data, err := io.ReadAll(io.LimitReader(f, size))
		f.Close()
		if err != nil {
			return nil, err
		}
		ra, size = bytes.NewReader(data), int64(len(data))
	}
	// The file stays open while the pack is used, as long as the
	// command runs.
	return readZipIndex(ra, size)
}

// member returns the checked content of the member called file.
func (pk *pack) member(file string) ([]byte, error) {
	if pk.err != nil {
		return nil, pk.err
	}
	pk.mu.Lock()
	m, ok := pk.served[file]
	if !ok {
		m = &packMember{}
		pk.served[file] = m
	}
	pk.mu.Unlock()
	m.once.Do(func() {
		m.content, m.err = checkMember(pk.index, file)
		if m.err != nil && m.err != fs.ErrNotExist {
			m.err = fmt.Errorf("%s in %s %v", file, pk.name, m.err)
		}
	})
	return m.content, m.err
}

// checkMember reads and checks the member called name of a pack: stored,
// not compressed, within the pack, and holding the content its name's
// checksum says. It returns the member's content, or fs.ErrNotExist if
// the pack has no such member.
func checkMember(z *zipIndex, name string) ([]byte, error) {
	m, ok, err := z.lookup(name)
	switch {
	case err != nil:
		return nil, fmt.Errorf("cannot be read: %v", err)
	case !ok:
		return nil, fs.ErrNotExist
	case m.method != methodStore:
		return nil, fmt.Errorf("is compressed (method %d): a pack's members must be stored uncompressed", m.method)
	}
	off, err := z.dataOffset(m)
	if err != nil || m.compressed != m.size || off < 0 || off > z.size || m.compressed > uint64(z.size-off) {
		return nil, fmt.Errorf("cannot be read: its data lies outside the pack")
	}
	content := make([]byte, m.compressed)
	if _, err := z.archive.ReadAt(content, off); err != nil {
		return nil, fmt.Errorf("cannot be read: %v", err)
	}
	sum := sha256.Sum256(content)
	if !strings.HasPrefix(name, hex.EncodeToString(sum[:])[:24]) {
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

// memberOf returns the checked content of the member that serves name;
// ok is false if name is not served from a pack.
func (p *packFS) memberOf(name string) (content []byte, ok bool, err error) {
	dir, file, ok := member(name)
	if !ok {
		return nil, false, nil
	}
	pk := p.pack(dir)
	if pk == nil {
		return nil, false, nil
	}
	content, err = pk.member(file)
	if err == fs.ErrNotExist {
		err = &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return content, true, err
}

// Open implements fs.FS.
func (p *packFS) Open(name string) (fs.File, error) {
	content, ok, err := p.memberOf(name)
	switch {
	case err != nil:
		return nil, err
	case ok:
		return memberFile{bytes.NewReader(content), memberInfo{path.Base(name), int64(len(content))}}, nil
	}
	return p.base.Open(name)
}

// Stat implements fs.StatFS, so that a file of the underlying file system
// is looked at without being opened (see package confine).
func (p *packFS) Stat(name string) (fs.FileInfo, error) {
	content, ok, err := p.memberOf(name)
	switch {
	case err != nil:
		return nil, err
	case ok:
		return memberInfo{path.Base(name), int64(len(content))}, nil
	}
	return fs.Stat(p.base, name)
}
