package gen

import (
	"encoding/binary"
	"math"
	"testing"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
)

// TestDTypeFindAny checks that DType produces every engine dtype, each
// multi-byte one in both byte orders, and wide strings.
func TestDTypeFindAny(t *testing.T) {
	seen := map[engine.DType]bool{}
	for i := 0; i < 5000; i++ {
		dt := DType().Example(i)
		if _, err := engine.ParseDType(dt.String()); err != nil {
			t.Fatalf("DType produced %v, which the engine rejects: %v", dt, err)
		}
		key := dt
		if dt.Kind == engine.Bytes || dt.Kind == engine.Unicode {
			key.Size = 0
		}
		seen[key] = true
	}
	for _, d := range dtypeWeights {
		want := d.dt
		if !seen[want] {
			t.Errorf("no %v (kind %c, size %d) in 5000 draws", want, want.Kind, want.Size)
		}
		if want.HasByteOrder() {
			want.BigEndian = true
			if !seen[want] {
				t.Errorf("no big-endian %c%d in 5000 draws", want.Kind, want.Size)
			}
		}
	}
	for _, tt := range []struct {
		rule string
		pred func(engine.DType) bool
	}{
		{"S wider than 8 bytes", func(d engine.DType) bool { return d.Kind == engine.Bytes && d.Size > 8 }},
		{"U wider than 6 characters", func(d engine.DType) bool { return d.Kind == engine.Unicode && d.Size > 24 }},
		{"S1, the narrowest string", func(d engine.DType) bool { return d.Kind == engine.Bytes && d.Size == 1 }},
	} {
		if !findAny(DType(), 5000, tt.pred) {
			t.Errorf("no dtype in 5000 draws: %s", tt.rule)
		}
	}
}

// TestIndexDTypeFindAny checks the gather_nd index dtypes.
func TestIndexDTypeFindAny(t *testing.T) {
	for _, tt := range []struct {
		rule string
		pred func(engine.DType) bool
	}{
		{"int32", func(d engine.DType) bool { return d == engine.Int32Type }},
		{"int64", func(d engine.DType) bool { return d == engine.Int64Type }},
		{"big-endian int64", func(d engine.DType) bool { return d.Kind == engine.Int && d.Size == 8 && d.BigEndian }},
		{"int8", func(d engine.DType) bool { return d == engine.Int8Type }},
		{"uint64", func(d engine.DType) bool { return d.Kind == engine.Uint && d.Size == 8 }},
		{"a float dtype (bad_input)", func(d engine.DType) bool { return d.Kind == engine.Float }},
	} {
		if !findAny(IndexDType(), 5000, tt.pred) {
			t.Errorf("no index dtype in 5000 draws: %s", tt.rule)
		}
	}
}

// floats returns the bit patterns of the floats of size bytes in data.
func floats(data []byte, size int, o binary.ByteOrder) []uint64 {
	out := make([]uint64, 0, len(data)/size)
	for i := 0; i+size <= len(data); i += size {
		switch size {
		case 2:
			out = append(out, uint64(o.Uint16(data[i:])))
		case 4:
			out = append(out, uint64(o.Uint32(data[i:])))
		case 8:
			out = append(out, o.Uint64(data[i:]))
		}
	}
	return out
}

