package casefile_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/gen"
	"github.com/conformsuite/conform/internal/npy"
)

// fortranNPY returns t as a .npy file in Fortran order: the header says
// fortran_order True and the payload holds the elements column-major.
func fortranNPY(t *engine.Tensor) []byte {
	c := t.Contiguous()
	rank := len(c.Shape)
	rev := &engine.Tensor{DType: c.DType, Shape: make([]int, rank), Strides: make([]int, rank), Data: c.Data}
	dims := make([]string, rank)
	for i := range c.Shape {
		rev.Shape[i], rev.Strides[i] = c.Shape[rank-1-i], c.Strides[rank-1-i]
		dims[i] = fmt.Sprint(c.Shape[i])
	}
	shape := "(" + strings.Join(dims, ", ") + ")"
	if rank == 1 {
		shape = "(" + dims[0] + ",)"
	}
	dict := fmt.Sprintf("{'descr': '%s', 'fortran_order': True, 'shape': %s, }", c.DType, shape)
	pad := 64 - (10+len(dict)+1)%64
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(len(dict)+pad+1))
	b.WriteString(dict + strings.Repeat(" ", pad) + "\n")
	b.Write(rev.Bytes())
	return b.Bytes()
}

// TestFortranOrderInputs checks, for random cases of every op under the
// reference rules and every variant of the op, that inputs read from
// Fortran-order .npy files (views of their column-major payload) give
// exactly the answer the same inputs in C order give: the same error
// kind, or an output of the same dtype, shape and bytes.
func TestFortranOrderInputs(t *testing.T) {
	for _, def := range casefile.Defs() {
		rules := []engine.Rules{{}}
		for _, info := range engine.Variants {
			if def.HasVariant(info.Variant) {
				rules = append(rules, engine.Rules{}.With(info.Variant))
			}
		}
		t.Run(def.Name, func(t *testing.T) {
			views := 0
			rapid.Check(t, func(rt *rapid.T) {
				m := gen.CaseOf(def.Name).Draw(rt, "case")
				inputs := map[string]*engine.Tensor{}
				for name, in := range m.Inputs {
					if in.Rank() < 2 {
						inputs[name] = in
						continue
					}
					v, err := npy.Decode(fortranNPY(in))
					if err != nil {
						rt.Fatalf("input %s: %v", name, err)
					}
					if !v.IsContiguous() {
						views++
					}
					inputs[name] = v
				}
				want, got := m, m.WithInputs(inputs)
				if want.Err != nil {
					rt.Skip("the case does not parse")
				}
				if err := got.Err; err != nil {
					rt.Fatalf("the Fortran-order case does not parse: %v", err)
				}
				for _, r := range rules {
					wantOut, wantErr := want.EvalUnder(r)
					gotOut, gotErr := got.EvalUnder(r)
					switch {
					case wantErr != nil || gotErr != nil:
						if engine.KindOf(wantErr) != engine.KindOf(gotErr) {
							rt.Fatalf("%s under %v: C order gives %v, Fortran order %v", m.Describe(), r, wantErr, gotErr)
						}
					case wantOut.DType != gotOut.DType || !slices.Equal(wantOut.Shape, gotOut.Shape) ||
						!bytes.Equal(wantOut.Bytes(), gotOut.Bytes()):
						rt.Fatalf("%s under %v: C order gives %v %v, Fortran order %v %v", m.Describe(), r,
							wantOut.DType, wantOut.Shape, gotOut.DType, gotOut.Shape)
					}
				}
			})
			if views == 0 {
				t.Errorf("no case had a Fortran-order input that is not C-contiguous: the test checks nothing")
			}
		})
	}
}
