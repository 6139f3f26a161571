package engine_test

import (
	"encoding/hex"
	"fmt"
	"math/rand"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/conformsuite/conform/engine"
)

// numpyTakeScript evaluates np.take or np.take_along_axis for each case of
// a JSON list read from stdin and writes, per case, np.asarray of the
// result (dtype, shape, bytes) or the kind of the exception, mapped as
// conform maps NumPy's errors.
const numpyTakeScript = `
import json, sys
import numpy as np
out = []
for c in json.load(sys.stdin):
    a = np.frombuffer(bytes.fromhex(c["a"]), dtype=np.dtype(c["adescr"])).reshape(c["ashape"])
    i = np.frombuffer(bytes.fromhex(c["i"]), dtype=np.dtype(c["idescr"])).reshape(c["ishape"])
    try:
        if c["op"] == "take":
            r = np.asarray(np.take(a, i, axis=c["axis"], mode=c["mode"]))
        else:
            r = np.take_along_axis(a, i, axis=c["axis"])
        out.append({"DType": r.dtype.str, "Shape": list(r.shape), "Data": r.tobytes().hex()})
    except np.AxisError:  # also an IndexError
        out.append({"Kind": "invalid_spec"})
    except IndexError:
        # np.take_along_axis raises IndexError for an index dtype that is
        # not an integer and for indices that do not broadcast against arr
        # (invalid_spec), as for an index out of bounds (out_of_range):
        # told apart here by the indices themselves, never by the message.
        spec = False
        if c["op"] != "take":
            src = a.reshape(-1) if c["axis"] is None else a
            ax = 0 if c["axis"] is None else c["axis"] % src.ndim
            spec = i.dtype.kind not in "iu" or any(
                d != ax and n != m and n != 1 and m != 1 for d, (n, m) in enumerate(zip(src.shape, i.shape)))
        out.append({"Kind": "invalid_spec" if spec else "out_of_range"})
    except (ValueError, TypeError):
        out.append({"Kind": "invalid_spec"})
json.dump(out, sys.stdout)
`

