package main

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/conformsuite/conform/cases"
	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/npy"
)

// writeInput writes an int32 arange tensor of the given shape as .npy.
func writeInput(t *testing.T, dir, name string, shape ...int) {
	t.Helper()
	n := engine.NumElements(shape)
	data := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		data[4*i] = byte(i)
	}
	x, err := engine.FromBytes(engine.Int32Type, shape, data)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), npy.Encode(x), 0o644); err != nil {
		t.Fatal(err)
	}
}

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestEval(t *testing.T) {
	dir := t.TempDir()
	writeInput(t, dir, "x.npy", 2, 3)
	writeInput(t, dir, "i.npy", 2, 1)
	tests := []struct {
		rule  string
		json  string
		code  int
		kind  engine.ErrorKind
		shape []int
	}{
		{"getitem writes the result", `{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[1, ::-1]"}`, 0, "", []int{3}},
		{"strided_slice with bitmasks", `{"op":"strided_slice","inputs":{"x":"x.npy"},"begin":[0],"end":[0],"new_axis_mask":1}`, 0, "", []int{1, 2, 3}},
		{"strided_slice with OpenVINO list masks", `{"op":"strided_slice","inputs":{"x":"x.npy"},"begin":[1,0],"end":[0,2],"strides":[1,1],"begin_mask":[0,1],"end_mask":[1,0]}`, 0, "", []int{1, 2}},
		{"slice", `{"op":"slice","inputs":{"x":"x.npy"},"begin":[1,0],"size":[1,-1]}`, 0, "", []int{1, 3}},
		{"gather_nd", `{"op":"gather_nd","inputs":{"params":"x.npy","indices":"i.npy"}}`, 0, "", []int{2, 3}},
		{"an out-of-range index exits 1 with out_of_range", `{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[5]"}`, 1, engine.OutOfRange, nil},
		{"a zero step exits 1 with invalid_spec", `{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[::0]"}`, 1, engine.InvalidSpec, nil},
		{"a missing input file exits 1 with bad_input", `{"op":"getitem","inputs":{"x":"nope.npy"},"index":"x[0]"}`, 1, engine.BadInput, nil},
		{"a malformed case exits 1 with bad_input", `{"op":`, 1, engine.BadInput, nil},
	}
	for i, tt := range tests {
		casePath := filepath.Join(dir, "case.json")
		if err := os.WriteFile(casePath, []byte(tt.json), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out.npy")
		// No output from the previous row: a rejection creates none.
		os.Remove(out)
		args := []string{"eval", casePath, "-o", out}
		if i%2 == 1 {
			args = []string{"eval", "-o", out, casePath}
		}
		code, _, stderr := runCLI(args...)
		if code != tt.code {
			t.Errorf("%s: exit %d, want %d (stderr %q)", tt.rule, code, tt.code, stderr)
			continue
		}
		if tt.code != 0 {
			if !strings.Contains(stderr, string(tt.kind)) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("%s: stderr %q should be one line naming %s", tt.rule, stderr, tt.kind)
			}
			if _, err := os.Stat(out); !os.IsNotExist(err) {
				t.Errorf("%s: output file exists after a rejection", tt.rule)
			}
			continue
		}
		got, err := npy.ReadFile(out)
		if err != nil {
			t.Errorf("%s: reading the output: %v", tt.rule, err)
			continue
		}
		if got.DType != engine.Int32Type || !slices.Equal(got.Shape, tt.shape) {
			t.Errorf("%s: output %v %v, want int32 %v", tt.rule, got.DType, got.Shape, tt.shape)
		}
	}
}

