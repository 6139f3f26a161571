package npy

import (
	"bytes"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/engine"
)

// FuzzDecode checks that Decode never panics, that what it accepts is a
// consistent tensor (C order, or a view with Fortran strides), and that Encode then Decode gives the
// same dtype, shape and bytes.
func FuzzDecode(f *testing.F) {
	for _, dt := range []string{"|b1", "|i1", "<i2", ">i4", "<u8", "<f2", ">f4", "<f8", "<c8", ">c16", "|S3", "<U2", ">U1"} {
		d, err := engine.ParseDType(dt)
		if err != nil {
			f.Fatal(err)
		}
		for _, shape := range [][]int{{}, {0}, {3}, {2, 3}, {2, 0, 3}, {1, 2, 1, 2}} {
			z, err := engine.Zeros(d, shape)
			if err != nil {
				f.Fatal(err)
			}
			for i := range z.Data {
				z.Data[i] = byte(i*37 + 11)
			}
			f.Add(Encode(z))
		}
	}
	f.Add(file(1, dict("|u1", true, "(2, 3, 2)"), seq(12)))
	f.Add(file(2, "{'shape': (2, 2), \"descr\": '<i2', 'fortran_order': True}", seq(8)))
	f.Add(file(3, dict("<u4", false, "(2L, 1)")+" # ✓", seq(8)))
	for _, tt := range validTests {
		f.Add(tt.data)
	}
	for _, tt := range corruptTests {
		f.Add(tt.data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := append([]byte{}, data...)
		got, err := Decode(data)
		if !bytes.Equal(data, orig) {
			t.Fatalf("Decode modified its input")
		}
		if err != nil {
			if got != nil {
				t.Fatalf("Decode returned a tensor along with error %v", err)
			}
			if engine.KindOf(err) != engine.BadInput {
				t.Fatalf("error %v (%T) is not bad_input", err, err)
			}
			return
		}
		checkDecoded(t, got)
		enc := Encode(got)
		again, err := Decode(enc)
		if err != nil {
			t.Fatalf("Decode(Encode(t)) failed: %v\nencoded: %q", err, enc)
		}
		checkDecoded(t, again)
		if again.DType != got.DType {
			t.Errorf("dtype changed from %+v to %+v", got.DType, again.DType)
		}
		if diff := cmp.Diff(got.Shape, again.Shape); diff != "" {
			t.Errorf("shape changed (-first +second):\n%s", diff)
		}
		if !bytes.Equal(got.Bytes(), again.Data) {
			t.Errorf("bytes changed: %s", firstMismatch(got.Shape, got.DType.Size, got.Bytes(), again.Data))
		}
		if enc2 := Encode(again); !bytes.Equal(enc, enc2) {
			t.Errorf("Encode is not stable:\n%q\n%q", enc, enc2)
		}
	})
}

// checkDecoded checks that t is a tensor with offset 0 whose Data holds
// exactly its elements, in C order or (a file in Fortran order) with
// Fortran strides.
func checkDecoded(t *testing.T, got *engine.Tensor) {
	t.Helper()
	if len(got.Shape) > engine.MaxRank {
		t.Fatalf("rank %d exceeds %d", len(got.Shape), engine.MaxRank)
	}
	n := engine.NumElements(got.Shape)
	if n < 0 {
		t.Fatalf("shape %v overflows", got.Shape)
	}
	if len(got.Data) != n*got.DType.Size {
		t.Fatalf("len(Data) = %d, want %d elements * %d bytes", len(got.Data), n, got.DType.Size)
	}
	if got.Offset != 0 {
		t.Fatalf("offset %d, want 0", got.Offset)
	}
	if !got.IsContiguous() && !slices.Equal(fortranStrides(got.Shape, got.DType.Size), got.Strides) {
		t.Fatalf("strides %v are neither C nor Fortran strides of shape %v", got.Strides, got.Shape)
	}
	if _, err := engine.ParseDType(got.DType.String()); err != nil {
		t.Fatalf("dtype %+v does not parse back: %v", got.DType, err)
	}
}

// fortranStrides returns the column-major byte strides of shape.
func fortranStrides(shape []int, itemSize int) []int {
	strides := make([]int, len(shape))
	s := itemSize
	for i, d := range shape {
		strides[i] = s
		s *= d
	}
	return strides
}
