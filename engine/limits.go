package engine

import (
	"math"
	"math/bits"
)

// DefaultOutputLimit is the default largest result of any op: 1 GiB (see
// Rules.OutputLimit).
const DefaultOutputLimit = 1 << 30

// ShapeFits is NumPy's rule for the shape of any array it creates
// (PyArray_NewFromDescr_int in NumPy 1.24): no dimension is negative, and
// the item size times the product of the dimensions that are not 0 is at
// most the largest int, even when a dimension is 0. NumPy refuses a larger
// array with "array is too big; `arr.size * arr.dtype.itemsize` is larger
// than the maximum possible size" (a ValueError: invalid_spec for an op,
// bad_input for a .npy file). Every result shape of the engine's ops and
// every .npy file conform reads or writes follows it.
func ShapeFits(shape []int, itemSize int) bool {
	if itemSize <= 0 {
		return false
	}
	size := itemSize
	for _, d := range shape {
		switch {
		case d < 0:
			return false
		case d == 0:
			continue
		case size > math.MaxInt/d:
			return false
		}
		size *= d
	}
	return true
}

// checkOutputSize refuses a result shape that NumPy cannot create (see
// ShapeFits) or that is over the output limit of limit bytes
// (invalid_spec).
func checkOutputSize(shape []int, itemSize int, limit int64) error {
	if !ShapeFits(shape, itemSize) {
		return RuleArrayTooBig.Errorf("array is too big: the result shape %v of %d-byte elements is larger than the maximum possible size", shape, itemSize)
	}
	n := NumElements(shape)
	if n < 0 || (n > 0 && int64(n) > limit/int64(itemSize)) {
		return RuleOutputLimit.Errorf("the result (shape %v of %d-byte elements) exceeds the output limit of %d bytes", shape, itemSize, limit)
	}
	return nil
}

// applyLimited materialises the plan over x after checking the size of
// the result against the output limit of limit bytes.
func (p *Plan) applyLimited(x *Tensor, limit int64) (*Tensor, error) {
	// The common case, a non-empty result within the limit, is decided
	// without building the output shape.
	n := 1
	for _, a := range p.Axes {
		hi, lo := bits.Mul64(uint64(n), uint64(a.Count))
		if hi != 0 || lo > math.MaxInt {
			n = -1
			break
		}
		n = int(lo)
	}
	if n <= 0 || int64(n) > limit/int64(x.DType.Size) {
		if err := checkOutputSize(p.OutputShape(), x.DType.Size, limit); err != nil {
			return nil, err
		}
	}
	return p.Apply(x), nil
}

// checkIndexIterator applies the limits of NumPy 1.24's index iterator
// (PyArray_MapIterNew in mapping.c) to n index arrays: at most MaxRank,
// and at most MaxRank-1 when no subspace is given (noSubspace: the
// dimensions no index array covers hold one element; "when no subspace is
// given, the number of index arrays cannot be above 31"): invalid_spec.
// Advanced getitem and take_along_axis (which indexes every dimension of
// arr with an index array) are both bound by it; noSubspaceRule is the
// rule the op raises for the second limit.
func checkIndexIterator(n int, noSubspace bool, noSubspaceRule RuleID) error {
	if n > MaxRank {
		return RuleGetItemTooManyIndexArrays.Errorf("too many advanced (array) indices: %d, at most %d", n, MaxRank)
	}
	if n > MaxRank-1 && noSubspace {
		return noSubspaceRule.Errorf("when no subspace is given, the number of index arrays cannot be above %d, but %d index arrays found", MaxRank-1, n)
	}
	return nil
}
