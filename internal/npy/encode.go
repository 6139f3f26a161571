package npy

import (
	"encoding/binary"
	"io"
	"strconv"
	"strings"

	"github.com/conformsuite/conform/engine"
)

const (
	// arrayAlign is NumPy's ARRAY_ALIGN: magic, version, header length
	// and header together fill a multiple of this many bytes.
	arrayAlign = 64
	// growthAxisMaxDigits is NumPy's GROWTH_AXIS_MAX_DIGITS: the header
	// has room for the first dimension to grow to this many digits.
	growthAxisMaxDigits = 21
)

// Encode returns t as a .npy file, byte-identical to what NumPy 1.24's
// np.save writes for the same C-contiguous array: format version 1.0 (2.0
// only if the header would not fit), C order, the dtype and bytes of t
// unchanged. t may be any view; its elements are written in row-major
// order. Encode panics if t is not a valid tensor (see Write).
func Encode(t *engine.Tensor) []byte {
	if err := checkTensor(t); err != nil {
		panic(err)
	}
	hdr := encodeHeader(t.DType, t.Shape)
	data := t.Bytes()
	out := make([]byte, 0, len(hdr)+len(data))
	out = append(out, hdr...)
	return append(out, data...)
}

// Write writes t to w in the format of Encode. It returns a bad_input
// error if t is not a valid tensor (a dtype ParseDType would not return,
// too many dimensions, a negative dimension, or strides and offset that
// reach outside Data) or if writing to w fails.
func Write(w io.Writer, t *engine.Tensor) error {
	if err := checkTensor(t); err != nil {
		return err
	}
	if _, err := w.Write(encodeHeader(t.DType, t.Shape)); err != nil {
		return errorf("npy: writing the header: %v", err)
	}
	if _, err := w.Write(t.Bytes()); err != nil {
		return errorf("npy: writing the payload: %v", err)
	}
	return nil
}

// encodeHeader returns the magic string, version, header length and
// header that np.save writes for a C-contiguous array of dtype dt and the
// given shape.
func encodeHeader(dt engine.DType, shape []int) []byte {
	var b strings.Builder
	b.WriteString("{'descr': '")
	b.WriteString(dt.String())
	b.WriteString("', 'fortran_order': False, 'shape': (")
	for i, d := range shape {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(d))
	}
	if len(shape) == 1 {
		b.WriteByte(',')
	}
	b.WriteString("), }")
	if len(shape) > 0 {
		// Room to grow the first axis in place (the last one for
		// Fortran order, which Encode never writes).
		if n := growthAxisMaxDigits - len(strconv.Itoa(shape[0])); n > 0 {
			b.WriteString(strings.Repeat(" ", n))
		}
	}
	return wrapHeader(b.String())
}

// wrapHeader adds the prefix, the alignment padding and the final newline
// to a header dictionary, as NumPy's _wrap_header does: version 1.0 if the
// padded header length fits in 16 bits, else version 2.0.
func wrapHeader(dict string) []byte {
	major, lenSize := byte(1), 2
	hlen := len(dict) + 1 // with the newline
	pad := arrayAlign - (len(magic)+2+lenSize+hlen)%arrayAlign
	if hlen+pad > 0xFFFF {
		major, lenSize = 2, 4
		pad = arrayAlign - (len(magic)+2+lenSize+hlen)%arrayAlign
	}
	out := make([]byte, 0, len(magic)+2+lenSize+hlen+pad)
	out = append(out, magic...)
	out = append(out, major, 0)
	if lenSize == 2 {
		out = binary.LittleEndian.AppendUint16(out, uint16(hlen+pad))
	} else {
		out = binary.LittleEndian.AppendUint32(out, uint32(hlen+pad))
	}
	out = append(out, dict...)
	for i := 0; i < pad; i++ {
		out = append(out, ' ')
	}
	return append(out, '\n')
}

// checkTensor reports whether t can be written: a dtype that ParseDType
// returns, a valid shape, and strides and offset within Data.
func checkTensor(t *engine.Tensor) error {
	if t == nil {
		return errorf("npy: nil tensor")
	}
	dt, err := engine.ParseDType(t.DType.String())
	want := t.DType
	if !want.HasByteOrder() {
		want.BigEndian = false
	}
	if err != nil || dt != want {
		return errorf("npy: tensor has an invalid dtype %+v", t.DType)
	}
	if len(t.Shape) > engine.MaxRank {
		return errorf("npy: tensor has %d dimensions, more than the maximum of %d", len(t.Shape), engine.MaxRank)
	}
	if len(t.Strides) != len(t.Shape) {
		return errorf("npy: tensor has %d strides for %d dimensions", len(t.Strides), len(t.Shape))
	}
	if !engine.ShapeFits(t.Shape, t.DType.Size) {
		return errorf("npy: tensor shape %v of %v is too big: its size in bytes overflows int", t.Shape, t.DType)
	}
	n := engine.NumElements(t.Shape)
	if n == 0 {
		return nil
	}
	// Every element must lie inside Data: find the lowest and highest
	// byte offsets the view reaches.
	lo, hi := t.Offset, t.Offset
	if lo < 0 || lo > len(t.Data) {
		return errorf("npy: tensor offset %d is outside its %d bytes of data", t.Offset, len(t.Data))
	}
	for i, d := range t.Shape {
		s := t.Strides[i]
		if d == 1 || s == 0 {
			continue
		}
		abs := s
		if abs < 0 {
			abs = -abs
		}
		if abs < 0 || d-1 > len(t.Data)/abs {
			return errorf("npy: tensor axis %d (length %d, stride %d) reaches outside its %d bytes of data", i, d, s, len(t.Data))
		}
		if s > 0 {
			hi += (d - 1) * s
		} else {
			lo += (d - 1) * s
		}
		if lo < 0 || hi > len(t.Data) {
			return errorf("npy: tensor view (shape %v, strides %v, offset %d) reaches outside its %d bytes of data", t.Shape, t.Strides, t.Offset, len(t.Data))
		}
	}
	if hi > len(t.Data)-t.DType.Size {
		return errorf("npy: tensor view (shape %v, strides %v, offset %d) reaches outside its %d bytes of data", t.Shape, t.Strides, t.Offset, len(t.Data))
	}
	return nil
}
