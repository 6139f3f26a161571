// Package casefiletest holds helpers for tests that look at the wire form
// of cases (casefile.Case.Fields).
package casefiletest

import (
	"encoding/json"

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
