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

// pack is one loaded archive and the members that cannot be served.
type pack struct {
	zr  *zip.Reader
	bad map[string]error // member name -> why it is refused
}

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
	data, err := confine.ReadFile(p.base, name)
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	pk := &pack{zr: zr, bad: map[string]error{}}
	for _, f := range zr.File {
		if err := checkMember(f); err != nil {
			pk.bad[f.Name] = fmt.Errorf("%s in %s %v", f.Name, name, err)
		}
	}
	p.packs[dir] = pk
	return pk, nil
}

// checkMember checks a member of a pack: stored, not compressed, and
// holding the content its name's checksum says.
func checkMember(f *zip.File) error {
	if f.Method != zip.Store {
		return fmt.Errorf("is compressed (method %d): a pack's members must be stored uncompressed", f.Method)
	}
	r, err := f.Open()
	if err != nil {
		return fmt.Errorf("cannot be read: %v", err)
	}
	defer r.Close()
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return fmt.Errorf("cannot be read: %v", err)
	}
	if sum := hex.EncodeToString(h.Sum(nil)); !strings.HasPrefix(f.Name, sum[:24]) {
		return fmt.Errorf("is corrupt: its content does not match its checksum")
	}
	return nil
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

// memberOf returns the pack and member name that serve name, or a nil
// pack if name is not served from a pack.
func (p *packFS) memberOf(name string) (*pack, string, error) {
	dir, file, ok := member(name)
	if !ok {
		return nil, "", nil
	}
	pk, err := p.pack(dir)
	if err != nil || pk == nil {
		return nil, "", err
	}
	if err := pk.bad[file]; err != nil {
		return nil, "", err
	}
	return pk, file, nil
}

// Open implements fs.FS.
func (p *packFS) Open(name string) (fs.File, error) {
	pk, file, err := p.memberOf(name)
	switch {
	case err != nil:
		return nil, err
	case pk != nil:
		return pk.zr.Open(file)
	}
	return p.base.Open(name)
}

// Stat implements fs.StatFS, so that a file of the underlying file system
// is looked at without being opened (see package confine).
func (p *packFS) Stat(name string) (fs.FileInfo, error) {
	pk, file, err := p.memberOf(name)
	switch {
	case err != nil:
		return nil, err
	case pk != nil:
		return fs.Stat(pk.zr, file)
	}
	return fs.Stat(p.base, name)
}
