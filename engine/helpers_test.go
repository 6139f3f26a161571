package engine_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
)

// arange returns a C-contiguous int64 tensor holding 0, 1, 2, ... so that
// each output element names its source position.
func arange(shape ...int) *engine.Tensor {
	n := engine.NumElements(shape)
	data := make([]byte, 8*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(data[8*i:], uint64(i))
	}
	t, err := engine.FromBytes(engine.Int64Type, shape, data)
	if err != nil {
		panic(err)
	}
	return t
}

// ints returns the elements of a contiguous little-endian int64 tensor.
func ints(t *engine.Tensor) []int64 {
	b := t.Bytes()
	out := make([]int64, len(b)/8)
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out
}

// intTensor returns an int64 tensor with the given shape and values.
func intTensor(t interface {
	Helper()
	Fatal(...any)
}, shape []int, values ...int64) *engine.Tensor {
	t.Helper()
	data := make([]byte, 8*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint64(data[8*i:], uint64(v))
	}
	x, err := engine.FromBytes(engine.Int64Type, shape, data)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// result is what a test expects of an op: a shape and int64 values, or an
// error kind.
type result struct {
	shape  []int
	values []int64
	err    engine.ErrorKind
}

func ok(shape []int, values ...int64) result { return result{shape: shape, values: values} }
func fails(kind engine.ErrorKind) result     { return result{err: kind} }

func checkResult(t *testing.T, rule string, got *engine.Tensor, err error, want result) {
	t.Helper()
	if want.err != "" {
		if kind := engine.KindOf(err); kind != want.err {
			t.Errorf("%s: got error %v (output %v), want kind %s", rule, err, shapeOf(got), want.err)
		}
		return
	}
	if err != nil {
		t.Errorf("%s: unexpected error %v", rule, err)
		return
	}
	if !slices.Equal(got.Shape, want.shape) {
		t.Errorf("%s: shape %v, want %v", rule, got.Shape, want.shape)
		return
	}
	if g := ints(got); !slices.Equal(g, want.values) {
		t.Errorf("%s: values %v, want %v", rule, g, want.values)
	}
}

func shapeOf(t *engine.Tensor) any {
	if t == nil {
		return nil
	}
	return t.Shape
}

// requireNumPy returns the Python that has NumPy (Debian's python3-numpy
// under /usr/bin/python3), skipping the test when it is missing, unless
// CONFORM_REQUIRE_NUMPY=1 makes that a failure.
func requireNumPy(t *testing.T) string {
	t.Helper()
	const python = "/usr/bin/python3"
	if out, err := exec.Command(python, "-c", "import numpy").CombinedOutput(); err != nil {
		if os.Getenv("CONFORM_REQUIRE_NUMPY") == "1" {
			t.Fatalf("NumPy required (CONFORM_REQUIRE_NUMPY=1) but not available: %v: %s", err, bytes.TrimSpace(out))
		}
		t.Skipf("NumPy not available: install python3-numpy (%v: %s)", err, bytes.TrimSpace(out))
	}
	return python
}

// runNumPy runs a Python script under python (see requireNumPy) with the
// cases as a JSON list on its stdin, and decodes the JSON list it writes:
// one answer per case.
func runNumPy[C, A any](t *testing.T, python, script string, cases []C) []A {
	t.Helper()
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(python, "-c", script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python: %v: %s", err, stderr.String())
	}
	var answers []A
	if err := json.Unmarshal(out, &answers); err != nil {
		t.Fatal(err)
	}
	if len(answers) != len(cases) {
		t.Fatalf("NumPy answered %d cases of %d", len(answers), len(cases))
	}
	return answers
}
