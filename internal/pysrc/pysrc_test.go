package pysrc

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/engine"
)

func TestString(t *testing.T) {
	tests := []struct {
		rule     string
		in, want string
	}{
		{"printable ASCII stays as it is", "x[1:3]", `"x[1:3]"`},
		{"quotes and backslashes are escaped", `a"b\c'`, `"a\"b\\c'"`},
		{"newlines and carriage returns cannot end the line", "a\nb\rc", `"a\nb\rc"`},
		{"control characters are \\x escapes", "\x00\x1b\x7f", `"\x00\x1b\x7f"`},
		{"non-ASCII characters are \\u and \\U escapes", "é\u202e\U0001f600", `"\xe9\u202e\U0001f600"`},
		{"a byte that is not UTF-8 is U+FFFD", "a\xffb", `"a\ufffdb"`},
	}
	for _, tt := range tests {
		if got := String(tt.in); got != tt.want {
			t.Errorf("%s: String(%q) = %s, want %s", tt.rule, tt.in, got, tt.want)
		}
	}
}

// TestStringInPython checks that Python reads each literal back as the
// string it was made from.
func TestStringInPython(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CONFORM_REQUIRE_NUMPY") == "1" {
			t.Fatal("python3 required (CONFORM_REQUIRE_NUMPY=1) but not found")
		}
		t.Skip("python3 not found")
	}
	in := []string{"", "plain", "a\"b\\c'd", "x[0]\nimport os\n#", "\r\x00\x1b[31m\x7f\u0085", "\u2028\u2029\u202e\ufeff", "é名\U0001f600", `\x41\n`, "'''\"\"\""}
	var src strings.Builder
	src.WriteString("import json\nprint(json.dumps([")
	for _, s := range in {
		src.WriteString(String(s) + ",\n")
	}
	src.WriteString("]))\n")
	cmd := exec.Command(python, "-I", "-c", src.String())
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, stderr.String())
	}
	var back []string
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(in, back); diff != "" {
		t.Errorf("Python reads the literals back otherwise (-made from +read):\n%s", diff)
	}
}

func TestInput(t *testing.T) {
	tests := []struct {
		rule, name, want string
	}{
		{"an identifier is the name itself", "indices_2", "indices_2"},
		{"a keyword is an item of the inputs dict", "lambda", `inputs["lambda"]`},
		{"a name the snippet uses is an item of the inputs dict", "np", `inputs["np"]`},
		{"the dict's own name is an item of the dict", "inputs", `inputs["inputs"]`},
		{"a name that is code is a string literal", "x = 0\nimport os", `inputs["x = 0\nimport os"]`},
		{"a non-ASCII identifier is an item of the inputs dict (Python would normalise it)", "ｘ", `inputs["\uff58"]`},
		{"a name starting with a digit is an item of the inputs dict", "1x", `inputs["1x"]`},
		{"the empty name is an item of the inputs dict", "", `inputs[""]`},
	}
	for _, tt := range tests {
		if got := Input(tt.name); got != tt.want {
			t.Errorf("%s: Input(%q) = %s, want %s", tt.rule, tt.name, got, tt.want)
		}
	}
}

func TestArray(t *testing.T) {
	ints := func(shape []int, v ...int64) *engine.Tensor {
		data := make([]byte, 8*len(v))
		for i, x := range v {
			for k := 0; k < 8; k++ {
				data[8*i+k] = byte(uint64(x) >> (8 * k))
			}
		}
		t, err := engine.FromBytes(engine.Int64Type, shape, data)
		if err != nil {
			panic(err)
		}
		return t
	}
	bools := func(shape []int, v ...byte) *engine.Tensor {
		t, err := engine.FromBytes(engine.BoolType, shape, v)
		if err != nil {
			panic(err)
		}
		return t
	}
	tests := []struct {
		rule string
		t    *engine.Tensor
		want string
	}{
		{"a 0-d boolean is True or False", bools(nil, 1), "True"},
		{"an int64 array is nested lists", ints([]int{2, 2}, 0, -1, 1<<62, -9223372036854775808), "np.array([[0, -1], [4611686018427387904, -9223372036854775808]], dtype=np.int64)"},
		{"a boolean array is nested lists of True and False", bools([]int{1, 2}, 1, 0), "np.array([[True, False]], dtype=bool)"},
		{"an empty array keeps its shape", ints([]int{0, 3}), `np.frombuffer(bytes.fromhex(""), dtype="<i8").reshape((0, 3))`},
	}
	for _, tt := range tests {
		if got := Array(tt.t); got != tt.want {
			t.Errorf("%s: Array = %s, want %s", tt.rule, got, tt.want)
		}
	}
}
