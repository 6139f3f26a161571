package report

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/go-python/gpython/ast"
	"github.com/go-python/gpython/parser"
	"github.com/go-python/gpython/py"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

// getItem is a getitem case over x of shape (2, 3), with more inputs
// named in extra.
func getItem(index string, extra ...string) *casefile.Case {
	inputs := map[string]*engine.Tensor{"x": x(2, 3)}
	for _, name := range extra {
		inputs[name] = x(2)
	}
	return casefile.New(map[string]any{"op": "getitem", "index": index}, inputs)
}

// TestSnippetGetItem checks that a getitem snippet is rebuilt from the
// parsed subscript.
func TestSnippetGetItem(t *testing.T) {
	tests := []struct {
		rule  string
		m     *casefile.Case
		numpy string // the NumPy line of the snippet
	}{
		{"basic items are written as Python writes them", getItem("x[1:, None, ..., ::-1, -3:5:2]"), "x[1:, None, ..., ::-1, -3:5:2]  # NumPy"},
		{"np.newaxis and tf.newaxis are None, integer expressions their value", getItem("x[tf.newaxis, -(+3), ~0]"), "x[None, -3, -1]  # NumPy"},
		{"inline arrays are written as np.array with the dtype the parser gave them", getItem("x[[0, 2], (1, 0)]"), "x[np.array([0, 2], dtype=np.int64), np.array([1, 0], dtype=np.int64)]  # NumPy"},
		{"True, False and boolean lists are boolean arrays", getItem("x[[[True, False]], not 0]"), "x[np.array([[True, False]], dtype=bool), True]  # NumPy"},
		{"an empty tuple is x[()]", getItem("x[()]"), "x[()]  # NumPy"},
		{"a parenthesised tuple is flattened", getItem("x[(0, 1)]"), "x[0, 1]  # NumPy"},
		{"an array input is written by its name", getItem("x[i, :]", "i"), "x[i, :]  # NumPy"},
		{"an input whose name is not an ASCII identifier is an item of the inputs dict", getItem("x[é]", "é"), `x[inputs["\xe9"]]  # NumPy`},
		{"an input named like a module the snippet uses is an item of the inputs dict", getItem("x[np]", "np"), `x[inputs["np"]]  # NumPy`},
		{"a slice bound beyond int64 is clamped as CPython clamps it", getItem("x[9223372036854775808:]"), "x[9223372036854775807:]  # NumPy"},
		{"comments and newlines inside the brackets are not copied", getItem("x[0, # a comment\n 1]"), "x[0, 1]  # NumPy"},
		{"a subscript that does not parse is a string literal", getItem("x[1.5]"), `index = "x[1.5]"  # the subscript as the case writes it, not run here`},
	}
	for _, tt := range tests {
		got := Snippet(tt.m)
		if !strings.Contains(got, "\n"+tt.numpy+"\n") {
			t.Errorf("%s: the snippet lacks the line %q:\n%s", tt.rule, tt.numpy, got)
		}
	}
}

// TestSnippetStridedSliceMasks checks that a strided_slice snippet writes
// each mask as an integer TF takes for it.
func TestSnippetStridedSliceMasks(t *testing.T) {
	tests := []struct {
		rule  string
		masks map[string]any
		tf    string // the TensorFlow line of the snippet
	}{
		{"a mask within int32 is written as given", map[string]any{"begin_mask": int64(5)}, "tf.strided_slice(x, [0], [1], [1], begin_mask=5)  # TensorFlow"},
		{"a negative mask within int32 stays TF's int32 value", map[string]any{"end_mask": int64(-2)}, "tf.strided_slice(x, [0], [1], [1], end_mask=-2)  # TensorFlow"},
		{"bit 31 alone is -2^31, the int32 TF takes for it", map[string]any{"ellipsis_mask": int64(1) << 31}, "tf.strided_slice(x, [0], [1], [1], ellipsis_mask=-2147483648)  # TensorFlow"},
		{"a list mask is written as the integer of its bits", map[string]any{"shrink_axis_mask": []int64{1, 0}}, "tf.strided_slice(x, [0], [1], [1], shrink_axis_mask=1)  # TensorFlow"},
		{"bits above 31 keep the 64-bit value", map[string]any{"new_axis_mask": int64(1) << 40}, "tf.strided_slice(x, [0], [1], [1], new_axis_mask=1099511627776)  # TensorFlow"},
	}
	for _, tt := range tests {
		fields := map[string]any{"op": "strided_slice", "begin": []int64{0}, "end": []int64{1}}
		for k, v := range tt.masks {
			fields[k] = v
		}
		got := Snippet(casefile.New(fields, map[string]*engine.Tensor{"x": x(2, 3)}))
		if !strings.Contains(got, "\n"+tt.tf+"\n") {
			t.Errorf("%s: the snippet lacks the line %q:\n%s", tt.rule, tt.tf, got)
		}
	}
}

