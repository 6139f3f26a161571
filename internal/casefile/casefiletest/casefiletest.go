// Package casefiletest holds helpers for tests that look at the wire form
// of cases (casefile.Case.Fields) or build small corpora.
package casefiletest

import (
	"encoding/binary"
	"encoding/json"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/npy"

	"github.com/conformsuite/conform/internal/casefile"
)

// Wire returns the fields of a case as written, decoded back into the Go
// values generators write them from: integers as int64, integer lists as
// []int64, null as nil, strings as strings (anything else as
// encoding/json decodes it).
func Wire(c *casefile.Case) map[string]any {
	out := make(map[string]any, len(c.Fields))
	for k, raw := range c.Fields {
		var n int64
		var list []int64
		var v any
		switch {
		case string(raw) == "null":
			out[k] = nil
		case json.Unmarshal(raw, &n) == nil:
			out[k] = n
		case json.Unmarshal(raw, &list) == nil:
			out[k] = list
		case json.Unmarshal(raw, &v) == nil:
			out[k] = v
		}
	}
	return out
}

// Int32NPY returns the .npy file of the 1-d int32 array of values, an
// input or expected output for a test's corpus.
func Int32NPY(values ...int32) []byte {
	data := make([]byte, 4*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(v))
	}
	t, err := engine.FromBytes(engine.Int32Type, []int{len(values)}, data)
	if err != nil {
		panic(err)
	}
	return npy.Encode(t)
}
