package protocol

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzProtocolLines feeds arbitrary lines to the client's protocol
// parsers (the hello line and a response line): they must never panic,
// a response they accept must hold exactly one result (a crash the child
// reports has the code CrashReported when it gives none), and a line the
// fast reader plainOutput accepts must mean the same to the general one.
func FuzzProtocolLines(f *testing.F) {
	for _, seed := range []string{
		`{"hello": {"name": "x", "version": "1", "ops": ["getitem"]}}`,
		`{"id": 7, "output": "k05VTVBZAQB2AA=="}`,
		`{"id": 7, "error": {"kind": "out_of_range", "message": "m"}}`,
		`{"id": 7, "skip": ""}`,
		`{"id": 7, "crash": "trap"}`, `{"id": 7, "crash": 1}`, `{"id": 7, "crash": "x", "skip": "y"}`,
		`{"id": 7, "error": {"kind": "nope"}}`,
		`{"id": 7, "output": 3, "skip": "x"}`,
		`{"id":7,"output":"k05VTVBZAQB2AA=="}`, `{"id":07,"output":"AA=="}`,
		`{"id":7,"output":"k05VTVBZ=QB2AA=="}`, `{"id":-7,"output":""}`,
		`{"hello": null}`, `[]`, `{`, "",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if h, err := parseHello(line); err == nil && h.Ops == nil {
			t.Fatalf("accepted a hello without ops: %q", line)
		}
		var fields map[string]json.RawMessage
		jsonErr := json.Unmarshal(line, &fields)
		if id, output, ok := plainOutput(line); ok {
			var general struct {
				ID int64
			}
			a, bad := parseResponse(fields)
			r := responseOf(a, 0)
			if jsonErr != nil || json.Unmarshal(line, &general) != nil || bad != "" {
				t.Fatalf("plainOutput accepted %q, which is not a valid response", line)
			}
			if general.ID != id || !bytes.Equal(r.Output, output) {
				t.Fatalf("plainOutput read %q as id %d, output %q; the JSON decoder as id %d, output %q", line, id, output, general.ID, r.Output)
			}
		}
		if jsonErr != nil {
			return
		}
		a, bad := parseResponse(fields)
		r := responseOf(a, 0)
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
		if r.Crash != "" {
			n++
			if _, coded := fields["code"]; !coded && r.CrashKind != CrashReported {
				t.Fatalf("accepted %q as a crash with the code %q, want %q", line, r.CrashKind, CrashReported)
			}
		}
		if n != 1 {
			t.Fatalf("accepted %q as %+v", line, r)
		}
	})
}
