package casefile

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/rawarray"
)

// This file writes a case in the form of the conform/1 protocol and in
// one line for messages, from its fields as written.

// Request returns the case as a conform/1 protocol request: its fields
// (raw JSON values) plus "id", with each input as base64 .npy bytes, and
// for a getitem case whose subscript parses, its structured key (KeyField,
// see StructuredKey). encoding/json writes it as AppendRequest does, with
// the id among the sorted keys.
func (c *Case) Request(id int64) map[string]any {
	req := make(map[string]any, len(c.Fields)+3)
	key := c.wireKey()
	for _, k := range c.requestKeys(nil, key != nil) {
		req[k] = c.requestField(k, key)
	}
	inputs := make(map[string]string, len(c.Inputs))
	for name, t := range c.Inputs {
		inputs[name] = base64.StdEncoding.EncodeToString(npy.Encode(t))
	}
	req["inputs"] = inputs
	req["id"] = id
	return req
}

// AppendRequest appends the case as a conform/1 request object without
// an "id" (the client adds it): its fields as written, in sorted order
// (not "id" or "inputs"; for getitem not a written KeyField either), for
// a getitem case whose subscript parses its structured key (KeyField, see
// StructuredKey) among them, and "inputs" with each input as base64 .npy
// bytes. A case that is not valid (Err) is sent as written too; only a
// case New could not encode is an error.
func (c *Case) AppendRequest(dst []byte) ([]byte, error) {
	return c.appendRequest(dst, false)
}

// AppendRawRequest is AppendRequest for a child whose hello says
// "arrays": "raw": each input is in the raw form of package rawarray
// (dtype, shape and base64 elements) instead of base64 .npy bytes.
func (c *Case) AppendRawRequest(dst []byte) ([]byte, error) {
	return c.appendRequest(dst, true)
}

// appendRequest is AppendRequest, with raw inputs if raw is set.
func (c *Case) appendRequest(dst []byte, raw bool) ([]byte, error) {
	if c.wireErr != nil {
		return nil, c.wireErr
	}
	key := c.wireKey()
	dst = append(dst, '{')
	// The names are sorted in arrays on the stack (for up to 16 of each).
	var keyBuf, nameBuf [16]string
	keys := c.requestKeys(keyBuf[:0], key != nil)
	for i, k := range keys {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, k)
		dst = append(dst, ':')
		dst = append(dst, c.requestField(k, key)...)
	}
	if len(keys) > 0 {
		dst = append(dst, ',')
	}
	dst = append(dst, `"inputs":{`...)
	for i, name := range c.inputNames(nameBuf[:0]) {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = appendJSONString(dst, name)
		dst = append(dst, ':')
		if raw {
			dst = rawarray.Append(dst, c.Inputs[name])
			continue
		}
		dst = append(dst, '"')
		var err error
		if dst, err = appendNPY64(dst, c.Inputs[name]); err != nil {
			return nil, fmt.Errorf("input %q: %v", name, err)
		}
		dst = append(dst, '"')
	}
	return append(dst, '}', '}'), nil
}

// RequestSize estimates the length of what AppendRequest appends, from
// the fields' lengths and the inputs' byte sizes, without encoding them:
// an estimate to reserve memory by, a little above the real length for
// ordinary cases.
func (c *Case) RequestSize() int {
	return c.requestSize(c.wireKey())
}

// requestSize is RequestSize for a case whose structured key is key.
func (c *Case) requestSize(key []byte) int {
	n := 64 + 8*len(c.Fields) + len(KeyField) + len(key)
	for k, raw := range c.Fields {
		n += len(k) + len(raw)
	}
	for name, t := range c.Inputs {
		// The .npy header is a multiple of 64 bytes, 128 for any
		// ordinary shape.
		header := 128 + 24*len(t.Shape)
		n += len(name) + 8 + base64.StdEncoding.EncodedLen(header+max(t.Len(), 0)*t.DType.Size)
	}
	return n
}

// streamFrom is the size from which appendNPY64 streams a tensor into
// base64 instead of encoding its .npy file first.
const streamFrom = 64 << 10

// appendNPY64 appends the base64 of t's .npy file (as npy.Encode writes
// it). A large tensor goes straight from its bytes into base64, without a
// copy of the file; a small one is encoded first, which is faster.
func appendNPY64(dst []byte, t *engine.Tensor) ([]byte, error) {
	if t.Len()*t.DType.Size < streamFrom {
		return base64.StdEncoding.AppendEncode(dst, npy.Encode(t)), nil
	}
	w := &appender{dst}
	enc := base64.NewEncoder(base64.StdEncoding, w)
	if err := npy.Write(enc, t); err != nil {
		return nil, err
	}
	enc.Close()
	return w.buf, nil
}

