package main

import (
	"bytes"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/fuzz"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/protocol"
	"github.com/conformsuite/conform/internal/signature"
)

// runSnippet runs a conform show snippet under the Python with NumPy and
// returns its exit status and output.
func runSnippet(t *testing.T, snippet string) (int, string) {
	t.Helper()
	cmd := exec.Command("/usr/bin/python3", "-I", "-")
	cmd.Stdin = strings.NewReader(snippet)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), string(out)
	} else if err != nil {
		t.Fatal(err)
	}
	return 0, string(out)
}

// int32s returns a 1-d int32 tensor of v, int64s a 1-d int64 one.
func int32s(t *testing.T, v ...int32) *engine.Tensor {
	data := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(data[4*i:], uint32(x))
	}
	tensor, err := engine.FromBytes(engine.Int32Type, []int{len(v)}, data)
	if err != nil {
		t.Fatal(err)
	}
	return tensor
}

func int64s(t *testing.T, v ...int64) *engine.Tensor {
	data := make([]byte, 8*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint64(data[8*i:], uint64(x))
	}
	tensor, err := engine.FromBytes(engine.Int64Type, []int{len(v)}, data)
	if err != nil {
		t.Fatal(err)
	}
	return tensor
}

// saveFinding saves a take case as conform fuzz saves a finding, with the
// engine's answer as the reference's, and returns the case file's path.
func saveFinding(t *testing.T, dir, id string, indices ...int64) string {
	t.Helper()
	c := casefile.New(map[string]any{"op": "take", "axis": 0, "mode": "raise"},
		map[string]*engine.Tensor{"a": int32s(t, 10, 20, 30), "indices": int64s(t, indices...)})
	want := protocol.Error(engine.OutOfRange, "")
	if out, err := c.Eval(); err == nil {
		want = protocol.Output(out)
	}
	f := fuzz.Finding{ID: id, Case: c, Oracle: "engine", Want: want, Got: protocol.Error(engine.InvalidSpec, ""),
		Signature: signature.Signature{Op: "take", Symptom: signature.Values}}
	path, err := fuzz.Save(dir, f, fuzz.Options{Impl: impl.Engine{}, Oracles: []impl.Impl{impl.Engine{}}})
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// TestShowReproducesInNumPy checks that the snippet conform show prints,
// run under NumPy, gives the case's expected answer (exit 0), and that it
// notices when it does not (an expected.npy changed afterwards: exit not
// 0), on corpus cases and on saved fuzz findings.
func TestShowReproducesInNumPy(t *testing.T) {
	requireNumPy(t)
	findings := t.TempDir()
	tests := []struct {
		name string
		args []string
		// output says whether the case expects an output (else an error).
		output bool
	}{
		// An embedded getitem case with a negative step: NumPy's x[...] gives expected.npy.
		{"corpus output", []string{"getitem/00018"}, true},
		// An embedded getitem case NumPy refuses: the snippet sees NumPy raise.
		{"corpus error", []string{"getitem/00004"}, false},
		// An embedded take case: np.take's answer is expected.npy.
		{"corpus take", []string{"take/00000"}, true},
		// A saved finding's case file, given by path: its inputs are read beside it.
		{"finding output", []string{saveFinding(t, findings, "take-found-1", 2, 0)}, true},
		// A saved finding whose reference answer is an error.
		{"finding error", []string{saveFinding(t, findings, "take-found-2", 7)}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "repro")
			code, snippet, stderr := runCLI(append([]string{"show", "--out", out}, tt.args...)...)
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			if code, pyOut := runSnippet(t, snippet); code != 0 {
				t.Fatalf("the snippet exits %d:\n%s\n%s", code, snippet, pyOut)
			}
			_, err := os.Stat(filepath.Join(out, expectedFile))
			if tt.output != (err == nil) {
				t.Fatalf("expected.npy written: %v, want %v", err == nil, tt.output)
			}
			if !tt.output {
				return
			}
			// The snippet compares: another expected answer makes it fail.
			if err := os.WriteFile(filepath.Join(out, expectedFile), npy.Encode(int32s(t, 99)), 0o644); err != nil {
				t.Fatal(err)
			}
			if code, pyOut := runSnippet(t, snippet); code == 0 {
				t.Errorf("the snippet passes with another expected.npy:\n%s\n%s", snippet, pyOut)
			}
		})
	}
}

