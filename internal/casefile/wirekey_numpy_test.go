package casefile_test

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conformsuite/conform/cases"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/compare"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/pyadapter"
)

// keyRoundTrip reads getitem requests, one per line, and answers each with
// the .npy of np.asarray(x[key]), key made from the request's structured
// key by to_key (the function of the Python helper conform ships, which
// docs/protocol.md shows), or with the name of the exception NumPy
// raised. The helper is imported from the directory in argv[1].
const keyRoundTrip = `
import base64, io, json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from conform_adapter import to_key

for line in sys.stdin:
    req = json.loads(line)
    inputs = {n: np.load(io.BytesIO(base64.b64decode(v))) for n, v in req["inputs"].items()}
    try:
        out = np.asarray(inputs["x"][to_key(req["key"], inputs)])
        buf = io.BytesIO()
        np.save(buf, out, allow_pickle=False)
        print(json.dumps({"output": base64.b64encode(buf.getvalue()).decode()}))
    except Exception as e:
        print(json.dumps({"error": type(e).__name__}))
`

// TestStructuredKeyNumPy checks the structured key against NumPy: for every
// getitem case of the embedded corpus whose subscript has one, NumPy
// indexing with the key made of it in a few lines of Python answers as the
// reference does for the subscript string (the same output, or an error).
func TestStructuredKeyNumPy(t *testing.T) {
	if err := exec.Command("/usr/bin/python3", "-I", "-c", "import numpy").Run(); err != nil {
		if os.Getenv("CONFORM_REQUIRE_NUMPY") == "1" {
			t.Fatal("NumPy required but not available")
		}
		t.Skip("NumPy not available: install python3-numpy")
	}
	entries, err := corpus.Entries(cases.FS)
	if err != nil {
		t.Fatal(err)
	}
	fsys := corpus.Open(cases.FS)
	var sent []*casefile.Case
	var in bytes.Buffer
	for _, e := range entries {
		if e.Err != nil || e.Op() != casefile.OpGetItem {
			continue
		}
		c, err := casefile.Parse(e.JSON, casefile.FSInputs(fsys, e.Dir))
		if err != nil || c.Err != nil {
			continue // a case NumPy is not given: its inputs do not match
		}
		req := c.Request(0)
		if _, ok := req[casefile.KeyField]; !ok {
			continue
		}
		line, err := json.Marshal(req)
		if err != nil {
			t.Fatal(err)
		}
		in.Write(line)
		in.WriteByte('\n')
		sent = append(sent, c)
	}
	if len(sent) < 1000 {
		t.Fatalf("only %d getitem cases with a structured key; the corpus has more", len(sent))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, pyadapter.FileName), pyadapter.Source(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("/usr/bin/python3", "-I", "-c", keyRoundTrip, dir)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v\n%s", err, stderr.String())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<30)
	n := 0
	for ; sc.Scan(); n++ {
		if n >= len(sent) {
			t.Fatalf("more answers than the %d requests", len(sent))
		}
		c := sent[n]
		var a struct{ Output, Error string }
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatal(err)
		}
		want, werr := c.Eval()
		switch {
		case werr != nil && a.Error == "":
			t.Errorf("%s: NumPy indexes with the key, the subscript is refused: %v", c.Describe(), werr)
		case werr == nil && a.Error != "":
			t.Errorf("%s: NumPy raises %s with the key, the subscript indexes", c.Describe(), a.Error)
		case werr == nil:
			data, _ := base64.StdEncoding.DecodeString(a.Output)
			got, err := npy.Decode(data)
			if err != nil {
				t.Fatalf("%s: %v", c.Describe(), err)
			}
			if err := compare.Tensors(want, got); err != nil {
				t.Errorf("%s: with the key: %v", c.Describe(), strings.TrimSpace(err.Error()))
			}
		}
	}
	if n != len(sent) {
		t.Fatalf("%d answers to %d requests\n%s", n, len(sent), stderr.String())
	}
}
