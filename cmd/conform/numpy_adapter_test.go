package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/npy"
)

// numpyAdapter is the plain NumPy conform/1 adapter of testdata/numpy_adapter.py:
// np.asarray(x[index]) for getitem (advanced indices included), np.take and
// np.take_along_axis, strided_slice translated into a NumPy index, tf.slice
// as basic slicing, gather_nd by a loop. It is written as a user would write
// it, independently of internal/oracle/numpy.
const numpyAdapter = "/usr/bin/python3 testdata/numpy_adapter.py"

// numpyAdapterOps are the ops the plain NumPy adapter lists in its hello.
// It leaves out gather and the ONNX ops: their rules (TF's batch dims and
// index checks, ONNX's negative indices) are not NumPy's, and writing them
// would make the adapter a second oracle rather than a user's NumPy wrapper.
// Their cases are the only skips TestNumPyAdapterCorpus allows.
var numpyAdapterOps = []string{"getitem", "strided_slice", "slice", "gather_nd", "take", "take_along_axis"}

func requireNumPy(t *testing.T) {
	t.Helper()
	if err := exec.Command("/usr/bin/python3", "-I", "-c", "import numpy").Run(); err != nil {
		if os.Getenv("CONFORM_REQUIRE_NUMPY") == "1" {
			t.Fatal("NumPy required but not available")
		}
		t.Skip("NumPy not available: install python3-numpy")
	}
}

// adapterHelloOps returns the ops the adapter started by command lists in
// its hello (its first line, written before it reads a request).
func adapterHelloOps(t *testing.T, command string) []string {
	t.Helper()
	fields := strings.Fields(command)
	cmd := exec.Command(fields[0], fields[1:]...)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v", command, err)
	}
	line, _, _ := strings.Cut(string(out), "\n")
	var hello struct {
		Hello struct {
			Ops []string `json:"ops"`
		} `json:"hello"`
	}
	if err := json.Unmarshal([]byte(line), &hello); err != nil {
		t.Fatalf("%s: hello %q: %v", command, line, err)
	}
	return hello.Hello.Ops
}

var (
	checkSummary = regexp.MustCompile(`(?m)^(\d+) passed, (\d+) failed, (\d+) skipped$`)
	unlistedSkip = regexp.MustCompile(`^skipped (\d+) cases: \S+ does not list (\S+) in its hello$`)
)

