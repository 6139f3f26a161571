// Package gorgonia puts the slicing of gorgonia.org/tensor's Dense
// (Dense.Slice) under conform's corpus: Adapter translates tf.slice,
// NumPy subscripts and TF strided slices into gorgonia's slice ranges, runs
// Dense.Slice on a Dense holding the input's values as a native Go slice,
// and converts the view it returns back to conform's tensors.
//
// What gorgonia cannot express is skipped, with the reason: new axes,
// negative indices and steps (its ranges count from 0 and step forward
// only) and float16 (it has no such dtype).
package gorgonia

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/conformsuite/conform/conformtest"
	"github.com/conformsuite/conform/engine"
	"gorgonia.org/tensor"
)

// Adapter implements conformtest.Slicer, conformtest.GetItemer and
// conformtest.StridedSlicer with gorgonia's Dense.Slice. It has no state
// and is safe for concurrent use.
type Adapter struct{}

// Slice is tf.slice: each begin b and size s become the range S(b, b+s, 1),
// and a size of -1 ends the range at the end of its dimension.
func (Adapter) Slice(x *engine.Tensor, begin, size []int64) (*engine.Tensor, error) {
	if len(begin) != len(size) {
		return nil, engine.Errorf(engine.InvalidSpec, "begin has %d entries and size %d", len(begin), len(size))
	}
	ranges := make([]tensor.Slice, len(begin))
	for i, b := range begin {
		end := b + size[i]
		if size[i] == -1 && i < x.Rank() {
			end = int64(x.Shape[i])
		}
		ranges[i] = tensor.S(int(b), int(end), 1)
	}
	return slice(x, ranges, false)
}

// GetItem is NumPy basic indexing: an integer i becomes gorgonia's single
// index S(i), a bare ':' and each dimension an ellipsis stands for nil
// (gorgonia's whole dimension), and any other slice S(start, stop, step).
func (Adapter) GetItem(x *engine.Tensor, _ string, items []engine.IndexItem) (*engine.Tensor, error) {
	for _, it := range items {
		if it.Kind == engine.IndexArray {
			return nil, fmt.Errorf("gorgonia's Dense.Slice has no advanced (integer or boolean array) indexing: %w", errors.ErrUnsupported)
		}
	}
	ranges, err := toRanges(x, items)
	if err != nil {
		return nil, err
	}
	scalar := len(items) == x.Rank() // NumPy gives a scalar for one integer per dimension
	for _, it := range items {
		scalar = scalar && it.Kind == engine.IndexInt
	}
	return slice(x, ranges, scalar)
}

// StridedSlice is TF's StridedSlice: each spec entry becomes the index item
// its masks make of it (ellipsis, new axis, shrink to an integer, or a
// slice whose begin and end the begin and end masks omit), as in GetItem.
func (Adapter) StridedSlice(x *engine.Tensor, spec engine.StridedSliceSpec) (*engine.Tensor, error) {
	if len(spec.End) != len(spec.Begin) || len(spec.Strides) != len(spec.Begin) {
		return nil, engine.Errorf(engine.InvalidSpec, "begin, end and strides have %d, %d and %d entries", len(spec.Begin), len(spec.End), len(spec.Strides))
	}
	if bits.OnesCount64(spec.EllipsisMask.Bits)+spec.EllipsisMask.Extra > 1 {
		return nil, engine.Errorf(engine.InvalidSpec, "more than one ellipsis")
	}
	items := make([]engine.IndexItem, len(spec.Begin))
	for i, b := range spec.Begin {
		switch {
		case spec.EllipsisMask.Has(i):
			items[i].Kind = engine.IndexEllipsis
		case spec.NewAxisMask.Has(i):
			items[i].Kind = engine.IndexNewAxis
		case spec.ShrinkAxisMask.Has(i) && spec.Strides[i] != 1:
			return nil, unsupported("a single index with a stride")
		case spec.ShrinkAxisMask.Has(i):
			items[i] = engine.IndexItem{Kind: engine.IndexInt, Index: b}
		default:
			items[i] = engine.IndexItem{Kind: engine.IndexSlice, Step: spec.Strides[i], HasStep: spec.Strides[i] != 1}
			if !spec.BeginMask.Has(i) {
				items[i].Start, items[i].HasStart = b, true
			}
			if !spec.EndMask.Has(i) {
				items[i].Stop, items[i].HasStop = spec.End[i], true
			}
		}
	}
	ranges, err := toRanges(x, items)
	if err != nil {
		return nil, err
	}
	return slice(x, ranges, false)
}

// toRanges translates index items to gorgonia's ranges, one per dimension
// they address.
func toRanges(x *engine.Tensor, items []engine.IndexItem) ([]tensor.Slice, error) {
	var ranges []tensor.Slice
	ellipsis := false
	for _, it := range items {
		axis := len(ranges)
		switch {
		case it.Kind == engine.IndexNewAxis:
			return nil, unsupported("a new axis")
		case it.Kind == engine.IndexEllipsis:
			if ellipsis {
				return nil, engine.Errorf(engine.InvalidSpec, "more than one ellipsis")
			}
			ellipsis = true
			for n := x.Rank() - (len(items) - 1); n > 0; n-- {
				ranges = append(ranges, nil)
			}
		case it.Kind == engine.IndexInt && it.Index < 0, it.Start < 0, it.Stop < 0:
			return nil, unsupported("a negative index")
		case it.Step < 0:
			return nil, unsupported("a negative step")
		case it.Kind == engine.IndexInt:
			ranges = append(ranges, tensor.S(int(it.Index)))
		case !it.HasStart && !it.HasStop && !it.HasStep:
			ranges = append(ranges, nil)
		default:
			stop, step := it.Stop, it.Step
			if !it.HasStop {
				stop = 0
				if axis < x.Rank() {
					stop = int64(x.Shape[axis])
				}
			}
			if !it.HasStep {
				step = 1
			}
			ranges = append(ranges, tensor.S(int(it.Start), int(stop), int(step)))
		}
	}
	return ranges, nil
}

