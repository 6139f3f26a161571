package engine

import "strconv"

// Kind is the NumPy kind character of a dtype.
type Kind byte

// The supported dtype kinds.
const (
	Bool    Kind = 'b'
	Int     Kind = 'i'
	Uint    Kind = 'u'
	Float   Kind = 'f'
	Complex Kind = 'c'
	Bytes   Kind = 'S' // fixed-width byte strings, NumPy "S<n>"
	Unicode Kind = 'U' // fixed-width UCS-4 strings, NumPy "U<n>"
)

// DType describes the elements of a tensor: kind, item size in bytes and
// byte order. Slicing moves bytes and never converts them, so a big-endian
// input gives a big-endian output, as in NumPy; the one exception is a
// getitem index that makes NumPy return a scalar (see GetItem).
type DType struct {
	Kind      Kind
	Size      int  // bytes per element; for Unicode 4 bytes per character
	BigEndian bool // only meaningful when the element has a byte order
}

// Common dtypes.
var (
	BoolType    = DType{Kind: Bool, Size: 1}
	Int8Type    = DType{Kind: Int, Size: 1}
	Int16Type   = DType{Kind: Int, Size: 2}
	Int32Type   = DType{Kind: Int, Size: 4}
	Int64Type   = DType{Kind: Int, Size: 8}
	Uint8Type   = DType{Kind: Uint, Size: 1}
	Uint16Type  = DType{Kind: Uint, Size: 2}
	Uint32Type  = DType{Kind: Uint, Size: 4}
	Uint64Type  = DType{Kind: Uint, Size: 8}
	Float16Type = DType{Kind: Float, Size: 2}
	Float32Type = DType{Kind: Float, Size: 4}
	Float64Type = DType{Kind: Float, Size: 8}
	Complex64   = DType{Kind: Complex, Size: 8}
	Complex128  = DType{Kind: Complex, Size: 16}
)

// MaxStringBytes bounds the item size of S and U dtypes (NumPy's own limit
// is the int range; a bound keeps header arithmetic safe).
const MaxStringBytes = 1 << 30

// ParseDType parses a NumPy array-protocol type string such as "<i4",
// "|b1", ">f2", "|S5" or "<U3". A missing byte-order character or '='
// means little-endian (the byte order of every machine conform runs on).
func ParseDType(descr string) (DType, error) {
	bad := func(why string) (DType, error) {
		return DType{}, RuleInputDType.Errorf("unsupported dtype %q: %s", descr, why)
	}
	if descr == "" {
		return bad("empty")
	}
	var order byte = '='
	s := descr
	switch s[0] {
	case '<', '>', '|', '=':
		order, s = s[0], s[1:]
	}
	if len(s) < 2 {
		return bad("expected a kind and a size")
	}
	kind := Kind(s[0])
	n, err := strconv.Atoi(s[1:])
	if err != nil || n <= 0 || s[1] == '+' || s[1] == '0' {
		return bad("size must be a positive integer")
	}
	dt := DType{Kind: kind, Size: n, BigEndian: order == '>'}
	switch kind {
	case Bool:
		if n != 1 {
			return bad("bool must be b1")
		}
	case Int, Uint:
		if n != 1 && n != 2 && n != 4 && n != 8 {
			return bad("integers are 1, 2, 4 or 8 bytes")
		}
	case Float:
		if n != 2 && n != 4 && n != 8 {
			return bad("floats are f2, f4 or f8")
		}
	case Complex:
		if n != 8 && n != 16 {
			return bad("complex numbers are c8 or c16")
		}
	case Bytes:
		if n > MaxStringBytes {
			return bad("string too wide")
		}
	case Unicode:
		if n > MaxStringBytes/4 {
			return bad("string too wide")
		}
		dt.Size = 4 * n
	default:
		return bad("kind must be one of b, i, u, f, c, S, U")
	}
	if !dt.HasByteOrder() {
		dt.BigEndian = false
	}
	return dt, nil
}

// HasByteOrder reports whether the byte order of the dtype matters.
func (d DType) HasByteOrder() bool {
	switch d.Kind {
	case Bool, Bytes:
		return false
	case Unicode:
		return true
	}
	return d.Size > 1
}

// String returns the dtype as NumPy writes it in a .npy header.
func (d DType) String() string {
	var buf [16]byte
	return string(d.AppendString(buf[:0]))
}

// AppendString appends the dtype as String writes it to dst.
func (d DType) AppendString(dst []byte) []byte {
	order := byte('|')
	if d.HasByteOrder() {
		order = '<'
		if d.BigEndian {
			order = '>'
		}
	}
	n := d.Size
	if d.Kind == Unicode {
		n /= 4
	}
	dst = append(dst, order, byte(d.Kind))
	return strconv.AppendInt(dst, int64(n), 10)
}

// IsInteger reports whether the dtype is a signed or unsigned integer.
func (d DType) IsInteger() bool { return d.Kind == Int || d.Kind == Uint }
