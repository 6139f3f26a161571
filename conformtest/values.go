package conformtest

import (
	"encoding/binary"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/conformsuite/conform/engine"
)

// Element is a Go type of tensor elements that Values and FromValues
// convert: bool, the sized integers, float32/64 and complex64/128.
type Element interface {
	bool | int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 |
		float32 | float64 | complex64 | complex128
}

// dtypeOf returns the dtype of T's elements (little-endian), and whether
// a float16 tensor also reads as T (uint16: its raw bits).
func dtypeOf[T Element]() (engine.DType, bool) {
	var zero T
	switch any(zero).(type) {
	case bool:
		return engine.DType{Kind: engine.Bool, Size: 1}, false
	case int8:
		return engine.DType{Kind: engine.Int, Size: 1}, false
	case int16:
		return engine.DType{Kind: engine.Int, Size: 2}, false
	case int32:
		return engine.DType{Kind: engine.Int, Size: 4}, false
	case int64:
		return engine.DType{Kind: engine.Int, Size: 8}, false
	case uint8:
		return engine.DType{Kind: engine.Uint, Size: 1}, false
	case uint16:
		return engine.DType{Kind: engine.Uint, Size: 2}, true
	case uint32:
		return engine.DType{Kind: engine.Uint, Size: 4}, false
	case uint64:
		return engine.DType{Kind: engine.Uint, Size: 8}, false
	case float32:
		return engine.DType{Kind: engine.Float, Size: 4}, false
	case float64:
		return engine.DType{Kind: engine.Float, Size: 8}, false
	case complex64:
		return engine.DType{Kind: engine.Complex, Size: 8}, false
	}
	return engine.DType{Kind: engine.Complex, Size: 16}, false // complex128
}

// Values returns the elements of t in row-major order as T, whatever t's
// strides, offset and byte order. t's dtype must be T's (ignoring byte
// order); a float16 tensor reads as []uint16 of its raw bits. Use Strings
// for S and U tensors.
func Values[T Element](t *engine.Tensor) ([]T, error) {
	want, f16 := dtypeOf[T]()
	dt := t.DType
	if dt.Kind != want.Kind || dt.Size != want.Size {
		if !(f16 && dt.Kind == engine.Float && dt.Size == 2) {
			return nil, fmt.Errorf("conformtest: a %v tensor does not read as %T", dt, *new(T))
		}
	}
	order := byteOrder(dt)
	b := t.Bytes()
	n := t.Len()
	out := make([]T, n)
	size := dt.Size
	for i := range out {
		e := b[i*size : (i+1)*size]
		var v any
		switch want.Kind {
		case engine.Bool:
			v = e[0] != 0
		case engine.Int:
			v = signed(e, order)
		case engine.Uint:
			v = unsigned(e, order)
		case engine.Float:
			if size == 4 {
				v = math.Float32frombits(order.Uint32(e))
			} else {
				v = math.Float64frombits(order.Uint64(e))
			}
		case engine.Complex:
			if size == 8 {
				v = complex(math.Float32frombits(order.Uint32(e)), math.Float32frombits(order.Uint32(e[4:])))
			} else {
				v = complex(math.Float64frombits(order.Uint64(e)), math.Float64frombits(order.Uint64(e[8:])))
			}
		}
		out[i] = convert[T](v)
	}
	return out, nil
}

// FromValues returns a new C-contiguous little-endian tensor of T's dtype
// with the given shape and values in row-major order. For float16 use
// FromFloat16Bits.
func FromValues[T Element](shape []int, values []T) (*engine.Tensor, error) {
	dt, _ := dtypeOf[T]()
	if n := engine.NumElements(shape); n != len(values) {
		return nil, fmt.Errorf("conformtest: shape %v holds %d elements, got %d values", shape, n, len(values))
	}
	data := make([]byte, 0, len(values)*dt.Size)
	le := binary.LittleEndian
	for _, v := range values {
		switch x := any(v).(type) {
		case bool:
			if x {
				data = append(data, 1)
			} else {
				data = append(data, 0)
			}
		case float32:
			data = le.AppendUint32(data, math.Float32bits(x))
		case float64:
			data = le.AppendUint64(data, math.Float64bits(x))
		case complex64:
			data = le.AppendUint32(le.AppendUint32(data, math.Float32bits(real(x))), math.Float32bits(imag(x)))
		case complex128:
			data = le.AppendUint64(le.AppendUint64(data, math.Float64bits(real(x))), math.Float64bits(imag(x)))
		default:
			u := integerBits(any(v))
			for k := 0; k < dt.Size; k++ {
				data = append(data, byte(u>>(8*k)))
			}
		}
	}
	return engine.FromBytes(dt, append([]int{}, shape...), data)
}

