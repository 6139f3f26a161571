package compare

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
)

func f32(shape []int, values ...uint32) *engine.Tensor {
	data := make([]byte, 4*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint32(data[4*i:], v)
	}
	t, err := engine.FromBytes(engine.Float32Type, shape, data)
	if err != nil {
		panic(err)
	}
	return t
}

func TestTensors(t *testing.T) {
	one := math.Float32bits(1)
	nan := math.Float32bits(float32(math.NaN()))
	negZero := math.Float32bits(float32(math.Copysign(0, -1)))
	tests := []struct {
		rule      string
		want, got *engine.Tensor
		diff      string // substring of the error; "" means equal
	}{
		{"identical tensors are equal", f32([]int{2}, one, 2), f32([]int{2}, one, 2), ""},
		{"the same NaN payload is equal", f32([]int{1}, nan), f32([]int{1}, nan), ""},
		{"another NaN payload differs", f32([]int{1}, nan), f32([]int{1}, nan|1), "element [0]"},
		{"-0 differs from +0", f32([]int{1}, 0), f32([]int{1}, negZero), "element [0]"},
		{"the first difference is named by its N-D index", f32([]int{2, 3}, 0, 0, 0, 0, 0, 0), f32([]int{2, 3}, 0, 0, 0, 0, one, one), "element [1, 1]"},
		{"shapes must match", f32([]int{2}, 0, 0), f32([]int{1, 2}, 0, 0), "shape [1 2], want [2]"},
		{"dtypes must match", f32([]int{1}, 0), &engine.Tensor{DType: engine.Int32Type, Shape: []int{1}, Strides: []int{4}, Data: make([]byte, 4)}, "dtype <i4, want <f4"},
	}
	for _, tt := range tests {
		err := Tensors(tt.want, tt.got)
		switch {
		case tt.diff == "" && err != nil:
			t.Errorf("%s: unexpected difference: %v", tt.rule, err)
		case tt.diff != "" && (err == nil || !strings.Contains(err.Error(), tt.diff)):
			t.Errorf("%s: got %v, want a difference mentioning %q", tt.rule, err, tt.diff)
		}
	}
}

func TestPosition(t *testing.T) {
	tests := []struct {
		rule  string
		shape []int
		flat  int
		want  string
	}{
		{"a 0-d tensor has the empty index", nil, 0, "[]"},
		{"row-major order: the last axis varies fastest", []int{2, 3}, 4, "[1, 1]"},
		{"three axes", []int{2, 3, 4}, 23, "[1, 2, 3]"},
	}
	for _, tt := range tests {
		if got := Position(tt.shape, tt.flat); got != tt.want {
			t.Errorf("%s: Position(%v, %d) = %s, want %s", tt.rule, tt.shape, tt.flat, got, tt.want)
		}
	}
}

func TestFormat(t *testing.T) {
	be, _ := engine.ParseDType(">i2")
	u, _ := engine.ParseDType("<U2")
	s, _ := engine.ParseDType("|S3")
	tests := []struct {
		rule string
		dt   engine.DType
		b    []byte
		want string
	}{
		{"big-endian integers are read in their byte order", be, []byte{0xff, 0xfe}, "-2"},
		{"unicode strings stop at the first NUL", u, []byte{'h', 0, 0, 0, 0, 0, 0, 0}, `"h"`},
		{"byte strings drop trailing NULs", s, []byte{'a', 'b', 0}, `"ab"`},
		{"float32 shows the value and the bits", engine.Float32Type, []byte{0, 0, 0x80, 0x3f}, "1 (0x3f800000)"},
		{"bools are true or false", engine.BoolType, []byte{1}, "true"},
	}
	for _, tt := range tests {
		if got := Format(tt.dt, tt.b); got != tt.want {
			t.Errorf("%s: Format = %s, want %s", tt.rule, got, tt.want)
		}
	}
}
