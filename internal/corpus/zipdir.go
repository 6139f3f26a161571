package corpus

import (
	"bufio"
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
)

// The limits of a pack's central directory (its list of members), checked
// before the directory is read: a pack may hold at most MaxPackMembers
// members in a central directory of at most MaxPackDirectory bytes. The
// golden corpus holds about 31,000 members in 2.5 MB.
const (
	MaxPackMembers   = 1 << 20
	MaxPackDirectory = 128 << 20
)

// Sizes and signatures of the zip records a pack is read through
// (APPNOTE.TXT 4.3).
const (
	dirEndLen        = 22 // end of central directory record, without comment
	dir64LocatorLen  = 20 // zip64 end of central directory locator
	dir64EndLen      = 56 // zip64 end of central directory record
	dirHeaderLen     = 46 // central directory file header, without name, extra, comment
	localHeaderLen   = 30 // local file header, without name and extra
	dirEndSig        = 0x06054b50
	dir64LocatorSig  = 0x07064b50
	dir64EndSig      = 0x06064b50
	dirHeaderSig     = 0x02014b50
	localHeaderSig   = 0x04034b50
	zip64ExtraID     = 0x0001
	methodStore      = 0
	maxZipCommentLen = 1<<16 - 1
)

// ErrNotZip is the error (wrapped) of a pack that is not a zip archive,
// or one whose records contradict each other.
var ErrNotZip = errors.New("not a valid zip archive")

// errFormat is ErrNotZip, for short.
var errFormat = ErrNotZip

// A PackLimitError is the error (wrapped) of a pack whose central
// directory is beyond MaxPackMembers or MaxPackDirectory.
type PackLimitError struct {
	Members   bool   // the number of members is too large; otherwise the directory's size
	Have, Max uint64 // what the pack has, and the limit
}

func (e *PackLimitError) Error() string {
	if e.Members {
		return fmt.Sprintf("has %d members, more than the limit of %d", e.Have, e.Max)
	}
	return fmt.Sprintf("has a central directory of %d bytes, more than the limit of %d", e.Have, e.Max)
}

// zipIndex finds the members of a zip archive by name while holding only
// a few bytes per member: the hash of its name and where its central
// directory record is. Records are read again when a member is looked up.
type zipIndex struct {
	archive io.ReaderAt
	size    int64
	dirOff  int64 // where the central directory starts
	dirSize int64
	seed    maphash.Seed
	entries []indexEntry // sorted by key, then by position
}

// indexEntry is one member of a zipIndex.
type indexEntry struct {
	key uint64 // the maphash of the member's name
	at  uint32 // its record's offset within the central directory
}

// zipMember is what a central directory record says of a member.
type zipMember struct {
	method     uint16
	compressed uint64
	size       uint64
	headerOff  uint64 // where its local file header is
}

// readZipIndex reads the central directory of the zip archive of size
// bytes in archive, refusing one of more than MaxPackMembers members or
// MaxPackDirectory bytes before reading it, and indexes its members.
func readZipIndex(archive io.ReaderAt, size int64) (*zipIndex, error) {
	count, dirOff, dirSize, err := readDirEnd(archive, size)
	if err != nil {
		return nil, err
	}
	switch {
	case count > MaxPackMembers:
		return nil, &PackLimitError{Members: true, Have: count, Max: MaxPackMembers}
	case dirSize > MaxPackDirectory:
		return nil, &PackLimitError{Have: dirSize, Max: MaxPackDirectory}
	case dirSize < count*dirHeaderLen:
		return nil, errFormat
	}
	z := &zipIndex{archive: archive, size: size, dirOff: int64(dirOff), dirSize: int64(dirSize),
		seed: maphash.MakeSeed(), entries: make([]indexEntry, 0, count)}
	r := bufio.NewReaderSize(io.NewSectionReader(archive, z.dirOff, z.dirSize), 64<<10)
	var hdr [dirHeaderLen]byte
	name := make([]byte, 0, 256)
	at := int64(0)
	for range count {
		if _, err := io.ReadFull(r, hdr[:]); err != nil || binary.LittleEndian.Uint32(hdr[:]) != dirHeaderSig {
			return nil, errFormat
		}
		n, extra, comment := int(le16(hdr[28:])), int(le16(hdr[30:])), int(le16(hdr[32:]))
		name = slices.Grow(name[:0], n)[:n]
		if _, err := io.ReadFull(r, name); err != nil {
			return nil, errFormat
		}
		if _, err := r.Discard(extra + comment); err != nil {
			return nil, errFormat
		}
		z.entries = append(z.entries, indexEntry{key: maphash.Bytes(z.seed, name), at: uint32(at)})
		at += int64(dirHeaderLen + n + extra + comment)
	}
	slices.SortFunc(z.entries, func(a, b indexEntry) int {
		if a.key != b.key {
			return cmp.Compare(a.key, b.key)
		}
		return cmp.Compare(a.at, b.at)
	})
	return z, nil
}

