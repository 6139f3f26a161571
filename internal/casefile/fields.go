package casefile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"github.com/conformsuite/conform/engine"
)

// This file holds the types and readers of spec fields that op
// definitions share.

// A FieldType says which JSON values a spec field takes (OpDef.Types).
// Kind is one of
//
//   - "string": a string (null reads as "");
//   - "int-list": a list of integers within int64;
//   - "mask": an integer bitmask (TF) or a list of 0/1 (OpenVINO);
//   - "int32": an integer; one outside int32 is invalid_spec;
//   - "int32-or-null": the same, or null (NumPy's axis=None: the input
//     flattened);
//   - "enum": a string, one of Values.
//
// An absent field that is not Required takes its default (the first of
// Values for an enum).
type FieldType struct {
	Kind     string   `json:"type"`
	Values   []string `json:"values,omitempty"`
	Required bool     `json:"required,omitempty"`
}

// The field types of the op definitions.
var (
	stringType      = FieldType{Kind: "string"}
	intListType     = FieldType{Kind: "int-list"}
	maskType        = FieldType{Kind: "mask"}
	int32Type       = FieldType{Kind: "int32"}
	int32OrNullType = FieldType{Kind: "int32-or-null"}
)

// enumType is the type of a field that takes one of values, the first by
// default.
func enumType(values ...string) FieldType { return FieldType{Kind: "enum", Values: values} }

// required returns t for a field a case must have.
func required(t FieldType) FieldType {
	t.Required = true
	return t
}

// unmarshalString is json.Unmarshal into a string, without the decoder
// for the common case of a string of printable ASCII with no escapes.
func unmarshalString(raw []byte, dst *string) error {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		plain := true
		for _, c := range raw[1 : len(raw)-1] {
			if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
				plain = false
				break
			}
		}
		if plain {
			*dst = string(raw[1 : len(raw)-1])
			return nil
		}
	}
	return json.Unmarshal(raw, dst)
}

// parseInt parses a JSON number that must be an integer within int64:
// an optional minus sign and decimal digits, as JSON writes integers (1.0
// and 1e3 are not integers here).
func parseInt(raw json.RawMessage) (int64, error) {
	lit := bytes.TrimSpace(raw)
	digits := bytes.TrimPrefix(lit, []byte("-"))
	if len(digits) == 0 {
		return 0, fmt.Errorf("not a number: %s", truncate(raw))
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			if c == '.' || c == 'e' || c == 'E' {
				return 0, fmt.Errorf("%s is not an integer within int64", truncate(raw))
			}
			return 0, fmt.Errorf("not a number: %s", truncate(raw))
		}
	}
	if len(digits) > 1 && digits[0] == '0' {
		return 0, fmt.Errorf("not a number: %s", truncate(raw))
	}
	v, err := strconv.ParseInt(string(lit), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s is not an integer within int64", truncate(raw))
	}
	return v, nil
}

// intList parses the common form of an integer list, "[1, -2, 3]", without
// the JSON decoder. It reports false for anything else, which the caller
// then parses (and diagnoses) the general way.
func intList(raw []byte) ([]int64, bool) {
	s := bytes.TrimSpace(raw)
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, false
	}
	s = bytes.TrimSpace(s[1 : len(s)-1])
	out := []int64{}
	for len(s) > 0 {
		i := 0
		if s[0] == '-' {
			i = 1
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i || (j-i > 1 && s[i] == '0') {
			return nil, false
		}
		v, err := strconv.ParseInt(string(s[:j]), 10, 64)
		if err != nil {
			return nil, false
		}
		out = append(out, v)
		s = bytes.TrimSpace(s[j:])
		if len(s) == 0 {
			break
		}
		if s[0] != ',' {
			return nil, false
		}
		s = bytes.TrimSpace(s[1:])
		if len(s) == 0 {
			return nil, false // a trailing comma is not JSON
		}
	}
	return out, true
}

func truncate(raw []byte) string {
	if len(raw) > 40 {
		return string(raw[:40]) + "..."
	}
	return string(raw)
}

// ints reads a field that must be a list of int64 integers.
func (c *Case) ints(name string, required bool) ([]int64, error) {
	raw, ok := c.Fields[name]
	if !ok {
		if required {
			return nil, bad("%s case has no %q field", c.Op, name)
		}
		return nil, nil
	}
	if out, ok := intList(raw); ok {
		return out, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || list == nil {
		return nil, bad("%q must be a list of integers", name)
	}
	out := make([]int64, len(list))
	for i, r := range list {
		v, err := parseInt(r)
		if err != nil {
			return nil, bad("%s[%d]: %v", name, i, err)
		}
		out[i] = v
	}
	return out, nil
}

// mask reads a mask field: an integer bitmask (TF) or a 0/1 list
// (OpenVINO). An absent mask is 0.
func (c *Case) mask(name string) (engine.Mask, error) {
	raw, ok := c.Fields[name]
	if !ok {
		return engine.Mask{}, nil
	}
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
		list, err := c.ints(name, true)
		if err != nil {
			return engine.Mask{}, err
		}
		m, err := engine.MaskFromList(list)
		if err != nil {
			// The engine's error, its rule kept, with the field named.
			return engine.Mask{}, engine.RuleOf(err).Errorf("%s: %v", name, trimKind(err))
		}
		return m, nil
	}
	v, err := parseInt(raw)
	if err != nil {
		return engine.Mask{}, bad("%q must be an integer bitmask or a list of 0/1: %v", name, err)
	}
	return engine.MaskFromInt(v), nil
}

// int32Field reads an optional integer field that TF and ONNX keep in 32
// bits (an axis, batch_dims): absent is def, a value outside int32 is
// invalid_spec.
func (c *Case) int32Field(name string, def int) (int, error) {
	raw, ok := c.Fields[name]
	if !ok {
		return def, nil
	}
	v, err := parseInt(raw)
	if err != nil {
		return 0, bad("%q must be an integer: %v", name, err)
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		return 0, engine.Errorf(engine.InvalidSpec, "%s %d is out of range", name, v)
	}
	return int(v), nil
}

// axisOrNone reads an axis field that may be null (NumPy's axis=None):
// flatten reports null, or absence where absent is allowed. A value
// outside int32 is invalid_spec (no array has that many dimensions).
func (c *Case) axisOrNone(name string, absentOK bool) (axis int, flatten bool, err error) {
	raw, ok := c.Fields[name]
	if !ok {
		if absentOK {
			return 0, true, nil
		}
		return 0, false, bad("%s case has no %q field (an integer, or null for the flattened input)", c.Op, name)
	}
	if string(bytes.TrimSpace(raw)) == "null" {
		return 0, true, nil
	}
	v, err := c.int32Field(name, 0)
	return v, false, err
}

// enumField reads an optional string field that must be one of values;
// absent is values[0].
func (c *Case) enumField(name string, values ...string) (string, error) {
	raw, ok := c.Fields[name]
	if !ok {
		return values[0], nil
	}
	var s string
	if unmarshalString(raw, &s) == nil {
		for _, v := range values {
			if s == v {
				return s, nil
			}
		}
	}
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = strconv.Quote(v)
	}
	return "", bad("%q must be %s", name, joinOr(quoted))
}

// joinOr joins words as "a, b or c".
func joinOr(words []string) string {
	switch len(words) {
	case 0:
		return ""
	case 1:
		return words[0]
	}
	out := words[0]
	for _, w := range words[1 : len(words)-1] {
		out += ", " + w
	}
	return out + " or " + words[len(words)-1]
}
