// Package rawarray is the raw form of an array on the conform/1 wire, for
// children whose hello says "arrays": "raw": a JSON object holding the
// array's dtype as a .npy header writes it, its shape and the base64 of
// its elements in row-major order,
//
//	{"dtype":"<f4","shape":[2,3],"data":"AACAPwAAAEAAAEBAAACAQAAAoEAAAMBA"}
//
// the .npy file without its header. Append writes it; Parse and Decode
// read it back, with the checks npy.Decode makes on a file.
package rawarray

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/conformsuite/conform/engine"
)

// Append appends t in the raw form, its elements in row-major order.
func Append(dst []byte, t *engine.Tensor) []byte {
	dst = append(dst, `{"dtype":"`...)
	dst = t.DType.AppendString(dst)
	dst = append(dst, `","shape":[`...)
	for i, d := range t.Shape {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendInt(dst, int64(d), 10)
	}
	dst = append(dst, `],"data":"`...)
	dst = base64.StdEncoding.AppendEncode(dst, t.Bytes())
	return append(dst, `"}`...)
}

// Parse reads an array written exactly as Append writes it (no white
// space, the fields in its order). ok is false for any other text, which
// Decode then reads; err is set when the text has that form but does not
// describe an array (see Decode).
func Parse(b []byte) (t *engine.Tensor, ok bool, err error) {
	rest, found := bytes.CutPrefix(b, []byte(`{"dtype":"`))
	if !found {
		return nil, false, nil
	}
	i := bytes.IndexByte(rest, '"')
	if i < 0 || !Verbatim(rest[:i]) {
		return nil, false, nil // an escape, a control character or bytes not UTF-8: left to Decode
	}
	descr := rest[:i]
	rest, found = bytes.CutPrefix(rest[i:], []byte(`","shape":[`))
	if !found {
		return nil, false, nil
	}
	shape := make([]int, 0, 8) // one allocation for the usual ranks
	for len(rest) > 0 && rest[0] != ']' {
		n := 0
		for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
			n++
		}
		if n == 0 || n > 18 || (n > 1 && rest[0] == '0') {
			return nil, false, nil
		}
		d, _ := strconv.Atoi(string(rest[:n]))
		shape = append(shape, d)
		rest = rest[n:]
		if len(rest) > 1 && rest[0] == ',' && rest[1] != ']' {
			rest = rest[1:]
		}
	}
	rest, found = bytes.CutPrefix(rest, []byte(`],"data":"`))
	if !found {
		return nil, false, nil
	}
	b64, found := bytes.CutSuffix(rest, []byte(`"}`))
	if !found || bytes.IndexByte(b64, '"') >= 0 || !Verbatim(b64) {
		return nil, false, nil
	}
	t, err = build(string(descr), shape, b64)
	return t, true, err
}

// Verbatim reports whether the JSON decoder reads the contents b of a
// string as they are written: no escape, no control character (which JSON
// does not allow in a string as it is: a line with one is not JSON at
// all) and valid UTF-8 (an invalid byte the decoder reads as U+FFFD).
// The readers that skip the decoder for the common lines read only such
// strings.
func Verbatim(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == '\\' {
			return false
		}
	}
	return utf8.Valid(b)
}

// Decode reads an array in the raw form from any JSON object with the
// fields "dtype" (a string), "shape" (a list of non-negative integers) and
// "data" (base64). It returns a bad_input error if the object lacks one,
// or if they do not describe an array conform supports: an unknown dtype,
// a rank above engine.MaxRank, or data of another length than the dtype
// and shape need.
func Decode(raw json.RawMessage) (*engine.Tensor, error) {
	var a struct {
		DType *string `json:"dtype"`
		Shape *[]int  `json:"shape"`
		Data  *string `json:"data"`
	}
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, engine.Errorf(engine.BadInput, "raw array: %v", err)
	}
	if a.DType == nil || a.Shape == nil || a.Data == nil {
		return nil, engine.Errorf(engine.BadInput, `raw array: want an object with "dtype", "shape" and "data"`)
	}
	return build(*a.DType, *a.Shape, []byte(*a.Data))
}

// build checks the parts of a raw array and returns its tensor.
func build(descr string, shape []int, b64 []byte) (*engine.Tensor, error) {
	if len(descr) > 16 {
		return nil, engine.Errorf(engine.BadInput, "raw array: unsupported dtype: too long")
	}
	dt, err := engine.ParseDType(descr)
	if err != nil {
		return nil, err
	}
	if len(shape) > engine.MaxRank {
		return nil, engine.Errorf(engine.BadInput, "raw array: shape has %d dimensions, more than the maximum of %d", len(shape), engine.MaxRank)
	}
	for i, d := range shape {
		if d < 0 {
			return nil, engine.Errorf(engine.BadInput, "raw array: dimension %d of shape is negative: %d", i, d)
		}
	}
	data := make([]byte, base64.StdEncoding.DecodedLen(len(b64)))
	n, err := base64.StdEncoding.Decode(data, b64)
	if err != nil {
		return nil, engine.Errorf(engine.BadInput, "raw array: data is not base64: %v", err)
	}
	return engine.FromBytes(dt, shape, data[:n])
}
