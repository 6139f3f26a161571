package oracle

import (
	"encoding/base64"
	"fmt"
	"math"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/compare"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/protocol"
)

// oracleCases returns how many random cases the integration tests run:
// $CONFORM_ORACLE_CASES, default 500 (100 with -short).
func oracleCases() int {
	if s := os.Getenv("CONFORM_ORACLE_CASES"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	if testing.Short() {
		return 100
	}
	return 500
}

// oracleSeed is the seed of the random cases: $CONFORM_ORACLE_SEED, or 1.
func oracleSeed() int64 {
	if n, err := strconv.ParseInt(os.Getenv("CONFORM_ORACLE_SEED"), 10, 64); err == nil {
		return n
	}
	return 1
}

// requireOracle skips the test (visibly) when what the oracle needs is
// missing, or fails it when env (CONFORM_REQUIRE_NUMPY, ...) is "1".
func requireOracle(t *testing.T, env string, ok bool, why string) {
	t.Helper()
	if ok {
		return
	}
	if os.Getenv(env) == "1" {
		t.Fatalf("%s, and %s=1", why, env)
	}
	t.Skipf("SKIPPED: %s (set %s=1 to make this a failure)", why, env)
}

// outcome is what an implementation did with a case, in a comparable form.
type outcome struct {
	kind   engine.ErrorKind
	tensor *engine.Tensor
	skip   string
	// code is the oracle's reason code for a skip (Response.ReasonCode):
	// what tests tell skips apart by; skip is for people.
	code string
	// overRank is the rank of an output .npy that declares more than
	// engine.MaxRank dimensions, which no .npy reader here holds (TF.js
	// returns such results: see tfjs-result-over-32-dims).
	overRank int
}

func (o outcome) String() string {
	switch {
	case o.skip != "" && o.code != "":
		return "skip (" + o.code + "): " + o.skip
	case o.skip != "":
		return "skip: " + o.skip
	case o.kind != "":
		return string(o.kind)
	case o.overRank > 0:
		return fmt.Sprintf("a result of %d dimensions", o.overRank)
	}
	return fmt.Sprintf("%v%v", o.tensor.DType, o.tensor.Shape)
}

// engineOutcome evaluates m on the reference engine.
func engineOutcome(m *casefile.Case) outcome {
	t, err := m.Eval()
	if err == nil {
		return outcome{tensor: t}
	}
	return outcome{kind: engine.KindOf(err)}
}

// oracleOutcome converts a response. A crash, or an output that is not a
// valid .npy file, is a protocol failure; an output whose only fault is a
// rank above engine.MaxRank is a result (a disagreement with the engine).
func oracleOutcome(r response) (outcome, error) {
	switch {
	case r.Crash != "":
		return outcome{}, fmt.Errorf("crash: %s", r.Crash)
	case r.Skip != "":
		return outcome{skip: r.Skip, code: r.ReasonCode}, nil
	case r.ErrKind != "":
		return outcome{kind: r.ErrKind}, nil
	}
	t, err := npy.Decode(r.Output)
	if err != nil {
		if n := npyOverRank(r.Output); n > 0 {
			return outcome{overRank: n}, nil
		}
		return outcome{}, fmt.Errorf("output is not a valid .npy file: %v", err)
	}
	return outcome{tensor: t}, nil
}

// npyOverRank returns the rank of a version 1.0 .npy file whose header
// shape has more than engine.MaxRank dimensions and whose payload is
// exactly what that shape needs (so that rank is its only fault), or 0.
func npyOverRank(b []byte) int {
	if len(b) < 10 || string(b[:8]) != "\x93NUMPY\x01\x00" {
		return 0
	}
	hlen := int(b[8]) | int(b[9])<<8
	if 10+hlen > len(b) {
		return 0
	}
	m := npyHeaderRE.FindStringSubmatch(string(b[10 : 10+hlen]))
	if m == nil {
		return 0
	}
	size, err := strconv.Atoi(m[2])
	if err != nil {
		return 0
	}
	n := 1
	dims := strings.Split(strings.TrimSuffix(strings.TrimSpace(m[3]), ","), ",")
	for _, d := range dims {
		v, err := strconv.Atoi(strings.TrimSpace(d))
		if err != nil || v < 0 {
			return 0
		}
		n *= v
	}
	if m[1] == "U" {
		size *= 4
	}
	if len(dims) <= engine.MaxRank || len(b)-10-hlen != n*size {
		return 0
	}
	return len(dims)
}

var npyHeaderRE = regexp.MustCompile(`^\{'descr': '[<>|]([a-zA-Z])(\d+)', 'fortran_order': False, 'shape': \(([\d, ]+)\), \}`)

// judge reads the oracle's answer r and compares it with want: the
// oracle's outcome and how the two differ ("" if they agree). An answer
// that is not a valid outcome is a protocol failure: the outcome is a
// skip naming it, the difference "protocol failure", and err the failure.
func judge(want outcome, r response) (got outcome, why string, err error) {
	got, err = oracleOutcome(r)
	if err != nil {
		return outcome{skip: "protocol failure: " + err.Error()}, "protocol failure", err
	}
	return got, differ(want, got), nil
}

// differ describes how got differs from want, or returns "".
func differ(want, got outcome) string {
	switch {
	case got.skip != "":
		return "skipped: " + got.skip
	case got.overRank > 0:
		return fmt.Sprintf("engine %v, oracle %v", want, got)
	case want.kind != "" || got.kind != "":
		if want.kind != got.kind {
			return fmt.Sprintf("engine %v, oracle %v", want, got)
		}
		return ""
	}
	if err := compare.Tensors(want.tensor, got.tensor); err != nil {
		return err.Error()
	}
	return ""
}

// disagreement is one case where an oracle and the engine differ.
type disagreement struct {
	m   *casefile.Case
	why string
}

func (d disagreement) String() string {
	var ins []string
	names := make([]string, 0, len(d.m.Inputs))
	for name := range d.m.Inputs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t := d.m.Inputs[name]
		s := fmt.Sprintf("%s=%v%v", name, t.DType, t.Shape)
		if t.DType.IsInteger() && t.Len() <= 12 {
			s += fmt.Sprintf(" %v", intValues(t))
		}
		ins = append(ins, s)
	}
	return fmt.Sprintf("%s [%s]: %s", d.m, strings.Join(ins, " "), d.why)
}

