package npy

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/engine"
)

// file returns a .npy file of format version major.0 with the header
// dict padded the way NumPy pads it, followed by payload.
func file(major byte, dict string, payload []byte) []byte {
	lenSize := 2
	if major > 1 {
		lenSize = 4
	}
	hlen := len(dict) + 1
	pad := 64 - (8+lenSize+hlen)%64
	return raw(major, 0, uint32(hlen+pad), dict+strings.Repeat(" ", pad)+"\n", payload)
}

// raw returns a .npy file with an explicit version, header length and
// header text, followed by payload.
func raw(major, minor byte, hlen uint32, hdr string, payload []byte) []byte {
	b := []byte(magic)
	b = append(b, major, minor)
	if major == 1 {
		b = append(b, byte(hlen), byte(hlen>>8))
	} else {
		b = append(b, byte(hlen), byte(hlen>>8), byte(hlen>>16), byte(hlen>>24))
	}
	b = append(b, hdr...)
	return append(b, payload...)
}

// exact returns a version major.0 file whose header is exactly hdr.
func exact(major byte, hdr string, payload []byte) []byte {
	return raw(major, 0, uint32(len(hdr)), hdr, payload)
}

// sized returns hdr padded with spaces to n bytes, the last a newline.
func sized(hdr string, n int) string {
	return hdr + strings.Repeat(" ", n-len(hdr)-1) + "\n"
}

