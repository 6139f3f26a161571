// Package compare compares results exactly: dtype, shape and the raw bytes
// of every element (NaN payloads and -0 included), and error kinds. A
// mismatch names the first differing element by its N-D index.
package compare

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/conformsuite/conform/engine"
)

// Tensors returns nil if got equals want exactly, and otherwise an error
// describing the first difference.
func Tensors(want, got *engine.Tensor) error {
	if want.DType != got.DType {
		return fmt.Errorf("dtype %v, want %v", got.DType, want.DType)
	}
	if !slices.Equal(want.Shape, got.Shape) {
		return fmt.Errorf("shape %v, want %v", got.Shape, want.Shape)
	}
	w, g := want.Bytes(), got.Bytes()
	if bytes.Equal(w, g) {
		return nil
	}
	size := want.DType.Size
	for i := 0; i+size <= len(w) && i+size <= len(g); i += size {
		if !bytes.Equal(w[i:i+size], g[i:i+size]) {
			return fmt.Errorf("element %s is %s, want %s", Position(want.Shape, i/size),
				Format(want.DType, g[i:i+size]), Format(want.DType, w[i:i+size]))
		}
	}
	return fmt.Errorf("data length %d, want %d", len(g), len(w))
}

// Position formats the N-D index of the row-major flat index i in shape,
// e.g. "[1, 0, 2]".
func Position(shape []int, i int) string {
	pos := make([]string, len(shape))
	for k := len(shape) - 1; k >= 0; k-- {
		if shape[k] == 0 {
			pos[k] = "0"
			continue
		}
		pos[k] = strconv.Itoa(i % shape[k])
		i /= shape[k]
	}
	return "[" + strings.Join(pos, ", ") + "]"
}

// Format renders one element's bytes readably: the value for numbers and
// strings, plus the raw bits for floats, whose bits matter.
func Format(dt engine.DType, b []byte) string {
	var order binary.ByteOrder = binary.LittleEndian
	if dt.BigEndian {
		order = binary.BigEndian
	}
	u := func() uint64 {
		switch len(b) {
		case 1:
			return uint64(b[0])
		case 2:
			return uint64(order.Uint16(b))
		case 4:
			return uint64(order.Uint32(b))
		}
		return order.Uint64(b)
	}
	switch dt.Kind {
	case engine.Bool:
		return strconv.FormatBool(b[0] != 0)
	case engine.Uint:
		return strconv.FormatUint(u(), 10)
	case engine.Int:
		shift := 64 - 8*uint(len(b))
		return strconv.FormatInt(int64(u()<<shift)>>shift, 10)
	case engine.Float:
		switch len(b) {
		case 4:
			v := uint32(u())
			return fmt.Sprintf("%v (0x%08x)", math.Float32frombits(v), v)
		case 8:
			v := u()
			return fmt.Sprintf("%v (0x%016x)", math.Float64frombits(v), v)
		}
		return fmt.Sprintf("0x%04x", u())
	case engine.Bytes:
		return strconv.Quote(string(bytes.TrimRight(b, "\x00")))
	case engine.Unicode:
		var sb strings.Builder
		for i := 0; i+4 <= len(b); i += 4 {
			r := rune(order.Uint32(b[i:]))
			if r == 0 {
				break
			}
			sb.WriteRune(r)
		}
		return strconv.Quote(sb.String())
	}
	return fmt.Sprintf("0x%x", b)
}
