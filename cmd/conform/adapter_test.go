package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/pyadapter"
)

// docAdapter returns the Python adapter docs/protocol.md shows for the
// helper: the first python block after its marker.
func docAdapter(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile("../../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(data), "<!-- the adapter helper example")
	if !ok {
		t.Fatal("docs/protocol.md has no adapter helper example")
	}
	_, rest, ok = strings.Cut(rest, "```python\n")
	code, _, ok2 := strings.Cut(rest, "```\n")
	if !ok || !ok2 {
		t.Fatal("docs/protocol.md: the adapter helper example has no python block")
	}
	return code
}

// TestAdapterPython runs the adapter docs/protocol.md shows, NumPy itself
// on the helper `conform adapter python -o` writes, on the whole embedded
// corpus: every case of its ops passes (the keys made from the structured
// key, the exceptions mapped to kinds), and only the other ops are skipped.
func TestAdapterPython(t *testing.T) {
	requireNumPy(t)
	dir := t.TempDir()
	helper := filepath.Join(dir, pyadapter.FileName)
	if code, stdout, stderr := runCLI("adapter", "python", "-o", helper); code != 0 || stdout != "" || stderr != "" {
		t.Fatalf("conform adapter python -o: exit %d\n%s%s", code, stdout, stderr)
	}
	code := docAdapter(t)
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "```python\n"+code+"```\n") {
		t.Error("the adapter in README differs from the one of docs/protocol.md")
	}
	if n := strings.Count(code, "\n"); n > 20 {
		t.Errorf("the adapter has %d lines; the docs promise twenty", n)
	}
	adapter := filepath.Join(dir, "my_adapter.py")
	writeFile(t, adapter, code)
	command := "/usr/bin/python3 " + adapter
	listed := adapterHelloOps(t, command)
	report := filepath.Join(dir, "report.json")
	exit, stdout, stderr := runCLI("check", "--impl", command, "--json", report)
	m := checkSummary.FindStringSubmatch(stdout)
	if exit != 0 || m == nil || m[2] != "0" {
		t.Fatalf("exit %d\n%s\n%s", exit, tail(stdout, 40), stderr)
	}
	// The helper says its errors are Python exceptions: NumPy's errors
	// through it are compared by class, and agree.
	var doc struct {
		Results []struct {
			Compared string `json:"compared"`
		} `json:"results"`
	}
	data, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	byClass := 0
	for _, r := range doc.Results {
		if r.Compared == "class" {
			byClass++
		}
	}
	if byClass < 500 {
		t.Errorf("%d errors compared by exception class; the helper's errors are Python exceptions, and the corpus has more than 500 NumPy errors", byClass)
	}
	if passed, _ := strconv.Atoi(m[1]); passed < 1500*len(listed) {
		t.Errorf("only %d cases passed; the corpus has 1,600 and more of each of %v\n%s", passed, listed, tail(stdout, 10))
	}
	for _, line := range strings.Split(stdout, "\n") {
		if s := unlistedSkip.FindStringSubmatch(line); strings.HasPrefix(line, "skipped ") && (s == nil || slices.Contains(listed, s[2])) {
			t.Errorf("a skip other than of an op the adapter does not list: %s", line)
		}
	}
}

// TestAdapterPythonOutput checks that `conform adapter python` writes the
// helper to stdout, with conform's op table, and refuses another language.
func TestAdapterPythonOutput(t *testing.T) {
	code, stdout, stderr := runCLI("adapter", "python")
	if code != 0 || stderr != "" || stdout != string(pyadapter.Source()) {
		t.Fatalf("exit %d, stderr %q, stdout the helper: %v", code, stderr, stdout == string(pyadapter.Source()))
	}
	if strings.Contains(stdout, "__CONFORM_OPS__") || !strings.Contains(stdout, `"take_along_axis":{"inputs":["arr","indices"]`) {
		t.Errorf("the helper has no op table:\n%s", tail(stdout, 5))
	}
	if code, _, stderr := runCLI("adapter", "rust"); code != exitUsage || !strings.HasPrefix(stderr, "conform adapter: ") {
		t.Errorf("adapter rust: exit %d, stderr %q, want a usage error", code, stderr)
	}
	if code, _, _ := runCLI("adapter", "python", "-o", filepath.Join(t.TempDir(), "no", "such", "dir.py")); code != exitRejected {
		t.Errorf("adapter python -o into a missing directory: exit %d, want %d", code, exitRejected)
	}
}

