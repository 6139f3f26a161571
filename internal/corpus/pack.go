package corpus

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"time"
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
	packs map[string]*zip.Reader // by directory; nil: no archive there
}

// Open returns fsys extended so that blobs stored in a pack read like
// files: fs.ReadFile(Open(fsys), "golden/blobs/ab12.npy") reads the member
// ab12.npy of golden/blobs.npz, checked against its name's checksum.
func Open(fsys fs.FS) fs.FS { return &packFS{base: fsys, packs: map[string]*zip.Reader{}} }

func (p *packFS) pack(dir string) (*zip.Reader, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if zr, ok := p.packs[dir]; ok {
		return zr, nil
	}
	data, err := fs.ReadFile(p.base, path.Join(dir, PackName))
	if err != nil {
		p.packs[dir] = nil
		return nil, nil
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path.Join(dir, PackName), err)
	}
	p.packs[dir] = zr
	return zr, nil
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

// Open implements fs.FS.
func (p *packFS) Open(name string) (fs.File, error) {
	if dir, file, ok := member(name); ok {
		zr, err := p.pack(dir)
		if err != nil {
			return nil, err
		}
		if zr != nil {
			return zr.Open(file)
		}
	}
	return p.base.Open(name)
}

// ReadFile implements fs.ReadFileFS. A member whose content does not
// match the checksum in its name is an error naming it.
func (p *packFS) ReadFile(name string) ([]byte, error) {
	dir, file, ok := member(name)
	if !ok {
		return fs.ReadFile(p.base, name)
	}
	zr, err := p.pack(dir)
	if err != nil {
		return nil, err
	}
	if zr == nil {
		return fs.ReadFile(p.base, name)
	}
	f, err := zr.Open(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("%s in %s: %v", file, path.Join(dir, PackName), err)
	}
	if sum := Sum(data); !strings.HasPrefix(file, sum[:24]) {
		return nil, fmt.Errorf("%s in %s is corrupt: its content does not match its checksum", file, path.Join(dir, PackName))
	}
	return data, nil
}