// TestShowWritesInputs checks that conform show writes each input as
// np.save writes it, named after the input, and the expected output.
func TestShowWritesInputs(t *testing.T) {
	findings := t.TempDir()
	path := saveFinding(t, findings, "found", 1)
	out := filepath.Join(t.TempDir(), "repro")
	if code, _, stderr := runCLI("show", path, "--out", out); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, file := range []string{"a.npy", "indices.npy", expectedFile} {
		got, err := os.ReadFile(filepath.Join(out, file))
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(findings, map[string]string{"a.npy": "found.a.npy", "indices.npy": "found.indices.npy", expectedFile: "found.out.npy"}[file]))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the finding's file", file)
		}
	}
}

// TestShowRefuses checks conform show's refusals: each exits 2 with one
// line on stderr and writes nothing.
func TestShowRefuses(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "out")
	if err := os.Mkdir(existing, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(existing, "x.npy"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
	}{
		// A case ID the corpus does not hold.
		{"unknown ID", []string{"show", "getitem/99999999", "--out", filepath.Join(dir, "new")}},
		// A file of the user's where an input would be written is never replaced.
		{"existing file", []string{"show", "getitem/00018", "--out", existing}},
		// No case named.
		{"no argument", []string{"show"}},
		// A --cases directory that does not exist.
		{"missing corpus", []string{"show", "x", "--cases", filepath.Join(dir, "none")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runCLI(tt.args...)
			if code != exitUsage || stdout != "" || strings.Count(stderr, "\n") != 1 {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and one line on stderr", code, stdout, stderr, exitUsage)
			}
		})
	}
	if data, _ := os.ReadFile(filepath.Join(existing, "x.npy")); string(data) != "mine" {
		t.Errorf("the user's x.npy was replaced")
	}
	if entries, _ := os.ReadDir(existing); len(entries) != 1 {
		t.Errorf("files were written beside the user's: %d entries", len(entries))
	}
	if _, err := os.Stat(filepath.Join(dir, "new")); err == nil {
		t.Errorf("a directory was made for an unknown case")
	}
}

// TestShowReference checks that the snippet of a TF or ONNX op is
// written in the reference's terms and that its expected answer names
// the reference and the oracle that computed it.
func TestShowReference(t *testing.T) {
	tests := []struct {
		id, code string
	}{
		// tf.gather's case: TF code.
		{"gather/00000", "tf.gather(params, indices"},
		// ONNX Gather's case: the operator's node, as onnx.helper makes it.
		{"onnx_gather/00000", `node = helper.make_node("Gather", list(arrays), ["output"], axis=`},
	}
	for _, tt := range tests {
		code, snippet, stderr := runCLI("show", tt.id, "--out", filepath.Join(t.TempDir(), "o"))
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", tt.id, code, stderr)
		}
		if !strings.Contains(snippet, tt.code) {
			t.Errorf("%s: the snippet has no %q:\n%s", tt.id, tt.code, snippet)
		}
		c, _ := casefile.Lookup(strings.Split(tt.id, "/")[0])
		if !strings.Contains(snippet, c.Reference()+" (") {
			t.Errorf("%s: the expected answer does not name %s:\n%s", tt.id, c.Reference(), snippet)
		}
	}
}

// TestFindingNamesReference checks that fuzz names the reference answer
// of a TF op as TF's, computed by the oracle, and of a NumPy op as the
// oracle's.
func TestFindingNamesReference(t *testing.T) {
	tests := []struct {
		op, want string
	}{
		// tf.gather's answer computed by NumPy is TF's answer.
		{"gather", "; tf.gather (TF semantics), computed with numpy, gives "},
		// np.take's answer is NumPy's.
		{"take", "; numpy gives "},
	}
	for _, tt := range tests {
		c := casefile.New(map[string]any{"op": tt.op, "axis": 0},
			map[string]*engine.Tensor{"a": int32s(t, 1), "params": int32s(t, 1), "indices": int64s(t, 0)})
		var b strings.Builder
		writeFinding(&b, fuzz.Finding{ID: "f", Case: c, Oracle: "numpy", Want: protocol.Output(int32s(t, 1)), Got: protocol.Error(engine.OutOfRange, "")}, "impl")
		if !strings.Contains(b.String(), tt.want) {
			t.Errorf("%s: %q does not say %q", tt.op, b.String(), tt.want)
		}
	}
}

