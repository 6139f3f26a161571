package gen

import (
	"encoding/binary"
	"math"
	"strconv"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
)

// Data fill modes.
const (
	fillArange = iota // element i holds i, so each output element names its source position
	fillRandom        // random values with special ones mixed in
)

// fillWeights are the rates of the fill modes.
var fillWeights = []int{65, 35}

// Tensor returns a generator of C-contiguous tensors with a dtype drawn
// from dtype, a shape drawn from shape and elements drawn from Data.
func Tensor(dtype *rapid.Generator[engine.DType], shape *rapid.Generator[[]int]) *rapid.Generator[*engine.Tensor] {
	return rapid.Custom(func(t *rapid.T) *engine.Tensor {
		dt := dtype.Draw(t, "dtype")
		sh := shape.Draw(t, "shape")
		return newTensor(dt, sh, Data(dt, engine.NumElements(sh)).Draw(t, "data"))
	})
}

// tensorOf draws a tensor of the given shape, its dtype drawn by dtype:
// the draws of Tensor(rapid.Custom(dtype), rapid.Just(shape)), so that a
// seed gives the same tensor, without the generators Tensor and Data
// make for every tensor and the work rapid does for each generator drawn.
func tensorOf(t *rapid.T, dtype func(*rapid.T) engine.DType, shape []int) *engine.Tensor {
	dt := dtype(t)
	justDraw.Draw(t, "shape")
	return newTensor(dt, shape, drawData(t, dt, engine.NumElements(shape)))
}

// justDraw draws what rapid.Just(v) draws for any v: tensorOf and
// boolDType draw it where a value used to come from rapid.Just, so that
// the seeds give the cases they gave then.
var justDraw = rapid.Uint64Range(0, 0)

// boolDType is the dtype drawer of bool tensors (rapid.Just(BoolType)'s
// draw).
func boolDType(t *rapid.T) engine.DType {
	justDraw.Draw(t, "dtype")
	return engine.BoolType
}

// newTensor wraps data; the generators only build valid tensors.
func newTensor(dt engine.DType, shape []int, data []byte) *engine.Tensor {
	x, err := engine.FromBytes(dt, shape, data)
	if err != nil {
		panic("gen: invalid tensor: " + err.Error())
	}
	return x
}

// Data returns a generator of the raw bytes of n elements of dt, in dt's
// byte order. About two times in three the data is arange-like: element i
// holds i (bool: i mod 2; integers wrap to their width; floats and the
// real part of complex numbers hold i, the imaginary part -(i+1); strings
// hold the decimal digits of i, cut to the width and padded with NULs), so
// each element of a result names its source position. Otherwise the
// elements are random, with special values mixed in: integer extremes,
// floats with NaN payloads (quiet and signalling, either sign), -0, the
// infinities, subnormals and the largest finite values; bool bytes are
// only 0 or 1; U characters are valid code points (below 0x110000, no
// surrogates, NUL padding included); S elements are arbitrary bytes,
// trailing NULs included. (NumPy strips trailing NULs when it reads an S
// element as a Python value, but slicing, gathering and .npy files keep
// the raw bytes, which is what conform compares.)
//
// The random elements come from a small PRNG seeded by two rapid draws, so
// thousands of elements cost two draws; rapid shrinks the seed, not the
// individual elements.
func Data(dt engine.DType, n int) *rapid.Generator[[]byte] {
	return rapid.Custom(func(t *rapid.T) []byte { return drawData(t, dt, n) })
}

// drawData draws what Data(dt, n) draws.
func drawData(t *rapid.T, dt engine.DType, n int) []byte {
	out := make([]byte, n*dt.Size)
	if pick(t, "fill", fillWeights...) == fillArange {
		for i := 0; i < n; i++ {
			putArange(out[i*dt.Size:(i+1)*dt.Size], dt, i)
		}
		return out
	}
	r := &splitmix{anyUint64.Draw(t, "data seed")}
	for i := 0; i < n; i++ {
		putRandom(out[i*dt.Size:(i+1)*dt.Size], dt, r)
	}
	return out
}

// splitmix is the SplitMix64 generator: tiny, fast and the same on every
// platform and Go release.
type splitmix struct{ s uint64 }

