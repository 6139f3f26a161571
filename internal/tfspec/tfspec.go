// Package tfspec reads slicing cases the way TensorFlow encodes them and
// names the features of a spec on which TensorFlow Lite's kernels
// (strided_slice.cc, slice.cc) depart from TF where no rule of the
// engine decides.
//
// It is kept only for what the engine cannot answer. Where the engine
// owns the rule — the error it raises under the reference rules, a
// feature its trace records (engine.Trace: more entries than dimensions,
// begin_mask on a shrink axis, a negative slice begin), or a rule
// variant of the engine (engine.Variants) that models TFLite's rule —
// the golden corpus's divergence classes (internal/golden) and the
// TFLite oracle's test ask the engine instead. What is left here is
// TFLite's own reading of its operands and its arithmetic, which are not
// rules of the reference: strides longer than begin (TFLite reads only
// as many as begin has), a zero stride (TFLite checks every stride in
// Prepare, before TF's checks dimension by dimension), a spec of more
// than 31 entries (not checked), and SLICE's int32 overflow of
// begin + size and the negative dimension of size -1 past the end.
package tfspec

import (
	"math"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

// Entry kinds, by TF's priority on one position: ellipsis > new axis >
// shrink > range.
const (
	Range    = 'r'
	Shrink   = 's'
	NewAxis  = 'n'
	Ellipsis = 'e'
)

// Entry is one entry of a strided slice spec: its kind and stride.
type Entry struct {
	Kind   byte
	Stride int64
}

// Strided is a strided_slice case, or a getitem case in TF's encoding
// (_slice_helper in tensorflow/python/ops/array_ops.py), in sparse form:
// one entry per spec position.
type Strided struct {
	Op      string
	Entries []Entry
	// NStrides is the length of strides (strided_slice; -1 when strides
	// is absent). A getitem spec has it equal to len(Entries).
	NStrides int
}

// ReadStrided reads a strided_slice or getitem case; ok is false for
// other ops and for cases that do not parse (a getitem subscript the
// parser refuses, or one holding a literal NumPy refuses).
func ReadStrided(c *casefile.Case) (s Strided, ok bool) {
	if c.Err != nil {
		return Strided{}, false
	}
	if c.Op != casefile.OpStridedSlice && c.Op != casefile.OpGetItem {
		return Strided{}, false
	}
	s = Strided{Op: c.Op}
	switch c.Op {
	case casefile.OpStridedSlice:
		sp := c.Spec.(engine.StridedSliceSpec)
		s.NStrides = -1
		if sp.Strides != nil {
			s.NStrides = len(sp.Strides)
		}
		for i := range sp.Begin {
			e := Entry{Kind: Range, Stride: 1}
			if i < len(sp.Strides) {
				e.Stride = sp.Strides[i]
			}
			switch {
			case sp.EllipsisMask.Has(i):
				e.Kind = Ellipsis
			case sp.NewAxisMask.Has(i):
				e.Kind = NewAxis
			case sp.ShrinkAxisMask.Has(i):
				e.Kind = Shrink
			}
			s.Entries = append(s.Entries, e)
		}
	case casefile.OpGetItem:
		spec := c.Spec.(engine.GetItemSpec)
		if spec.ParseErr != nil || engine.Refused(spec.Items) != nil {
			return Strided{}, false
		}
		for _, it := range spec.Items {
			e := Entry{Kind: Range, Stride: 1}
			switch it.Kind {
			case engine.IndexEllipsis:
				e.Kind = Ellipsis
			case engine.IndexNewAxis:
				e.Kind = NewAxis
			case engine.IndexInt:
				e.Kind = Shrink
			default:
				if it.HasStep {
					e.Stride = it.Step
				}
			}
			s.Entries = append(s.Entries, e)
		}
		s.NStrides = len(s.Entries)
	}
	return s, true
}

// ZeroStride reports whether a range or shrink entry has stride 0.
func (s Strided) ZeroStride() bool {
	for _, e := range s.Entries {
		if (e.Kind == Range || e.Kind == Shrink) && e.Stride == 0 {
			return true
		}
	}
	return false
}

// StridesLonger reports whether a strided_slice has more strides than
// begin entries (TFLite reads only as many as begin has).
func (s Strided) StridesLonger() bool {
	return s.Op == casefile.OpStridedSlice && s.NStrides > len(s.Entries)
}

// TooLong reports whether the spec has more entries than TF allows.
func (s Strided) TooLong() bool { return len(s.Entries) > engine.MaxSpecLength }

// Slice is a slice case: begin, size and the input shape.
type Slice struct {
	Begin, Size []int64
	Shape       []int
}

// ReadSlice reads a slice case; ok is false for other ops.
func ReadSlice(c *casefile.Case) (s Slice, ok bool) {
	if c.Err != nil || c.Op != casefile.OpSlice {
		return Slice{}, false
	}
	spec := c.Spec.(engine.SliceSpec)
	return Slice{Begin: spec.Begin, Size: spec.Size, Shape: c.Inputs["x"].Shape}, true
}

// BeginSizeOverflow reports whether begin + size of one dimension, both
// int32, overflows int32 (and so passes SLICE's check begin + size <= d).
func (s Slice) BeginSizeOverflow() bool {
	for i, b := range s.Begin {
		if i < len(s.Size) && s.Size[i] >= 0 && b <= math.MaxInt32 && b+s.Size[i] > math.MaxInt32 {
			return true
		}
	}
	return false
}

// NegativeDim reports whether a dimension has size -1 and begin beyond
// the dimension d: SLICE computes its size as d - begin < 0 and checks
// only that the output's byte count is not negative.
func (s Slice) NegativeDim() bool {
	for i, b := range s.Begin {
		if i < len(s.Size) && i < len(s.Shape) && s.Size[i] == -1 && b > int64(s.Shape[i]) {
			return true
		}
	}
	return false
}