// TestFindingSaysWhereValuesDiffer checks that a finding whose two
// outputs read the same (one dtype and shape, other elements) says where
// they differ, and one whose answers already read differently does not.
func TestFindingSaysWhereValuesDiffer(t *testing.T) {
	c := casefile.New(map[string]any{"op": "take", "axis": 0},
		map[string]*engine.Tensor{"a": int32s(t, 1, 2), "indices": int64s(t, 0)})
	tests := []struct {
		got  protocol.Answer
		want bool
	}{
		// Same dtype and shape, other values: the summaries are equal.
		{protocol.Output(int32s(t, 2)), true},
		// An error against an output: the summaries already differ.
		{protocol.Error(engine.OutOfRange, ""), false},
	}
	for _, tt := range tests {
		var b strings.Builder
		writeFinding(&b, fuzz.Finding{ID: "f", Case: c, Oracle: "numpy", Want: protocol.Output(int32s(t, 1)),
			Got: tt.got, Detail: "element [0] is 2, want 1"}, "impl")
		if got := strings.Contains(b.String(), "they differ: element [0] is 2, want 1"); got != tt.want {
			t.Errorf("got %v: says where they differ %v, want %v:\n%s", tt.got, got, tt.want, b.String())
		}
	}
}

// TestShowONNX checks that the snippet of an ONNX op's case is ONNX code
// (the operator's node made by onnx.helper, in a model that onnx.reference
// or onnxruntime evaluates) and that it runs under the Python with NumPy
// whatever of onnx is installed: without an evaluator it says so and runs
// the NumPy equivalent; either way it checks the answer against the
// expected one (another expected.npy fails it).
func TestShowONNX(t *testing.T) {
	requireNumPy(t)
	onnx := exec.Command("/usr/bin/python3", "-c", "import onnx").Run() == nil
	tests := []struct {
		id, node string
	}{
		// GatherElements with its axis attribute; the expected output.
		{"onnx_gather_elements/00000", `helper.make_node("GatherElements", list(arrays), ["output"], axis=-1)`},
		// Slice takes starts and ends as inputs, not attributes.
		{"onnx_slice/00000", `helper.make_node("Slice", list(arrays), ["output"])`},
		// GatherND's case expecting an error: the snippet sees it raised.
		{"onnx_gather_nd/00000", `helper.make_node("GatherND", list(arrays), ["output"], batch_dims=`},
	}
	for _, tt := range tests {
		out := filepath.Join(t.TempDir(), "repro")
		code, snippet, stderr := runCLI("show", tt.id, "--out", out)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", tt.id, code, stderr)
		}
		if !strings.Contains(snippet, tt.node) || !strings.Contains(snippet, "from onnx.reference import ReferenceEvaluator") {
			t.Errorf("%s: the snippet does not build the node %s and evaluate it:\n%s", tt.id, tt.node, snippet)
		}
		code, pyOut := runSnippet(t, snippet)
		if code != 0 {
			t.Fatalf("%s: the snippet exits %d:\n%s\n%s", tt.id, code, snippet, pyOut)
		}
		if onnx != strings.Contains(pyOut, "op_type: ") {
			t.Errorf("%s: onnx importable %v, but the node printed is %v:\n%s", tt.id, onnx, !onnx, pyOut)
		}
		if _, err := os.Stat(filepath.Join(out, expectedFile)); err != nil {
			continue // an expected error
		}
		if err := os.WriteFile(filepath.Join(out, expectedFile), npy.Encode(int32s(t, 99)), 0o644); err != nil {
			t.Fatal(err)
		}
		if code, pyOut := runSnippet(t, snippet); code == 0 {
			t.Errorf("%s: the snippet passes with another expected.npy:\n%s", tt.id, pyOut)
		}
	}
}
