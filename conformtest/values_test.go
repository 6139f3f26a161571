package conformtest

import (
	"math"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/google/go-cmp/cmp"
)

// roundTrip builds a tensor from values, reads it back, and also reads
// the big-endian twin of the tensor (bytes swapped per element, or per
// part for complex) to the same values.
func roundTrip[T Element](t *testing.T, rule string, values []T) {
	t.Helper()
	x, err := FromValues([]int{len(values)}, values)
	if err != nil {
		t.Fatalf("%s: %v", rule, err)
	}
	got, err := Values[T](x)
	if err != nil {
		t.Fatalf("%s: %v", rule, err)
	}
	if diff := cmp.Diff(values, got, cmp.Comparer(func(a, b T) bool { return any(a) == any(b) || isNaNPair(a, b) })); diff != "" {
		t.Errorf("%s: little-endian (-want +got):\n%s", rule, diff)
	}
	be := *x
	be.DType.BigEndian = be.DType.HasByteOrder()
	be.Data = append([]byte(nil), x.Data...)
	part := x.DType.Size
	if x.DType.Kind == engine.Complex {
		part /= 2
	}
	for i := 0; i < len(be.Data); i += part {
		for a, b := i, i+part-1; a < b; a, b = a+1, b-1 {
			be.Data[a], be.Data[b] = be.Data[b], be.Data[a]
		}
	}
	got, err = Values[T](&be)
	if err != nil {
		t.Fatalf("%s: big-endian: %v", rule, err)
	}
	if diff := cmp.Diff(values, got, cmp.Comparer(func(a, b T) bool { return any(a) == any(b) || isNaNPair(a, b) })); diff != "" {
		t.Errorf("%s: big-endian (-want +got):\n%s", rule, diff)
	}
}

func isNaNPair(a, b any) bool {
	switch x := a.(type) {
	case float32:
		return x != x && b.(float32) != b.(float32)
	case float64:
		return math.IsNaN(x) && math.IsNaN(b.(float64))
	}
	return false
}

// TestValues checks typed access for every element type, in both byte
// orders.
func TestValues(t *testing.T) {
	roundTrip(t, "bool", []bool{true, false, true})
	roundTrip(t, "int8 keeps its sign", []int8{-128, -1, 0, 127})
	roundTrip(t, "int16", []int16{-32768, -2, 513})
	roundTrip(t, "int32", []int32{math.MinInt32, -1, 1 << 20})
	roundTrip(t, "int64", []int64{math.MinInt64, -1, 1 << 40})
	roundTrip(t, "uint8", []uint8{0, 255})
	roundTrip(t, "uint16", []uint16{0, 65535, 258})
	roundTrip(t, "uint32", []uint32{0, math.MaxUint32})
	roundTrip(t, "uint64", []uint64{0, math.MaxUint64})
	roundTrip(t, "float32 with -0 and infinities", []float32{float32(math.Copysign(0, -1)), float32(math.Inf(1)), 1.5})
	roundTrip(t, "float64 with NaN", []float64{math.NaN(), -2.25})
	roundTrip(t, "complex64: each part in its byte order", []complex64{complex(1, -2), complex(0.5, 3)})
	roundTrip(t, "complex128", []complex128{complex(1e300, -1e-300)})
}

// TestValuesOfViews checks that Values reads a strided view in row-major
// order, and refuses a tensor of another dtype.
func TestValuesOfViews(t *testing.T) {
	x, err := FromValues([]int{2, 3}, []int32{0, 1, 2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	// The transpose, as a view: shape (3, 2), strides (4, 12).
	view := &engine.Tensor{DType: x.DType, Shape: []int{3, 2}, Strides: []int{4, 12}, Data: x.Data}
	got, err := Values[int32](view)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int32{0, 3, 1, 4, 2, 5}, got); diff != "" {
		t.Errorf("transposed view (-want +got):\n%s", diff)
	}
	if _, err := Values[int64](x); err == nil {
		t.Error("an int32 tensor reads as int64 without an error")
	}
	if _, err := FromValues([]int{4}, []int32{1}); err == nil {
		t.Error("a shape that does not hold the values is accepted")
	}
	h, err := FromFloat16Bits([]int{1}, []uint16{0x3c00})
	if err != nil {
		t.Fatal(err)
	}
	if bits, err := Values[uint16](h); err != nil || bits[0] != 0x3c00 || h.DType.String() != "<f2" {
		t.Errorf("float16 bits: %v %v %v", bits, err, h.DType)
	}
}

// TestStrings checks S and U tensors in both byte orders, trailing NULs
// dropped as NumPy drops them.
func TestStrings(t *testing.T) {
	for _, dt := range []engine.DType{
		{Kind: engine.Bytes, Size: 3},
		{Kind: engine.Unicode, Size: 12},
		{Kind: engine.Unicode, Size: 12, BigEndian: true},
	} {
		values := []string{"ab", "", "é"}
		if dt.Kind == engine.Bytes {
			values[2] = "\xff\x00z" // bytes, with a NUL inside
		}
		x, err := FromStrings(dt, []int{3}, values)
		if err != nil {
			t.Fatalf("%v: %v", dt, err)
		}
		got, err := Strings(x)
		if err != nil {
			t.Fatalf("%v: %v", dt, err)
		}
		if diff := cmp.Diff(values, got); diff != "" {
			t.Errorf("%v (-want +got):\n%s", dt, diff)
		}
		if _, err := FromStrings(dt, []int{1}, []string{"toolong"}); err == nil {
			t.Errorf("%v: a value wider than the dtype is accepted", dt)
		}
	}
}
