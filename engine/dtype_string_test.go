package engine

import "testing"

// TestDTypeAppendString checks that AppendString writes a dtype as
// String does, the descr of a .npy header that ParseDType reads back.
func TestDTypeAppendString(t *testing.T) {
	tests := []struct {
		why  string
		dt   DType
		want string
	}{
		{"a multi-byte type is little-endian by default", Float32Type, "<f4"},
		{"a big-endian type says so", DType{Kind: Int, Size: 2, BigEndian: true}, ">i2"},
		{"a one-byte type has no byte order", Uint8Type, "|u1"},
		{"bool has no byte order", BoolType, "|b1"},
		{"a bytes type counts bytes and has no byte order", DType{Kind: Bytes, Size: 5}, "|S5"},
		{"a unicode type counts characters of four bytes", DType{Kind: Unicode, Size: 12, BigEndian: true}, ">U3"},
	}
	for _, tt := range tests {
		got := string(tt.dt.AppendString([]byte("x")))
		if got != "x"+tt.want || tt.dt.String() != tt.want {
			t.Errorf("%s: AppendString %q, String %q, want %q", tt.why, got, tt.dt.String(), tt.want)
		}
		if back, err := ParseDType(tt.want); err != nil || back != tt.dt {
			t.Errorf("%s: ParseDType(%q) = %v, %v", tt.why, tt.want, back, err)
		}
	}
}