// TestSnippetRunsNothingFromTheCase checks that no text of a hostile
// case becomes code in its snippet: parsed as Python, the snippet imports
// NumPy and TensorFlow and nothing else, and never names os.
func TestSnippetRunsNothingFromTheCase(t *testing.T) {
	const attack = "import os; os.system('touch pwned')"
	tests := []struct {
		rule string
		m    *casefile.Case
	}{
		{"a subscript that does not parse, with newlines", getItem("x[0]\n" + attack + "\n#")},
		{"a subscript that does not parse, with carriage returns and a line separator", getItem("x[0]\r" + attack + "\u2028\r#")},
		{"a subscript that does not parse, with quotes and backslashes", getItem("x[\"\\\"\"]\n" + attack + "\n#'''\"\"\"")},
		{"a subscript that parses, with a comment", getItem("x[0, # \r" + attack + "\n 1]")},
		{"a malformed spec whose input names and fields are code", casefile.New(map[string]any{"op": "getitem\n" + attack, "index": "\n" + attack}, map[string]*engine.Tensor{"x = 0\n" + attack + "\n#": x(1), "y": x(1)})},
		{"an unknown field", casefile.New(map[string]any{"op": "getitem", "index": "x[0]", "\n" + attack + "\n": 1}, map[string]*engine.Tensor{"x": x(1)})},
	}
	python, pyErr := exec.LookPath("python3")
	if pyErr != nil && os.Getenv("CONFORM_REQUIRE_NUMPY") == "1" {
		t.Fatal("python3 required (CONFORM_REQUIRE_NUMPY=1) but not found")
	}
	for _, tt := range tests {
		snippet := Snippet(tt.m)
		tree, err := parser.ParseString(snippet, py.ExecMode)
		if err != nil {
			t.Errorf("%s: the snippet is not Python: %v\n%s", tt.rule, err, snippet)
			continue
		}
		var imports []string
		ast.Walk(tree, func(node ast.Ast) bool {
			switch n := node.(type) {
			case *ast.Import:
				for _, a := range n.Names {
					imports = append(imports, string(a.Name)+" as "+string(a.AsName))
				}
			case *ast.ImportFrom:
				imports = append(imports, "from "+string(n.Module))
			case *ast.Name:
				if n.Id == "os" {
					t.Errorf("%s: the snippet names os:\n%s", tt.rule, snippet)
				}
			}
			return true
		})
		if got := strings.Join(imports, ", "); got != "numpy as np, tensorflow as tf" {
			t.Errorf("%s: the snippet imports %s:\n%s", tt.rule, got, snippet)
		}
		if pyErr != nil {
			continue
		}
		// CPython's own parser agrees.
		check := `import ast, sys
tree = ast.parse(sys.stdin.read())
names = [a.name for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names]
assert names == ["numpy", "tensorflow"], names
assert not any(isinstance(n, ast.Name) and n.id == "os" for n in ast.walk(tree))
`
		cmd := exec.Command(python, "-I", "-c", check)
		cmd.Stdin = strings.NewReader(snippet)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Errorf("%s: python3 finds code from the case: %v\n%s\n%s", tt.rule, err, stderr.String(), snippet)
		}
	}
}
