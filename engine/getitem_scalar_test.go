package engine_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/expr"
)

// array is a tensor as the scalar-rule tests compare it: the dtype as
// NumPy writes it, the shape and the C-order bytes.
type array struct {
	DType string
	Shape []int
	Data  []byte
}

func arrayOf(t *engine.Tensor) array {
	return array{DType: t.DType.String(), Shape: append([]int{}, t.Shape...), Data: append([]byte{}, t.Bytes()...)}
}

// elems encodes numbers as elements of the dtype descr (a NumPy type
// string with an explicit byte order for multi-byte types). Complex
// numbers take two values each (real, imaginary); strings use strs.
func elems(descr string, vals ...float64) []byte {
	dt, err := engine.ParseDType(descr)
	if err != nil {
		panic(err)
	}
	var o binary.ByteOrder = binary.LittleEndian
	if dt.BigEndian {
		o = binary.BigEndian
	}
	size := dt.Size
	if dt.Kind == engine.Complex {
		size /= 2
	}
	var out []byte
	for _, v := range vals {
		b := make([]byte, size)
		switch {
		case dt.Kind == engine.Float || dt.Kind == engine.Complex:
			switch size {
			case 2:
				o.PutUint16(b, f16(v))
			case 4:
				o.PutUint32(b, math.Float32bits(float32(v)))
			default:
				o.PutUint64(b, math.Float64bits(v))
			}
		default:
			u := uint64(int64(v))
			for k := 0; k < size; k++ {
				shift := 8 * uint(k)
				if dt.BigEndian {
					shift = 8 * uint(size-1-k)
				}
				b[k] = byte(u >> shift)
			}
		}
		out = append(out, b...)
	}
	return out
}

// f16 returns the binary16 bits of small integers and halves (exact).
func f16(v float64) uint16 {
	if v == 0 {
		return 0
	}
	bits := math.Float32bits(float32(v))
	exp := int(bits>>23&0xff) - 127 + 15
	return uint16(bits>>16&0x8000) | uint16(exp)<<10 | uint16(bits>>13&0x3ff)
}

// strs encodes strings as elements of an S or U dtype, NUL padded.
func strs(descr string, vals ...string) []byte {
	dt, err := engine.ParseDType(descr)
	if err != nil {
		panic(err)
	}
	var out []byte
	for _, v := range vals {
		b := make([]byte, dt.Size)
		if dt.Kind == engine.Bytes {
			copy(b, v)
		} else {
			for i, r := range []rune(v) {
				if dt.BigEndian {
					binary.BigEndian.PutUint32(b[4*i:], uint32(r))
				} else {
					binary.LittleEndian.PutUint32(b[4*i:], uint32(r))
				}
			}
		}
		out = append(out, b...)
	}
	return out
}

