package engine

import (
	"strings"
	"unsafe"
)

// newBytes returns a new slice of n bytes whose contents are unspecified:
// the caller must write every byte before the slice leaves the package.
//
// make zeroes a slice unless its memory comes fresh from the operating
// system, and for an output that a kernel then overwrites the zeroing is
// a whole extra pass over it: on the benchmarks of kernels_bench_test.go
// (2 cores), outputs of 4 to 64 MiB took 1.3 to 1.6 times as long with
// make as with newBytes. strings.Builder allocates its buffer the way the
// runtime's own no-zero allocations do (bytes.Clone and bytes.Join use the
// same), and newBytes hands that buffer out as a []byte, so that kernels
// can fill it from several goroutines. The memory is an ordinary heap
// object, managed by the garbage collector.
//
// From recycleMinBytes on, the slice may be the memory of a result given
// back with Release, and its capacity may exceed n; the caller records
// the result it makes with the slice with own, so that Release can take
// it back.
//
// From hugePageMinBytes on, newBytes also advises the operating system to
// back the buffer with transparent huge pages (see adviseHugePages).
func newBytes(n int) []byte {
	if n == 0 {
		return []byte{}
	}
	var buf []byte
	if n >= recycleMinBytes {
		buf = allocRecyclable(n)
	} else {
		buf = allocNoZero(n)
	}
	if poisonNewBytes {
		for i := range buf {
			buf[i] = 0xA5
		}
	}
	return buf
}

// allocNoZero allocates n > 0 bytes without zeroing them (see newBytes).
func allocNoZero(n int) []byte {
	var b strings.Builder
	b.Grow(n)
	b.WriteByte(0) // the buffer is now non-empty, so String points into it
	buf := unsafe.Slice(unsafe.StringData(b.String()), n)
	if n >= hugePageMinBytes {
		adviseHugePages(buf)
	}
	return buf
}

// hugePageMinBytes is the size from which newBytes advises huge pages,
// NumPy's threshold for the same advice.
const hugePageMinBytes = 4 << 20

// poisonNewBytes makes newBytes fill its result with a pattern, so that
// a kernel that leaves some output byte unwritten fails the tests even
// where the allocator hands back zeroed memory. The package's tests set
// it (see export_test.go); benchmarks leave it off.
var poisonNewBytes bool

// MakeData returns n zeroed bytes for the Data of a tensor. From 4 MiB
// on, it advises the operating system to back them with transparent huge
// pages (see adviseHugePages), as NumPy does for its arrays and newBytes
// for the engine's results: an op that reads a large input in strides
// then misses the TLB far less often (on the benchmarks of
// kernels_bench_test.go, NumPy's x[:, ::3] of a 64 MiB input took 1.3
// times as long on an input in 4 KiB pages). The .npy reader allocates
// its payloads with MakeData.
func MakeData(n int) []byte {
	b := make([]byte, n)
	if n >= hugePageMinBytes {
		adviseHugePages(b)
	}
	return b
}