// TestAdapterPythonChecks checks what the helper answers itself, before a
// function runs, for requests the corpus holds none of.
func TestAdapterPythonChecks(t *testing.T) {
	requireNumPy(t)
	dir := t.TempDir()
	if code, _, stderr := runCLI("adapter", "python", "-o", filepath.Join(dir, pyadapter.FileName)); code != 0 {
		t.Fatalf("conform adapter python -o: exit %d: %s", code, stderr)
	}
	adapter := filepath.Join(dir, "my_adapter.py")
	writeFile(t, adapter, docAdapter(t))
	tests := []struct {
		rule, request, kind string
	}{
		{"an index that is not a string is bad_input", `{"id":1,"op":"getitem","index":3,"inputs":{}}`, "bad_input"},
		{"a field of another op is bad_input", `{"id":1,"op":"take","index":"x","inputs":{}}`, "bad_input"},
		{"a required field missing is bad_input", `{"id":1,"op":"take_along_axis","inputs":{}}`, "bad_input"},
		{"an input the op does not take is bad_input", `{"id":1,"op":"take","inputs":{"b":"` + npyOf(t) + `"}}`, "bad_input"},
		{"an input the structured key does not name is bad_input", `{"id":1,"op":"getitem","index":"x[0]","key":[0],"inputs":{"x":"` + npyOf(t) + `","i":"` + npyOf(t) + `"}}`, "bad_input"},
		{"a name of the structured key without input is bad_input", `{"id":1,"op":"getitem","index":"x[i]","key":[{"name":"i"}],"inputs":{"x":"` + npyOf(t) + `"}}`, "bad_input"},
		{"a subscript without structured key is the library's to refuse: NumPy's IndexError for a float, a fault of the spec", `{"id":1,"op":"getitem","index":"x[1.5]","inputs":{"x":"` + npyOf(t) + `"}}`, "invalid_spec"},
		{"a subscript that does not parse is invalid_spec", `{"id":1,"op":"getitem","index":"x[1 +]","inputs":{"x":"` + npyOf(t) + `"}}`, "invalid_spec"},
		{"too many indices is a fault of the spec, not out of range", `{"id":1,"op":"getitem","index":"x[0, 0]","key":[0,0],"inputs":{"x":"` + npyOf(t) + `"}}`, "invalid_spec"},
		{"a mask of another shape than x's is a fault of the spec, also on an empty axis", `{"id":1,"op":"getitem","index":"x[i]","key":[{"name":"i"}],"inputs":{"x":"` + npyEmpty(t) + `","i":"` + npyTrue(t) + `"}}`, "invalid_spec"},
		{"an integer beyond int64 among other items is out_of_range (NumPy raises OverflowError)", `{"id":1,"op":"getitem","index":"x[0, 9223372036854775808]","inputs":{"x":"` + npyOf(t) + `"}}`, "out_of_range"},
		{"an index out of bounds is out_of_range", `{"id":1,"op":"getitem","index":"x[5]","key":[5],"inputs":{"x":"` + npyOf(t) + `"}}`, "out_of_range"},
	}
	for _, tt := range tests {
		if kind, output, line := askAdapter(t, adapter, tt.request); kind != tt.kind || output {
			t.Errorf("%s: answered %s, want an error of kind %s", tt.rule, line, tt.kind)
		}
	}
}

// askAdapter sends one request to a fresh run of the Python adapter
// script and returns the kind of the error it answered ("" if none),
// whether it answered an output, and its answer line.
func askAdapter(t *testing.T, script, request string) (kind string, output bool, line string) {
	t.Helper()
	cmd := exec.Command("/usr/bin/python3", script)
	cmd.Stdin = strings.NewReader(request + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s on %s: %v", script, request, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var answer struct {
		Output json.RawMessage
		Error  struct{ Kind string }
	}
	if len(lines) != 2 || json.Unmarshal([]byte(lines[1]), &answer) != nil {
		t.Fatalf("%s on %s: not a hello and one answer:\n%s", script, request, out)
	}
	return answer.Error.Kind, answer.Output != nil, lines[1]
}

// npyOf returns the base64 .npy of a 1-d int64 array of three elements.
func npyOf(t *testing.T) string {
	t.Helper()
	x, err := engine.FromBytes(engine.Int64Type, []int{3}, make([]byte, 24))
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(npy.Encode(x))
}

// npyEmpty returns the base64 .npy of an empty 1-d int64 array.
func npyEmpty(t *testing.T) string {
	t.Helper()
	x, err := engine.FromBytes(engine.Int64Type, []int{0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(npy.Encode(x))
}

// npyTrue returns the base64 .npy of the boolean array [True].
func npyTrue(t *testing.T) string {
	t.Helper()
	x, err := engine.FromBytes(engine.BoolType, []int{1}, []byte{1})
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(npy.Encode(x))
}

// TestExamplesHelper checks that the Python examples import the helper a
// user gets: examples/python/conform_adapter.py is what `conform adapter
// python` writes now. UPDATE_DOC_TABLES=1 rewrites it.
func TestExamplesHelper(t *testing.T) {
	const path = "../../examples/python/" + pyadapter.FileName
	data, err := os.ReadFile(path)
	if err == nil && string(data) == string(pyadapter.Source()) {
		return
	}
	if os.Getenv("UPDATE_DOC_TABLES") == "1" {
		if err := os.WriteFile(path, pyadapter.Source(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is not what `conform adapter python` writes (UPDATE_DOC_TABLES=1 go test ./cmd/conform -run %s rewrites it)", path, t.Name())
}

// TestExampleAdaptersShort checks that the adapters of real libraries in
// examples/ stay as short as the helper makes them: at most 40 lines each.
func TestExampleAdaptersShort(t *testing.T) {
	for _, lib := range []string{"pytorch", "dask"} {
		data, err := os.ReadFile("../../examples/" + lib + "/adapter.py")
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(data), "\n"); n > 40 {
			t.Errorf("examples/%s/adapter.py has %d lines, more than 40", lib, n)
		}
	}
}