// TestTakeNumPy compares Take and TakeAlongAxis with NumPy's np.take and
// np.take_along_axis on random cases: shapes with empty and size-1
// dimensions, every axis (valid, negative, out of bounds, None), every
// mode, every index dtype in both byte orders (bool and uint64 included),
// in-range and out-of-range values, a big-endian input. It leaves out the
// cases where conform decides because NumPy does not terminate (wrap mode
// into an empty axis) and unsigned indices beyond int64 (NumPy casts them
// to negative positions; see TakeAlongAxis). It skips when NumPy is
// missing, unless CONFORM_REQUIRE_NUMPY=1.
func TestTakeNumPy(t *testing.T) {
	if testing.Short() {
		t.Skip("NumPy cross-check skipped in -short mode")
	}
	python := requireNumPy(t)
	type input struct {
		Op     string `json:"op"`
		ADescr string `json:"adescr"`
		AShape []int  `json:"ashape"`
		A      string `json:"a"`
		IDescr string `json:"idescr"`
		IShape []int  `json:"ishape"`
		I      string `json:"i"`
		Axis   *int   `json:"axis"`
		Mode   string `json:"mode"`
	}
	type answer struct {
		Kind  engine.ErrorKind
		DType string
		Shape []int
		Data  string
	}
	descrs := []string{"|i1", "<i2", ">i2", "<i4", ">i4", "<i8", ">i8", "|u1", "<u2", ">u4", "<u8", ">u8", "|b1", "<f4"}
	rng := rand.New(rand.NewSource(1))
	shape := func(lo, hi int) []int {
		s := make([]int, lo+rng.Intn(hi-lo+1))
		for d := range s {
			s[d] = []int{0, 1, 1, 2, 2, 3}[rng.Intn(6)]
		}
		return s
	}
	var cases []input
	var tensors [][2]*engine.Tensor
	for len(cases) < 6000 {
		c := input{Op: "take", ADescr: "<i8", Mode: []string{"raise", "wrap", "clip"}[rng.Intn(3)]}
		if rng.Intn(2) == 0 {
			c.Op = "take_along_axis"
		}
		if rng.Intn(4) == 0 {
			c.ADescr = ">i4"
		}
		c.AShape = shape(0, 3)
		r := len(c.AShape)
		if rng.Intn(5) > 0 {
			axis := rng.Intn(r+3) - r - 1
			c.Axis = &axis
		}
		// The size of the axis the indices select along, and the
		// indices' shape: for take_along_axis mostly the broadcast of
		// arr's.
		n := gatherProd(c.AShape)
		c.IShape = shape(0, 2)
		if c.Axis != nil && *c.Axis >= -max(r, 1) && *c.Axis < max(r, 1) {
			ax := (*c.Axis + max(r, 1)) % max(r, 1)
			n = 1
			if r > 0 {
				n = c.AShape[ax]
			}
			if c.Op == "take_along_axis" && rng.Intn(6) > 0 {
				c.IShape = make([]int, r)
				for d := range c.IShape {
					c.IShape[d] = []int{c.AShape[d], c.AShape[d], 1, rng.Intn(3)}[rng.Intn(4)]
				}
			}
		}
		if c.Op == "take" && c.Mode == "wrap" && n == 0 {
			continue // NumPy may loop forever
		}
		c.IDescr = descrs[rng.Intn(len(descrs))]
		dt, _ := engine.ParseDType(c.IDescr)
		values := make([]int64, gatherProd(c.IShape))
		for k := range values {
			values[k] = int64(rng.Intn(2*n+5) - n - 2)
			if dt.Kind == engine.Uint || dt.Kind == engine.Bool {
				values[k] = min(max(values[k], 0), 1<<(8*min(dt.Size, 7))-1)
				if dt.Kind == engine.Bool {
					values[k] &= 1
				}
			}
		}
		var idata []byte
		for _, v := range values {
			if dt.Kind == engine.Float {
				idata = append(idata, 0, 0, 0, 0)
				continue
			}
			b := make([]byte, dt.Size)
			for k := range b {
				x := byte(uint64(v) >> (8 * k))
				if dt.BigEndian {
					b[dt.Size-1-k] = x
				} else {
					b[k] = x
				}
			}
			idata = append(idata, b...)
		}
		adt, _ := engine.ParseDType(c.ADescr)
		adata := make([]byte, gatherProd(c.AShape)*adt.Size)
		for k := range adata {
			adata[k] = byte(rng.Intn(256))
		}
		a, err := engine.FromBytes(adt, c.AShape, adata)
		if err != nil {
			t.Fatal(err)
		}
		ix, err := engine.FromBytes(dt, c.IShape, idata)
		if err != nil {
			t.Fatal(err)
		}
		c.A, c.I = hex.EncodeToString(adata), hex.EncodeToString(idata)
		cases = append(cases, c)
		tensors = append(tensors, [2]*engine.Tensor{a, ix})
	}
	numpy := runNumPy[input, answer](t, python, numpyTakeScript, cases)
	failures := 0
	for k, c := range cases {
		a, ix := tensors[k][0], tensors[k][1]
		var got *engine.Tensor
		var err error
		if c.Op == "take" {
			spec := engine.TakeSpec{Flatten: c.Axis == nil, Mode: engine.TakeMode(c.Mode)}
			if c.Axis != nil {
				spec.Axis = *c.Axis
			}
			got, err = engine.Take(a, ix, spec)
		} else {
			spec := engine.TakeAlongAxisSpec{Flatten: c.Axis == nil}
			if c.Axis != nil {
				spec.Axis = *c.Axis
			}
			got, err = engine.TakeAlongAxis(a, ix, spec)
		}
		g := answer{Kind: engine.KindOf(err)}
		if err == nil {
			g = answer{DType: got.DType.String(), Shape: append([]int{}, got.Shape...), Data: hex.EncodeToString(got.Bytes())}
		}
		want := numpy[k]
		if want.Shape == nil && want.Kind == "" {
			want.Shape = []int{}
		}
		if diff := cmp.Diff(want, g); diff != "" {
			axis := "None"
			if c.Axis != nil {
				axis = fmt.Sprint(*c.Axis)
			}
			t.Errorf("%s(a %s %v, indices %s %v = %s, axis=%s, mode=%s) differs from NumPy (error %v) (-numpy +engine):\n%s",
				c.Op, c.ADescr, c.AShape, c.IDescr, c.IShape, c.I, axis, c.Mode, err, diff)
			if failures++; failures == 10 {
				t.Fatal("too many differences")
			}
		}
	}
}
