package engine

import "slices"

// This file holds NumPy's take and take_along_axis (NumPy 1.24), on the
// gather core of gather.go.

// TakeMode is what np.take does with an index outside the axis.
type TakeMode string

// The modes of np.take.
const (
	TakeRaise TakeMode = "raise" // out_of_range; negative indices count from the end
	TakeWrap  TakeMode = "wrap"  // the index is taken modulo the axis size
	TakeClip  TakeMode = "clip"  // the index is clamped into [0, n-1]
)

// TakeSpec is the spec of np.take: the axis (negative counting from the
// end), or Flatten for axis=None (take from the flattened input, Axis
// ignored), and the mode; the zero Mode is TakeRaise, NumPy's default.
type TakeSpec struct {
	Axis    int
	Flatten bool
	Mode    TakeMode
}

// TakeAlongAxisSpec is the spec of np.take_along_axis: the axis (negative
// counting from the end), or Flatten for axis=None (take from the
// flattened arr with 1-D indices, Axis ignored).
type TakeAlongAxisSpec struct {
	Axis    int
	Flatten bool
}

// Take evaluates np.take(a, indices, axis, mode) of NumPy 1.24 and returns
// a new C-contiguous tensor of shape a.shape[:axis] + indices.shape +
// a.shape[axis+1:]: the slices of a along the axis that the indices name.
// With Flatten, a is taken as the 1-D array of its elements in row-major
// order; a 0-d a is taken as the 1-D array of its one element.
//
// Checks, in NumPy's order:
//  1. the mode must be raise (or empty), wrap or clip: invalid_spec;
//  2. the axis must be in [-r, r) for the rank r of a (1 for a 0-d a): invalid_spec;
//  3. indices must cast safely to intp: bool and the integer types up to
//     32 bits, and int64, in either byte order; uint64 (whatever its
//     values, also when empty) and every other dtype are invalid_spec
//     (NumPy's TypeError), except 0-d uint64 indices, which NumPy casts by
//     their value: one within int64 is taken, a larger one is
//     invalid_spec;
//  4. the result has at most MaxRank dimensions and fits the output
//     limit: invalid_spec;
//  5. a non-empty result from an axis of size 0 is out_of_range in every
//     mode (NumPy's "cannot do a non-empty take from an empty axes");
//  6. in raise mode, each index must be in [-n, n) for the axis size n, a
//     negative one counting from the end; otherwise out_of_range. The
//     indices are checked whenever a.shape[:axis] has elements, also
//     when the slices they select are empty (NumPy loops over the outer
//     positions and checks each index there); an index into an empty
//     outer part is not checked.
//
// In wrap mode an index i selects position i mod n (in [0, n)); in clip
// mode min(max(i, 0), n-1). Bool indices are 0 and 1.
//
// A 0-d result (0-d indices taken from a 1-D or flattened a) is NumPy's
// scalar, which np.asarray turns into a 0-d array of the scalar's dtype:
// numbers in native byte order, strings without their trailing NULs (see
// getItemResult); under the variant InputByteOrder it keeps a's dtype.
//
// Where NumPy does not terminate, conform decides: wrap mode on an axis of
// size 0 with an empty result (a.shape[axis+1:] empty) returns the empty
// result, as clip mode does (NumPy loops forever subtracting 0); and an
// index far outside [0, n) wraps by its remainder (NumPy adds or subtracts
// n in a loop, which for indices near INT64_MIN or INT64_MAX does not end
// in practice).
func Take(a, indices *Tensor, spec TakeSpec) (*Tensor, error) {
	return TakeUnder(a, indices, spec, Rules{})
}

