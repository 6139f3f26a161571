package casefile

import (
	"encoding/binary"
	"encoding/json"
	"strconv"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/expr"
)

// KeyField is the field of a getitem request that carries its subscript
// parsed, as structured JSON (see StructuredKey), beside the subscript
// string "index". It is a request field only, never a case field: a
// field of that name written in a getitem case is not sent.
const KeyField = "key"

// wireKey returns the structured key of a getitem case (see
// StructuredKey), or nil if the case is of another op or its subscript
// has none. A getitem case that is not valid (Err: its inputs do not
// match the names, say) still has one if its subscript parses.
func (c *Case) wireKey() []byte {
	if c.Def != getItemOp {
		return nil
	}
	var items []engine.IndexItem
	if s, ok := c.Spec.(engine.GetItemSpec); ok {
		if s.ParseErr != nil {
			return nil
		}
		items = s.Items
	} else {
		var index string
		if unmarshalString(c.Fields["index"], &index) != nil {
			return nil
		}
		var err error
		if items, err = expr.Parse(index); err != nil {
			return nil
		}
	}
	key, ok := StructuredKey(items)
	if !ok {
		return nil
	}
	return key
}

// StructuredKey returns parsed index items (expr.Parse's, names not
// bound) as the JSON array of a getitem request's "key" field, one
// element per item:
//
//	an integer k            k
//	a slice start:stop:step {"start": start, "stop": stop, "step": step}, null for a part omitted or None
//	the ellipsis            "..."
//	a new axis (None)       null
//	True, False             true, false
//	an array named i        {"name": "i"}
//	an inline list          {"array": nested lists of integers or of booleans, "dtype": "int64" or "bool"}
//
// Integers are exact int64. Slice parts beyond int64 are clamped as
// CPython clamps them (start and stop to the int64 range, step to
// [-2**63+1, 2**63-1]), and a boolean part is its integer (True:3 is
// 1:3). An inline list is the array NumPy makes of it: its shape is the
// nesting (an empty list is an empty int64 array), booleans mixed with
// integers are 0 and 1, and integers in (2**63-1, 2**64-1] are written as
// the int64 of the same bits, as NumPy casts them. It reports false when
// an item is one NumPy refuses whatever the input (an engine.IndexInvalid
// item, a slice bound that is not an integer): such a subscript has no
// structured key.
func StructuredKey(items []engine.IndexItem) ([]byte, bool) {
	if engine.Refused(items) != nil {
		return nil, false
	}
	dst := []byte{'['}
	for i, it := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		switch it.Kind {
		case engine.IndexInt:
			dst = strconv.AppendInt(dst, it.Index, 10)
		case engine.IndexSlice:
			dst = append(dst, `{"start":`...)
			dst = appendPart(dst, it.HasStart, it.Start)
			dst = append(dst, `,"stop":`...)
			dst = appendPart(dst, it.HasStop, it.Stop)
			dst = append(dst, `,"step":`...)
			dst = appendPart(dst, it.HasStep, it.Step)
			dst = append(dst, '}')
		case engine.IndexEllipsis:
			dst = append(dst, `"..."`...)
		case engine.IndexNewAxis:
			dst = append(dst, "null"...)
		case engine.IndexArray:
			var ok bool
			if dst, ok = appendArrayItem(dst, it); !ok {
				return nil, false
			}
		default:
			return nil, false
		}
	}
	return append(dst, ']'), true
}

// appendPart appends a slice part: v, or null if the part is omitted.
func appendPart(dst []byte, has bool, v int64) []byte {
	if !has {
		return append(dst, "null"...)
	}
	return strconv.AppendInt(dst, v, 10)
}

// appendArrayItem appends an array item: {"name": ...} for an array
// written as a name, true or false for a 0-d boolean, {"array": ...,
// "dtype": ...} for an inline int64 or boolean array (the only arrays
// the parser makes).
func appendArrayItem(dst []byte, it engine.IndexItem) ([]byte, bool) {
	if it.Name != "" {
		name, err := json.Marshal(it.Name)
		if err != nil {
			return nil, false
		}
		dst = append(dst, `{"name":`...)
		dst = append(dst, name...)
		return append(dst, '}'), true
	}
	a := it.Array
	if a == nil || (a.DType != engine.BoolType && a.DType != engine.Int64Type) {
		return nil, false
	}
	isBool := a.DType == engine.BoolType
	data := a.Bytes() // C order
	if a.Rank() == 0 && isBool {
		return strconv.AppendBool(dst, data[0] != 0), true
	}
	dst = append(dst, `{"array":`...)
	n := 0 // elements written
	var nest func(dims []int)
	nest = func(dims []int) {
		if len(dims) == 0 {
			if isBool {
				dst = strconv.AppendBool(dst, data[n] != 0)
			} else {
				dst = strconv.AppendInt(dst, int64(binary.LittleEndian.Uint64(data[8*n:])), 10)
			}
			n++
			return
		}
		dst = append(dst, '[')
		for i := 0; i < dims[0]; i++ {
			if i > 0 {
				dst = append(dst, ',')
			}
			nest(dims[1:])
		}
		dst = append(dst, ']')
	}
	nest(a.Shape)
	if isBool {
		dst = append(dst, `,"dtype":"bool"}`...)
	} else {
		dst = append(dst, `,"dtype":"int64"}`...)
	}
	return dst, true
}
