package oracle

import (
	"encoding/base64"
	"math"
	"math/rand"
	"sort"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/protocol"
)

// startNumPy starts the NumPy oracle, or skips the test visibly when
// /usr/bin/python3 has no NumPy (CONFORM_REQUIRE_NUMPY=1: fails). It
// checks that the hello lists the ONNX ops.
func startNumPy(t *testing.T) *protocol.Client {
	t.Helper()
	requireOracle(t, "CONFORM_REQUIRE_NUMPY", haveNumPy(), "/usr/bin/python3 has no NumPy (apt-get install python3-numpy)")
	c := startOracle(t, "numpy")
	checkHelloOps(t, c.Hello(), casefile.FamilyOps("onnx"))
	return c
}

// TestNumPyOracleONNXOps checks that the NumPy oracle agrees exactly with
// the engine on ONNX Slice-13 and GatherND-13: the hand-picked corners of
// onnxFixedCases and numpyONNXFixedCases, then 6 × $CONFORM_ORACLE_CASES
// random cases of each op from gen.CaseOf (3000 each by default). Every
// case must give the same error kind, or the same dtype, shape and bytes.
func TestNumPyOracleONNXOps(t *testing.T) {
	c := startNumPy(t)
	cases := append(onnxFixedCases(), numpyONNXFixedCases()...)
	for _, op := range casefile.FamilyOps("onnx") {
		cases = append(cases, genCases(op, ortCases(), oracleSeed())...)
	}
	disagree, failures, skips, elapsed := runOracle(t, c, cases)
	t.Logf("%d cases in %v (%.0f cases/s), %d restarts", len(cases), elapsed, float64(len(cases))/elapsed.Seconds(), c.Restarts())
	for _, f := range failures {
		t.Errorf("protocol failure: %v", f)
	}
	for reason, n := range skips {
		t.Errorf("numpy skipped %d cases: %v", n, reason)
	}
	per := map[string]int{}
	bad := map[string]int{}
	for _, m := range cases {
		per[m.Op]++
	}
	for _, d := range disagree {
		bad[d.m.Op]++
	}
	ops := make([]string, 0, len(per))
	for op := range per {
		ops = append(ops, op)
	}
	sort.Strings(ops)
	for _, op := range ops {
		t.Logf("%s: numpy agrees with the engine on %d of %d cases", op, per[op]-bad[op], per[op])
	}
	for i, d := range disagree {
		if i == 20 {
			t.Errorf("... and %d more disagreements", len(disagree)-20)
			break
		}
		t.Errorf("disagreement: %v", d)
	}
	if n := c.Restarts(); n != 0 {
		t.Errorf("%d restarts", n)
	}
}

