package protocol

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzProtocolLines feeds arbitrary lines to the client's protocol
// parsers (the hello line and a response line): they must never panic,
// a response they accept must hold exactly one result (a crash the child
// reports has the code CrashReported when it gives none), and a line the
// fast reader plainOutput accepts (outputs and errors) must mean the same
// to the general one.
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
		`{"id":7,"output":{"dtype":"<i4","shape":[2],"data":"AQAAAAIAAAA="}}`,
		`{"id":7,"output":{"dtype":"<i4","shape":[3],"data":"AQAAAAIAAAA="}}`,
		`{"id":7,"output":{"dtype":"|b1","shape":[],"data":"AQ=="}}`,
		`{"id":7,"output":{"dtype":"<i4","shape":[2,],"data":"AQAAAAIAAAA="}}`,
		`{"id":7,"error":{"kind":"out_of_range","message":"index 3 is out of bounds"}}`,
		`{"id":7,"error":{"kind":"bad_input","message":"m","type":"numpy.AxisError"}}`,
		`{"id":7,"error":{"kind":"bad_input","message":"a \"quote\" \u00e9","type":"IndexError"}}`,
		`{"id":7,"error":{"kind":"bad_input","message":"m","type":"1x"}}`,
		`{"id":7,"error":{"kind":"nope","message":"m"}}`,
		`{"id":7,"error":{"kind":"invalid_spec","message":"m"},"skip":"x"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if h, err := parseHello(line); err == nil && h.Ops == nil {
			t.Fatalf("accepted a hello without ops: %q", line)
		}
		var fields map[string]json.RawMessage
		jsonErr := json.Unmarshal(line, &fields)
		for _, raw := range []bool{false, true} {
			id, fast, ok := plainOutput(line, raw)
			if !ok {
				continue
			}
			var general struct {
				ID int64
			}
			a, bad := parseResponse(fields, raw)
			if jsonErr != nil || json.Unmarshal(line, &general) != nil || bad != "" {
				t.Fatalf("plainOutput accepted %q, which is not a valid response", line)
			}
			if r, f := responseOf(a, 0), responseOf(fast, 0); general.ID != id || !reflect.DeepEqual(r, f) || a.Type() != fast.Type() {
				t.Fatalf("plainOutput (raw %v) read %q as id %d, %+v; the JSON decoder as id %d, %+v", raw, line, id, f, general.ID, r)
			}
		}
		if jsonErr != nil {
			return
		}
		a, bad := parseResponse(fields, false)
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