// TestNumPyAdapterCorpus runs the plain NumPy adapter on the whole embedded
// corpus (a few seconds): no case may fail, and the only skips are the
// cases of the ops it does not list in its hello (gather and the ONNX ops,
// see numpyAdapterOps), all of them.
func TestNumPyAdapterCorpus(t *testing.T) {
	requireNumPy(t)
	listed := adapterHelloOps(t, numpyAdapter)
	if !slices.Equal(listed, numpyAdapterOps) {
		t.Fatalf("the adapter lists %v, want %v", listed, numpyAdapterOps)
	}
	var unlisted []string
	for _, op := range casefile.OpNames() {
		if !slices.Contains(listed, op) {
			unlisted = append(unlisted, op)
		}
	}
	code, stdout, stderr := runCLI("check", "--impl", numpyAdapter)
	m := checkSummary.FindStringSubmatch(stdout)
	if code != 0 || m == nil || m[2] != "0" {
		t.Fatalf("exit %d\n%s\n%s", code, tail(stdout, 40), stderr)
	}
	if passed, _ := strconv.Atoi(m[1]); passed < 1500*len(listed) {
		t.Errorf("only %d cases passed; the corpus has 1,600 and more of each of %v\n%s", passed, listed, tail(stdout, 10))
	}
	skipped := 0
	var skippedOps []string
	for _, line := range strings.Split(stdout, "\n") {
		if !strings.HasPrefix(line, "skipped ") {
			continue
		}
		s := unlistedSkip.FindStringSubmatch(line)
		if s == nil || !slices.Contains(unlisted, s[2]) {
			t.Errorf("a skip other than of an op the adapter does not list: %s", line)
			continue
		}
		n, _ := strconv.Atoi(s[1])
		skipped += n
		skippedOps = append(skippedOps, s[2])
	}
	if total, _ := strconv.Atoi(m[3]); skipped != total {
		t.Errorf("%d skips, %d of them explained by unlisted ops\n%s", total, skipped, tail(stdout, 10))
	}
	slices.Sort(skippedOps)
	slices.Sort(unlisted)
	if !slices.Equal(skippedOps, unlisted) {
		t.Errorf("skipped the cases of %v; the ops the adapter does not list are %v", skippedOps, unlisted)
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

// plantedAdapter is the plain NumPy adapter with the bugs CONFORM_PLANTED
// names planted (testdata/numpy_adapter_planted.py).
const plantedAdapter = "/usr/bin/python3 testdata/numpy_adapter_planted.py"

// TestPlantedBugsFuzz fuzzes the NumPy adapter with three realistic bugs
// planted and checks that each bug is found: every saved minimal case
// (one per cause, or per signature no rule explains) fails with one bug
// alone, named by the engine variant that is the bug's rule, and passes
// with each of the others; every bug has a saved case.
func TestPlantedBugsFuzz(t *testing.T) {
	requireNumPy(t)
	if testing.Short() {
		t.Skip("fuzzing for 20 s: not in -short")
	}
	bugs := map[string]string{ // planted bug -> the variant that is its rule
		"drop-ones":   "@drop-size-1-dims",
		"empty-error": "@empty-range-refused",
		"wrap":        "@negative-gather-indices-wrap",
	}
	out := t.TempDir()
	_, stdout, stderr := runCLI("fuzz", "--impl", plantedAdapter, "--oracle", "numpy",
		"--duration", "20s", "--seed", "3", "--out", out)
	saved, err := filepath.Glob(filepath.Join(out, "*.json"))
	if err != nil || len(saved) < len(bugs) {
		t.Fatalf("saved %d cases, want at least %d (one per bug)\n%s\n%s", len(saved), len(bugs), tail(stdout, 30), stderr)
	}
	unowned := map[string]bool{}
	for bug := range bugs {
		unowned[bug] = true
	}
	for _, path := range saved {
		dir := t.TempDir()
		for _, f := range mustGlob(t, strings.TrimSuffix(path, ".json")+".*") {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(dir, filepath.Base(f)), string(data))
		}
		owner := ""
		for bug := range bugs {
			t.Setenv("CONFORM_PLANTED", bug)
			code, stdout, _ := runCLI("check", "--cases", dir, "--impl", plantedAdapter)
			switch {
			case code == 1 && strings.Contains(stdout, bugs[bug]):
				if owner != "" {
					t.Errorf("%s fails with two bugs alone: %s and %s", filepath.Base(path), owner, bug)
				}
				owner = bug
			case code != 0:
				t.Errorf("%s with %s alone: exit %d\n%s", filepath.Base(path), bug, code, stdout)
			}
		}
		if owner == "" {
			t.Errorf("%s fails with no bug alone", filepath.Base(path))
		}
		delete(unowned, owner)
	}
	if len(unowned) != 0 {
		t.Errorf("bugs without their own saved case: %v", unowned)
	}
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	files, err := filepath.Glob(pattern)
	if err != nil || len(files) == 0 {
		t.Fatalf("%s: %v", pattern, err)
	}
	return files
}

// npyB64 returns the base64 .npy of a tensor of the dtype descr and shape
// whose bytes are data (zeros when nil).
func npyB64(t *testing.T, descr string, shape []int, data []byte) string {
	t.Helper()
	dt, err := engine.ParseDType(descr)
	if err != nil {
		t.Fatal(err)
	}
	if data == nil {
		data = make([]byte, dt.Size*engine.NumElements(shape))
	}
	x, err := engine.FromBytes(dt, shape, data)
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(npy.Encode(x))
}

// TestNumPyAdapterChecks checks the plain NumPy adapter's own checks on
// requests the fuzz generator rarely or never makes, each answered as
// NumPy 1.24 answers it (checked with /usr/bin/python3 by hand): an error
// of the kind given, or an output ("").
func TestNumPyAdapterChecks(t *testing.T) {
	requireNumPy(t)
	ones := func(n int) []int { return slices.Repeat([]int{1}, n) }
	bools := func(n int) string { return "x[" + strings.Repeat("True, ", n) + "]" }
	x3 := npyB64(t, "<i8", []int{3}, nil)
	x0 := npyB64(t, "<i8", nil, nil)
	u := npyB64(t, "<u8", nil, []byte{0, 0, 0, 0, 0, 0, 0, 0x80}) // 2**63
	req := func(op string, fields string, inputs ...string) string {
		in := []string{}
		for i := 0; i < len(inputs); i += 2 {
			in = append(in, strconv.Quote(inputs[i])+":"+strconv.Quote(inputs[i+1]))
		}
		return `{"id":1,"op":"` + op + `",` + fields + `"inputs":{` + strings.Join(in, ",") + `}}`
	}
	index := func(src string) string { return `"index":` + strconv.Quote(src) + `,` }
	tests := []struct {
		rule, request, kind string
	}{
		{"NumPy reads the items in order: a float index array before a 0-d uint64 beyond int64 is refused first (IndexError)",
			req("getitem", index("x[f, u]"), "x", x3, "f", npyB64(t, "<f2", []int{1}, nil), "u", u), "invalid_spec"},
		{"a 0-d uint64 beyond int64 before a float index array is NumPy's OverflowError",
			req("getitem", index("x[u, f]"), "x", x3, "f", npyB64(t, "<f2", []int{1}, nil), "u", u), "out_of_range"},
		{"leading white space and blank lines are allowed before the subscript",
			req("getitem", index(" \n\tx[1]"), "x", x3), ""},
		{"more than 64 items are too many indices (IndexError), however few dims they index",
			req("getitem", index(bools(65)), "x", x0), "invalid_spec"},
		{"32 index arrays and a one-element subspace: NumPy's index iterator refuses them (IndexError)",
			req("getitem", index(bools(32)), "x", x0), "invalid_spec"},
		{"33 index arrays: NumPy's index iterator refuses them whatever the subspace (IndexError)",
			req("getitem", index("x["+strings.Repeat("True, ", 33)+":]"), "x", x3), "invalid_spec"},
		{"31 index arrays are taken: the value 5 is out of bounds",
			req("getitem", index("x["+strings.Repeat("True, ", 30)+"[5]]"), "x", x3), "out_of_range"},
		{"take_along_axis on 32 dims is 32 index arrays without a subspace (IndexError)",
			req("take_along_axis", `"axis":0,`, "arr", npyB64(t, "<i8", ones(32), nil), "indices", npyB64(t, "<i8", ones(32), nil)), "invalid_spec"},
	}
	for _, tt := range tests {
		kind, output, line := askAdapter(t, "testdata/numpy_adapter.py", tt.request)
		if kind != tt.kind || (tt.kind == "") != output {
			t.Errorf("%s: answered %s, want kind %q (\"\": an output)", tt.rule, line, tt.kind)
		}
	}
}
