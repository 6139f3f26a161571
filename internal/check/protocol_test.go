package check

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/casefile/casefiletest"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/oracle"
	"github.com/conformsuite/conform/internal/protocol"
)

// TestMain re-runs the test binary as a conform/1 child that misbehaves on
// one case when CONFORM_FAULTY_CHILD is set: it dies on index "x[1:2]",
// hangs on "x[2:3]" and prints garbage for "x[0:1]"; every other case gets
// the engine's answer. If it is "bigname", the child's hello gives a
// name of bigName bytes and lists only "slice"; if it is "zeros", the
// child answers every request, unread but for its id, with two float64
// zeros.
func TestMain(m *testing.M) {
	switch os.Getenv("CONFORM_FAULTY_CHILD") {
	case "bigname":
		protocol.Serve(os.Stdin, os.Stdout, protocol.Hello{Name: strings.Repeat("n", bigName), Version: "0", Ops: []string{"slice"}})
		os.Exit(0)
	case "zeros":
		zeros, _ := engine.FromBytes(engine.Float64Type, []int{2}, make([]byte, 16))
		output := base64.StdEncoding.EncodeToString(npy.Encode(zeros))
		protocol.ServeFunc(os.Stdin, os.Stdout, protocol.Hello{Name: "zeros", Version: "0", Ops: casefile.OpNames()}, func(line []byte) map[string]any {
			dec := json.NewDecoder(bytes.NewReader(line))
			dec.Token() // {
			dec.Token() // "id" (the client writes it first)
			id, _ := dec.Token()
			return map[string]any{"id": id, "output": output}
		})
		os.Exit(0)
	}
	if mode := os.Getenv("CONFORM_FAULTY_CHILD"); mode == "axiserror" || mode == "axiserror-python" {
		// Every answer is an out_of_range error raised as numpy.AxisError.
		hello := protocol.Hello{Name: mode, Version: "0", Ops: casefile.OpNames()}
		if mode == "axiserror-python" {
			hello.Errors = protocol.ErrorsPython
		}
		protocol.ServeFunc(os.Stdin, os.Stdout, hello, func(line []byte) map[string]any {
			var req struct {
				ID any `json:"id"`
			}
			json.Unmarshal(line, &req)
			return map[string]any{"id": req.ID, "error": map[string]any{"kind": "out_of_range", "message": "m", "type": "numpy.AxisError"}}
		})
		os.Exit(0)
	}
	if os.Getenv("CONFORM_FAULTY_CHILD") != "" {
		answer := func(line []byte) map[string]any {
			var req struct {
				ID    any    `json:"id"`
				Index string `json:"index"`
			}
			json.Unmarshal(line, &req)
			switch req.Index {
			case "x[1:2]":
				os.Exit(7)
			case "x[2:3]":
				time.Sleep(time.Hour)
			case "x[0:1]":
				return map[string]any{"id": req.ID, "output": "%%% not base64 %%%"}
			}
			return protocol.ResponseObject(line, protocol.EngineAnswer(line))
		}
		protocol.ServeFunc(os.Stdin, os.Stdout, protocol.Hello{Name: "faulty", Version: "0", Ops: casefile.OpNames()}, answer)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestFaultyChildCostsOneCaseEach checks that a child that dies, hangs or
// answers garbage on a case fails that case only, with the reason, while
// every other case gets its real result.
func TestFaultyChildCostsOneCaseEach(t *testing.T) {
	fsys := fstest.MapFS{"c/x.npy": {Data: casefiletest.Int32NPY(0, 1, 2, 3)}}
	var lines []string
	for i := 0; i < 40; i++ {
		index := fmt.Sprintf("x[%d]", i%4)
		switch i {
		case 10:
			index = "x[1:2]"
		case 20:
			index = "x[2:3]"
		case 30:
			index = "x[0:1]"
		}
		lines = append(lines, fmt.Sprintf(`{"id":"c/%02d","op":"getitem","inputs":{"x":"x.npy"},"index":%q}`, i, index))
	}
	// Build the expectations with the engine itself.
	for i, line := range lines {
		m, err := LoadCase(fsys, corpusEntry(line))
		if err != nil {
			t.Fatal(err)
		}
		r := impl.Engine{}.Run(context.Background(), m)
		name := fmt.Sprintf("exp%d.npy", i)
		out, _ := r.Tensor()
		fsys["c/"+name] = &fstest.MapFile{Data: encode(out)}
		lines[i] = strings.TrimSuffix(line, "}") + fmt.Sprintf(`,"expect":{"output":%q,"source":"engine"}}`, name)
	}
	fsys["c/cases.jsonl"] = &fstest.MapFile{Data: []byte(strings.Join(lines, "\n"))}

	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("CONFORM_FAULTY_CHILD", "1")
	im, err := oracle.Open(exe+" -test.run=^$", 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer im.Close()
	s, err := Run(context.Background(), fsys, im, Options{Workers: 16})
	if err != nil {
		t.Fatal(err)
	}
	wantFail := map[string]string{"c/10": "child died", "c/20": "timeout", "c/30": "garbage"}
	for _, r := range s.Results {
		reason, bad := wantFail[r.ID]
		switch {
		case bad && (r.Status != Fail || !strings.Contains(r.Detail, reason)):
			t.Errorf("%s: %s %q, want a failure mentioning %q", r.ID, r.Status, r.Detail, reason)
		case !bad && r.Status != Pass:
			t.Errorf("%s: %s %q, want pass (a fault on another case must not cost it)", r.ID, r.Status, r.Detail)
		}
	}
	if s.Line() != "37 passed, 3 failed, 0 skipped" {
		t.Errorf("summary %q", s.Line())
	}
}

// TestErrorsComparedByClass checks that an implementation whose hello
// says its errors are Python exceptions is compared by exception class on
// NumPy-defined ops (a subclass of the expected class agrees, whatever
// the kind) and by kind elsewhere, and that every other implementation is
// compared by kind; each result says which level was compared.
func TestErrorsComparedByClass(t *testing.T) {
	fsys := fstest.MapFS{"c/a.npy": {Data: casefiletest.Int32NPY(0, 1, 2, 3)}, "c/i.npy": {Data: casefiletest.Int32NPY(0)}}
	take := `"op":"take","axis":0,"inputs":{"a":"a.npy","indices":"i.npy"}`
	gather := `"op":"gather","axis":0,"inputs":{"params":"a.npy","indices":"i.npy"}`
	tests := []struct {
		rule            string
		fields, expect  string
		python, byKinds Status
		level           string // with the python child
	}{
		{"the reference's own class agrees though the kinds differ", take, `{"error":"invalid_spec","type":"numpy.AxisError"}`, Pass, Fail, "class"},
		{"AxisError is a ValueError", take, `{"error":"invalid_spec","type":"ValueError"}`, Pass, Fail, "class"},
		{"AxisError is an IndexError", take, `{"error":"out_of_range","type":"IndexError"}`, Pass, Pass, "class"},
		{"another class fails", take, `{"error":"out_of_range","type":"TypeError"}`, Fail, Pass, "class"},
		{"an expected error without class is compared by kind", take, `{"error":"invalid_spec"}`, Fail, Fail, "kind"},
		{"a TF op is compared by kind even with a class", gather, `{"error":"invalid_spec","type":"numpy.AxisError"}`, Fail, Fail, "kind"},
	}
	var lines []string
	for i, tc := range tests {
		lines = append(lines, fmt.Sprintf(`{"id":"c/%02d",%s,"expect":%s}`, i, tc.fields, strings.TrimSuffix(tc.expect, "}")+`,"source":"numpy"}`))
	}
	fsys["c/cases.jsonl"] = &fstest.MapFile{Data: []byte(strings.Join(lines, "\n"))}
	for _, mode := range []string{"axiserror-python", "axiserror"} {
		im := startProtocolChild(t, mode)
		s, err := Run(context.Background(), fsys, im, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for i, tc := range tests {
			r := s.Results[i]
			want, level := tc.byKinds, "kind"
			if mode == "axiserror-python" {
				want, level = tc.python, tc.level
			}
			if r.Status != want || r.Level != level {
				t.Errorf("%s (%s): got %s compared by %q (%s), want %s by %q", tc.rule, mode, r.Status, r.Level, r.Detail, want, level)
			}
		}
	}
}