// slice runs Dense.Slice on x's values, converted to the Go type of x's
// dtype. The result keeps x's dtype, except that a NumPy scalar has the
// native byte order and, for strings, the width of its value.
func slice(x *engine.Tensor, ranges []tensor.Slice, scalar bool) (*engine.Tensor, error) {
	var out *engine.Tensor
	var err error
	switch dt := x.DType; dt.Kind {
	case engine.Bytes, engine.Unicode:
		return sliceStrings(x, ranges, scalar)
	case engine.Bool:
		out, err = sliceValues[bool](x, ranges)
	case engine.Int:
		out, err = pick(dt.Size, sliceValues[int8], sliceValues[int16], sliceValues[int32], sliceValues[int64])(x, ranges)
	case engine.Uint:
		out, err = pick(dt.Size, sliceValues[uint8], sliceValues[uint16], sliceValues[uint32], sliceValues[uint64])(x, ranges)
	case engine.Float:
		out, err = pick(dt.Size, nil, nil, sliceValues[float32], sliceValues[float64])(x, ranges)
	case engine.Complex:
		out, err = pick(dt.Size/2, nil, nil, sliceValues[complex64], sliceValues[complex128])(x, ranges)
	}
	if err != nil || scalar || !x.DType.BigEndian {
		return out, err
	}
	// Go values have no byte order; a slice keeps the input's.
	n := out.DType.Size
	if out.DType.Kind == engine.Complex {
		n /= 2 // the real and imaginary parts swap apart
	}
	for i := 0; i < len(out.Data); i += n {
		slices.Reverse(out.Data[i : i+n])
	}
	out.DType.BigEndian = true
	return out, nil
}

type sliceFunc func(*engine.Tensor, []tensor.Slice) (*engine.Tensor, error)

// pick returns the function for elements of size bytes: 1, 2, 4 or 8;
// nil (a size gorgonia has no type of) reports the case unsupported.
func pick(size int, f1, f2, f4, f8 sliceFunc) sliceFunc {
	f := map[int]sliceFunc{1: f1, 2: f2, 4: f4, 8: f8}[size]
	if f == nil {
		return func(x *engine.Tensor, _ []tensor.Slice) (*engine.Tensor, error) {
			return nil, unsupported("dtype " + x.DType.String())
		}
	}
	return f
}

func sliceValues[T conformtest.Element](x *engine.Tensor, ranges []tensor.Slice) (*engine.Tensor, error) {
	in, err := conformtest.Values[T](x)
	if err != nil {
		return nil, err
	}
	shape, out, err := denseSlice(x.Shape, in, ranges)
	if err != nil {
		return nil, err
	}
	return conformtest.FromValues(shape, out)
}

func sliceStrings(x *engine.Tensor, ranges []tensor.Slice, scalar bool) (*engine.Tensor, error) {
	in, err := conformtest.Strings(x)
	if err != nil {
		return nil, err
	}
	shape, out, err := denseSlice(x.Shape, in, ranges)
	if err != nil {
		return nil, err
	}
	dt := x.DType
	if scalar && len(out) == 1 {
		dt.BigEndian = false
		if dt.Size = max(1, len(out[0])); dt.Kind == engine.Unicode {
			dt.Size = 4 * max(1, utf8.RuneCountInString(out[0]))
		}
	}
	return conformtest.FromStrings(dt, shape, out)
}

// denseSlice is the code under test: it slices a Dense of shape holding
// values and returns the shape and the row-major values of the view.
// gorgonia's errors have no types; a wrong number of ranges and a zero
// step are invalid specs, the rest out of range.
func denseSlice[T any](shape []int, values []T, ranges []tensor.Slice) ([]int, []T, error) {
	d := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(values))
	v, err := d.Slice(ranges...)
	if err != nil {
		kind := engine.OutOfRange
		if msg := err.Error(); strings.Contains(msg, "Dimension mismatch") || strings.Contains(msg, "0 steps") {
			kind = engine.InvalidSpec
		}
		return nil, nil, engine.Errorf(kind, "gorgonia: %v", err)
	}
	m := v.(*tensor.Dense).Materialize().(*tensor.Dense)
	switch data := m.Data().(type) {
	case T: // a scalar
		return []int{}, []T{data}, nil
	case []T:
		return m.Shape(), data, nil
	}
	return nil, nil, fmt.Errorf("gorgonia returned %T", m.Data())
}

func unsupported(what string) error {
	return fmt.Errorf("gorgonia's Dense.Slice cannot express %s: %w", what, errors.ErrUnsupported)
}