// numpyONNXFixedCases adds corners onnxFixedCases leaves out: dtypes and
// byte orders of data, big-endian indices, index dtypes other than int64,
// rank limits and an output too large to count.
func numpyONNXFixedCases() []*casefile.Case {
	g := gen{r: rand.New(rand.NewSource(11))}
	tensor := func(dt string, shape ...int) *engine.Tensor { return g.tensor(mustDType(dt), shape) }
	sl := func(x *engine.Tensor, spec map[string]any) *casefile.Case {
		spec["op"] = casefile.OpONNXSlice
		return casefile.New(spec, map[string]*engine.Tensor{"data": x})
	}
	gnd := func(x, idx *engine.Tensor, b int64) *casefile.Case {
		return casefile.New(map[string]any{"op": casefile.OpONNXGatherND, "batch_dims": b}, map[string]*engine.Tensor{"data": x, "indices": idx})
	}
	i := func(v ...int64) []int64 { return append([]int64{}, v...) }
	ones := func(n int) []int {
		s := make([]int, n)
		for j := range s {
			s[j] = 1
		}
		return s
	}
	bigIdx := func(shape []int, v ...int64) *engine.Tensor {
		data := make([]byte, 8*len(v))
		for j, x := range v {
			for b := 0; b < 8; b++ {
				data[8*j+7-b] = byte(uint64(x) >> (8 * b))
			}
		}
		t, err := engine.FromBytes(mustDType(">i8"), shape, data)
		if err != nil {
			panic(err)
		}
		return t
	}
	empty := func(dt string, shape ...int) *engine.Tensor {
		t, err := engine.FromBytes(mustDType(dt), shape, nil)
		if err != nil {
			panic(err)
		}
		return t
	}
	var out []*casefile.Case
	for _, dt := range genDTypes {
		out = append(out,
			sl(tensor(dt, 3, 4), map[string]any{"starts": i(-1, 1), "ends": i(math.MinInt64, math.MaxInt64), "steps": i(-2, 2)}),
			gnd(tensor(dt, 2, 3, 2), int64Tensor([]int{2, 2, 1}, 1, -3, 0, 2), 1),
		)
	}
	out = append(out,
		// Rank 32 data both ways; a GatherND result of rank 33.
		sl(tensor("<f8", append(ones(31), 3)...), map[string]any{"starts": i(-1), "ends": i(math.MinInt64), "axes": i(-1), "steps": i(-1)}),
		gnd(tensor(">i2", append(ones(31), 3)...), int64Tensor([]int{2, 0}), 0),
		gnd(tensor(">i2", append(ones(31), 3)...), int64Tensor([]int{1, 2, 1}, 0, -1), 1),
		gnd(tensor("<i4", 2, 3), int64Tensor(append(ones(31), 0)), 0),
		// Big-endian int64 indices; other index dtypes are bad_input.
		gnd(tensor("<u2", 3, 2), bigIdx([]int{3, 1}, -1, 2, -3), 0),
		gnd(tensor("<u2", 3, 2), bigIdx([]int{1, 2}, 1, -3), 0),
		gnd(tensor("<u2", 3, 2), bigIdx([]int{1, 1}, math.MinInt64), 0),
		gnd(tensor("<u2", 3), tensor("<i4", 1, 1), 0),
		gnd(tensor("<u2", 3), tensor("<u8", 1, 1), 0),
		gnd(tensor("<u2", 3), tensor("<f8", 1, 1), 0),
		gnd(tensor("<u2", 3), tensor("|b1", 1, 1), 0),
		// An output whose element count overflows int64 is invalid_spec;
		// one that is merely empty is not.
		gnd(empty("|u1", 1<<31, 1<<31, 0), empty("<i8", 1<<31, 0), 0),
		gnd(empty("|u1", 2, 0), empty("<i8", 1<<20, 0), 0),
		gnd(tensor("<i8", 2, 0, 3), int64Tensor([]int{1, 1}, 1), 0),
		gnd(tensor("<i8", 2, 0, 3), int64Tensor([]int{1, 2}, 1, 0), 0),
		sl(tensor("<c8", 4, 0, 2), map[string]any{"starts": i(1, 0), "ends": i(-1, 5), "axes": i(0, 1), "steps": i(math.MaxInt64, -1)}),
	)
	return out
}