// FromFloat16Bits returns a new C-contiguous little-endian float16 tensor
// of the given shape from the raw bits of its values.
func FromFloat16Bits(shape []int, bits []uint16) (*engine.Tensor, error) {
	t, err := FromValues(shape, bits)
	if err != nil {
		return nil, err
	}
	t.DType = engine.DType{Kind: engine.Float, Size: 2}
	return t, nil
}

// Strings returns the elements of an S (bytes) or U (unicode) tensor in
// row-major order, without their trailing NULs, as NumPy reads them. An S
// element is returned byte for byte (it need not be UTF-8).
func Strings(t *engine.Tensor) ([]string, error) {
	dt := t.DType
	if dt.Kind != engine.Bytes && dt.Kind != engine.Unicode {
		return nil, fmt.Errorf("conformtest: a %v tensor is not a string tensor", dt)
	}
	order := byteOrder(dt)
	b := t.Bytes()
	out := make([]string, t.Len())
	for i := range out {
		e := b[i*dt.Size : (i+1)*dt.Size]
		if dt.Kind == engine.Bytes {
			n := len(e)
			for n > 0 && e[n-1] == 0 {
				n--
			}
			out[i] = string(e[:n])
			continue
		}
		runes := make([]rune, 0, len(e)/4)
		for k := 0; k < len(e); k += 4 {
			runes = append(runes, rune(order.Uint32(e[k:])))
		}
		n := len(runes)
		for n > 0 && runes[n-1] == 0 {
			n--
		}
		out[i] = string(runes[:n])
	}
	return out, nil
}

// FromStrings returns a new C-contiguous tensor of the string dtype dt
// (S or U of a given width, any byte order) holding values in row-major
// order, each padded with NULs. A value wider than dt is an error.
func FromStrings(dt engine.DType, shape []int, values []string) (*engine.Tensor, error) {
	if dt.Kind != engine.Bytes && dt.Kind != engine.Unicode {
		return nil, fmt.Errorf("conformtest: %v is not a string dtype", dt)
	}
	if n := engine.NumElements(shape); n != len(values) {
		return nil, fmt.Errorf("conformtest: shape %v holds %d elements, got %d values", shape, n, len(values))
	}
	order := byteOrder(dt)
	data := make([]byte, len(values)*dt.Size)
	for i, s := range values {
		e := data[i*dt.Size : (i+1)*dt.Size]
		if dt.Kind == engine.Bytes {
			if len(s) > len(e) {
				return nil, fmt.Errorf("conformtest: %q is wider than %v", s, dt)
			}
			copy(e, s)
			continue
		}
		if utf8.RuneCountInString(s)*4 > len(e) {
			return nil, fmt.Errorf("conformtest: %q is wider than %v", s, dt)
		}
		k := 0
		for _, r := range s {
			order.PutUint32(e[k:], uint32(r))
			k += 4
		}
	}
	return engine.FromBytes(dt, append([]int{}, shape...), data)
}

// byteOrder returns the byte order of dt's elements.
func byteOrder(dt engine.DType) binary.ByteOrder {
	if dt.BigEndian {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

func signed(e []byte, order binary.ByteOrder) int64 {
	switch len(e) {
	case 1:
		return int64(int8(e[0]))
	case 2:
		return int64(int16(order.Uint16(e)))
	case 4:
		return int64(int32(order.Uint32(e)))
	}
	return int64(order.Uint64(e))
}

func unsigned(e []byte, order binary.ByteOrder) uint64 {
	switch len(e) {
	case 1:
		return uint64(e[0])
	case 2:
		return uint64(order.Uint16(e))
	case 4:
		return uint64(order.Uint32(e))
	}
	return order.Uint64(e)
}

// convert turns a decoded element (bool, int64, uint64, float32, float64,
// complex64 or complex128) into T, which has the element's dtype.
func convert[T Element](v any) T {
	var out any
	switch x := v.(type) {
	case int64:
		var zero T
		switch any(zero).(type) {
		case int8:
			out = int8(x)
		case int16:
			out = int16(x)
		case int32:
			out = int32(x)
		default:
			out = x
		}
	case uint64:
		var zero T
		switch any(zero).(type) {
		case uint8:
			out = uint8(x)
		case uint16:
			out = uint16(x)
		case uint32:
			out = uint32(x)
		default:
			out = x
		}
	default:
		out = v
	}
	return out.(T)
}

// integerBits returns the two's-complement bits of an integer element.
func integerBits(v any) uint64 {
	switch x := v.(type) {
	case int8:
		return uint64(x)
	case int16:
		return uint64(x)
	case int32:
		return uint64(x)
	case int64:
		return uint64(x)
	case uint8:
		return uint64(x)
	case uint16:
		return uint64(x)
	case uint32:
		return uint64(x)
	case uint64:
		return x
	}
	return 0
}