// seq returns the bytes 0, 1, ..., n-1.
func seq(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// dict returns a header dict with the keys in NumPy's order.
func dict(descr string, fortran bool, shape string) string {
	f := "False"
	if fortran {
		f = "True"
	}
	return fmt.Sprintf("{'descr': '%s', 'fortran_order': %s, 'shape': %s, }", descr, f, shape)
}

var validTests = []struct {
	rule  string
	data  []byte
	descr string // DType.String() of the result
	shape []int
	// strides are the result's strides when they are not C-contiguous:
	// a file in Fortran order is a view of its payload.
	strides []int
	want    []byte // the elements in C order
}{
	{
		rule: "NumPy's own v1 layout decodes to the payload as is",
		data: file(1, dict("<i4", false, "(2, 3)"), seq(24)), descr: "<i4", shape: []int{2, 3}, want: seq(24),
	},
	{
		rule: "keys may come in any order",
		data: file(1, "{'shape': (2,), 'fortran_order': False, 'descr': '<i2'}", seq(4)), descr: "<i2", shape: []int{2}, want: seq(4),
	},
	{
		rule: "strings may be double-quoted",
		data: file(1, `{"descr": "<u2", "fortran_order": False, "shape": (2,)}`, seq(4)), descr: "<u2", shape: []int{2}, want: seq(4),
	},
	{
		rule: "white space, newlines and comments may appear between tokens",
		data: file(1, "\t{ 'descr' :\t'|u1' ,\n 'fortran_order' : False , # a comment\r\n 'shape' : ( 3 , ) }", seq(3)), descr: "|u1", shape: []int{3}, want: seq(3),
	},
	{
		rule: "a shape tuple may end in a comma or not",
		data: file(1, dict("|i1", false, "(2, 2,)"), seq(4)), descr: "|i1", shape: []int{2, 2}, want: seq(4),
	},
	{
		rule: "parenthesized dimensions are plain integers",
		data: file(1, dict("|i1", false, "((2), (2))"), seq(4)), descr: "|i1", shape: []int{2, 2}, want: seq(4),
	},
	{
		rule: "a parenthesized shape tuple is the tuple",
		data: file(1, dict("|i1", false, "((2, 2))"), seq(4)), descr: "|i1", shape: []int{2, 2}, want: seq(4),
	},
	{
		rule: "adjacent strings are concatenated as in Python",
		data: file(1, "{'descr': '<' \"f8\", 'fortran_' 'order': False, 'shape': (1,)}", seq(8)), descr: "<f8", shape: []int{1}, want: seq(8),
	},
	{
		rule: "signed dimensions are accepted when not negative",
		data: file(1, dict("|u1", false, "(+2, -0)"), nil), descr: "|u1", shape: []int{2, 0}, want: []byte{},
	},
	{
		rule: "Python 2 long suffixes are dropped in v1 headers, as NumPy's _filter_header does",
		data: file(1, dict("|u1", false, "(2L, 3L)"), seq(6)), descr: "|u1", shape: []int{2, 3}, want: seq(6),
	},
	{
		rule: "a 0-d array has one element",
		data: file(1, dict("<f4", false, "()"), seq(4)), descr: "<f4", shape: []int{}, want: seq(4),
	},
	{
		rule: "a zero-size array has no payload",
		data: file(1, dict("<c16", false, "(2, 0, 3)"), nil), descr: "<c16", shape: []int{2, 0, 3}, want: []byte{},
	},
	{
		rule: "a zero-size array may have huge other dimensions if their byte size fits",
		data: file(1, dict("<f8", false, "(0, 1099511627776)"), nil), descr: "<f8", shape: []int{0, 1 << 40}, want: []byte{},
	},
	{
		rule: "big-endian data keeps its byte order and bytes",
		data: file(1, dict(">i4", false, "(2,)"), seq(8)), descr: ">i4", shape: []int{2}, want: seq(8),
	},
	{
		rule: "'=' and no byte order mean little-endian",
		data: file(1, dict("=i4", false, "(1,)"), seq(4)), descr: "<i4", shape: []int{1}, want: seq(4),
	},
	{
		rule: "float16 is supported",
		data: file(1, dict("<f2", false, "(3,)"), seq(6)), descr: "<f2", shape: []int{3}, want: seq(6),
	},
	{
		rule: "unicode strings take 4 bytes per character",
		data: file(1, dict(">U2", false, "(2,)"), seq(16)), descr: ">U2", shape: []int{2}, want: seq(16),
	},
	{
		rule: "Fortran order 2-d is a view with Fortran strides",
		data: file(1, dict("|i1", true, "(2, 3)"), []byte{0, 3, 1, 4, 2, 5}), descr: "|i1", shape: []int{2, 3}, strides: []int{1, 2}, want: seq(6),
	},
	{
		rule: "Fortran order 3-d is a view with Fortran strides",
		data: file(1, dict("|u1", true, "(2, 3, 2)"), []byte{0, 6, 2, 8, 4, 10, 1, 7, 3, 9, 5, 11}), descr: "|u1", shape: []int{2, 3, 2}, strides: []int{1, 2, 6}, want: seq(12),
	},
	{
		rule: "Fortran order moves whole multi-byte elements without swapping them",
		data: file(1, dict(">i2", true, "(2, 2)"), []byte{1, 2, 5, 6, 3, 4, 7, 8}), descr: ">i2", shape: []int{2, 2}, strides: []int{2, 4}, want: []byte{1, 2, 3, 4, 5, 6, 7, 8},
	},
	{
		rule: "Fortran order with one dimension longer than 1 is already C order",
		data: file(1, dict("<i2", true, "(1, 3, 1)"), seq(6)), descr: "<i2", shape: []int{1, 3, 1}, want: seq(6),
	},
	{
		rule: "Fortran order 1-d is C order",
		data: file(1, dict("|u1", true, "(3,)"), seq(3)), descr: "|u1", shape: []int{3}, want: seq(3),
	},
	{
		rule: "Fortran order zero-size has no payload",
		data: file(1, dict("|u1", true, "(2, 0, 3)"), nil), descr: "|u1", shape: []int{2, 0, 3}, want: []byte{},
	},
	{
		rule: "version 2.0 has a 4-byte header length",
		data: file(2, dict("<u4", false, "(2,)"), seq(8)), descr: "<u4", shape: []int{2}, want: seq(8),
	},
	{
		rule: "version 3.0 headers are UTF-8",
		data: file(3, dict("<u8", false, "(1,)")+" # données ✓", seq(8)), descr: "<u8", shape: []int{1}, want: seq(8),
	},
	{
		rule: "the header need not be padded to 64 bytes",
		data: exact(1, dict("|b1", false, "(1,)")+"\n", []byte{1}), descr: "|b1", shape: []int{1}, want: []byte{1},
	},
	{
		rule: "a header of exactly 10000 bytes is accepted",
		data: exact(1, sized(dict("|b1", false, "(1,)"), 10000), []byte{0}), descr: "|b1", shape: []int{1}, want: []byte{0},
	},
	{
		rule: "byte strings have no byte order",
		data: file(1, dict("|S3", false, "(2,)"), []byte("abcde\x00")), descr: "|S3", shape: []int{2}, want: []byte("abcde\x00"),
	},
}

func TestDecodeValid(t *testing.T) {
	for _, tt := range validTests {
		t.Run(tt.rule, func(t *testing.T) {
			got, err := Decode(tt.data)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			strides := tt.strides
			if strides == nil {
				strides = engine.ContiguousStrides(tt.shape, got.DType.Size)
			}
			expectView(t, got, tt.descr, tt.shape, strides, tt.want)
			fromFile := readViaFile(t, tt.data)
			expectView(t, fromFile, tt.descr, tt.shape, strides, tt.want)
		})
	}
}

// readViaFile writes data to a temporary file and reads it with ReadFile.
func readViaFile(t *testing.T, data []byte) *engine.Tensor {
	t.Helper()
	path := filepath.Join(t.TempDir(), "x.npy")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatalf("ReadFile: %v", err)
	}
	return got
}

