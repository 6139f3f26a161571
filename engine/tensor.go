package engine

import (
	"encoding/binary"
	"math"
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// MaxRank is the largest number of dimensions a tensor may have (NumPy's
// NPY_MAXDIMS).
const MaxRank = 32

// Tensor is an N-dimensional array of fixed-size elements stored as raw
// bytes. Strides are in bytes and may be zero or negative, so a Tensor can
// be a zero-copy view of another one. A Tensor is C-contiguous when its
// strides are the row-major strides of its shape (the stride of an axis
// of length 1 aside, which addresses nothing), Offset is 0 and Data holds
// exactly its elements.
type Tensor struct {
	DType   DType
	Shape   []int
	Strides []int
	Offset  int
	Data    []byte
}

// NumElements returns the product of shape, or -1 if it overflows int.
func NumElements(shape []int) int {
	n := 1
	for _, d := range shape {
		if d < 0 {
			return -1
		}
		hi, lo := bits.Mul64(uint64(n), uint64(d))
		if hi != 0 || lo > math.MaxInt {
			return -1
		}
		n = int(lo)
	}
	return n
}

// ContiguousStrides returns the row-major byte strides of shape.
func ContiguousStrides(shape []int, itemSize int) []int {
	return putContiguousStrides(make([]int, len(shape)), shape, itemSize)
}

// putContiguousStrides writes the row-major byte strides of shape into
// strides, of its length, and returns strides.
func putContiguousStrides(strides, shape []int, itemSize int) []int {
	s := itemSize
	for i := len(shape) - 1; i >= 0; i-- {
		strides[i] = s
		if shape[i] > 0 {
			s *= shape[i]
		}
	}
	return strides
}

// FromBytes returns a C-contiguous tensor over data, which must hold
// exactly the elements of shape. data is used, not copied.
func FromBytes(dt DType, shape []int, data []byte) (*Tensor, error) {
	if len(shape) > MaxRank {
		return nil, RuleInputRank.Errorf("rank %d exceeds the maximum of %d", len(shape), MaxRank)
	}
	if dt.Size <= 0 {
		return nil, RuleInputDType.Errorf("dtype %v has no size", dt)
	}
	if !ShapeFits(shape, dt.Size) {
		return nil, RuleInputTooBig.Errorf("shape %v of %v is too big: its size in bytes overflows int", shape, dt)
	}
	n := NumElements(shape)
	if len(data) != n*dt.Size {
		return nil, RuleInputDataLength.Errorf("shape %v of %v needs %d bytes, have %d", shape, dt, n*dt.Size, len(data))
	}
	t := newView(len(shape)) // the header, shape and strides in one allocation
	t.DType, t.Data = dt, data
	copy(t.Shape, shape)
	putContiguousStrides(t.Strides, shape, dt.Size)
	return t, nil
}

// Zeros returns a new C-contiguous tensor of zero bytes.
func Zeros(dt DType, shape []int) (*Tensor, error) {
	if !ShapeFits(shape, dt.Size) {
		return nil, RuleArrayTooBig.Errorf("shape %v of %v is too big: its size in bytes overflows int", shape, dt)
	}
	n := NumElements(shape)
	return FromBytes(dt, shape, MakeData(n*dt.Size))
}

// Rank returns the number of dimensions.
func (t *Tensor) Rank() int { return len(t.Shape) }

// Len returns the number of elements.
func (t *Tensor) Len() int { return NumElements(t.Shape) }

// IsContiguous reports whether t is C-contiguous with offset 0 and no
// trailing data, so that Data is exactly its elements in row-major order.
func (t *Tensor) IsContiguous() bool {
	n := t.Len()
	if t.Offset != 0 || len(t.Data) != n*t.DType.Size {
		return false
	}
	return n == 0 || t.isBlock()
}

// isBlock reports whether the elements of t, which has at least one,
// follow each other in memory in row-major order (axes of length 1 aside),
// so that they are the block of t.Len()*t.DType.Size bytes at t.Offset.
func (t *Tensor) isBlock() bool {
	want := t.DType.Size
	for i := len(t.Shape) - 1; i >= 0; i-- {
		if d := t.Shape[i]; d != 1 {
			if t.Strides[i] != want {
				return false
			}
			want *= d
		}
	}
	return true
}

// Contiguous returns t's elements as a C-contiguous tensor: t itself if
// it is C-contiguous; a tensor over the same memory if its elements are
// one block of t.Data in row-major order, as NumPy's ascontiguousarray
// returns such a view itself; otherwise a new tensor holding a copy.
func (t *Tensor) Contiguous() *Tensor {
	if t.IsContiguous() {
		return t
	}
	c := *t
	c.Shape = append([]int{}, t.Shape...)
	c.Strides = append([]int{}, t.Strides...)
	c.makeContiguous()
	return &c
}

// makeContiguous turns t, whose header (shape and strides) belongs to the
// caller, into a C-contiguous tensor of the same elements, as Contiguous
// returns them: over the same memory if they are one block of t.Data,
// otherwise over a new copy. t.Strides is overwritten in place.
func (t *Tensor) makeContiguous() {
	n := t.Len() * t.DType.Size
	switch {
	case n == 0:
		t.Data = []byte{}
	case t.isBlock():
		t.Data = t.Data[t.Offset : t.Offset+n : t.Offset+n]
	default:
		out := newBytes(n)
		l := newLayout(t)
		l.copyTo(out)
		t.Data = out
		own(t)
	}
	t.Offset = 0
	s := t.DType.Size
	for i := len(t.Shape) - 1; i >= 0; i-- {
		t.Strides[i] = s
		if t.Shape[i] > 0 {
			s *= t.Shape[i]
		}
	}
}

// Bytes returns the elements of t in row-major order. It shares t's memory
// when they are one block of t.Data (see Contiguous).
func (t *Tensor) Bytes() []byte { return t.Contiguous().Data }

// layout is a non-empty view reduced to the loops that copy it: axes of
// length 1 are dropped, an axis is merged into the one before it when the
// two continue each other in memory, and the innermost axes that are
// contiguous become one block. Copying the view copies, for each position
// of shape in row-major order, the block of bytes at that position.
type layout struct {
	data    []byte
	offset  int   // byte offset of the first block
	block   int   // bytes per block
	shape   []int // the remaining axes; none if the view is one block
	strides []int // their strides in bytes
}

func newLayout(t *Tensor) layout {
	l := layout{data: t.Data, offset: t.Offset, block: t.DType.Size}
	l.shape, l.strides = mergeAxes(t.Shape, t.Strides)
	if k := len(l.shape); k > 0 && l.strides[k-1] == l.block {
		l.block *= l.shape[k-1]
		l.shape, l.strides = l.shape[:k-1], l.strides[:k-1]
	}
	return l
}

// mergeAxes returns the axes of a view with the given shape and byte
// strides, in order, without its axes of size 1 and with every axis that
// continues the one before it (the previous stride is its stride times
// its size) merged into that one: the same positions, in fewer axes.
func mergeAxes(shape, strides []int) (dims, merged []int) {
	for i, d := range shape {
		if d == 1 {
			continue
		}
		s := strides[i]
		if k := len(dims); k > 0 && merged[k-1] == s*d {
			// Axis i continues the previous axis: one axis of d times
			// as many positions, s bytes apart.
			dims[k-1] *= d
			merged[k-1] = s
			continue
		}
		dims = append(dims, d)
		merged = append(merged, s)
	}
	return dims, merged
}

// copyTo copies the blocks of l, in row-major order, into dst, which holds
// exactly all of them, splitting large copies across goroutines.
func (l *layout) copyTo(dst []byte) {
	if len(l.shape) == 0 {
		src := l.data[l.offset : l.offset+len(dst)]
		parallelFor(len(dst), len(dst), 2*len(dst), func(lo, hi int) {
			copy(dst[lo:hi], src[lo:hi])
		})
		return
	}
	parallelFor(len(dst)/l.block, len(dst), l.traffic(len(dst)), func(lo, hi int) {
		l.copyBlocks(dst[lo*l.block:hi*l.block], lo)
	})
}

// cacheLine is the unit in which memory is read, in bytes.
const cacheLine = 64

// traffic returns about how many bytes of memory copying n bytes of the
// blocks of l reads and writes: each output byte is written once, and the
// input is read in cache lines, so that blocks shorter than a line and
// further apart than their length read more than they copy (x[:, ::3] of
// 4-byte elements reads three times its output).
func (l *layout) traffic(n int) int {
	read := n
	if len(l.shape) > 0 && l.block < cacheLine {
		stride := l.strides[len(l.strides)-1]
		if stride < 0 {
			stride = -stride
		}
		read = n / l.block * max(l.block, min(stride, cacheLine))
	}
	return n + read
}

// copyBlocks copies len(dst)/l.block consecutive blocks of l, starting
// with block number first (in row-major order), into dst.
func (l *layout) copyBlocks(dst []byte, first int) {
	inner := len(l.shape) - 1
	n, stride := l.shape[inner], l.strides[inner]
	// Find the position of the first block: j along the innermost axis,
	// idx along the outer ones.
	idx := make([]int, inner)
	line, j := first/n, first%n
	off := l.offset
	for a := inner - 1; a >= 0; a-- {
		idx[a] = line % l.shape[a]
		line /= l.shape[a]
		off += idx[a] * l.strides[a]
	}
	for len(dst) > 0 {
		m := min(n-j, len(dst)/l.block)
		copyLine(dst[:m*l.block], l.data, off+j*stride, stride, l.block)
		dst = dst[m*l.block:]
		j = 0
		// Advance the odometer over the outer axes.
		for a := inner - 1; a >= 0; a-- {
			idx[a]++
			off += l.strides[a]
			if idx[a] < l.shape[a] {
				break
			}
			off -= idx[a] * l.strides[a]
			idx[a] = 0
		}
	}
}

// copyLine copies len(dst)/size blocks of size bytes from src into dst,
// starting at byte off of src and moving by stride bytes. Blocks of 1, 2,
// 4, 8 and 16 bytes (the elements of every fixed-size dtype) are moved by
// copyElements, without a bounds check per element, and reversed runs of
// 1, 2 and 4 byte elements eight bytes at a time.
func copyLine(dst, src []byte, off, stride, size int) {
	if stride == -size && size <= 4 && len(dst) >= 8 {
		reverseElements(dst, src[off+size-len(dst):off+size], size)
		return
	}
	switch size {
	case 1:
		copyElements[[1]byte](dst, src, off, stride)
	case 2:
		copyElements[[2]byte](dst, src, off, stride)
	case 4:
		copyElements[[4]byte](dst, src, off, stride)
	case 8:
		copyElements[[8]byte](dst, src, off, stride)
	case 16:
		copyElements[[16]byte](dst, src, off, stride)
	default:
		copyLineBlocks(dst, src, off, stride, size)
	}
}

// copyLineBlocks is copyLine for blocks of any size: one copy per block.
func copyLineBlocks(dst, src []byte, off, stride, size int) {
	for i := 0; i < len(dst); i += size {
		copy(dst[i:i+size], src[off:off+size])
		off += stride
	}
}

// element is the memory of one element of a fixed-size dtype: copying
// one moves its bytes, whatever their order, at any alignment.
type element interface {
	[1]byte | [2]byte | [4]byte | [8]byte | [16]byte
}

// copyElements is copyLine for blocks of the size of E, the elements of
// x[:, ::3] and of most strided views. It reads and writes through
// pointers to the memory of src and dst, whose bounds are checked once
// for the whole line (the check of its first and last element: the others
// lie between them), and moves eight elements per pass, each with one
// load and one store; checking the bounds of each element made the loop
// several times as long.
func copyElements[E element](dst, src []byte, off, stride int) {
	var zero E
	size := int(unsafe.Sizeof(zero))
	n := len(dst) / size
	if n == 0 {
		return
	}
	last := off + (n-1)*stride
	_ = src[min(off, last) : max(off, last)+size] // every element is in src
	s, d := unsafe.Pointer(unsafe.SliceData(src)), unsafe.Pointer(unsafe.SliceData(dst))
	i, stride3 := 0, 3*stride
	for ; i+8 <= n; i += 8 {
		// Elements i to i+3 at p, i+4 to i+7 at p4, each stride bytes
		// after the one before; their places in dst from q on.
		p, q := unsafe.Add(s, off), unsafe.Add(d, size*i)
		p4 := unsafe.Add(p, 4*stride)
		*(*E)(q) = *(*E)(p)
		*(*E)(unsafe.Add(q, size)) = *(*E)(unsafe.Add(p, stride))
		*(*E)(unsafe.Add(q, 2*size)) = *(*E)(unsafe.Add(p, 2*stride))
		*(*E)(unsafe.Add(q, 3*size)) = *(*E)(unsafe.Add(p, stride3))
		*(*E)(unsafe.Add(q, 4*size)) = *(*E)(p4)
		*(*E)(unsafe.Add(q, 5*size)) = *(*E)(unsafe.Add(p4, stride))
		*(*E)(unsafe.Add(q, 6*size)) = *(*E)(unsafe.Add(p4, 2*stride))
		*(*E)(unsafe.Add(q, 7*size)) = *(*E)(unsafe.Add(p4, stride3))
		off += 8 * stride
	}
	for ; i < n; i++ {
		*(*E)(unsafe.Add(d, size*i)) = *(*E)(unsafe.Add(s, off))
		off += stride
	}
}

// reverseElements copies the elements of src, of 1, 2 or 4 bytes, into dst
// in reverse order. Eight bytes are moved at a time: loaded as a
// little-endian integer, the elements in it are reversed by permuting
// bytes, so the bytes within each element keep their order.
func reverseElements(dst, src []byte, size int) {
	const lowBytes = 0x00FF00FF00FF00FF // the low byte of each 16-bit lane
	i, j := 0, len(src)
	switch size {
	case 1:
		for ; i+8 <= len(dst); i, j = i+8, j-8 {
			v := binary.LittleEndian.Uint64(src[j-8 : j : j])
			binary.LittleEndian.PutUint64(dst[i:i+8:i+8], bits.ReverseBytes64(v))
		}
	case 2:
		for ; i+8 <= len(dst); i, j = i+8, j-8 {
			v := bits.ReverseBytes64(binary.LittleEndian.Uint64(src[j-8 : j : j]))
			binary.LittleEndian.PutUint64(dst[i:i+8:i+8], v>>8&lowBytes|v&lowBytes<<8)
		}
	case 4:
		for ; i+8 <= len(dst); i, j = i+8, j-8 {
			v := binary.LittleEndian.Uint64(src[j-8 : j : j])
			binary.LittleEndian.PutUint64(dst[i:i+8:i+8], bits.RotateLeft64(v, 32))
		}
	}
	// The last elements, fewer than eight bytes.
	for ; i < len(dst); i, j = i+size, j-size {
		copy(dst[i:i+size], src[j-size:j])
	}
}

// parallelMinBytes is the memory traffic (bytes read and written) from
// which work is split across goroutines. A copy of 16 blocks of 256 KiB
// (4 MiB read, 4 MiB written, the newaxis-shrink row of
// engine/kernels_bench_test.go) is split from 4 MiB on: one goroutine
// copies at the rate of one core, from the caches of a released result,
// and a core that joins late costs little (see parallelFor).
const parallelMinBytes = 4 << 20

// parallelChunkBytes is about how much output each range of split work
// writes. It is at least 1 MiB, so that a range of contiguous output is
// one copy of 1 MiB or more, which Go's memmove on amd64 does with
// non-temporal stores (past the cache, without first reading the lines it
// overwrites): copying 64 MiB into a buffer in pieces of 1 MiB took 4.5
// to 5.2 ms, in pieces of 256 KiB 6.8 to 7.0 ms.
const parallelChunkBytes = 1 << 20

// parallelFor splits [0, n) into consecutive ranges and calls f(lo, hi)
// for each. outBytes is the output the whole work writes, traffic about
// how many bytes of memory it reads and writes. When traffic is at least
// parallelMinBytes, the calling goroutine and one more per further core
// (runtime.GOMAXPROCS) take ranges of about parallelChunkBytes of output
// in order until none is left, so that a core slowed down by other work
// does not hold up the rest; otherwise parallelFor calls f(0, n)
// directly. It returns when every range is done: it waits for the ranges
// other goroutines have taken, not for goroutines that have not started
// yet (on a busy machine a new goroutine may wait long for a core; it
// then finds no range left and ends).
func parallelFor(n, outBytes, traffic int, f func(lo, hi int)) {
	workers := 1
	if traffic >= parallelMinBytes {
		workers = min(runtime.GOMAXPROCS(0), n)
	}
	if workers <= 1 {
		f(0, n)
		return
	}
	ranges := min(n, max(workers, outBytes/parallelChunkBytes))
	size := (n + ranges - 1) / ranges
	ranges = (n + size - 1) / size // the ranges of size that cover [0, n)
	var next atomic.Int64
	var pending sync.WaitGroup
	pending.Add(ranges)
	work := func() {
		for {
			k := int(next.Add(1) - 1)
			if k >= ranges {
				return
			}
			f(k*size, min((k+1)*size, n))
			pending.Done()
		}
	}
	for i := 1; i < workers; i++ {
		go work()
	}
	work()
	pending.Wait()
}