// TestDataFindAny checks that float data reaches the special values, for
// each float size.
func TestDataFindAny(t *testing.T) {
	for _, size := range []int{2, 4, 8} {
		f := floatFormats[size]
		expMax := uint64(1)<<f.exp - 1
		manMask := uint64(1)<<f.man - 1
		signBit := uint64(1) << (f.exp + f.man)
		exp := func(b uint64) uint64 { return b >> f.man & expMax }
		classes := []struct {
			rule string
			pred func(uint64) bool
		}{
			{"-0", func(b uint64) bool { return b == signBit }},
			{"+Inf", func(b uint64) bool { return b == expMax<<f.man }},
			{"a NaN with a non-default payload", func(b uint64) bool {
				return exp(b) == expMax && b&manMask != 0 && b&manMask != 1<<(f.man-1)
			}},
			{"a signalling NaN", func(b uint64) bool { return exp(b) == expMax && b&manMask != 0 && b&(1<<(f.man-1)) == 0 }},
			{"a negative NaN", func(b uint64) bool { return exp(b) == expMax && b&manMask != 0 && b&signBit != 0 }},
			{"a subnormal", func(b uint64) bool { return exp(b) == 0 && b&manMask != 0 }},
			{"the largest finite value", func(b uint64) bool { return b&^signBit == (expMax-1)<<f.man|manMask }},
		}
		dt := engine.DType{Kind: engine.Float, Size: size}
		for _, c := range classes {
			found := findAny(Data(dt, 64), 200, func(data []byte) bool {
				for _, b := range floats(data, size, binary.LittleEndian) {
					if c.pred(b) {
						return true
					}
				}
				return false
			})
			if !found {
				t.Errorf("f%d: no %s in 200 draws of 64 elements", size, c.rule)
			}
		}
	}
	arange := func(data []byte) bool {
		for i, v := range floats(data, 8, binary.BigEndian) {
			if v != uint64(i) {
				return false
			}
		}
		return true
	}
	if !findAny(Data(engine.DType{Kind: engine.Int, Size: 8, BigEndian: true}, 16), 100, arange) {
		t.Errorf("no arange-like >i8 data in 100 draws")
	}
}

// TestDataValid checks the data rules of every dtype: the byte count,
// bool bytes 0 or 1, U characters valid code points.
func TestDataValid(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		dt := DType().Draw(t, "dtype")
		n := rapid.IntRange(0, 40).Draw(t, "n")
		data := Data(dt, n).Draw(t, "data")
		if len(data) != n*dt.Size {
			t.Fatalf("%d elements of %v in %d bytes", n, dt, len(data))
		}
		switch dt.Kind {
		case engine.Bool:
			for i, b := range data {
				if b > 1 {
					t.Fatalf("bool element %d is byte %d", i, b)
				}
			}
		case engine.Unicode:
			var o binary.ByteOrder = binary.LittleEndian
			if dt.BigEndian {
				o = binary.BigEndian
			}
			for i := 0; i < len(data); i += 4 {
				c := o.Uint32(data[i:])
				if c >= 0x110000 || (c >= 0xD800 && c < 0xE000) {
					t.Fatalf("U character %d is %#x, not a valid code point", i/4, c)
				}
			}
		}
	})
}

// TestF16FromF32 checks the float16 conversion on values with known half
// precision bit patterns.
func TestF16FromF32(t *testing.T) {
	tests := []struct {
		rule string
		in   float32
		want uint16
	}{
		{"one", 1, 0x3c00},
		{"minus two", -2, 0xc000},
		{"zero", 0, 0x0000},
		{"minus zero keeps its sign", float32(math.Copysign(0, -1)), 0x8000},
		{"2048 is exact", 2048, 0x6800},
		{"2049 ties to even (down)", 2049, 0x6800},
		{"2051 ties to even (up)", 2051, 0x6802},
		{"the largest finite half", 65504, 0x7bff},
		{"65520 rounds to infinity", 65520, 0x7c00},
		{"beyond the range is infinity", 1e10, 0x7c00},
		{"-Inf", float32(math.Inf(-1)), 0xfc00},
		{"the smallest normal half", 1.0 / 16384, 0x0400},
		{"the smallest subnormal half", 1.0 / 16777216, 0x0001},
		{"half the smallest subnormal ties to even zero", 1.0 / 33554432, 0x0000},
		{"the default quiet NaN", math.Float32frombits(0x7fc00000), 0x7e00},
		{"a NaN whose payload is below half's keeps NaN-ness", math.Float32frombits(0x7f800001), 0x7c01},
	}
	for _, tt := range tests {
		if got := f16FromF32(tt.in); got != tt.want {
			t.Errorf("%s: f16FromF32(%v) = %#04x, want %#04x", tt.rule, tt.in, got, tt.want)
		}
	}
}
