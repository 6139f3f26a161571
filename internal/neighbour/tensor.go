package neighbour

import (
	"encoding/binary"
	"math"

	"github.com/conformsuite/conform/engine"
)

// ints returns the elements of an integer or boolean tensor as int64, in
// row-major order (unsigned values beyond int64 come back negative).
func ints(t *engine.Tensor) []int64 {
	b := t.Bytes()
	size := t.DType.Size
	out := make([]int64, 0, t.Len())
	for i := 0; i+size <= len(b); i += size {
		var u uint64
		for k := 0; k < size; k++ {
			shift := 8 * uint(k)
			if t.DType.BigEndian {
				shift = 8 * uint(size-1-k)
			}
			u |= uint64(b[i+k]) << shift
		}
		if t.DType.Kind == engine.Int {
			shift := 64 - 8*uint(size)
			out = append(out, int64(u<<shift)>>shift)
		} else {
			out = append(out, int64(u))
		}
	}
	return out
}

// fromInts returns a little-endian tensor of dtype dt (an integer or
// bool dtype, or float32/float64) and shape holding values.
func fromInts(dt engine.DType, shape []int, values []int64) *engine.Tensor {
	dt.BigEndian = false
	data := make([]byte, len(values)*dt.Size)
	for i, v := range values {
		p := data[i*dt.Size : (i+1)*dt.Size]
		switch {
		case dt.Kind == engine.Float && dt.Size == 8:
			binary.LittleEndian.PutUint64(p, math.Float64bits(float64(v)))
		case dt.Kind == engine.Float && dt.Size == 4:
			binary.LittleEndian.PutUint32(p, math.Float32bits(float32(v)))
		default:
			for k := range p {
				p[k] = byte(uint64(v) >> (8 * uint(k)))
			}
		}
	}
	t, err := engine.FromBytes(dt, append([]int(nil), shape...), data)
	if err != nil {
		panic("neighbour: " + err.Error()) // the data fits the shape by construction
	}
	return t
}

// isIndexDType reports whether dt is an integer dtype (the dtype of index
// tensors).
func isIndexDType(dt engine.DType) bool { return dt.IsInteger() }

// arange returns a tensor of dtype dt and shape holding 0, 1, 2, ... (for
// bool, alternating false and true).
func arange(dt engine.DType, shape []int) *engine.Tensor {
	n := engine.NumElements(shape)
	values := make([]int64, n)
	for i := range values {
		values[i] = int64(i)
		if dt.Kind == engine.Bool {
			values[i] = int64(i % 2)
		} else if dt.Size == 1 {
			values[i] = int64(i % 100)
		}
	}
	return fromInts(dt, shape, values)
}