func TestUsage(t *testing.T) {
	tests := []struct {
		rule string
		args []string
		code int
	}{
		{"no command is a usage error", nil, 2},
		{"an unknown command is a usage error", []string{"frobnicate"}, 2},
		{"eval without -o is a usage error", []string{"eval", "case.json"}, 2},
		{"eval without a case is a usage error", []string{"eval", "-o", "out.npy"}, 2},
		{"eval with two cases is a usage error", []string{"eval", "a.json", "b.json", "-o", "out.npy"}, 2},
		{"an unknown flag is a usage error", []string{"check", "--frob"}, 2},
		{"check --cases of a missing directory is a usage error", []string{"check", "--cases", "/nonexistent"}, 2},
		{"help succeeds", []string{"help"}, 0},
		{"eval -h succeeds", []string{"eval", "-h"}, 0},
	}
	for _, tt := range tests {
		if code, _, _ := runCLI(tt.args...); code != tt.code {
			t.Errorf("%s: exit %d, want %d", tt.rule, code, tt.code)
		}
	}
}

func TestCheckEmbeddedCorpus(t *testing.T) {
	code, stdout, _ := runCLI("check")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	last := lines[len(lines)-1]
	if code != 0 || !strings.HasSuffix(last, " passed, 0 failed, 0 skipped") {
		t.Fatalf("conform check: exit %d, output:\n%s", code, stdout)
	}
}