// TakeUnder is Take under the variants r (see Variant).
func TakeUnder(a, indices *Tensor, spec TakeSpec, r Rules) (*Tensor, error) {
	var rule indexRule
	switch spec.Mode {
	case TakeRaise, "":
		rule = indexNegativeWrap
	case TakeWrap:
		rule = indexModulo
	case TakeClip:
		rule = indexClip
	default:
		return nil, RuleTakeMode.Errorf("clipmode must be one of 'clip', 'raise', or 'wrap' (got %q)", spec.Mode)
	}
	shape, axis := a.Shape, 0
	switch {
	case spec.Flatten:
		shape = []int{a.Len()}
	default:
		if len(shape) == 0 {
			shape = []int{1}
		}
		nd := len(shape)
		axis = spec.Axis
		if axis < -nd || axis >= nd {
			return nil, RuleTakeAxis.Errorf("axis %d is out of bounds for array of dimension %d", spec.Axis, nd)
		}
		if axis < 0 {
			axis += nd
		}
	}
	switch dt := indices.DType; {
	case dt.Kind == Bool, dt.Kind == Int, dt.Kind == Uint && dt.Size < 8:
	case dt.Kind == Uint && indices.Rank() == 0 && indexAt(indices.Contiguous(), 0) >= 0:
		// NumPy casts a 0-d index by its value: a uint64 within int64
		// passes.
	default:
		return nil, RuleTakeIndexDType.Errorf("cannot cast indices of dtype %v to int64 according to the rule 'safe'", dt)
	}
	if err := takeVariantRefuses(a, indices, spec, r); err != nil {
		return nil, err
	}
	// Under NegativeIndicesRefused (along an axis of an input of rank 1
	// or more, in raise mode) a negative index names no position.
	refuseNegative := rule == indexNegativeWrap && !spec.Flatten && a.Rank() > 0 && r.Has(NegativeIndicesRefused)
	if refuseNegative {
		rule = indexNoNegatives
	}
	outShape := append(append(append([]int{}, shape[:axis]...), indices.Shape...), shape[axis+1:]...)
	if err := checkResultShape("take", outShape, a.DType.Size, r.outputLimit()); err != nil {
		return nil, err
	}
	if t := r.Trace; t != nil {
		t.addIf(spec.Flatten, RuleTakeFlattened)
		t.addIf(!spec.Flatten && a.Rank() == 0, RuleTake0DInput)
		t.addIf(!spec.Flatten && spec.Axis != 0, RuleTakeAxisNonZero)
		t.addIf(spec.Mode == TakeWrap, RuleTakeWrap)
		t.addIf(spec.Mode == TakeClip, RuleTakeClip)
		t.addIf(indices.DType.Kind == Bool, RuleTakeBoolIndices)
		t.addIf(len(outShape) == 0, RuleTakeScalarResult)
		t.addIf(NumElements(outShape) == 0 && rule == indexNegativeWrap && NumElements(shape[:axis]) > 0 && indices.Len() > 0, RuleTakeEmptyChecked)
		t.traceNegative(indices, RuleTakeNegativeIndex)
		t.traceNarrow(indices, RuleTakeNarrow)
		t.addIf(indices.Rank() == 0, RuleTake0DIndices)
		t.addIf(indices.Rank() >= 2, RuleTakeNDIndices)
	}
	n := shape[axis]
	empty := NumElements(outShape) == 0
	if n == 0 && !empty {
		return nil, RuleTakeEmptyAxis.Errorf("cannot do a non-empty take from an empty axes")
	}
	outer := NumElements(shape[:axis])
	if empty {
		if rule == indexNegativeWrap && outer > 0 {
			if bad := firstBadIndex(indices.Contiguous(), n, rule); bad >= 0 {
				return nil, takeOutOfBounds(readInt(indices.Contiguous(), bad), axis, n, refuseNegative)
			}
		}
		return r.finish(newResult(a.DType, outShape))
	}
	// The blocks are a.shape[axis+1:], or single elements when a is
	// flattened or 0-d.
	split := a.Rank()
	if !spec.Flatten && split > 0 {
		split = axis + 1
	}
	g := &axisGather{
		src:        newGatherSource(a, split),
		indices:    indices.Contiguous(),
		outShape:   outShape,
		batch:      1,
		outer:      outer,
		m:          indices.Len(),
		n:          n,
		blockBytes: NumElements(shape[axis+1:]) * a.DType.Size,
		rule:       rule,
	}
	out, bad := g.run(true)
	if bad >= 0 {
		return nil, takeOutOfBounds(readInt(g.indices, bad), axis, n, refuseNegative)
	}
	if len(outShape) == 0 {
		// NumPy's scalar: as x[()] of the 0-d result.
		out = getItemResult(0, nil, out, r)
	}
	return r.finish(out)
}