// expectTensor checks that got is a C-contiguous tensor with the given
// dtype, shape and bytes.
func expectTensor(t *testing.T, got *engine.Tensor, descr string, shape []int, want []byte) {
	t.Helper()
	expectView(t, got, descr, shape, engine.ContiguousStrides(shape, got.DType.Size), want)
}

// expectView checks that got has the given dtype, shape and strides,
// offset 0, and the given bytes in row-major order.
func expectView(t *testing.T, got *engine.Tensor, descr string, shape, strides []int, want []byte) {
	t.Helper()
	if got.DType.String() != descr {
		t.Errorf("dtype = %v, want %v", got.DType, descr)
	}
	if diff := cmp.Diff(shape, got.Shape); diff != "" {
		t.Errorf("shape mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(strides, got.Strides); diff != "" {
		t.Errorf("strides mismatch (-want +got):\n%s", diff)
	}
	if got.Offset != 0 {
		t.Errorf("offset = %d, want 0", got.Offset)
	}
	if diff := cmp.Diff(want, got.Bytes()); diff != "" {
		t.Errorf("data mismatch (-want +got):\n%s", diff)
	}
}

func TestDecodeAliasesPayload(t *testing.T) {
	data := file(1, dict("<i4", false, "(2, 3)"), seq(24))
	got, err := Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if &got.Data[0] != &data[len(data)-24] {
		t.Errorf("Data does not alias the payload of the input")
	}
	data = file(1, dict("|u1", true, "(2, 3)"), seq(6))
	got, err = Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if &got.Data[0] != &data[len(data)-6] {
		t.Errorf("a Fortran-order result does not alias the column-major payload: it was copied")
	}
}

var corruptTests = []struct {
	rule string
	data []byte
}{
	{"an empty file is not a .npy file", nil},
	{"a file shorter than the magic string is truncated", []byte("\x93NU")},
	{"a file ending after the magic string lacks a version", []byte("\x93NUMPY\x01")},
	{"the magic string must be \\x93NUMPY", file(1, dict("|u1", false, "(1,)"), seq(1))[1:]},
	{"a .npz (zip) file is not a .npy file", []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00")},
	{"version 0.0 does not exist", raw(0, 0, 6, "{}    \n", nil)},
	{"version 4.0 is unknown", raw(4, 0, 6, "{}    \n", nil)},
	{"minor versions other than 0 are unknown", raw(1, 1, 6, "{}    \n", nil)},
	{"the file may not end inside the header length", []byte("\x93NUMPY\x02\x00\x10\x00")},
	{"the header length may not run past the end of the file", raw(1, 0, 200, dict("|u1", false, "(1,)")+"\n", nil)},
	{"an empty header is rejected", raw(1, 0, 0, "", nil)},
	{"the header must end in a newline", exact(1, dict("|u1", false, "(1,)")+" ", seq(1))},
	{"the dict must be closed", file(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (1,), ", seq(1))},
	{"the header must be a dict", file(1, "['descr', 'fortran_order', 'shape']", nil)},
	{"the header must be a dict, not None", file(1, "None", nil)},
	{"the header must be a dict, not a set", file(1, "{'descr', 'fortran_order', 'shape'}", nil)},
	{"nothing may follow the dict", file(1, dict("|u1", false, "(1,)")+" x", seq(1))},
	{"a second dict may not follow the dict", file(1, dict("|u1", false, "(1,)")+"{}", seq(1))},
	{"the key 'shape' is required", file(1, "{'descr': '|u1', 'fortran_order': False}", seq(1))},
	{"the key 'descr' is required", file(1, "{'fortran_order': False, 'shape': (1,)}", seq(1))},
	{"the key 'fortran_order' is required", file(1, "{'descr': '|u1', 'shape': (1,)}", seq(1))},
	{"an empty dict lacks every key", file(1, "{}", nil)},
	{"extra keys are rejected", file(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (1,), 'extra': 1}", seq(1))},
	{"duplicate keys are rejected", file(1, "{'descr': '|u1', 'descr': '|u1', 'fortran_order': False, 'shape': (1,)}", seq(1))},
	{"keys must be strings", file(1, "{1: '|u1', 'fortran_order': False, 'shape': (1,)}", seq(1))},
	{"a key must be followed by ':'", file(1, "{'descr' '|u1', 'fortran_order': False, 'shape': (1,)}", seq(1))},
	{"entries must be separated by ','", file(1, "{'descr': '|u1' 'fortran_order': False, 'shape': (1,)}", seq(1))},
	{"an empty entry is rejected", file(1, "{'descr': '|u1',, 'fortran_order': False, 'shape': (1,)}", seq(1))},
	{"a structured (list) descr is not supported", file(1, "{'descr': [('a', '<i4')], 'fortran_order': False, 'shape': (1,)}", seq(4))},
	{"a subarray (tuple) descr is not supported", file(1, "{'descr': ('<i4', (2,)), 'fortran_order': False, 'shape': (1,)}", seq(8))},
	{"descr must be a string", file(1, "{'descr': 4, 'fortran_order': False, 'shape': (1,)}", seq(4))},
	{"object arrays are not supported", file(1, dict("|O", false, "(1,)"), seq(8))},
	{"long double is not supported", file(1, dict("<f16", false, "(1,)"), seq(16))},
	{"void is not supported", file(1, dict("|V8", false, "(1,)"), seq(8))},
	{"datetime is not supported", file(1, dict("<M8[ns]", false, "(1,)"), seq(8))},
	{"an empty descr is rejected", file(1, dict("", false, "(1,)"), seq(1))},
	{"a zero-width string dtype is rejected", file(1, dict("|S0", false, "(1,)"), nil)},
	{"fortran_order must be a bool, not an int", file(1, "{'descr': '|u1', 'fortran_order': 0, 'shape': (1,)}", seq(1))},
	{"fortran_order must be a bool, not a string", file(1, "{'descr': '|u1', 'fortran_order': 'False', 'shape': (1,)}", seq(1))},
	{"fortran_order must be a bool, not None", file(1, "{'descr': '|u1', 'fortran_order': None, 'shape': (1,)}", seq(1))},
	{"names other than True, False and None are rejected", file(1, "{'descr': '|u1', 'fortran_order': false, 'shape': (1,)}", seq(1))},
	{"shape must be a tuple, not a list", file(1, dict("|u1", false, "[2, 3]"), seq(6))},
	{"shape must be a tuple, not a parenthesized int", file(1, dict("|u1", false, "(3)"), seq(3))},
	{"shape must be a tuple, not None", file(1, dict("|u1", false, "None"), seq(1))},
	{"dimensions must be integers, not floats", file(1, dict("|u1", false, "(2.5,)"), seq(2))},
	{"dimensions must be integers, not exponents", file(1, dict("|u1", false, "(1e2,)"), seq(100))},
	{"dimensions must be integers, not bools", file(1, dict("|u1", false, "(True,)"), seq(1))},
	{"dimensions must be integers, not strings", file(1, dict("|u1", false, "('1',)"), seq(1))},
	{"dimensions must be integers, not tuples", file(1, dict("|u1", false, "((1,),)"), seq(1))},
	{"hexadecimal dimensions are not supported", file(1, dict("|u1", false, "(0x3,)"), seq(3))},
	{"decimal dimensions may not have leading zeros", file(1, dict("|u1", false, "(03,)"), seq(3))},
	{"the Python 2 long suffix is not accepted in v3 headers", file(3, dict("|u1", false, "(3L,)"), seq(3))},
	{"a sign must be followed by digits", file(1, dict("|u1", false, "(-,)"), nil)},
	{"a double sign is rejected", file(1, dict("|u1", false, "(--1,)"), seq(1))},
	{"a negative dimension is rejected", file(1, dict("|u1", false, "(-1,)"), nil)},
	{"a negative dimension after others is rejected", file(1, dict("|u1", false, "(2, -3)"), nil)},
	{"a hugely negative dimension is rejected", file(1, dict("|u1", false, "(-99999999999999999999,)"), nil)},
	{"a dimension beyond int is rejected", file(1, dict("|u1", false, "(99999999999999999999,)"), nil)},
	{"more than 32 dimensions are rejected", file(1, dict("|u1", false, "("+strings.Repeat("1, ", 33)+")"), seq(1))},
	{"an element count beyond int is rejected", file(1, dict("|i1", false, "(4294967296, 4294967296)"), nil)},
	{"a byte size beyond int is rejected", file(1, dict("<f8", false, "(2147483648, 2147483648)"), nil)},
	{"a zero-size shape whose other dimensions overflow is rejected, as in NumPy", file(1, dict("<f8", false, "(0, 4611686018427387904, 4)"), nil)},
	{"2^20 x 2^20 x 2^20 x 0 float64 is rejected, as in NumPy (2^63 bytes)", file(1, dict("<f8", false, "(1048576, 1048576, 1048576, 0)"), nil)},
	{"an empty shape element is rejected", file(1, dict("|u1", false, "(1,,)"), seq(1))},
	{"a lone comma is not a tuple", file(1, dict("|u1", false, "(,)"), nil)},
	{"an unclosed tuple is rejected", file(1, "{'descr': '|u1', 'fortran_order': False, 'shape': (1,", seq(1))},
	{"deeply nested values are rejected", file(1, dict("|u1", false, strings.Repeat("(", 100)+"1,"+strings.Repeat(")", 100)), seq(1))},
	{"an unterminated string is rejected", file(1, "{'descr': '|u1", seq(1))},
	{"a string may not span lines", file(1, "{'descr': '|u1\n', 'fortran_order': False, 'shape': (1,)}", seq(1))},
	{"escape sequences are not supported", file(1, `{'descr': '\x7cu1', 'fortran_order': False, 'shape': (1,)}`, seq(1))},
	{"triple-quoted strings are not supported", file(1, "{'descr': '''<i''4''', 'fortran_order': False, 'shape': (1,)}", seq(4))},
	{"string prefixes are not supported", file(1, "{'descr': b'|u1', 'fortran_order': False, 'shape': (1,)}", seq(1))},
	{"the payload may not be truncated", file(1, dict("<i4", false, "(2, 3)"), seq(23))},
	{"the payload may not be missing", file(1, dict("<i4", false, "(2, 3)"), nil)},
	{"trailing bytes after the payload are rejected", file(1, dict("<i4", false, "(2, 3)"), seq(25))},
	{"a 0-d array has exactly one element", file(1, dict("<i4", false, "()"), nil)},
	{"a zero-size array has no payload", file(1, dict("<i4", false, "(0,)"), seq(4))},
	{"a header claiming 10^12 elements in a tiny file is rejected", file(1, dict("<f8", false, "(1000000, 1000000)"), seq(16))},
	{"a NUL byte in the header is rejected", file(1, dict("|u1", false, "(1,)")+" #\x00", seq(1))},
	{"non-ASCII bytes in a v1 header are rejected", file(1, dict("|u1", false, "(1,)")+" # é", seq(1))},
	{"non-ASCII bytes in a v2 header are rejected", file(2, dict("|u1", false, "(1,)")+" # \xe9", seq(1))},
	{"a v3 header must be valid UTF-8", file(3, dict("|u1", false, "(1,)")+" # \xe9", seq(1))},
	{"non-ASCII outside strings and comments is rejected in v3", file(3, "{'descr': '|u1', 'fortran_order': False, 'shape': (1,)\u00a0}", seq(1))},
	{"non-ASCII in a v3 descr is rejected", file(3, dict("|u1é", false, "(1,)"), seq(1))},
	{"a vertical tab is not Python white space", file(1, dict("|u1", false, "(1,)")+"\v", seq(1))},
	{"a header longer than 10000 bytes is rejected, as in NumPy 1.24", exact(1, sized(dict("|u1", false, "(1,)"), 10001), seq(1))},
	{"a huge v2 header length is rejected before reading", raw(2, 0, 0xFFFFFFFF, dict("|u1", false, "(1,)")+"\n", seq(1))},
	{"a huge v3 header length is rejected before reading", raw(3, 0, 0x7FFFFFFF, dict("|u1", false, "(1,)")+"\n", seq(1))},
}

func TestDecodeCorrupt(t *testing.T) {
	for _, tt := range corruptTests {
		t.Run(tt.rule, func(t *testing.T) {
			got, err := Decode(tt.data)
			checkBadInput(t, "Decode", got, err)
			path := filepath.Join(t.TempDir(), "x.npy")
			if err := os.WriteFile(path, tt.data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err = ReadFile(path)
			checkBadInput(t, "ReadFile", got, err)
			if err != nil && !strings.Contains(err.Error(), path) {
				t.Errorf("ReadFile error %q does not name the file", err)
			}
		})
	}
}

// checkBadInput checks that a decoder refused its input with a bad_input
// error.
func checkBadInput(t *testing.T, fn string, got *engine.Tensor, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s succeeded with dtype %v shape %v, want a bad_input error", fn, got.DType, got.Shape)
	}
	if got != nil {
		t.Errorf("%s returned a tensor along with error %v", fn, err)
	}
	var e *engine.Error
	if !errors.As(err, &e) || engine.KindOf(err) != engine.BadInput {
		t.Errorf("%s error %v (%T) is not an *engine.Error of kind bad_input", fn, err, err)
	}
	if testing.Verbose() {
		t.Logf("%s: %v", fn, err)
	}
}

// allocated returns the bytes allocated while running f.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestHugeClaimsAllocateLittle(t *testing.T) {
	const limit = 1 << 20
	tests := []struct {
		rule string
		data []byte
	}{
		{"10^12 elements of 8 bytes in a tiny file", file(1, dict("<f8", false, "(1000000, 1000000)"), seq(16))},
		{"the largest possible byte size in a tiny file", file(1, dict("|u1", false, "(9223372036854775807,)"), seq(16))},
		{"a 4 GiB v2 header length in a tiny file", raw(2, 0, 0xFFFFFFFF, "{}\n", nil)},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "huge.npy")
		if err := os.WriteFile(path, tt.data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, fn := range []struct {
			name   string
			decode func() (*engine.Tensor, error)
		}{
			{"Decode", func() (*engine.Tensor, error) { return Decode(tt.data) }},
			{"ReadFile", func() (*engine.Tensor, error) { return ReadFile(path) }},
		} {
			var err error
			start := time.Now()
			n := allocated(func() { _, err = fn.decode() })
			elapsed := time.Since(start)
			if engine.KindOf(err) != engine.BadInput {
				t.Errorf("%s: %s: error %v, want bad_input", tt.rule, fn.name, err)
			}
			if n > limit {
				t.Errorf("%s: %s allocated %d bytes, want at most %d", tt.rule, fn.name, n, limit)
			}
			if elapsed > time.Second {
				t.Errorf("%s: %s took %v", tt.rule, fn.name, elapsed)
			}
		}
	}
}

func TestReadFileErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		rule string
		path string
	}{
		{"a missing file is bad input", filepath.Join(dir, "missing.npy")},
		{"a directory is bad input", dir},
	}
	for _, tt := range tests {
		got, err := ReadFile(tt.path)
		if err == nil || got != nil || engine.KindOf(err) != engine.BadInput {
			t.Errorf("%s: ReadFile(%q) = %v, %v; want a bad_input error", tt.rule, tt.path, got, err)
		}
	}
}

// TestReadFilePipe reads files that have no size, through /dev/fd.
func TestReadFilePipe(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs /dev/fd")
	}
	good := file(1, dict("<i2", true, "(2, 3)"), []byte{0, 0, 3, 0, 1, 0, 4, 0, 2, 0, 5, 0})
	tests := []struct {
		rule string
		data []byte
		ok   bool
	}{
		{"a valid file is read from a pipe", good, true},
		{"a truncated payload is detected in a pipe", good[:len(good)-1], false},
		{"trailing data is detected in a pipe", append(append([]byte{}, good...), 0), false},
		{"a huge claim in a pipe reads only what is there", file(1, dict("<f8", false, "(1000000, 1000000)"), seq(16)), false},
	}
	for _, tt := range tests {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			w.Write(tt.data)
			w.Close()
		}()
		got, err := ReadFile(fmt.Sprintf("/dev/fd/%d", r.Fd()))
		r.Close()
		switch {
		case tt.ok && err != nil:
			t.Errorf("%s: %v", tt.rule, err)
		case tt.ok:
			want := []byte{0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s: data %v, want %v", tt.rule, got.Bytes(), want)
			}
		case engine.KindOf(err) != engine.BadInput:
			t.Errorf("%s: error %v, want bad_input", tt.rule, err)
		}
	}
}

