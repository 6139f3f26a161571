package casefile

import (
	"fmt"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/pysrc"
)

// Slicer is the method conformtest calls for slice.
type Slicer interface {
	Slice(x *engine.Tensor, begin, size []int64) (*engine.Tensor, error)
}

// OpSlice is the name of the slice op.
const OpSlice = "slice"

// sliceOp defines the slice op.
var sliceOp = &OpDef{
	Name:     OpSlice,
	Summary:  "tf.slice(x, begin, size)",
	Inputs:   []string{"x"},
	Fields:   []string{"begin", "size"},
	Types:    []FieldType{required(intListType), required(intListType)},
	Method:   "Slice(x *engine.Tensor, begin, size []int64) (*engine.Tensor, error)",
	Family:   "tf",
	Variants: []engine.Variant{engine.Int32Arithmetic, engine.ShortSliceSpecPadded, engine.ExtraEntriesIgnored, engine.EmptyRangeRefused, engine.DropSize1Dims},
	parse: func(c *Case) (any, error) {
		var s engine.SliceSpec
		var err error
		if s.Begin, err = c.ints("begin", true); err != nil {
			return nil, err
		}
		if s.Size, err = c.ints("size", true); err != nil {
			return nil, err
		}
		return s, nil
	},
	eval: func(c *Case, r engine.Rules) (*engine.Tensor, error) {
		s := specOf[engine.SliceSpec](c)
		return engine.SliceUnder(c.Inputs["x"], s.Begin, s.Size, r)
	},
	implements: implements[Slicer],
	call: func(impl any, c *Case) (*engine.Tensor, error) {
		s := specOf[engine.SliceSpec](c)
		return impl.(Slicer).Slice(c.Inputs["x"], s.Begin, s.Size)
	},
	snippet: func(b *strings.Builder, c *Case) {
		s := specOf[engine.SliceSpec](c)
		fmt.Fprintf(b, "tf.slice(x, %s, %s)  # TensorFlow\n", pysrc.Ints(s.Begin), pysrc.Ints(s.Size))
		if len(s.Begin) == len(s.Size) && len(s.Begin) == c.Inputs["x"].Rank() {
			parts := make([]string, len(s.Begin))
			for i := range s.Begin {
				if s.Size[i] == -1 {
					parts[i] = fmt.Sprintf("%d:", s.Begin[i])
				} else {
					parts[i] = fmt.Sprintf("%d:%d", s.Begin[i], s.Begin[i]+s.Size[i])
				}
			}
			fmt.Fprintf(b, "x[%s]  # NumPy equivalent (where TF's checks pass)\n", strings.Join(parts, ", "))
		}
	},
}