// readDirEnd reads the end of central directory record (and its zip64
// form, if the archive has one) and returns the number of members and the
// offset and size of the central directory, which it checks lie before the
// record.
func readDirEnd(archive io.ReaderAt, size int64) (count, dirOff, dirSize uint64, err error) {
	tail := make([]byte, min(size, dirEndLen+maxZipCommentLen))
	tailOff := size - int64(len(tail))
	if _, err := archive.ReadAt(tail, tailOff); err != nil {
		return 0, 0, 0, fmt.Errorf("cannot be read: %v", err)
	}
	end := -1
	for i := len(tail) - dirEndLen; i >= 0; i-- {
		if binary.LittleEndian.Uint32(tail[i:]) == dirEndSig && i+dirEndLen+int(le16(tail[i+20:])) <= len(tail) {
			end = i
			break
		}
	}
	if end < 0 {
		return 0, 0, 0, errFormat
	}
	rec := tail[end:]
	endOff := uint64(tailOff) + uint64(end)
	count, dirSize, dirOff = uint64(le16(rec[10:])), uint64(le32(rec[12:])), uint64(le32(rec[16:]))
	if count == 0xffff || dirSize == 0xffffffff || dirOff == 0xffffffff {
		// A zip64 archive: the locator just before the record says where
		// the zip64 record is, which holds the real values.
		var loc [dir64LocatorLen]byte
		var rec64 [dir64EndLen]byte
		if endOff < dir64LocatorLen {
			return 0, 0, 0, errFormat
		}
		if _, err := archive.ReadAt(loc[:], int64(endOff-dir64LocatorLen)); err != nil || le32(loc[:]) != dir64LocatorSig {
			return 0, 0, 0, errFormat
		}
		off64 := binary.LittleEndian.Uint64(loc[8:])
		if off64 > endOff-dir64LocatorLen || endOff-dir64LocatorLen-off64 < dir64EndLen {
			return 0, 0, 0, errFormat
		}
		if _, err := archive.ReadAt(rec64[:], int64(off64)); err != nil || le32(rec64[:]) != dir64EndSig {
			return 0, 0, 0, errFormat
		}
		count = binary.LittleEndian.Uint64(rec64[32:])
		dirSize = binary.LittleEndian.Uint64(rec64[40:])
		dirOff = binary.LittleEndian.Uint64(rec64[48:])
		endOff = off64
	}
	if dirOff > endOff || dirSize > endOff-dirOff {
		return 0, 0, 0, errFormat
	}
	return count, dirOff, dirSize, nil
}

// lookup returns the member called name, reading the central directory
// records whose name hash matches; ok is false if there is none. Of
// several members of one name the first is returned.
func (z *zipIndex) lookup(name string) (m zipMember, ok bool, err error) {
	key := maphash.String(z.seed, name)
	i, _ := slices.BinarySearchFunc(z.entries, key, func(e indexEntry, k uint64) int { return cmp.Compare(e.key, k) })
	for ; i < len(z.entries) && z.entries[i].key == key; i++ {
		m, ok, err := z.record(int64(z.entries[i].at), name)
		if ok || err != nil {
			return m, ok, err
		}
	}
	return zipMember{}, false, nil
}

// record reads the central directory record at offset at of the
// directory, and returns its member if it is called name.
func (z *zipIndex) record(at int64, name string) (zipMember, bool, error) {
	var hdr [dirHeaderLen]byte
	if _, err := z.archive.ReadAt(hdr[:], z.dirOff+at); err != nil {
		return zipMember{}, false, errFormat
	}
	n, extra := int(le16(hdr[28:])), int(le16(hdr[30:]))
	if n != len(name) {
		return zipMember{}, false, nil
	}
	rest := make([]byte, n+extra)
	if _, err := z.archive.ReadAt(rest, z.dirOff+at+dirHeaderLen); err != nil {
		return zipMember{}, false, errFormat
	}
	if string(rest[:n]) != name {
		return zipMember{}, false, nil
	}
	m := zipMember{method: le16(hdr[10:]), compressed: uint64(le32(hdr[20:])), size: uint64(le32(hdr[24:])),
		headerOff: uint64(le32(hdr[42:]))}
	// Values that do not fit 32 bits are in the zip64 extra field, in
	// this order, each present only if its 32-bit field is all ones.
	for b := rest[n:]; len(b) >= 4; {
		id, l := le16(b), int(le16(b[2:]))
		if 4+l > len(b) {
			break
		}
		if id == zip64ExtraID {
			f := b[4 : 4+l]
			for _, v := range []*uint64{&m.size, &m.compressed, &m.headerOff} {
				if *v != 0xffffffff {
					continue
				}
				if len(f) < 8 {
					return zipMember{}, false, errFormat
				}
				*v, f = binary.LittleEndian.Uint64(f), f[8:]
			}
		}
		b = b[4+l:]
	}
	return m, true, nil
}

// dataOffset returns where the data of m starts: after its local file
// header, whose name and extra field may differ in length from the
// central directory's.
func (z *zipIndex) dataOffset(m zipMember) (int64, error) {
	var hdr [localHeaderLen]byte
	if m.headerOff > uint64(z.size) {
		return 0, errFormat
	}
	if _, err := z.archive.ReadAt(hdr[:], int64(m.headerOff)); err != nil || le32(hdr[:]) != localHeaderSig {
		return 0, errFormat
	}
	return int64(m.headerOff) + localHeaderLen + int64(le16(hdr[26:])) + int64(le16(hdr[28:])), nil
}

func le16(b []byte) uint16 { return binary.LittleEndian.Uint16(b) }
func le32(b []byte) uint32 { return binary.LittleEndian.Uint32(b) }
