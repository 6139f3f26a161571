package engine

import "encoding/binary"

// GetItemPlan normalises a NumPy basic index (NumPy 1.24 semantics) over an
// input of the given shape into a Plan. Checks run in NumPy's order: at
// most one ellipsis and no item it refuses (IndexInvalid), in item order;
// not more integers and slices than dimensions; at most MaxRank output
// dimensions; then each item in order (integer bounds, slice bounds that
// are not integers, zero slice step).
func GetItemPlan(shape []int, items []IndexItem) (*Plan, error) {
	return getItemPlan(shape, items, 0)
}

// getItemPlan is GetItemPlan under the variants rules, TF's encoding of
// x[...] as a strided_slice read as TFLite does: ExtraEntriesIgnored and
// EllipsisCoversOneDim change how items are matched to dimensions,
// ShrinkIndexClamped the integer index check.
func getItemPlan(shape []int, items []IndexItem, rules Rules) (*Plan, error) {
	rank := len(shape)
	consumed, newAxes, ellipses := 0, 0, 0
	// NumPy's pass over the items, in order: a second ellipsis and an
	// item it refuses (IndexInvalid) stop it.
	for _, it := range items {
		switch it.Kind {
		case IndexInt, IndexSlice:
			consumed++
		case IndexNewAxis:
			newAxes++
		case IndexEllipsis:
			if ellipses++; ellipses > 1 {
				return nil, Errorf(InvalidSpec, "an index can only have a single ellipsis ('...')")
			}
		case IndexInvalid:
			return nil, it.Err
		default:
			return nil, Errorf(InvalidSpec, "unknown index item kind %d", it.Kind)
		}
	}
	// Under EllipsisCoversOneDim an ellipsis where the other items
	// consume every dimension takes one, and the last item that consumes
	// a dimension falls off the end. Under ExtraEntriesIgnored items that
	// consume a dimension past the last one are ignored.
	widen := rules.Has(EllipsisCoversOneDim) && ellipses == 1 && consumed >= rank
	drop := widen || rules.Has(ExtraEntriesIgnored)
	if consumed > rank && !rules.Has(ExtraEntriesIgnored) {
		return nil, Errorf(InvalidSpec, "too many indices for array: array is %d-dimensional, but %d were indexed", rank, consumed)
	}
	ints := 0
	for _, it := range items {
		if it.Kind == IndexInt {
			ints++
		}
	}
	if !drop {
		if err := checkOutputRank(rank - ints + newAxes); err != nil {
			return nil, err
		}
	}

	plan := &Plan{Fixed: make([]int, rank), Axes: make([]PlanAxis, 0, max(rank-ints+newAxes, 0)+1)}
	axis := 0
	emptyFixed := -1 // a dimension of size 0 that a clamped integer index took
	full := func(n int) {
		for ; n > 0; n-- {
			plan.Axes = append(plan.Axes, PlanAxis{Input: axis, Step: 1, Count: shape[axis]})
			axis++
		}
	}
	for _, it := range items {
		switch it.Kind {
		case IndexEllipsis:
			if widen {
				full(min(1, rank-axis))
			} else {
				full(rank - consumed)
			}
		case IndexNewAxis:
			plan.Axes = append(plan.Axes, PlanAxis{Input: NewAxis, Step: 1, Count: 1})
		case IndexInt:
			if axis == rank && drop { // past the last dimension
				continue
			}
			size := int64(shape[axis])
			pos, inBounds := resolveIndex(it.Index, size, rules)
			if !inBounds {
				return nil, Errorf(OutOfRange, "index %d is out of bounds for axis %d with size %d", it.Index, axis, size)
			}
			if size == 0 {
				emptyFixed = axis // clamped into an empty dimension
			}
			plan.Fixed[axis] = int(pos)
			axis++
		case IndexSlice:
			if axis == rank && drop { // past the last dimension
				continue
			}
			if it.Err != nil {
				return nil, it.Err // a bound that is not an integer
			}
			step := int64(1)
			if it.HasStep {
				step = it.Step
			}
			if step == 0 {
				return nil, Errorf(InvalidSpec, "slice step cannot be zero (axis %d)", axis)
			}
			start, count := canonicalRange(int64(shape[axis]), it.Start, it.Stop, step, !it.HasStart, !it.HasStop)
			plan.Axes = append(plan.Axes, PlanAxis{Input: axis, Start: int(start), Step: int(step), Count: int(count)})
			axis++
		}
	}
	full(rank - axis)
	if drop {
		if err := checkOutputRank(len(plan.Axes)); err != nil {
			return nil, err
		}
	}
	if emptyFixed >= 0 && NumElements(plan.OutputShape()) > 0 {
		return nil, Errorf(OutOfRange, "axis %d is empty: an integer index has no element to be clamped to (variant %s)", emptyFixed, ShrinkIndexClamped)
	}
	return plan, nil
}

