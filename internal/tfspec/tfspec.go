// Package tfspec reads slicing cases the way TensorFlow encodes them and
// names the features of a spec on which TensorFlow Lite's kernels
// (strided_slice.cc, slice.cc) depart from TF.
//
// It is kept only for what the engine cannot answer. Where the engine
// owns the rule — the error it raises under the reference rules
// (several ellipses, a shrink axis with a negative stride, a shrink index
// out of range, gather_nd rows from empty params), or a rule variant of
// the engine (engine.Variants) that models TFLite's rule — the golden
// corpus's divergence classes (internal/golden) ask the engine instead.
// The classes use this package for the rest, which no rule of the
// engine decides: extra indices in a spec the engine refuses for another
// fault first (a zero stride: the engine's error names that rule, and
// its trace does not record checks that passed), a shrink axis with
// begin_mask (TF ignores the bit there; no rule of the engine's table
// names it), and SLICE's unchecked negative begin (the engine's rule
// slice/begin-out-of-range covers a negative begin and one past the
// dimension alike), int32 overflow of begin + size, and the negative
// dimension of size -1 past the end, which are TFLite's arithmetic, not
// rules of the reference.
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

// Entry is one entry of a strided slice spec.
type Entry struct {
	Kind               byte
	Begin, End, Stride int64
	// BeginMasked is the entry's begin_mask bit (an omitted start in
	// getitem).
	BeginMasked bool
}

// Strided is a strided_slice case, or a getitem case in TF's encoding
// (_slice_helper in tensorflow/python/ops/array_ops.py), in sparse form:
// one entry per spec position.
type Strided struct {
	Op      string
	Entries []Entry
	Shape   []int // the input's
	// NEnd and NStrides are the lengths of end and strides (strided_slice;
	// NStrides is -1 when strides is absent). A getitem spec has them
	// equal to len(Entries).
	NEnd, NStrides int
	// Masks are strided_slice's begin, end, ellipsis, new axis and shrink
	// masks (none for getitem).
	Masks []engine.Mask
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
	s = Strided{Op: c.Op, Shape: c.Inputs["x"].Shape}
	switch c.Op {
	case casefile.OpStridedSlice:
		sp := c.Spec.(engine.StridedSliceSpec)
		s.NEnd, s.NStrides = len(sp.End), -1
		if sp.Strides != nil {
			s.NStrides = len(sp.Strides)
		}
		s.Masks = []engine.Mask{sp.BeginMask, sp.EndMask, sp.EllipsisMask, sp.NewAxisMask, sp.ShrinkAxisMask}
		for i := range sp.Begin {
			e := Entry{Kind: Range, Begin: sp.Begin[i], Stride: 1, BeginMasked: sp.BeginMask.Has(i)}
			if i < len(sp.End) {
				e.End = sp.End[i]
			}
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
				e = Entry{Kind: Shrink, Begin: it.Index, End: it.Index + 1, Stride: 1}
			default:
				e.Begin, e.End, e.BeginMasked = it.Start, it.Stop, !it.HasStart
				if it.HasStep {
					e.Stride = it.Step
				}
			}
			s.Entries = append(s.Entries, e)
		}
		s.NEnd, s.NStrides = len(s.Entries), len(s.Entries)
	}
	return s, true
}

// Rank is the input's rank.
func (s Strided) Rank() int { return len(s.Shape) }

// Ellipses counts the ellipsis entries.
func (s Strided) Ellipses() int {
	n := 0
	for _, e := range s.Entries {
		if e.Kind == Ellipsis {
			n++
		}
	}
	return n
}

// Consuming counts the entries that consume an input dimension (ranges
// and shrinks).
func (s Strided) Consuming() int {
	n := 0
	for _, e := range s.Entries {
		if e.Kind == Range || e.Kind == Shrink {
			n++
		}
	}
	return n
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

// ExtraIndices reports whether more entries consume a dimension than the
// input has.
func (s Strided) ExtraIndices() bool { return s.Consuming() > s.Rank() }

// TooLong reports whether the spec has more entries than TF allows.
func (s Strided) TooLong() bool { return len(s.Entries) > engine.MaxSpecLength }

// ShrinkDim is a shrink entry with the input dimension it indexes in TF's
// sparse-to-dense expansion.
type ShrinkDim struct {
	Entry
	Dim int64 // the dimension's size
}

// Shrinks returns the shrink entries with their dimensions; ok is false
// when TF does not expand the spec (lengths differ, several ellipses,
// more consuming entries than dimensions). Entries before the ellipsis
// (or all of them, without one) index the dimensions from the first on,
// entries after it the last ones.
func (s Strided) Shrinks() (shrinks []ShrinkDim, ok bool) {
	n := len(s.Entries)
	if s.NEnd != n || (s.NStrides >= 0 && s.NStrides != n) || s.Ellipses() > 1 || s.ExtraIndices() {
		return nil, false
	}
	ell := n
	for i, e := range s.Entries {
		if e.Kind == Ellipsis {
			ell = i
		}
	}
	dim := 0
	for i, e := range s.Entries {
		if i == ell {
			dim = s.Rank()
			for _, after := range s.Entries[i+1:] {
				if after.Kind == Range || after.Kind == Shrink {
					dim--
				}
			}
		}
		if e.Kind != Range && e.Kind != Shrink {
			continue
		}
		if e.Kind == Shrink {
			shrinks = append(shrinks, ShrinkDim{Entry: e, Dim: int64(s.Shape[dim])})
		}
		dim++
	}
	return shrinks, true
}

// shrinkAny reports whether a shrink entry (in a spec TF expands) has
// property f.
func (s Strided) shrinkAny(f func(ShrinkDim) bool) bool {
	shrinks, _ := s.Shrinks()
	for _, d := range shrinks {
		if f(d) {
			return true
		}
	}
	return false
}

// ShrinkBeginMasked reports whether a shrink entry has its begin_mask bit
// set (TF ignores it there; TFLite starts the axis at its first element).
func (s Strided) ShrinkBeginMasked() bool {
	return s.shrinkAny(func(d ShrinkDim) bool { return d.BeginMasked })
}

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

// NegativeBegin reports whether a begin value is negative (SLICE does not
// check begin).
func (s Slice) NegativeBegin() bool {
	for _, b := range s.Begin {
		if b < 0 {
			return true
		}
	}
	return false
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