// TestNumPyOracleONNXMalformed checks the NumPy oracle's reading of ONNX
// cases: fields of any other op are bad_input for an ONNX op, the ONNX
// fields stay metadata for the other ops, and malformed values give the
// kind the engine gives. Requests that the engine evaluates must give the
// same result bytes.
func TestNumPyOracleONNXMalformed(t *testing.T) {
	c := startNumPy(t)
	b64 := func(x *engine.Tensor) string { return base64.StdEncoding.EncodeToString(npy.Encode(x)) }
	data := map[string]any{"data": b64(arangeTensor(2, 3))}
	gnd := map[string]any{"data": b64(arangeTensor(2, 3)), "indices": b64(int64Tensor([]int{1, 1}, 0))}
	x := map[string]any{"x": b64(arangeTensor(2, 3))}
	slice := func(extra ...any) map[string]any {
		m := map[string]any{"op": "onnx_slice", "starts": []int{0}, "ends": []int{1}, "inputs": data}
		for j := 0; j+1 < len(extra); j += 2 {
			m[extra[j].(string)] = extra[j+1]
		}
		return m
	}
	reqs := []map[string]any{
		{"op": "onnx_slice", "ends": []int{1}, "inputs": data},
		{"op": "onnx_slice", "starts": []int{1}, "inputs": data},
		{"op": "onnx_slice", "starts": 1, "ends": []int{1}, "inputs": data},
		{"op": "onnx_slice", "starts": nil, "ends": []int{1}, "inputs": data},
		{"op": "onnx_slice", "starts": []any{1.5}, "ends": []int{1}, "inputs": data},
		{"op": "onnx_slice", "starts": []any{true}, "ends": []int{1}, "inputs": data},
		{"op": "onnx_slice", "starts": []any{"1"}, "ends": []int{1}, "inputs": data},
		slice("axes", "0"), slice("axes", nil), slice("steps", []any{nil}), slice("steps", []int{0}),
		slice("axes", []int{}), slice("axes", []int{-2}), slice("axes", []int{2}), slice("steps", []int{-1}),
		slice("meta", "kept as metadata"), slice("expect", map[string]any{"error": "x"}),
		// Fields of the other ops, ONNX or not.
		slice("begin", []int{0}), slice("end", []int{0}), slice("strides", []int{1}), slice("size", []int{1}),
		slice("index", "x[0]"), slice("begin_mask", 0), slice("shrink_axis_mask", 0),
		slice("batch_dims", 0), slice("bad_indices", "error"),
		{"op": "onnx_slice", "starts": []int{0}, "ends": []int{1}, "inputs": map[string]any{"x": data["data"]}},
		{"op": "onnx_slice", "starts": []int{0}, "ends": []int{1}, "inputs": map[string]any{"data": data["data"], "indices": gnd["indices"]}},
		{"op": "onnx_slice", "starts": []int{0}, "ends": []int{1}, "inputs": map[string]any{}},
		{"op": "onnx_gather_nd", "inputs": gnd},
		{"op": "onnx_gather_nd", "batch_dims": 1, "inputs": gnd},
		{"op": "onnx_gather_nd", "batch_dims": -1, "inputs": gnd},
		{"op": "onnx_gather_nd", "batch_dims": "1", "inputs": gnd},
		{"op": "onnx_gather_nd", "batch_dims": 1.0, "inputs": gnd},
		{"op": "onnx_gather_nd", "batch_dims": nil, "inputs": gnd},
		{"op": "onnx_gather_nd", "batch_dims": int64(1) << 40, "inputs": gnd},
		{"op": "onnx_gather_nd", "batch_dims": int64(math.MinInt32), "inputs": gnd},
		{"op": "onnx_gather_nd", "bad_indices": "error", "inputs": gnd},
		{"op": "onnx_gather_nd", "starts": []int{0}, "inputs": gnd},
		{"op": "onnx_gather_nd", "axes": []int{0}, "inputs": gnd},
		{"op": "onnx_gather_nd", "index": "x", "inputs": gnd},
		{"op": "onnx_gather_nd", "inputs": map[string]any{"params": gnd["data"], "indices": gnd["indices"]}},
		{"op": "onnx_gather_nd", "inputs": map[string]any{"data": gnd["data"]}},
		{"op": "onnx_gather_nd", "inputs": map[string]any{"data": gnd["data"], "indices": 5}},
		{"op": "onnx_gather_nd", "inputs": map[string]any{"data": gnd["data"], "indices": "not base64!"}},
		// The ONNX fields are metadata to the other ops, as before.
		{"op": "getitem", "index": "x[1]", "starts": "anything", "axes": []int{9}, "inputs": x},
		{"op": "slice", "begin": []int{0, 1}, "size": []int{1, 1}, "steps": 0, "ends": nil, "inputs": x},
		{"op": "gather_nd", "starts": []int{0}, "inputs": map[string]any{"params": gnd["data"], "indices": gnd["indices"]}},
	}
	reqs = append(reqs, literalRequests(t,
		`{"op":"onnx_slice","starts":[9223372036854775808],"ends":[1],"inputs":{"data":"`+data["data"].(string)+`"}}`,
		`{"op":"onnx_slice","starts":[0],"ends":[1e3],"inputs":{"data":"`+data["data"].(string)+`"}}`,
		`{"op":"onnx_slice","starts":[0],"ends":[1.0],"inputs":{"data":"`+data["data"].(string)+`"}}`,
		`{"op":"onnx_slice","starts":[0],"ends":[-0],"steps":[-9223372036854775808],"inputs":{"data":"`+data["data"].(string)+`"}}`,
		`{"op":"onnx_slice","starts":[-9223372036854775808],"ends":[9223372036854775807],"inputs":{"data":"`+data["data"].(string)+`"}}`,
		`{"op":"onnx_gather_nd","batch_dims":2147483648,"inputs":{"data":"`+gnd["data"].(string)+`","indices":"`+gnd["indices"].(string)+`"}}`,
		`{"op":"onnx_gather_nd","batch_dims":-2147483649,"inputs":{"data":"`+gnd["data"].(string)+`","indices":"`+gnd["indices"].(string)+`"}}`,
		`{"op":"onnx_gather_nd","batch_dims":9223372036854775808,"inputs":{"data":"`+gnd["data"].(string)+`","indices":"`+gnd["indices"].(string)+`"}}`,
	)...)
	for _, req := range reqs {
		doc, want := engineAnswer(req)
		got, err := oracleOutcome(do(c, req))
		if err != nil {
			t.Errorf("%s: %v", doc, err)
			continue
		}
		if why := differ(want, got); why != "" {
			t.Errorf("%s: %s", doc, why)
		}
	}
	checkNoRestarts(t, c)
}
