// Package pyadapter holds the Python adapter helper that `conform adapter
// python` writes: one file, conform_adapter.py, that runs the conform/1
// loop for a NumPy-like Python library and calls its functions with NumPy
// arrays, a ready Python key and the op's fields (see docs/protocol.md).
package pyadapter

import (
	_ "embed"
	"encoding/json"
	"strings"

	"github.com/conformsuite/conform/internal/casefile"
)

// FileName is the name the helper is imported by: from conform_adapter
// import serve.
const FileName = "conform_adapter.py"

//go:embed conform_adapter.py
var template string

// opsMarker is the text of the template that Source replaces with the op
// table.
const opsMarker = "__CONFORM_OPS__"

// Source returns the helper's Python source, with the table of conform's
// ops (each op's inputs, in order, its spec fields and those of them a
// case must have) from the registry.
func Source() []byte {
	type op struct {
		Inputs   []string `json:"inputs"`
		Fields   []string `json:"fields"`
		Required []string `json:"required"`
	}
	ops := map[string]op{}
	for _, d := range casefile.Defs() {
		// Never null, which is not Python.
		o := op{Inputs: append([]string{}, d.Inputs...), Fields: append([]string{}, d.Fields...), Required: []string{}}
		for i, t := range d.Types {
			if t.Required {
				o.Required = append(o.Required, d.Fields[i])
			}
		}
		ops[d.Name] = o
	}
	table, err := json.Marshal(ops) // strings, lists and objects: a Python literal too
	if err != nil {
		panic(err) // a map of strings cannot fail to encode
	}
	return []byte(strings.Replace(template, opsMarker, string(table), 1))
}