func TestEncodeHeader(t *testing.T) {
	// The want strings are what np.save wrote with NumPy 1.24.2.
	pad := func(dict string) string {
		return dict + strings.Repeat(" ", 128-10-1-len(dict)) + "\n"
	}
	tests := []struct {
		rule  string
		dtype engine.DType
		shape []int
		want  string
	}{
		{"2-d shape, growth padding for a 1-digit first axis", engine.Int32Type, []int{2, 3},
			"\x93NUMPY\x01\x00v\x00" + pad("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), }                    ")},
		{"1-d shape is written (n,)", engine.BoolType, []int{3},
			"\x93NUMPY\x01\x00v\x00" + pad("{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }                    ")},
		{"0-d shape is written () with no growth padding", engine.DType{Kind: engine.Unicode, Size: 12}, []int{},
			"\x93NUMPY\x01\x00v\x00" + pad("{'descr': '<U3', 'fortran_order': False, 'shape': (), }")},
		{"zero-size shape", engine.DType{Kind: engine.Bytes, Size: 5}, []int{0},
			"\x93NUMPY\x01\x00v\x00" + pad("{'descr': '|S5', 'fortran_order': False, 'shape': (0,), }                    ")},
		{"a long first axis shortens the growth padding", engine.Float64Type, []int{12345678901, 0},
			"\x93NUMPY\x01\x00v\x00" + pad("{'descr': '<f8', 'fortran_order': False, 'shape': (12345678901, 0), }          ")},
		{"big-endian dtype", engine.DType{Kind: engine.Float, Size: 2, BigEndian: true}, []int{1},
			"\x93NUMPY\x01\x00v\x00" + pad("{'descr': '>f2', 'fortran_order': False, 'shape': (1,), }                    ")},
	}
	for _, tt := range tests {
		got := string(encodeHeader(tt.dtype, tt.shape))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: header mismatch (-want +got):\n%s", tt.rule, diff)
		}
	}
}