func (r *splitmix) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	z := r.s
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// intn returns a value in [0, n) for n > 0 (modulo bias is irrelevant
// here).
func (r *splitmix) intn(n int) int { return int(r.next() % uint64(n)) }

// order returns the byte order of dt.
func order(dt engine.DType) binary.ByteOrder {
	if dt.BigEndian {
		return binary.BigEndian
	}
	return binary.LittleEndian
}

// putUint stores the low len(b) bytes of v in b in the given byte order.
func putUint(b []byte, o binary.ByteOrder, v uint64) {
	switch len(b) {
	case 1:
		b[0] = byte(v)
	case 2:
		o.PutUint16(b, uint16(v))
	case 4:
		o.PutUint32(b, uint32(v))
	case 8:
		o.PutUint64(b, v)
	}
}

// putFloat stores f in b as a float of len(b) bytes (2, 4 or 8).
func putFloat(b []byte, o binary.ByteOrder, f float64) {
	switch len(b) {
	case 2:
		o.PutUint16(b, f16FromF32(float32(f)))
	case 4:
		o.PutUint32(b, math.Float32bits(float32(f)))
	case 8:
		o.PutUint64(b, math.Float64bits(f))
	}
}

// putDigits stores ASCII digits as a string element: a byte each (S)
// or a code point each (U), cut to the element's width and padded with
// NULs.
func putDigits(b []byte, dt engine.DType, digits []byte) {
	clear(b)
	if dt.Kind == engine.Bytes {
		copy(b, digits)
		return
	}
	o := order(dt)
	for i, c := range digits {
		if 4*i < len(b) {
			o.PutUint32(b[4*i:], uint32(c))
		}
	}
}

// putArange stores element i of an arange-like tensor.
func putArange(b []byte, dt engine.DType, i int) {
	o := order(dt)
	switch dt.Kind {
	case engine.Bool:
		b[0] = byte(i & 1)
	case engine.Int, engine.Uint:
		putUint(b, o, uint64(i))
	case engine.Float:
		putFloat(b, o, float64(i))
	case engine.Complex:
		h := len(b) / 2
		putFloat(b[:h], o, float64(i))
		putFloat(b[h:], o, -float64(i+1))
	case engine.Bytes, engine.Unicode:
		var digits [20]byte
		putDigits(b, dt, strconv.AppendInt(digits[:0], int64(i), 10))
	}
}

// putRandom stores one random element.
func putRandom(b []byte, dt engine.DType, r *splitmix) {
	o := order(dt)
	switch dt.Kind {
	case engine.Bool:
		b[0] = byte(r.next() & 1)
	case engine.Int, engine.Uint:
		putUint(b, o, randomInt(r, 8*len(b), dt.Kind == engine.Int))
	case engine.Float:
		putUint(b, o, randomFloatBits(r, len(b)))
	case engine.Complex:
		h := len(b) / 2
		putUint(b[:h], o, randomFloatBits(r, h))
		putUint(b[h:], o, randomFloatBits(r, h))
	case engine.Bytes:
		randomBytes(b, r)
	case engine.Unicode:
		randomUnicode(b, o, r)
	}
}

// randomInt returns the bits of a random integer of the given width: all
// bits random half the time, otherwise a small value or an extreme.
func randomInt(r *splitmix, width int, signed bool) uint64 {
	mask := uint64(math.MaxUint64) >> (64 - width)
	switch r.intn(4) {
	case 0, 1:
		return r.next() & mask
	case 2:
		return uint64(int64(r.intn(17)-8)) & mask
	}
	var extremes []uint64
	if signed {
		extremes = []uint64{mask >> 1, (mask >> 1) + 1, mask, 0} // max, min, -1, 0
	} else {
		extremes = []uint64{mask, mask - 1, 0, 1}
	}
	return extremes[r.intn(len(extremes))]
}

// floatFormat describes an IEEE binary format by its exponent and
// mantissa widths.
type floatFormat struct{ exp, man uint }

var floatFormats = map[int]floatFormat{2: {5, 10}, 4: {8, 23}, 8: {11, 52}}