// intValues returns the values of a small integer tensor.
func intValues(t *engine.Tensor) []string {
	vals := make([]string, t.Len())
	for i := range vals {
		b := t.Data[i*t.DType.Size : (i+1)*t.DType.Size]
		vals[i] = compare.Format(t.DType, b)
	}
	return vals
}

// skipReason is a skip as an oracle gave it: its reason code (what tests
// tell skips apart by) and its reason (for people).
type skipReason struct{ code, reason string }

func (s skipReason) String() string {
	if s.code == "" {
		return s.reason
	}
	return s.code + ": " + s.reason
}

// runOracle sends cases to c from several goroutines, compares with the
// engine, and returns the disagreements, protocol failures and skips.
func runOracle(t *testing.T, c *protocol.Client, cases []*casefile.Case) (disagree []disagreement, failures []disagreement, skips map[skipReason]int, elapsed time.Duration) {
	t.Helper()
	start := time.Now()
	results := doCases(c, cases)
	elapsed = time.Since(start)
	skips = map[skipReason]int{}
	kinds := map[string]int{}
	defer func() {
		t.Logf("engine outcomes: %v", kinds)
	}()
	for i, m := range cases {
		want := engineOutcome(m)
		if want.kind != "" {
			kinds[string(want.kind)]++
		} else {
			kinds["output "+m.Op]++
		}
		got, err := oracleOutcome(results[i])
		if err != nil {
			failures = append(failures, disagreement{m, err.Error()})
			continue
		}
		if got.skip != "" {
			skips[skipReason{got.code, got.skip}]++
		}
		if why := differ(want, got); why != "" {
			disagree = append(disagree, disagreement{m, why})
		}
	}
	return disagree, failures, skips, elapsed
}

