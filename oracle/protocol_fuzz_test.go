package oracle

import (
	"encoding/json"
	"testing"
)

// FuzzProtocolLines feeds arbitrary lines to the client's protocol
// parsers (the hello line and a response line): they must never panic,
// and a response they accept must hold exactly one result.
func FuzzProtocolLines(f *testing.F) {
	for _, seed := range []string{
		`{"hello": {"name": "x", "version": "1", "ops": ["getitem"]}}`,
		`{"id": 7, "output": "k05VTVBZAQB2AA=="}`,
		`{"id": 7, "error": {"kind": "out_of_range", "message": "m"}}`,
		`{"id": 7, "skip": ""}`,
		`{"id": 7, "error": {"kind": "nope"}}`,
		`{"id": 7, "output": 3, "skip": "x"}`,
		`{"hello": null}`, `[]`, `{`, "",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if h, err := parseHello(line); err == nil && h.Ops == nil {
			t.Fatalf("accepted a hello without ops: %q", line)
		}
		var fields map[string]json.RawMessage
		if json.Unmarshal(line, &fields) != nil {
			return
		}
		r, bad := parseResponse(fields)
		if bad != "" {
			return
		}
		n := 0
		if r.Output != nil {
			n++
		}
		if r.ErrKind != "" {
			n++
			if !r.ErrKind.Valid() {
				t.Fatalf("accepted error kind %q", r.ErrKind)
			}
		}
		if r.Skip != "" {
			n++
		}
		if n != 1 {
			t.Fatalf("accepted %q as %+v", line, r)
		}
	})
}