// randomFloatBits returns the bits of a random float of size bytes: an
// ordinary value, a small integer, +-0, +-Inf, a NaN with a random payload
// (quiet or signalling, either sign), a subnormal, an extreme finite value
// or random bits.
func randomFloatBits(r *splitmix, size int) uint64 {
	f := floatFormats[size]
	bias := uint64(1)<<(f.exp-1) - 1
	expMax := uint64(1)<<f.exp - 1
	manMask := uint64(1)<<f.man - 1
	sign := (r.next() & 1) << (f.exp + f.man)
	build := func(e, m uint64) uint64 { return sign | e<<f.man | m&manMask }
	switch r.intn(20) {
	case 0, 1, 2, 3, 4, 5, 6: // ordinary: exponent near the bias
		e := bias - 8 + uint64(r.intn(17))
		return build(e, r.next())
	case 7, 8, 9: // a small integer
		v := float64(r.intn(100))
		if sign != 0 {
			v = -v
		}
		bits := make([]byte, size)
		putFloat(bits, binary.LittleEndian, v)
		if size == 2 {
			return uint64(binary.LittleEndian.Uint16(bits))
		}
		if size == 4 {
			return uint64(binary.LittleEndian.Uint32(bits))
		}
		return binary.LittleEndian.Uint64(bits)
	case 10: // +0 or -0
		return build(0, 0)
	case 11: // +Inf or -Inf
		return build(expMax, 0)
	case 12, 13: // NaN with a random non-zero payload, quiet or signalling
		m := r.next() & manMask
		if m == 0 {
			m = 1
		}
		return build(expMax, m)
	case 14: // the default quiet NaN, either sign
		return build(expMax, uint64(1)<<(f.man-1))
	case 15, 16: // subnormal
		m := r.next() & manMask
		if m == 0 {
			m = 1
		}
		return build(0, m)
	case 17: // largest finite, smallest normal
		if r.next()&1 == 0 {
			return build(expMax-1, manMask)
		}
		return build(1, 0)
	}
	return r.next() & (uint64(math.MaxUint64) >> (64 - 8*size))
}

// randomBytes fills an S element: printable ASCII of a random length
// padded with NULs, or arbitrary bytes (NULs and trailing NULs included).
func randomBytes(b []byte, r *splitmix) {
	for i := range b {
		b[i] = 0
	}
	if r.next()&1 == 0 {
		n := r.intn(len(b) + 1)
		for i := 0; i < n; i++ {
			b[i] = byte(' ' + r.intn(95))
		}
		return
	}
	for i := range b {
		b[i] = byte(r.next())
	}
}

// randomUnicode fills a U element with valid code points (never a
// surrogate, never 0x110000 or above) of a random length, NUL padded.
func randomUnicode(b []byte, o binary.ByteOrder, r *splitmix) {
	for i := range b {
		b[i] = 0
	}
	n := r.intn(len(b)/4 + 1)
	for i := 0; i < n; i++ {
		var c uint32
		switch r.intn(4) {
		case 0:
			c = uint32(' ' + r.intn(95))
		case 1:
			c = uint32(r.intn(0xD800)) // BMP below the surrogates, NUL included
		case 2:
			c = uint32(0xE000 + r.intn(0x10000-0xE000))
		default:
			c = uint32(0x10000 + r.intn(0x110000-0x10000))
		}
		o.PutUint32(b[4*i:], c)
	}
}

// f16FromF32 converts a float32 to IEEE half precision bits, rounding to
// nearest even; NaNs keep their sign and the top of their payload (and
// stay NaNs).
func f16FromF32(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	man := b & 0x7fffff
	switch {
	case exp == 0xff:
		if man == 0 {
			return sign | 0x7c00
		}
		m := uint16(man >> 13)
		if m == 0 {
			m = 1
		}
		return sign | 0x7c00 | m
	case exp-127 > 15:
		return sign | 0x7c00
	case exp-127 >= -14:
		e := uint32(exp - 127 + 15)
		v := e<<10 | man>>13
		rest := man & 0x1fff
		if rest > 0x1000 || (rest == 0x1000 && v&1 == 1) {
			v++ // may carry into the exponent, up to Inf: correct
		}
		return sign | uint16(v)
	case exp-127 >= -25:
		// Subnormal half: shift the full mantissa (with its implicit 1).
		full := man | 0x800000
		shift := uint(-14-(exp-127)) + 13
		v := full >> shift
		rest := full & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rest > half || (rest == half && v&1 == 1) {
			v++
		}
		return sign | uint16(v)
	}
	return sign
}
