package casefile

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/npy"
)

// Memory is a case held in memory, as generators build it: the op and
// spec fields as JSON values (keys as in a case file, e.g. "op", "begin",
// "begin_mask") and the input tensors by name.
type Memory struct {
	Spec   map[string]any
	Inputs map[string]*engine.Tensor
}

// Op returns the case's op name.
func (m Memory) Op() string {
	op, _ := m.Spec["op"].(string)
	return op
}

// Request returns the case as a conform/1 protocol request: the spec
// fields plus "id", with each input as base64 .npy bytes.
func (m Memory) Request(id int64) map[string]any {
	req := make(map[string]any, len(m.Spec)+2)
	for k, v := range m.Spec {
		req[k] = v
	}
	inputs := make(map[string]string, len(m.Inputs))
	for name, t := range m.Inputs {
		inputs[name] = base64.StdEncoding.EncodeToString(npy.Encode(t))
	}
	req["inputs"] = inputs
	req["id"] = id
	return req
}

// AppendRequest appends the case as a conform/1 request object without
// an "id" (the client adds it): the spec fields, in sorted order, and
// "inputs" with each input as base64 .npy bytes. It is what Request
// builds, encoded directly.
func (m Memory) AppendRequest(dst []byte) ([]byte, error) {
	dst = slices.Grow(dst, m.RequestSize())
	dst = append(dst, '{')
	var err error
	for i, k := range m.specKeys() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst, _ = appendJSON(dst, k)
		dst = append(dst, ':')
		if dst, err = appendJSON(dst, m.Spec[k]); err != nil {
			return nil, fmt.Errorf("case field %q: %v", k, err)
		}
	}
	if len(m.Spec) > 0 {
		dst = append(dst, ',')
	}
	dst = append(dst, `"inputs":{`...)
	for i, name := range m.inputNames() {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst, _ = appendJSON(dst, name)
		dst = append(dst, ':', '"')
		if dst, err = appendNPY64(dst, m.Inputs[name]); err != nil {
			return nil, fmt.Errorf("input %q: %v", name, err)
		}
		dst = append(dst, '"')
	}
	return append(dst, '}', '}'), nil
}

// RequestSize estimates the length of what AppendRequest appends, from
// the spec's size and the inputs' byte sizes, without encoding them: an
// estimate to reserve memory by, a little above the real length for
// ordinary cases.
func (m Memory) RequestSize() int {
	n := 64 + 32*len(m.Spec)
	for k, v := range m.Spec {
		n += len(k)
		if s, ok := v.(string); ok {
			n += len(s) + len(s)/8
		}
		if l, ok := v.([]any); ok {
			n += 24 * len(l)
		}
	}
	for name, t := range m.Inputs {
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

func (m Memory) specKeys() []string {
	keys := make([]string, 0, len(m.Spec))
	for k := range m.Spec {
		if k == "inputs" || k == "id" {
			continue // Request replaces both
		}
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func (m Memory) inputNames() []string {
	names := make([]string, 0, len(m.Inputs))
	for name := range m.Inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// appendJSON appends v as JSON: the types generators use (strings,
// integers and integer lists) directly, anything else through
// encoding/json.
func appendJSON(dst []byte, v any) ([]byte, error) {
	switch v := v.(type) {
	case string:
		if plainString(v) {
			dst = append(dst, '"')
			dst = append(dst, v...)
			return append(dst, '"'), nil
		}
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

// Case parses the in-memory case as a case file would be parsed, so that
// it can be evaluated on the engine.
func (m Memory) Case() (*Case, error) {
	fields := make(map[string]json.RawMessage, len(m.Spec)+1)
	for k, v := range m.Spec {
		if k == "inputs" {
			continue
		}
		raw, err := appendJSON(nil, v)
		if err != nil {
			return nil, engine.Errorf(engine.BadInput, "case spec is not JSON: %v", err)
		}
		fields[k] = raw
	}
	c := &Case{Fields: fields, Inputs: make(map[string]*engine.Tensor, len(m.Inputs))}
	if err := c.parseSpec(); err != nil {
		return nil, err
	}
	err := c.setInputs(m.inputNames(), func(name string) (*engine.Tensor, error) {
		return m.Inputs[name], nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// String returns the spec as compact JSON, for messages.
func (m Memory) String() string {
	data, err := json.Marshal(m.Spec)
	if err != nil {
		return fmt.Sprint(m.Spec)
	}
	return string(data)
}

// Describe returns the case in one line, for failure messages: the op,
// its spec (the subscript of getitem, the other ops' fields as
// name=value) and each input's dtype and shape, e.g.
// `getitem x[1, ::-1]; x: <i4 (2, 3)`.
func (m Memory) Describe() string {
	var b strings.Builder
	b.WriteString(m.Op())
	for _, k := range m.specKeys() {
		if k == "op" {
			continue
		}
		b.WriteByte(' ')
		if s, ok := m.Spec[k].(string); ok && k == "index" {
			b.WriteString(s)
			continue
		}
		data, err := json.Marshal(m.Spec[k])
		if err != nil {
			data = []byte(fmt.Sprint(m.Spec[k]))
		}
		fmt.Fprintf(&b, "%s=%s", k, data)
	}
	for i, name := range m.inputNames() {
		if i == 0 {
			b.WriteString("; ")
		} else {
			b.WriteString(", ")
		}
		t := m.Inputs[name]
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
