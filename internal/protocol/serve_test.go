package protocol

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

func TestServe(t *testing.T) {
	x, _ := engine.FromBytes(engine.Int32Type, []int{2}, []byte{1, 0, 0, 0, 2, 0, 0, 0})
	m := casefile.New(map[string]any{"op": "slice", "begin": []int64{1}, "size": []int64{1}}, map[string]*engine.Tensor{"x": x})
	req, _ := json.Marshal(m.Request(1))
	in := strings.Join([]string{string(req), `{"id":2,"op":"bogus"}`, `not json`, `{"op":"slice"}`, ``}, "\n")
	var out bytes.Buffer
	if err := Serve(strings.NewReader(in), &out, Hello{Name: "engine", Version: "0", Ops: []string{"slice"}}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], `{"hello":`) {
		t.Fatalf("want a hello and two answers (lines without an id get none), got:\n%s", out.String())
	}
	answers := map[float64]map[string]any{}
	for _, l := range lines[1:] {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		answers[m["id"].(float64)] = m
	}
	if _, ok := answers[1]["output"]; !ok {
		t.Errorf("request 1: %v, want an output", answers[1])
	}
	if e, _ := answers[2]["error"].(map[string]any); e["kind"] != "bad_input" {
		t.Errorf("request 2: %v, want a bad_input error", answers[2])
	}
}

// FuzzAnswer feeds arbitrary request lines to the engine's protocol
// answer: it must never panic, and an answer must be valid JSON with the
// request's id and exactly one of output and error.
func FuzzAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"id":1,"op":"getitem","index":"x[::-1]","inputs":{"x":"k05VTVBZAQB2AHsnZGVzY3InOiAnPGk0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoBAAAAAgAAAA=="}}`,
		`{"id":"x","op":"gather_nd","inputs":{"params":"","indices":""}}`,
		`{"id":[],"op":1}`, `{"id":1}`, `{}`, `null`, `{"id":1e999}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		id, ok := requestID(line)
		if !ok {
			return
		}
		resp := responseObject(id, EngineAnswer(line))
		data, err := json.Marshal(resp)
		if err != nil {
			t.Fatalf("answer is not JSON: %v", err)
		}
		_, hasOut := resp["output"]
		_, hasErr := resp["error"]
		if hasOut == hasErr {
			t.Fatalf("answer %s has not exactly one of output and error", data)
		}
	})
}
