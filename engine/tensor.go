package engine

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// MaxRank is the largest number of dimensions a tensor may have (NumPy's
// NPY_MAXDIMS).
const MaxRank = 32

// Tensor is an N-dimensional array of fixed-size elements stored as raw
// bytes. Strides are in bytes and may be zero or negative, so a Tensor can
// be a zero-copy view of another one. A Tensor is C-contiguous when its
// strides are the row-major strides of its shape and Offset is 0.
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
	strides := make([]int, len(shape))
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
		return nil, Errorf(BadInput, "rank %d exceeds the maximum of %d", len(shape), MaxRank)
	}
	if dt.Size <= 0 {
		return nil, Errorf(BadInput, "dtype %v has no size", dt)
	}
	n := NumElements(shape)
	if n < 0 || n > math.MaxInt/dt.Size {
		return nil, Errorf(BadInput, "shape %v is too large", shape)
	}
	if len(data) != n*dt.Size {
		return nil, Errorf(BadInput, "shape %v of %v needs %d bytes, have %d", shape, dt, n*dt.Size, len(data))
	}
	return &Tensor{DType: dt, Shape: append([]int{}, shape...), Strides: ContiguousStrides(shape, dt.Size), Data: data}, nil
}

// Zeros returns a new C-contiguous tensor of zero bytes.
func Zeros(dt DType, shape []int) (*Tensor, error) {
	n := NumElements(shape)
	if n < 0 || n > math.MaxInt/dt.Size {
		return nil, Errorf(InvalidSpec, "shape %v is too large", shape)
	}
	return FromBytes(dt, shape, make([]byte, n*dt.Size))
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
	if n == 0 {
		return true
	}
	want := ContiguousStrides(t.Shape, t.DType.Size)
	for i, s := range t.Strides {
		if t.Shape[i] != 1 && s != want[i] {
			return false
		}
	}
	return true
}

// Contiguous returns t itself if it is C-contiguous, otherwise a new
// C-contiguous copy of its elements.
func (t *Tensor) Contiguous() *Tensor {
	if t.IsContiguous() {
		return t
	}
	out := &Tensor{
		DType:   t.DType,
		Shape:   append([]int{}, t.Shape...),
		Strides: ContiguousStrides(t.Shape, t.DType.Size),
		Data:    make([]byte, t.Len()*t.DType.Size),
	}
	copyStrided(out.Data, t)
	return out
}

// Bytes returns the elements of t in row-major order. It aliases t.Data
// when t is contiguous.
func (t *Tensor) Bytes() []byte { return t.Contiguous().Data }

// copyStrided copies the elements of the view src, in row-major order,
// into dst, which holds exactly src.Len() elements.
func copyStrided(dst []byte, src *Tensor) {
	if len(dst) == 0 {
		return
	}
	// Merge the innermost axes that are laid out contiguously into one run.
	size := src.DType.Size
	rank := len(src.Shape)
	run := size
	inner := rank
	for inner > 0 && (src.Shape[inner-1] == 1 || src.Strides[inner-1] == run) {
		run *= src.Shape[inner-1]
		inner--
	}
	if inner == 0 {
		copy(dst, src.Data[src.Offset:src.Offset+run])
		return
	}
	// The axis inner-1 is the innermost strided axis; axes before it are
	// walked with an odometer.
	axis := inner - 1
	n, stride := src.Shape[axis], src.Strides[axis]
	outer := src.Shape[:axis]
	idx := make([]int, len(outer))
	base := src.Offset
	pos := 0
	for {
		off := base
		if run == size {
			copyElements(dst[pos:pos+n*size], src.Data, off, stride, size)
			pos += n * size
		} else {
			for i := 0; i < n; i++ {
				pos += copy(dst[pos:pos+run], src.Data[off:off+run])
				off += stride
			}
		}
		// Advance the odometer over the outer axes.
		k := len(outer) - 1
		for ; k >= 0; k-- {
			idx[k]++
			base += src.Strides[k]
			if idx[k] < outer[k] {
				break
			}
			base -= idx[k] * src.Strides[k]
			idx[k] = 0
		}
		if k < 0 {
			return
		}
	}
}

// copyElements copies len(dst)/size elements of the given size from src,
// starting at byte off and moving by stride bytes.
func copyElements(dst, src []byte, off, stride, size int) {
	switch size {
	case 1:
		for i := range dst {
			dst[i] = src[off]
			off += stride
		}
	case 2:
		for i := 0; i < len(dst); i += 2 {
			binary.LittleEndian.PutUint16(dst[i:], binary.LittleEndian.Uint16(src[off:]))
			off += stride
		}
	case 4:
		for i := 0; i < len(dst); i += 4 {
			binary.LittleEndian.PutUint32(dst[i:], binary.LittleEndian.Uint32(src[off:]))
			off += stride
		}
	case 8:
		for i := 0; i < len(dst); i += 8 {
			binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(src[off:]))
			off += stride
		}
	default:
		for i := 0; i < len(dst); i += size {
			copy(dst[i:i+size], src[off:off+size])
			off += stride
		}
	}
}