func randomCases(n int, seed int64, tfjs bool) []*casefile.Case {
	g := gen{r: rand.New(rand.NewSource(seed)), tfjs: tfjs}
	cases := make([]*casefile.Case, n)
	for i := range cases {
		cases[i] = g.memory()
	}
	return cases
}

func haveNumPy() bool {
	return exec.Command("/usr/bin/python3", "-I", "-c", "import numpy").Run() == nil
}

// TestNumPyOracle checks that the NumPy oracle agrees exactly with the
// engine on random cases of every op: same error kind, or same dtype,
// shape and bytes.
func TestNumPyOracle(t *testing.T) {
	requireOracle(t, "CONFORM_REQUIRE_NUMPY", haveNumPy(), "/usr/bin/python3 has no NumPy (apt-get install python3-numpy)")
	argv, err := Command("numpy")
	if err != nil {
		t.Fatal(err)
	}
	c, err := protocol.Start(argv, protocol.Options{Stderr: testWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	h := c.Hello()
	if h.Name != "numpy" || !strings.HasPrefix(h.Version, "1.") {
		t.Errorf("hello = %+v", h)
	}
	checkHelloOps(t, h, casefile.OpNames()) // the reference runs every op
	cases := append(fixedCases(), randomCases(oracleCases(), oracleSeed(), false)...)
	disagree, failures, skips, elapsed := runOracle(t, c, cases)
	t.Logf("%d cases in %v (%.0f cases/s), %d restarts", len(cases), elapsed, float64(len(cases))/elapsed.Seconds(), c.Restarts())
	for _, f := range failures {
		t.Errorf("protocol failure: %v", f)
	}
	for reason, n := range skips {
		t.Errorf("numpy skipped %d cases: %v", n, reason)
	}
	for i, d := range disagree {
		if i == 20 {
			t.Errorf("... and %d more disagreements", len(disagree)-20)
			break
		}
		t.Errorf("disagreement: %v", d)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// fixedCases are hand-picked corners every run covers.
func fixedCases() []*casefile.Case {
	x := func(dt string, shape ...int) map[string]*engine.Tensor {
		g := gen{r: rand.New(rand.NewSource(7))}
		return map[string]*engine.Tensor{"x": g.tensor(mustDType(dt), shape)}
	}
	gi := func(index string, in map[string]*engine.Tensor) *casefile.Case {
		return casefile.New(map[string]any{"op": "getitem", "index": index}, in)
	}
	ss := func(spec map[string]any, in map[string]*engine.Tensor) *casefile.Case {
		spec["op"] = "strided_slice"
		return casefile.New(spec, in)
	}
	// x with index arrays i = [0, 1] and u = np.uint64(2**63) (0-d): the
	// literals NumPy refuses keep the subscript's names, and their errors
	// come where NumPy's checks reach them.
	named := func() map[string]*engine.Tensor {
		in := x("<i8", 3, 4)
		in["i"] = mustFromBytes(engine.Int64Type, []int{2}, []byte{0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0})
		in["u"] = mustFromBytes(mustDType("<u8"), []int{}, []byte{0, 0, 0, 0, 0, 0, 0, 0x80})
		return in
	}
	withNames := func(index string, names ...string) *casefile.Case {
		in := named()
		for _, n := range []string{"i", "u"} {
			if !slices.Contains(names, n) {
				delete(in, n)
			}
		}
		return gi(index, in)
	}
	return []*casefile.Case{
		withNames("x[[1.0], i]", "i"),
		withNames("x[i, [0.5]]", "i"),
		withNames("x[u, [1.0]]", "u"),
		withNames("x[[1j], u]", "u"),
		withNames(`x[i, ["a"], b'b']`, "i"),
		withNames("x[1.5:2, u]", "u"),
		withNames("x[5, 1.5:2]"),
		withNames("x[..., i, ...]", "i"),
		withNames("x[u, ..., ...]", "u"),
		withNames("x[i, 99999999999999999999]", "i"),
		gi("x[1, 2]", x(">f4", 2, 3)),
		gi("x[()]", x(">c16")),
		gi("x[...]", x("<U3")),
		gi("x[-1, ..., None, ::-2]", x(">i8", 2, 3, 4)),
		gi("x[99999999999999999999]", x("<i4")),
		gi("x[1:99999999999999999999:-99999999999999999999]", x("<i4", 4)),
		gi("x[0, 0, 0, 0, 0]", x("<i4", 1, 1, 1, 1)),
		gi("x["+strings.Repeat("None, ", 32)+"0]", x("<i4", 1)),
		gi("x["+strings.Repeat("None, ", 33)+"0]", x("<i4", 1)),
		gi("x["+strings.Repeat("0, ", 65)+"]", x("<i4", 1)),
		gi("x[5, 0:2:0]", x("<i4", 3, 3)),
		gi("x[0:2:0, 5]", x("<i4", 3, 3)),
		ss(map[string]any{"begin": []int64{5, 0}, "end": []int64{0, 0}, "strides": []int64{1, 0}, "shrink_axis_mask": 1}, x("<f8", 3, 3)),
		ss(map[string]any{"begin": []int64{0, 5}, "end": []int64{0, 0}, "strides": []int64{0, 1}, "shrink_axis_mask": 2}, x("<f8", 3, 3)),
		ss(map[string]any{"begin": []int64{1}, "end": []int64{0}, "strides": []int64{2}, "shrink_axis_mask": 1}, x("<f8", 3, 3)),
		ss(map[string]any{"begin": []int64{0}, "end": []int64{0}, "ellipsis_mask": int64(1) << 40}, x("<f8", 3)),
		ss(map[string]any{"begin": []int64{0}, "end": []int64{0}, "ellipsis_mask": int64(3)}, x("<f8", 3)),
		// -2^31 is TF's int32 mask of bit 31 alone: one ellipsis bit, past the spec.
		ss(map[string]any{"begin": []int64{0}, "end": []int64{0}, "ellipsis_mask": int64(math.MinInt32)}, x("<f8", 3)),
		ss(map[string]any{"begin": []int64{1}, "end": []int64{2}, "ellipsis_mask": int64(math.MinInt32)}, x("<i4", 3)),
		ss(map[string]any{"begin": []int64{0, 0}, "end": []int64{0, 0}, "new_axis_mask": []int64{1, 1, 0, 0, 1}}, x("<f8", 3)),
		ss(map[string]any{"begin": make([]int64, 31), "end": make([]int64, 31), "new_axis_mask": int64(1)<<31 - 1}, x("<f8", 1, 1)),
		casefile.New(map[string]any{"op": "slice", "begin": []int64{}, "size": []int64{}}, x(">i2")),
		casefile.New(map[string]any{"op": "slice", "begin": []int64{0, 2}, "size": []int64{-1, -1}}, x(">i2", 0, 2)),
	}
}

// testWriter sends a child's stderr to the test log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Logf("child stderr: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func haveTFJS() bool {
	return haveNodeFile("@tensorflow", "tfjs-core", "package.json")
}

// haveNodeFile reports whether node is installed and the node_modules the
// oracles use (see Locate) has the file at path (e.g. a package's
// package.json).
func haveNodeFile(path ...string) bool {
	loc, err := Locate()
	if err != nil {
		return false
	}
	if _, err := os.Stat(filepath.Join(append([]string{loc.NodeDir, "node_modules"}, path...)...)); err != nil {
		return false
	}
	_, err = exec.LookPath("node")
	return err == nil
}

// TestTFJSOracle runs random cases through the TF.js oracle. TF.js has
// known divergences from TF, so value disagreements are only reported;
// crashes, garbage and protocol errors fail the test.
func TestTFJSOracle(t *testing.T) {
	requireOracle(t, "CONFORM_REQUIRE_TFJS", haveTFJS(), "the node packages are not installed (run `conform setup`) or node is not installed")
	c := startOracle(t, "tfjs")
	if h := c.Hello(); h.Name != "tfjs" || h.Version != "4.22.0" {
		t.Errorf("hello = %+v", h)
	}
	cases := append(fixedCases(), randomCases(oracleCases(), oracleSeed(), true)...)
	disagree, failures, skips, elapsed := runOracle(t, c, cases)
	t.Logf("%d cases in %v (%.0f cases/s), %d restarts", len(cases), elapsed, float64(len(cases))/elapsed.Seconds(), c.Restarts())
	for _, f := range failures {
		t.Errorf("protocol failure: %v", f)
	}
	nskip := 0
	for reason, n := range skips {
		nskip += n
		switch {
		case reason.code == "internal-error":
			t.Errorf("skipped %d: %v", n, reason)
		case testing.Verbose() || reason.code == "invalid-tensor":
			t.Logf("skipped %d: %v", n, reason)
		}
	}
	t.Logf("TF.js disagrees with the engine on %d of %d cases (%d skipped)", len(disagree)-nskip, len(cases)-nskip, nskip)
	shown := 0
	for _, d := range disagree {
		if strings.HasPrefix(d.why, "skipped: ") {
			continue
		}
		if shown++; shown <= 30 || testing.Verbose() {
			t.Logf("TF.js disagreement: %v", d)
		}
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
}

// benchOracle measures pipelined throughput on strided_slice cases over
// a [4,5,5] float32 input, as notes/oracles.md did.
func benchOracle(b *testing.B, impl string, op string) {
	argv, err := Command(impl)
	if err != nil {
		b.Skip(err)
	}
	c, err := protocol.Start(argv, protocol.Options{})
	if err != nil {
		b.Skip(err)
	}
	defer c.Close()
	g := gen{r: rand.New(rand.NewSource(1))}
	x := g.tensor(mustDType("<f4"), []int{4, 5, 5})
	var reqs []map[string]any
	for i := 0; i < 1000; i++ {
		var m *casefile.Case
		switch op {
		case "strided_slice":
			m = casefile.New(map[string]any{"op": "strided_slice",
				"begin": []int64{int64(g.pick(4)), -int64(g.pick(5))}, "end": []int64{4, int64(g.pick(5))},
				"strides": []int64{1, -1 - int64(g.pick(2))}, "begin_mask": g.pick(4), "shrink_axis_mask": g.pick(2)}, map[string]*engine.Tensor{"x": x})
		case "gather_nd":
			idx := g.tensor(mustDType("<i4"), []int{3, 2})
			for j := range idx.Data {
				idx.Data[j] = 0
			}
			idx.Data[0], idx.Data[4], idx.Data[8] = byte(g.pick(4)), byte(g.pick(5)), byte(g.pick(4))
			m = casefile.New(map[string]any{"op": "gather_nd"}, map[string]*engine.Tensor{"params": x, "indices": idx})
		}
		reqs = append(reqs, m.Request(0))
	}
	benchRequests(b, c, func(i int) map[string]any { return reqs[i%len(reqs)] },
		func(r response) bool { return r.Crash != "" || r.Skip != "" }, "crashed or were skipped")
}

func BenchmarkNumPyStridedSlice(b *testing.B) { benchOracle(b, "numpy", "strided_slice") }
func BenchmarkNumPyGatherND(b *testing.B)     { benchOracle(b, "numpy", "gather_nd") }
func BenchmarkTFJSStridedSlice(b *testing.B)  { benchOracle(b, "tfjs", "strided_slice") }
func BenchmarkTFJSGatherND(b *testing.B)      { benchOracle(b, "tfjs", "gather_nd") }

// malformedRequests are requests a careless client might send; an oracle
// must answer each with an error and keep running.
func malformedRequests() []map[string]any {
	g := gen{r: rand.New(rand.NewSource(3))}
	x := npy.Encode(g.tensor(mustDType("<i4"), []int{2, 3}))
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	in := map[string]any{"x": b64(x)}
	return []map[string]any{
		{"rule": "no op"},
		{"op": 5, "inputs": in},
		{"op": "transpose", "inputs": in},
		{"op": "slice", "begin": []int{0, 0}, "inputs": in},
		{"op": "slice", "begin": []int{0, 0}, "size": []any{1, "a"}, "inputs": in},
		{"op": "slice", "begin": []int{0, 0}, "size": []any{1, 1.5}, "inputs": in},
		{"op": "slice", "begin": []int{0, 0}, "size": []any{1, true}, "inputs": in},
		{"op": "slice", "begin": []int{0, 0}, "size": []int{1, 1}, "end": []int{1}, "inputs": in},
		{"op": "slice", "begin": []int{0, 0}, "size": []int{1, 1}},
		{"op": "slice", "begin": []int{0, 0}, "size": []int{1, 1}, "inputs": []int{1}},
		{"op": "slice", "begin": []int{0, 0}, "size": []int{1, 1}, "inputs": map[string]any{}},
		{"op": "slice", "begin": []int{0, 0}, "size": []int{1, 1}, "inputs": map[string]any{"x": 5}},
		{"op": "slice", "begin": []int{0, 0}, "size": []int{1, 1}, "inputs": map[string]any{"x": "not base64!"}},
		{"op": "slice", "begin": []int{0, 0}, "size": []int{1, 1}, "inputs": map[string]any{"x": b64([]byte("not a npy file"))}},
		{"op": "slice", "begin": []int{0, 0}, "size": []int{1, 1}, "inputs": map[string]any{"x": b64(x[:len(x)-4])}},
		{"op": "slice", "begin": []int{0, 0}, "size": []int{1, 1}, "inputs": map[string]any{"x": b64(append(append([]byte{}, x...), 0))}},
		{"op": "slice", "begin": []int{0, 0}, "size": []int{1, 1}, "inputs": map[string]any{"x": b64(x), "y": b64(x)}},
		{"op": "strided_slice", "begin": []int{0}, "end": []int{1}, "begin_mask": "1", "inputs": in},
		{"op": "strided_slice", "begin": []int{0}, "end": []int{1}, "begin_mask": []int{0, 3}, "inputs": in},
		{"op": "strided_slice", "begin": []int{0}, "inputs": in},
		{"op": "gather_nd", "bad_indices": "sometimes", "inputs": map[string]any{"params": b64(x), "indices": b64(x)}},
		{"op": "gather_nd", "batch_dims": 1 << 40, "inputs": map[string]any{"params": b64(x), "indices": b64(x)}},
		{"op": "gather_nd", "batch_dims": "1", "inputs": map[string]any{"params": b64(x), "indices": b64(x)}},
		{"op": "gather_nd", "inputs": map[string]any{"params": b64(x)}},
		{"op": "getitem", "index": 5, "inputs": in},
		{"op": "getitem", "index": nil, "inputs": in},
		{"op": "getitem", "index": "x[__import__('os').system('true')]", "inputs": in},
	}
}

// TestMalformedRequests checks that each oracle answers malformed requests
// with an error (the NumPy oracle with the kind the engine gives the same
// request) and keeps running.
func TestMalformedRequests(t *testing.T) {
	for _, impl := range []string{"numpy", "tfjs"} {
		t.Run(impl, func(t *testing.T) {
			switch impl {
			case "numpy":
				requireOracle(t, "CONFORM_REQUIRE_NUMPY", haveNumPy(), "/usr/bin/python3 has no NumPy (apt-get install python3-numpy)")
			case "tfjs":
				requireOracle(t, "CONFORM_REQUIRE_TFJS", haveTFJS(), "the node packages are not installed (run `conform setup`)")
			}
			c := startOracle(t, impl)
			for _, req := range malformedRequests() {
				r := do(c, req)
				data, w := engineAnswer(req)
				want := w.kind
				switch {
				case r.Crash != "":
					t.Errorf("%s: crash %s", data, r.Crash)
				case impl == "numpy" && r.ErrKind != want:
					t.Errorf("%s: got %+v, want error kind %q", data, r, want)
				case impl == "tfjs" && r.ErrKind == "" && r.Skip == "":
					t.Errorf("%s: got an output, want an error (engine: %q)", data, want)
				}
			}
			checkNoRestarts(t, c)
		})
	}
}

// mustFromBytes is engine.FromBytes for tensors the test builds.
func mustFromBytes(dt engine.DType, shape []int, data []byte) *engine.Tensor {
	t, err := engine.FromBytes(dt, shape, data)
	if err != nil {
		panic(err)
	}
	return t
}