// TestCheckNamesCorruptedCase flips one byte of one expected output and
// checks that the gate fails and names that case.
func TestCheckNamesCorruptedCase(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"tf_doc_1.json", "tf_doc_1.x.npy", "tf_doc_1.out.npy", "qa_q1.json", "qa_q1.x.npy", "qa_q1.out.npy"} {
		data, err := cases.FS.ReadFile("seeds/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if name == "tf_doc_1.out.npy" {
			data[len(data)-1] ^= 1
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, _ := runCLI("check", "--cases", dir)
	if code != 1 || !strings.Contains(stdout, "(first: tf_doc_1)") {
		t.Errorf("without -v the case is named by its cause's line: exit %d, output:\n%s", code, stdout)
	}
	code, stdout, _ = runCLI("check", "--cases", dir, "-v")
	if code != 1 || !strings.Contains(stdout, "fail tf_doc_1 ") || !strings.Contains(stdout, "element [0, 0, 2]") ||
		!strings.HasSuffix(strings.TrimSpace(stdout), "1 passed, 1 failed, 0 skipped") {
		t.Fatalf("exit %d, output:\n%s", code, stdout)
	}
}

// TestBinary builds the command and runs eval end to end, checking the
// exit status and that nothing but the one error line reaches stderr.
func TestBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "conform")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	writeInput(t, dir, "x.npy", 4)
	casePath := filepath.Join(dir, "case.json")
	os.WriteFile(casePath, []byte(`{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[9]"}`), 0o644)
	cmd := exec.Command(bin, "eval", casePath, "-o", filepath.Join(dir, "out.npy"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if exit, ok := err.(*exec.ExitError); !ok || exit.ExitCode() != 1 {
		t.Fatalf("exit: %v, want status 1", err)
	}
	if !strings.Contains(stderr.String(), "out_of_range") {
		t.Fatalf("stderr %q does not name out_of_range", stderr.String())
	}
}

// TestCheckNamesCorruptedGoldenBlob copies the golden corpus, flips one
// byte of one expected output inside its blob pack, and checks that the
// gate reports the changed file and fails the case that uses it.
func TestCheckNamesCorruptedGoldenBlob(t *testing.T) {
	dir := t.TempDir()
	err := fs.WalkDir(cases.FS, "golden", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := cases.FS.ReadFile(p)
		if err != nil {
			return err
		}
		target := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	// The expected output of the first getitem case with an output.
	list, err := os.ReadFile(filepath.Join(dir, "golden", "getitem.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var id, blob string
	for _, line := range strings.Split(string(list), "\n") {
		var c struct {
			ID     string `json:"id"`
			Expect struct {
				Output string `json:"output"`
			} `json:"expect"`
		}
		if json.Unmarshal([]byte(line), &c) == nil && c.Expect.Output != "" {
			id, blob = c.ID, strings.TrimPrefix(c.Expect.Output, "blobs/")
			break
		}
	}
	packPath := filepath.Join(dir, "golden", "blobs.npz")
	pack, err := os.ReadFile(packPath)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(pack), int64(len(pack)))
	if err != nil {
		t.Fatal(err)
	}
	flipped := false
	for _, f := range zr.File {
		if f.Name == blob {
			off, err := f.DataOffset()
			if err != nil {
				t.Fatal(err)
			}
			pack[off+int64(f.UncompressedSize64)-1] ^= 1 // the last data byte
			flipped = true
		}
	}
	if !flipped {
		t.Fatalf("blob %s of case %s not found", blob, id)
	}
	if err := os.WriteFile(packPath, pack, 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := runCLI("check", "--cases", dir, "-v")
	if code != 1 || !strings.Contains(stdout, "integrity: changed file golden/blobs.npz") || !strings.Contains(stdout, "fail "+id+" ") {
		t.Fatalf("exit %d, output:\n%s", code, tail(stdout, 20))
	}
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// TestReadmeAdapter checks that the plain adapter printed in
// docs/protocol.md is the one in testdata, and runs it against the
// embedded corpus: every slice case passes, every other op is skipped.
func TestReadmeAdapter(t *testing.T) {
	adapter, err := os.ReadFile("testdata/adapter.py")
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{"../../docs/protocol.md"} {
		text, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(text, append([]byte("```python\n"), adapter...)) {
			t.Errorf("the adapter in %s differs from cmd/conform/testdata/adapter.py", doc)
		}
	}
	if n := bytes.Count(adapter, []byte("\n")); n > 30 {
		t.Errorf("the adapter has %d lines; docs/protocol.md promises 30", n)
	}
	if err := exec.Command("/usr/bin/python3", "-I", "-c", "import numpy").Run(); err != nil {
		if os.Getenv("CONFORM_REQUIRE_NUMPY") == "1" {
			t.Fatal("NumPy required but not available")
		}
		t.Skip("NumPy not available: install python3-numpy")
	}
	code, stdout, stderr := runCLI("check", "--impl", "/usr/bin/python3 testdata/adapter.py")
	if code != 0 || !strings.Contains(stdout, "1600 passed, 0 failed") {
		t.Fatalf("exit %d\n%s\n%s", code, tail(stdout, 10), stderr)
	}
}

// TestEvalLimits checks --max-output and --max-input; the runs go on at
// the same time, each with its own limits (no limit is global).
func TestEvalLimits(t *testing.T) {
	dir := t.TempDir()
	writeInput(t, dir, "x.npy", 4, 4) // 64 bytes of data
	fi, err := os.Stat(filepath.Join(dir, "x.npy"))
	if err != nil {
		t.Fatal(err)
	}
	casePath := filepath.Join(dir, "case.json")
	os.WriteFile(casePath, []byte(`{"op":"getitem","inputs":{"x":"x.npy"},"index":"x[None]"}`), 0o644)
	size := func(n int64) string { return fmt.Sprint(n) }
	tests := []struct {
		rule  string
		flags []string
		code  int
		kind  engine.ErrorKind
	}{
		{"a 64-byte result over a 63-byte output limit is invalid_spec", []string{"--max-output", "63"}, 1, engine.InvalidSpec},
		{"a 64-byte result within a 64-byte output limit is written", []string{"--max-output", "64"}, 0, ""},
		{"an input one byte over the input limit is bad_input", []string{"--max-input", size(fi.Size() - 1)}, 1, engine.BadInput},
		{"an input of exactly the input limit is read", []string{"--max-input", size(fi.Size())}, 0, ""},
		{"the default limits hold both", nil, 0, ""},
	}
	for i, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(dir, fmt.Sprintf("out%d.npy", i))
			for range 20 {
				code, _, stderr := runCLI(append([]string{"eval", casePath, "-o", out}, tt.flags...)...)
				if code != tt.code || (tt.kind != "" && !strings.Contains(stderr, string(tt.kind)+":")) {
					t.Fatalf("exit %d, want %d (%s); stderr %q", code, tt.code, tt.kind, stderr)
				}
			}
		})
	}
}