// appender is an io.Writer appending to buf.
type appender struct{ buf []byte }

func (a *appender) Write(p []byte) (int, error) {
	a.buf = append(a.buf, p...)
	return len(p), nil
}

// specKeys lists the fields sent with the case, sorted: all but "inputs"
// and "id", which a request replaces. The list is built in dst's array
// while it has room (dst may be nil).
func (c *Case) specKeys(dst []string) []string {
	keys := dst[:0]
	for k := range c.Fields {
		if k == "inputs" || k == "id" {
			continue
		}
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// requestKeys lists the fields of the case's request, sorted: specKeys,
// and for getitem KeyField only if withKey (the structured key replaces a
// field of that name written in the case). The list is built in dst's
// array while it has room.
func (c *Case) requestKeys(dst []string, withKey bool) []string {
	keys := c.specKeys(dst)
	if c.Def != getItemOp {
		return keys
	}
	keys = slices.DeleteFunc(keys, func(k string) bool { return k == KeyField })
	if withKey {
		i, _ := slices.BinarySearch(keys, KeyField)
		keys = slices.Insert(keys, i, KeyField)
	}
	return keys
}

// requestField returns the value of the request field k: key for
// KeyField of a getitem case, the field as written otherwise.
func (c *Case) requestField(k string, key []byte) json.RawMessage {
	if k == KeyField && c.Def == getItemOp {
		return key
	}
	return c.Fields[k]
}

// inputNames lists the names of the case's inputs, sorted, in dst's
// array while it has room.
func (c *Case) inputNames(dst []string) []string {
	names := dst[:0]
	for name := range c.Inputs {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// appendJSON appends v as encoding/json writes it: the types generators
// use (strings, integers and integer lists) directly, anything else
// through encoding/json.
func appendJSON(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case string:
		return appendJSONString(dst, v), nil
	case int:
		return strconv.AppendInt(dst, int64(v), 10), nil
	case int64:
		return strconv.AppendInt(dst, v, 10), nil
	case []int64:
		if v == nil {
			return append(dst, "null"...), nil
		}
		dst = append(dst, '[')
		for i, x := range v {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendInt(dst, x, 10)
		}
		return append(dst, ']'), nil
	}
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(dst, data...), nil
}

// appendJSONString appends s as encoding/json writes it.
func appendJSONString(dst []byte, s string) []byte {
	if plainString(s) {
		dst = append(dst, '"')
		dst = append(dst, s...)
		return append(dst, '"')
	}
	data, _ := json.Marshal(s) // a string always encodes
	return append(dst, data...)
}

// plainString reports whether s is printable ASCII that JSON (and
// encoding/json's HTML-safe escaping) writes as it is.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// String returns the case's fields (not its inputs) as compact JSON, for
// messages.
func (c *Case) String() string {
	fields := make(map[string]json.RawMessage, len(c.Fields))
	for _, k := range c.specKeys(nil) {
		fields[k] = c.Fields[k]
	}
	data, err := json.Marshal(fields)
	if err != nil {
		return fmt.Sprint(c.Fields)
	}
	return string(data)
}

// Describe returns the case in one line, for failure messages: the op,
// its fields (the subscript of getitem, the other fields as name=value,
// as written) and each input's dtype and shape, e.g.
// `getitem x[1, ::-1]; x: <i4 (2, 3)`.
func (c *Case) Describe() string {
	var b strings.Builder
	b.WriteString(c.Op)
	for _, k := range c.specKeys(nil) {
		if k == "op" {
			continue
		}
		b.WriteByte(' ')
		var s string
		if k == "index" && unmarshalString(c.Fields[k], &s) == nil {
			b.WriteString(s)
			continue
		}
		fmt.Fprintf(&b, "%s=%s", k, c.Fields[k])
	}
	for i, name := range c.inputNames(nil) {
		if i == 0 {
			b.WriteString("; ")
		} else {
			b.WriteString(", ")
		}
		t := c.Inputs[name]
		fmt.Fprintf(&b, "%s: %v %s", name, t.DType, shapeString(t.Shape))
	}
	return b.String()
}

// shapeString writes a shape as Python does: (), (3,), (2, 3).
func shapeString(shape []int) string {
	if len(shape) == 1 {
		return fmt.Sprintf("(%d,)", shape[0])
	}
	parts := make([]string, len(shape))
	for i, d := range shape {
		parts[i] = strconv.Itoa(d)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