// TestGetItemScalarResult checks NumPy's scalar rule: an index of one
// integer per dimension and nothing else gives a NumPy scalar, which
// np.asarray turns into a 0-d array of native byte order (and, for
// strings, of the string's own length); every other index keeps the
// input's dtype.
func TestGetItemScalarResult(t *testing.T) {
	tests := []struct {
		why   string
		descr string
		shape []int
		data  []byte
		index string
		want  array
	}{
		{"a full integer index gives a scalar: native order, bytes swapped", ">f4", []int{2, 2}, elems(">f4", 1, 2, 3, 4), "x[1, 0]",
			array{"<f4", []int{}, elems("<f4", 3)}},
		{"a trailing ellipsis makes it a 0-d view: the input's order", ">f4", []int{2, 2}, elems(">f4", 1, 2, 3, 4), "x[1, 0, ...]",
			array{">f4", []int{}, elems(">f4", 3)}},
		{"a leading ellipsis is a view too", ">f4", []int{2, 2}, elems(">f4", 1, 2, 3, 4), "x[..., 1, 0]",
			array{">f4", []int{}, elems(">f4", 3)}},
		{"a new axis gives an array of shape [1]: the input's order", ">f4", []int{2, 2}, elems(">f4", 1, 2, 3, 4), "x[None, 1, 0]",
			array{">f4", []int{1}, elems(">f4", 3)}},
		{"a unit slice is not an integer: the input's order", ">f4", []int{2, 2}, elems(">f4", 1, 2, 3, 4), "x[1, 0:1]",
			array{">f4", []int{1}, elems(">f4", 3)}},
		{"fewer integers than dims give a view", ">f4", []int{2, 2}, elems(">f4", 1, 2, 3, 4), "x[1]",
			array{">f4", []int{2}, elems(">f4", 3, 4)}},
		{"x[()] on a 0-d array is a scalar", ">f8", []int{}, elems(">f8", 7), "x[()]",
			array{"<f8", []int{}, elems("<f8", 7)}},
		{"x[...] on a 0-d array is a view", ">f8", []int{}, elems(">f8", 7), "x[...]",
			array{">f8", []int{}, elems(">f8", 7)}},
		{"x[None] on a 0-d array is an array of shape [1]", ">f8", []int{}, elems(">f8", 7), "x[None]",
			array{">f8", []int{1}, elems(">f8", 7)}},
		{"x[()] on an N-d array is the whole array, a view", ">i4", []int{2}, elems(">i4", 5, 6), "x[()]",
			array{">i4", []int{2}, elems(">i4", 5, 6)}},
		{"a trailing comma is still one integer per dim", ">i4", []int{2}, elems(">i4", 5, 6), "x[1,]",
			array{"<i4", []int{}, elems("<i4", 6)}},
		{"negative integers count as integers", ">i8", []int{2}, elems(">i8", 5, -6), "x[-1]",
			array{"<i8", []int{}, elems("<i8", -6)}},
		{"a little-endian scalar is unchanged", "<f4", []int{2}, elems("<f4", 1, 2), "x[1]",
			array{"<f4", []int{}, elems("<f4", 2)}},
		{"int8 has no byte order: unchanged", "|i1", []int{2}, elems("|i1", 1, -2), "x[1]",
			array{"|i1", []int{}, elems("|i1", -2)}},
		{"uint8 has no byte order: unchanged", "|u1", []int{2}, elems("|u1", 1, 200), "x[1]",
			array{"|u1", []int{}, elems("|u1", 200)}},
		{"bool has no byte order: unchanged", "|b1", []int{2}, []byte{0, 1}, "x[1]",
			array{"|b1", []int{}, []byte{1}}},
		{"a bool scalar is np.True_ or np.False_: a nonzero byte other than 1 reads as 1", "|b1", []int{3}, []byte{0, 2, 255}, "x[2]",
			array{"|b1", []int{}, []byte{1}}},
		{"a bool 0-d view keeps its byte as it is", "|b1", []int{3}, []byte{0, 2, 255}, "x[2, ...]",
			array{"|b1", []int{}, []byte{255}}},
		{"float16 swaps its two bytes", ">f2", []int{2}, elems(">f2", 1, 2.5), "x[1]",
			array{"<f2", []int{}, elems("<f2", 2.5)}},
		{"complex64 swaps its real and imaginary parts each as a float32", ">c8", []int{2}, elems(">c8", 1, 2, 3, 4), "x[1]",
			array{"<c8", []int{}, elems("<c8", 3, 4)}},
		{"complex128 swaps each float64 part", ">c16", []int{1}, elems(">c16", 1.5, -2), "x[0]",
			array{"<c16", []int{}, elems("<c16", 1.5, -2)}},
		{"U: native order and the string's own length (np.str_)", ">U3", []int{2}, strs(">U3", "abc", "é😀"), "x[1]",
			array{"<U2", []int{}, strs("<U2", "é😀")}},
		{"U: an empty string is U1 holding a NUL", ">U3", []int{1}, strs(">U3", ""), "x[0]",
			array{"<U1", []int{}, strs("<U1", "")}},
		{"U: embedded NULs stay, trailing ones go", "<U4", []int{1}, strs("<U4", "a\x00b"), "x[0]",
			array{"<U3", []int{}, strs("<U3", "a\x00b")}},
		{"U with an ellipsis is a view: width and order kept", ">U3", []int{2}, strs(">U3", "abc", "d"), "x[1, ...]",
			array{">U3", []int{}, strs(">U3", "d")}},
		{"S: the bytes without trailing NULs (np.bytes_)", "|S4", []int{2}, strs("|S4", "ab", "c"), "x[0]",
			array{"|S2", []int{}, []byte("ab")}},
		{"S: an empty string is S1 holding a NUL", "|S4", []int{1}, strs("|S4", ""), "x[0]",
			array{"|S1", []int{}, []byte{0}}},
		{"S: a full-width string keeps its width", "|S2", []int{1}, []byte("\x00z"), "x[0]",
			array{"|S2", []int{}, []byte("\x00z")}},
	}
	for _, tt := range tests {
		dt, err := engine.ParseDType(tt.descr)
		if err != nil {
			t.Fatalf("%s: %v", tt.why, err)
		}
		x, err := engine.FromBytes(dt, tt.shape, tt.data)
		if err != nil {
			t.Fatalf("%s: %v", tt.why, err)
		}
		before := append([]byte{}, x.Data...)
		items, err := expr.Parse(tt.index)
		if err != nil {
			t.Fatalf("%s: %v", tt.why, err)
		}
		got, err := engine.GetItem(x, items)
		if err != nil {
			t.Errorf("%s: %s on %s: %v", tt.why, tt.index, tt.descr, err)
			continue
		}
		if diff := cmp.Diff(tt.want, arrayOf(got)); diff != "" {
			t.Errorf("%s: %s on %s %v (-want +got):\n%s", tt.why, tt.index, tt.descr, tt.shape, diff)
		}
		if !bytes.Equal(x.Data, before) {
			t.Errorf("%s: %s modified its input", tt.why, tt.index)
		}
	}
}