// takeVariantRefuses returns the error of the variants of r that refuse
// take's indices whatever their values, or nil: an integer dtype
// PyTorch's torch.take (int64) or, along an axis, torch.index_select
// (int32, int64) does not take (Int64IndicesOnly; bool indices, which
// PyTorch refuses too and Dask reads as a mask, are left to the
// reference); 0-d indices
// (ZeroDIndexArrayRefused); non-empty indices of 2 or more dimensions
// (NDIndexArrayRefused). Along an axis of a 0-d a, none applies (both
// libraries fail otherwise there: PyTorch's index_select ignores the
// indices, Dask refuses the axis).
func takeVariantRefuses(a, indices *Tensor, spec TakeSpec, r Rules) error {
	dt := indices.DType
	switch {
	case !spec.Flatten && a.Rank() == 0:
		return nil
	case r.Has(Int64IndicesOnly) && dt.Kind != Bool && !(dt.Kind == Int && (dt.Size == 8 || dt.Size == 4 && !spec.Flatten)):
		return RuleInt64IndicesOnly.Errorf("indices of dtype %v: only int64 (int32 along an axis) are taken (variant %s)", dt, Int64IndicesOnly)
	case r.Has(ZeroDIndexArrayRefused) && indices.Rank() == 0:
		return Rule0DIndexArrayRefused.Errorf("0-d indices: refused (variant %s)", ZeroDIndexArrayRefused)
	case r.Has(NDIndexArrayRefused) && indices.Rank() >= 2 && indices.Len() > 0:
		return RuleNDIndexArrayRefused.Errorf("indices of %d dimensions: at most 1 is supported (variant %s)", indices.Rank(), NDIndexArrayRefused)
	}
	return nil
}

// takeOutOfBounds is the error of take's index out of bounds for the axis
// of size n: the variant NegativeIndicesRefused's own rule for a negative
// index the reference would count from the end (refuseNegative says the
// variant applies).
func takeOutOfBounds(index int64, axis, n int, refuseNegative bool) error {
	if refuseNegative && index < 0 && index >= -int64(n) {
		return RuleNegativeIndexOut.Errorf("index %d is negative: out of bounds for axis %d with size %d (variant %s)", index, axis, n, NegativeIndicesRefused)
	}
	return RuleTakeOutOfBounds.Errorf("index %d is out of bounds for axis %d with size %d", index, axis, n)
}

// TakeAlongAxis evaluates np.take_along_axis(arr, indices, axis) of NumPy
// 1.24 and returns a new C-contiguous tensor: out[p] = arr[p with p[axis]
// replaced by indices[p]], indices and arr broadcast against each other on
// every dimension but the axis. Its shape is, along the axis,
// indices.shape[axis], and elsewhere the broadcast of the two dimensions.
// With Flatten (axis=None), arr is taken as the 1-D array of its elements
// in row-major order and indices must be 1-D.
//
// Checks, in NumPy's order:
//  1. without Flatten, the axis must be in [-r, r) for r = rank(arr) (a
//     0-d arr has no axis): invalid_spec;
//  2. indices must have an integer dtype, either byte order (bool and the
//     rest: invalid_spec, NumPy's "`indices` must be an integer array");
//  3. indices must have the rank of arr (1 with Flatten): invalid_spec;
//  4. on every dimension but the axis, the two sizes must be equal or one
//     of them 1: invalid_spec (NumPy's broadcast error);
//  5. arr has fewer than 32 dimensions (NumPy's index iterator takes at
//     most 31 index arrays when they cover every dimension: IndexError
//     "the number of index arrays cannot be above 31"), also for an empty
//     result: invalid_spec;
//  6. the result fits the output limit: invalid_spec;
//  7. when the result is not empty, every index must be in [-n, n) for the
//     axis size n, a negative one counting from the end: otherwise
//     out_of_range. An empty result checks no index (NumPy's fancy
//     indexing iterates over nothing).
//
// Unsigned indices beyond int64 are cast to intp as NumPy 1.24 casts them:
// 2**64-1 reads as -1, the last position.
func TakeAlongAxis(arr, indices *Tensor, spec TakeAlongAxisSpec) (*Tensor, error) {
	return TakeAlongAxisUnder(arr, indices, spec, Rules{})
}