func TestWrapHeaderAlignment(t *testing.T) {
	for n := 0; n < 70000; n += 997 {
		dict := strings.Repeat("x", n)
		b := wrapHeader(dict)
		if len(b)%64 != 0 {
			t.Errorf("dict of %d bytes: header of %d bytes is not a multiple of 64", n, len(b))
		}
		if b[len(b)-1] != '\n' {
			t.Errorf("dict of %d bytes: header does not end in a newline", n)
		}
		wantMajor := byte(1)
		if len(b)-10 > 0xFFFF {
			wantMajor = 2
		}
		if b[6] != wantMajor {
			t.Errorf("dict of %d bytes: version %d, want %d", n, b[6], wantMajor)
		}
	}
	// NumPy always pads with at least one space: a dict that exactly fills
	// the 64 bytes with its newline gets 64 more.
	if got := len(wrapHeader(strings.Repeat("x", 64-10-1))); got != 128 {
		t.Errorf("exactly aligned dict: header of %d bytes, want 128", got)
	}
}

func TestEncodeViews(t *testing.T) {
	base, err := engine.FromBytes(engine.Int16Type, []int{2, 3}, seq(12))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		rule  string
		view  *engine.Tensor
		shape []int
		want  []byte
	}{
		{"a contiguous tensor is written as is", base, []int{2, 3}, seq(12)},
		{"a transposed view is written in row-major order",
			&engine.Tensor{DType: engine.Int16Type, Shape: []int{3, 2}, Strides: []int{2, 6}, Data: base.Data},
			[]int{3, 2}, []byte{0, 1, 6, 7, 2, 3, 8, 9, 4, 5, 10, 11}},
		{"a reversed view with an offset is written in row-major order",
			&engine.Tensor{DType: engine.Int16Type, Shape: []int{2, 3}, Strides: []int{-6, 2}, Offset: 6, Data: base.Data},
			[]int{2, 3}, []byte{6, 7, 8, 9, 10, 11, 0, 1, 2, 3, 4, 5}},
		{"a broadcast view (zero stride) repeats elements",
			&engine.Tensor{DType: engine.Int16Type, Shape: []int{2, 2}, Strides: []int{0, 2}, Data: base.Data},
			[]int{2, 2}, []byte{0, 1, 2, 3, 0, 1, 2, 3}},
		{"a 0-d view of one element",
			&engine.Tensor{DType: engine.Int16Type, Shape: []int{}, Strides: []int{}, Offset: 10, Data: base.Data},
			[]int{}, []byte{10, 11}},
		{"a zero-size view has no payload",
			&engine.Tensor{DType: engine.Int16Type, Shape: []int{0, 3}, Strides: []int{6, 2}, Offset: 12, Data: base.Data},
			[]int{0, 3}, []byte{}},
	}
	for _, tt := range tests {
		enc := Encode(tt.view)
		var buf bytes.Buffer
		if err := Write(&buf, tt.view); err != nil {
			t.Fatalf("%s: Write: %v", tt.rule, err)
		}
		if !bytes.Equal(buf.Bytes(), enc) {
			t.Errorf("%s: Write and Encode differ", tt.rule)
		}
		got, err := Decode(enc)
		if err != nil {
			t.Fatalf("%s: Decode: %v", tt.rule, err)
		}
		t.Run(tt.rule, func(t *testing.T) { expectTensor(t, got, "<i2", tt.shape, tt.want) })
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestWriteErrors(t *testing.T) {
	data := seq(12)
	tests := []struct {
		rule string
		t    *engine.Tensor
		w    interface{ Write([]byte) (int, error) }
	}{
		{"a nil tensor is rejected", nil, &bytes.Buffer{}},
		{"a dtype with no size is rejected", &engine.Tensor{Shape: []int{1}, Strides: []int{1}, Data: data}, &bytes.Buffer{}},
		{"an odd unicode size is rejected", &engine.Tensor{DType: engine.DType{Kind: engine.Unicode, Size: 6}, Shape: []int{1}, Strides: []int{6}, Data: data}, &bytes.Buffer{}},
		{"an unsupported integer size is rejected", &engine.Tensor{DType: engine.DType{Kind: engine.Int, Size: 3}, Shape: []int{1}, Strides: []int{3}, Data: data}, &bytes.Buffer{}},
		{"a negative dimension is rejected", &engine.Tensor{DType: engine.Uint8Type, Shape: []int{-1}, Strides: []int{1}, Data: data}, &bytes.Buffer{}},
		{"strides must match the rank", &engine.Tensor{DType: engine.Uint8Type, Shape: []int{2, 2}, Strides: []int{1}, Data: data}, &bytes.Buffer{}},
		{"a view may not reach past its data", &engine.Tensor{DType: engine.Uint8Type, Shape: []int{13}, Strides: []int{1}, Data: data}, &bytes.Buffer{}},
		{"a view may not reach before its data", &engine.Tensor{DType: engine.Uint8Type, Shape: []int{2}, Strides: []int{-1}, Data: data}, &bytes.Buffer{}},
		{"a negative offset is rejected", &engine.Tensor{DType: engine.Uint8Type, Shape: []int{}, Strides: []int{}, Offset: -1, Data: data}, &bytes.Buffer{}},
		{"a huge stride is rejected", &engine.Tensor{DType: engine.Uint8Type, Shape: []int{3}, Strides: []int{1 << 62}, Data: data}, &bytes.Buffer{}},
		{"an empty shape NumPy cannot create (2^20 x 2^20 x 2^20 x 0 float64) is not written: the reader refuses it", &engine.Tensor{DType: engine.Float64Type, Shape: []int{1 << 20, 1 << 20, 1 << 20, 0}, Strides: []int{0, 0, 0, 0}, Data: data}, &bytes.Buffer{}},
		{"a failing writer gives bad_input", &engine.Tensor{DType: engine.Uint8Type, Shape: []int{12}, Strides: []int{1}, Data: data}, failWriter{}},
	}
	for _, tt := range tests {
		err := Write(tt.w, tt.t)
		if engine.KindOf(err) != engine.BadInput {
			t.Errorf("%s: Write error %v, want bad_input", tt.rule, err)
		}
		if _, ok := tt.w.(failWriter); ok {
			continue
		}
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: Encode did not panic", tt.rule)
				}
			}()
			Encode(tt.t)
		}()
	}
}

// TestFortranOrderReadInPlace checks that a Fortran-order file is read
// as a view of its payload: reading it allocates the payload once, not a
// second copy in C order.
func TestFortranOrderReadInPlace(t *testing.T) {
	const rows, cols = 2048, 1024 // 16 MiB of float64
	data := file(1, dict("<f8", true, fmt.Sprintf("(%d, %d)", rows, cols)), make([]byte, rows*cols*8))
	path := filepath.Join(t.TempDir(), "f.npy")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	got, err := ReadFile(path)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if grew, payload := after.TotalAlloc-before.TotalAlloc, uint64(rows*cols*8); grew > payload+1<<20 {
		t.Errorf("reading a %d MiB Fortran-order file allocated %d MiB", payload>>20, grew>>20)
	}
	if diff := cmp.Diff([]int{8, 8 * rows}, got.Strides); diff != "" {
		t.Errorf("strides (-want +got):\n%s", diff)
	}
}