// TestGetItemScalarResultStridedOps checks that only getitem follows
// NumPy's scalar rule: strided_slice and slice (TF ops, where a dtype has
// no byte order to lose) keep the input's dtype when they produce a 0-d
// result.
func TestGetItemScalarResultStridedOps(t *testing.T) {
	x, err := engine.FromBytes(engine.DType{Kind: engine.Float, Size: 4, BigEndian: true}, []int{2}, elems(">f4", 1, 2))
	if err != nil {
		t.Fatal(err)
	}
	got, err := engine.StridedSlice(x, engine.StridedSliceSpec{Begin: []int64{1}, End: []int64{2}, ShrinkAxisMask: engine.Mask{Bits: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(array{">f4", []int{}, elems(">f4", 2)}, arrayOf(got)); diff != "" {
		t.Errorf("strided_slice shrinking every axis (-want +got):\n%s", diff)
	}
}

// numpyScalarScript evaluates np.asarray(x[index]) for each case of a
// JSON list read from stdin and writes the results as a JSON list.
const numpyScalarScript = `
import json, sys
import numpy as np
out = []
for c in json.load(sys.stdin):
    x = np.frombuffer(bytes.fromhex(c["data"]), dtype=np.dtype(c["descr"])).reshape(c["shape"])
    a = np.asarray(eval(c["index"], {"x": x, "None": None}))
    out.append({"DType": a.dtype.str, "Shape": list(a.shape), "Data": a.tobytes().hex()})
json.dump(out, sys.stdout)
`

// TestGetItemScalarResultNumPy compares the engine's getitem results with
// np.asarray(x[index]) of the installed NumPy for every dtype, byte order
// and kind of index around the scalar rule, on random bit patterns (NaN
// payloads included) and strings with and without trailing NULs. It skips
// when NumPy is missing, unless CONFORM_REQUIRE_NUMPY=1.
func TestGetItemScalarResultNumPy(t *testing.T) {
	if testing.Short() {
		t.Skip("NumPy cross-check skipped in -short mode")
	}
	python := requireNumPy(t)
	type input struct {
		Descr string `json:"descr"`
		Shape []int  `json:"shape"`
		Data  string `json:"data"`
		Index string `json:"index"`
	}
	shapes := map[int][]int{0: {}, 1: {3}, 2: {2, 3}}
	indices := map[int][]string{
		0: {"x[()]", "x[...]", "x[None]", "x[..., None]", "x[None, ...]"},
		1: {"x[1]", "x[-1]", "x[1,]", "x[1, ...]", "x[..., 2]", "x[1, None]", "x[None, 0]", "x[1:2]", "x[()]", "x[...]"},
		2: {"x[1, 2]", "x[-1, 0]", "x[1, 2, ...]", "x[1, ..., 2]", "x[1, 2, None]", "x[1]", "x[1, 2:3]", "x[()]"},
	}
	descrs := []string{"|b1", "|i1", "|u1", "|S3", "<U2", ">U2"}
	for _, code := range []string{"i2", "i4", "i8", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16"} {
		descrs = append(descrs, "<"+code, ">"+code)
	}
	state := uint64(20240601)
	random := func() byte {
		state = state*6364136223846793005 + 1442695040888963407
		return byte(state >> 56)
	}
	var cases []input
	for _, descr := range descrs {
		dt, err := engine.ParseDType(descr)
		if err != nil {
			t.Fatal(err)
		}
		for rank := 0; rank <= 2; rank++ {
			n := engine.NumElements(shapes[rank])
			var data []byte
			for i := 0; i < n; i++ {
				switch dt.Kind {
				case engine.Bool:
					data = append(data, random()&1)
				case engine.Unicode:
					// Valid code points (NumPy cannot make a str of others),
					// a random number of them, NUL padded.
					chars := []rune{'a', 0, '\u00e9', '\U0001F600'}
					s := make([]rune, random()%3)
					for k := range s {
						s[k] = chars[random()%4]
					}
					data = append(data, strs(descr, string(s))...)
				case engine.Bytes:
					// A random length of random bytes (NULs among them),
					// NUL padded.
					b := make([]byte, 3)
					for k := 0; k < int(random()%4); k++ {
						b[k] = random() & 0x81
					}
					data = append(data, b...)
				default:
					for k := 0; k < dt.Size; k++ {
						data = append(data, random())
					}
				}
			}
			for _, index := range indices[rank] {
				cases = append(cases, input{descr, shapes[rank], hex.EncodeToString(data), index})
			}
		}
	}
	type answer struct {
		DType string
		Shape []int
		Data  string
	}
	numpy := runNumPy[input, answer](t, python, numpyScalarScript, cases)
	for i, c := range cases {
		dt, _ := engine.ParseDType(c.Descr)
		data, _ := hex.DecodeString(c.Data)
		x, err := engine.FromBytes(dt, c.Shape, data)
		if err != nil {
			t.Fatal(err)
		}
		items, err := expr.Parse(c.Index)
		if err != nil {
			t.Fatal(err)
		}
		got, err := engine.GetItem(x, items)
		if err != nil {
			t.Errorf("%s on %s %v: %v", c.Index, c.Descr, c.Shape, err)
			continue
		}
		wantData, _ := hex.DecodeString(numpy[i].Data)
		want := array{numpy[i].DType, numpy[i].Shape, wantData}
		if diff := cmp.Diff(want, arrayOf(got)); diff != "" {
			t.Errorf("%s on %s %v, data %s (-numpy +engine):\n%s", c.Index, c.Descr, c.Shape, c.Data, diff)
		}
	}
}