// TakeAlongAxisUnder is TakeAlongAxis under the variants r (see Variant).
func TakeAlongAxisUnder(arr, indices *Tensor, spec TakeAlongAxisSpec, r Rules) (*Tensor, error) {
	shape, axis := arr.Shape, 0
	if spec.Flatten {
		shape = []int{arr.Len()}
	} else {
		nd := arr.Rank()
		axis = spec.Axis
		if axis < -nd || axis >= nd {
			return nil, RuleTakeAlongAxis.Errorf("axis %d is out of bounds for array of dimension %d", spec.Axis, nd)
		}
		if axis < 0 {
			axis += nd
		}
	}
	if !indices.DType.IsInteger() {
		return nil, RuleTakeAlongIndexDType.Errorf("`indices` must be an integer array, got dtype %v", indices.DType)
	}
	if r.Has(Int64IndicesOnly) && !(indices.DType.Kind == Int && indices.DType.Size == 8) {
		return nil, RuleInt64IndicesOnly.Errorf("indices of dtype %v: only int64 is taken (variant %s)", indices.DType, Int64IndicesOnly)
	}
	if indices.DType.Kind == Uint && indices.DType.Size == 8 {
		r.Trace.add(RuleTakeAlongUint64)
		// NumPy casts uint64 indices to intp: a value beyond int64 reads
		// as a negative position (2**64-1 is -1).
		asInt := *indices
		asInt.DType.Kind = Int
		indices = &asInt
	}
	rank := len(shape)
	if indices.Rank() != rank {
		return nil, RuleTakeAlongRank.Errorf("`indices` and `arr` must have the same number of dimensions, got %d and %d", indices.Rank(), rank)
	}
	outShape := make([]int, rank)
	for d := range rank {
		n, m := shape[d], indices.Shape[d]
		switch {
		case d == axis, n == 1:
			outShape[d] = m
		case m == 1 || m == n:
			outShape[d] = n
		default:
			return nil, RuleTakeAlongBroadcast.Errorf("shape mismatch: indices of shape %v do not broadcast against arr of shape %v outside axis %d", indices.Shape, shape, axis)
		}
	}
	// NumPy indexes arr with one index array per dimension, leaving no
	// subspace: a 32-dimensional arr is too many index arrays, even for an
	// empty result.
	if err := checkIndexIterator(rank, true, RuleTakeAlongTooManyDims); err != nil {
		return nil, err
	}
	if err := checkResultShape("take_along_axis", outShape, arr.DType.Size, r.outputLimit()); err != nil {
		return nil, err
	}
	if t := r.Trace; t != nil {
		t.addIf(spec.Flatten, RuleTakeAlongFlattened)
		t.addIf(!spec.Flatten && spec.Axis != 0, RuleTakeAlongAxisNonZero)
		t.traceNarrow(indices, RuleTakeAlongNarrow)
		t.addIf(!slices.Equal(outShape, indices.Shape) || !slices.Equal(outShape[:axis], shape[:axis]) || !slices.Equal(outShape[axis+1:], shape[axis+1:]), RuleTakeAlongBroadcasts)
		if NumElements(outShape) == 0 {
			t.addIf(indices.Len() > 0, RuleTakeAlongEmptyResult)
		} else {
			t.traceNegative(indices, RuleTakeAlongNegativeIndex)
		}
	}
	if NumElements(outShape) == 0 {
		return r.finish(newResult(arr.DType, outShape))
	}
	rule := indexNegativeWrap
	if r.Has(NegativeIndicesRefused) {
		rule = indexNoNegatives
	}
	g := newElemGather(arr, shape, indices, outShape, axis, rule)
	out, bad := g.run()
	if bad >= 0 {
		index := readInt(g.indices, g.indexOf(bad))
		if rule == indexNoNegatives && index < 0 && index >= -int64(g.n) {
			return nil, RuleNegativeIndexOut.Errorf("index %d is negative: out of bounds for axis %d with size %d (variant %s)", index, axis, g.n, NegativeIndicesRefused)
		}
		return nil, RuleTakeAlongOutOfBounds.Errorf("index %d is out of bounds for axis %d with size %d", index, axis, g.n)
	}
	return r.finish(out)
}