// GetItem evaluates x[items] with NumPy 1.24 indexing semantics and
// returns a C-contiguous tensor: what np.asarray(x[items]) returns. For a
// basic index the result may share memory with x: when its elements are
// one block of x's memory, it is a view of that block, as
// np.ascontiguousarray(x[items]) is (see Plan.Apply). An index with
// IndexArray items (advanced indexing) gives a new tensor (see
// advanced.go); an IndexArray item whose Array is nil (an unbound name)
// is invalid_spec. The dtype is x's, byte order included, except for an
// index that makes NumPy return a scalar (see getItemResult).
func GetItem(x *Tensor, items []IndexItem) (*Tensor, error) {
	return GetItemUnder(x, items, 0)
}

// GetItemUnder is GetItem under the variants r (see Variant).
func GetItemUnder(x *Tensor, items []IndexItem, r Rules) (*Tensor, error) {
	if hasArrays(items) {
		return advancedGetItem(x, items, r)
	}
	p, err := getItemPlan(x.Shape, items, r)
	if err != nil {
		return nil, err
	}
	out, err := p.applyLimited(x)
	if err != nil {
		return nil, err
	}
	return r.finish(getItemResult(x.Rank(), items, out, r))
}

// getItemResult is the one place that decides the dtype of a getitem
// result; out is x[items] as an array of x's dtype. NumPy 1.24 returns a
// NumPy scalar, not an array, when every item is an integer and there is
// one for each of x's dimensions (x[1, 2] on a matrix, x[()] on a 0-d
// array); with an ellipsis, a new axis or a slice anywhere, or fewer
// integers than dimensions, it returns an array (x[1, 2, ...] is a 0-d
// view). np.asarray turns the scalar into a 0-d array of the scalar's
// own dtype:
//   - numbers (i, u, f, c of more than one byte): native byte order, the
//     values byte-swapped from a big-endian input (each half of a complex
//     number on its own); little-endian and one-byte dtypes are unchanged;
//   - S: the bytes without their trailing NULs (np.bytes_), in a dtype
//     S<n> of exactly that length, at least S1 (an empty string is one
//     NUL byte);
//   - U: likewise the code points without trailing NULs (np.str_), in a
//     native-order U<n>, at least U1.
//
// Native means little-endian, the byte order of every machine conform
// runs on (ParseDType reads '=' the same way). Every other result is out
// unchanged, keeping x's dtype and byte order.
//
// Under the variant InputByteOrder every result keeps x's dtype.
func getItemResult(rank int, items []IndexItem, out *Tensor, r Rules) *Tensor {
	if len(items) != rank || r.Has(InputByteOrder) {
		return out
	}
	for _, it := range items {
		if it.Kind != IndexInt {
			return out
		}
	}
	dt := out.DType
	b := out.Bytes()
	switch dt.Kind {
	case Bytes:
		n := len(b)
		for n > 0 && b[n-1] == 0 {
			n--
		}
		data := make([]byte, max(n, 1))
		copy(data, b[:n])
		return &Tensor{DType: DType{Kind: Bytes, Size: len(data)}, Shape: []int{}, Strides: []int{}, Data: data}
	case Unicode:
		n := len(b) / 4
		for n > 0 && unicodeChar(b, n-1, dt.BigEndian) == 0 {
			n--
		}
		data := make([]byte, 4*max(n, 1))
		for i := 0; i < n; i++ {
			binary.LittleEndian.PutUint32(data[4*i:], unicodeChar(b, i, dt.BigEndian))
		}
		return &Tensor{DType: DType{Kind: Unicode, Size: len(data)}, Shape: []int{}, Strides: []int{}, Data: data}
	}
	if !dt.BigEndian || !dt.HasByteOrder() {
		return out
	}
	part := dt.Size
	if dt.Kind == Complex {
		part /= 2 // real and imaginary parts are swapped separately
	}
	data := make([]byte, len(b))
	for i := 0; i < len(b); i += part {
		for k := 0; k < part; k++ {
			data[i+k] = b[i+part-1-k]
		}
	}
	dt.BigEndian = false
	return &Tensor{DType: dt, Shape: []int{}, Strides: []int{}, Data: data}
}

// unicodeChar returns code unit i of the UCS-4 string b.
func unicodeChar(b []byte, i int, bigEndian bool) uint32 {
	if bigEndian {
		return binary.BigEndian.Uint32(b[4*i:])
	}
	return binary.LittleEndian.Uint32(b[4*i:])
}
