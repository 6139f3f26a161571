package main

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// numpyAdapter is the plain NumPy conform/1 adapter of testdata/numpy_adapter.py:
// np.asarray(x[index]) for getitem, strided_slice translated into a NumPy index,
// tf.slice as basic slicing, gather_nd by a loop. It is written as a user
// would write it, independently of oracle/numpy.
const numpyAdapter = "/usr/bin/python3 testdata/numpy_adapter.py"

func requireNumPy(t *testing.T) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-I", "-c", "import numpy").Run(); err != nil {
		if os.Getenv("CONFORM_REQUIRE_NUMPY") == "1" {
			t.Fatal("NumPy required but not available")
		}
		t.Skip("NumPy not available: install python3-numpy")
	}
}

var checkSummary = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed, (\d+) skipped$`)

// TestNumPyAdapterCorpus runs the plain NumPy adapter on the whole embedded
// corpus (a few seconds): no case may fail, and the only skips are the ops
// it does not list (the ONNX ops).
func TestNumPyAdapterCorpus(t *testing.T) {
	requireNumPy(t)
	code, stdout, stderr := runCLI("check", "--impl", numpyAdapter)
	m := checkSummary.FindStringSubmatch(stdout)
	if code != 0 || m == nil || m[2] != "0" {
		t.Fatalf("exit %d\n%s\n%s", code, tail(stdout, 40), stderr)
	}
	if passed, _ := strconv.Atoi(m[1]); passed < 6000 {
		t.Errorf("only %d cases passed; the corpus has 6,400 of getitem, strided_slice, slice and gather_nd\n%s", passed, tail(stdout, 10))
	}
	skipped := 0
	for _, line := range strings.Split(stdout, "\n") {
		if !strings.HasPrefix(line, "skipped ") || strings.HasSuffix(line, " skipped") {
			continue
		}
		if !strings.Contains(line, "does not list onnx_") {
			t.Errorf("a skip other than an unlisted ONNX op: %s", line)
		}
		n, _ := strconv.Atoi(strings.Fields(line)[1])
		skipped += n
	}
	if total, _ := strconv.Atoi(m[3]); skipped != total {
		t.Errorf("%d skips, %d of them explained by unlisted ops\n%s", total, skipped, tail(stdout, 10))
	}
}

// TestNumPyAdapterFuzz fuzzes the adapter against the NumPy oracle for a few
// seconds with a fixed seed: there must be no disagreement.
func TestNumPyAdapterFuzz(t *testing.T) {
	requireNumPy(t)
	if testing.Short() {
		t.Skip("fuzzing for 5 s: not in -short")
	}
	code, stdout, stderr := runCLI("fuzz", "--impl", numpyAdapter, "--oracle", "numpy",
		"--duration", "5s", "--seed", "1", "--out", t.TempDir())
	m := checkSummary.FindStringSubmatch(stdout)
	if code != 0 || m == nil || m[2] != "0" {
		t.Fatalf("exit %d\n%s\n%s", code, tail(stdout, 40), stderr)
	}
	if passed, _ := strconv.Atoi(m[1]); passed == 0 {
		t.Errorf("no case ran\n%s\n%s", stdout, stderr)
	}
}
