package oracle

import (
	"math/rand"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

// TestNumPyOracleManyIndexValues checks the NumPy oracle's two ways of
// reading index arrays on the index ops: a few values are checked and
// turned into positions in plain Python, many (more than the oracle's
// SMALL, 256) by vectorized NumPy calls. The same cases with 3 and with
// 300 index values, in range, wrapping, out of range (the first bad value
// is reported) and zeroed (bad_indices "zero"), must agree exactly with
// the engine either way.
func TestNumPyOracleManyIndexValues(t *testing.T) {
	requireOracle(t, "CONFORM_REQUIRE_NUMPY", haveNumPy(), "/usr/bin/python3 has no NumPy (apt-get install python3-numpy)")
	c := startOracle(t, "numpy")
	g := gen{r: rand.New(rand.NewSource(25))}
	// values returns n index values, value(i) for the i-th, with bad
	// (when not 0) at positions n-2 and n-1.
	values := func(n int, value func(i int) int64, bad int64) []int64 {
		v := make([]int64, n)
		for i := range v {
			v[i] = value(i)
		}
		if bad != 0 {
			v[n-2], v[n-1] = bad, bad
		}
		return v
	}
	mod := func(m int64) func(int) int64 { return func(i int) int64 { return int64(i) % m } }
	wrap := func(m int64) func(int) int64 { return func(i int) int64 { return int64(i)%(2*m) - m } }
	newCase := func(op string, fields map[string]any, inputs map[string]*engine.Tensor) *casefile.Case {
		spec := map[string]any{"op": op}
		for k, v := range fields {
			spec[k] = v
		}
		return casefile.New(spec, inputs)
	}
	var cases []*casefile.Case
	for _, n := range []int{3, 300} {
		for _, dt := range []string{"<f4", ">i2", "|S3", "<c8"} {
			x := g.tensor(mustDType(dt), []int{4, 5})
			x3 := g.tensor(mustDType(dt), []int{4, 5, 2})
			for _, bad := range []int64{0, 9, -1} {
				cases = append(cases,
					newCase("gather", nil, map[string]*engine.Tensor{"params": x, "indices": int64Tensor([]int{n}, values(n, mod(4), bad)...)}),
					newCase("gather", map[string]any{"axis": 1, "bad_indices": "zero"},
						map[string]*engine.Tensor{"params": x, "indices": npIntTensor("<i4", []int{n}, values(n, mod(5), bad)...)}),
					newCase("gather", map[string]any{"axis": 1, "batch_dims": 1},
						map[string]*engine.Tensor{"params": x, "indices": int64Tensor([]int{4, n}, values(4*n, mod(5), bad)...)}),
					newCase("onnx_gather", map[string]any{"axis": 1},
						map[string]*engine.Tensor{"data": x, "indices": int64Tensor([]int{n}, values(n, wrap(5), bad)...)}),
					newCase("onnx_gather_elements", nil,
						map[string]*engine.Tensor{"data": x, "indices": npIntTensor(">i4", []int{n, 4}, values(4*n, wrap(4), bad)...)}),
					newCase("onnx_gather_nd", nil,
						map[string]*engine.Tensor{"data": x3, "indices": int64Tensor([]int{n, 2}, values(2*n, wrap(4), bad)...)}),
					newCase("onnx_gather_nd", map[string]any{"batch_dims": 1},
						map[string]*engine.Tensor{"data": x3, "indices": int64Tensor([]int{4, n, 1}, values(4*n, wrap(5), bad)...)}),
					newCase("gather_nd", nil,
						map[string]*engine.Tensor{"params": x3, "indices": int64Tensor([]int{n, 2}, values(2*n, mod(4), bad)...)}),
					newCase("gather_nd", map[string]any{"bad_indices": "zero"},
						map[string]*engine.Tensor{"params": x3, "indices": npIntTensor("<u8", []int{n, 1}, values(n, mod(4), bad)...)}),
				)
			}
		}
	}
	disagree, failures, skips, _ := runOracle(t, c, cases)
	for _, f := range failures {
		t.Errorf("protocol failure: %v", f)
	}
	for reason, n := range skips {
		t.Errorf("numpy skipped %d cases: %v", n, reason)
	}
	for _, d := range disagree {
		t.Errorf("disagreement: %v", d)
	}
}
