package engine

import (
	"encoding/binary"
	"slices"
)

// GetItemPlan normalises a NumPy basic index (NumPy 1.24 semantics) over an
// input of the given shape into a Plan. Checks run in NumPy's order: at
// most one ellipsis and no item it refuses (IndexInvalid), in item order;
// not more integers and slices than dimensions; at most MaxRank output
// dimensions; then each item in order (integer bounds, slice bounds that
// are not integers, zero slice step).
func GetItemPlan(shape []int, items []IndexItem) (*Plan, error) {
	return getItemPlan(shape, items, Rules{}, nil)
}

// getItemPlan is GetItemPlan under the variants rules, TF's encoding of
// x[...] as a strided_slice read as TFLite does: ExtraEntriesIgnored and
// EllipsisCoversOneDim change how items are matched to dimensions,
// ShrinkIndexClamped the integer index check, NegativeStepRefused the
// slice step check. fromBool, if not nil, marks the integer items that
// are a Python True/False read as 1/0 (the variant BoolAsInteger), whose
// bounds are that variant's rule.
func getItemPlan(shape []int, items []IndexItem, rules Rules, fromBool []bool) (*Plan, error) {
	rank := len(shape)
	n, err := countItems(items)
	if err != nil {
		return nil, err
	}
	// Under EllipsisCoversOneDim an ellipsis where the other items
	// consume every dimension takes one, and the last item that consumes
	// a dimension falls off the end. Under ExtraEntriesIgnored items that
	// consume a dimension past the last one are ignored.
	widen := rules.Has(EllipsisCoversOneDim) && n.ellipses == 1 && n.consumed >= rank
	drop := widen || rules.Has(ExtraEntriesIgnored)
	if n.consumed > rank && !rules.Has(ExtraEntriesIgnored) {
		return nil, RuleGetItemTooManyIndices.Errorf("too many indices for array: array is %d-dimensional, but %d were indexed", rank, n.consumed)
	}
	if !drop {
		if err := checkOutputRank(rank - n.ints + n.newAxes); err != nil {
			return nil, err
		}
	}
	b := basicPlanner{
		shape: shape, rules: rules, widen: widen, drop: drop, consumed: n.consumed, emptyFixed: -1,
		plan: newPlan(rank, max(rank-n.ints+n.newAxes, 0)+1),
	}
	for i, it := range items {
		if err := b.add(it, fromBool != nil && fromBool[i]); err != nil {
			return nil, err
		}
	}
	if t := rules.Trace; t != nil {
		t.addIf(n.ellipses == 0 && b.axis < rank, RuleGetItemImplicitEllipsis)
	}
	b.full(rank - b.axis)
	if drop {
		if err := checkOutputRank(len(b.plan.Axes)); err != nil {
			return nil, err
		}
	}
	if b.emptyFixed >= 0 && NumElements(b.plan.OutputShape()) > 0 {
		return nil, RuleShrinkClampedEmpty.Errorf("axis %d is empty: an integer index has no element to be clamped to (variant %s)", b.emptyFixed, ShrinkIndexClamped)
	}
	return b.plan, nil
}

// itemCounts counts the items of a basic index by what they do.
type itemCounts struct {
	consumed int // integers and slices: the dimensions they consume
	ints     int // integers
	newAxes  int
	ellipses int
}

// countItems is NumPy's pass over the items, in order: a second ellipsis
// (invalid_spec) and an item it refuses (IndexInvalid) stop it.
func countItems(items []IndexItem) (itemCounts, error) {
	var n itemCounts
	for _, it := range items {
		switch it.Kind {
		case IndexInt:
			n.consumed++
			n.ints++
		case IndexSlice:
			n.consumed++
		case IndexNewAxis:
			n.newAxes++
		case IndexEllipsis:
			if n.ellipses++; n.ellipses > 1 {
				return n, RuleGetItemTwoEllipses.Errorf("an index can only have a single ellipsis ('...')")
			}
		case IndexInvalid:
			return n, it.Err
		default:
			return n, RuleGetItemUnknownItem.Errorf("unknown index item kind %d", it.Kind)
		}
	}
	return n, nil
}

// basicPlanner builds the Plan of a basic index item by item: axis is the
// next dimension of the input, emptyFixed a dimension of size 0 that a
// clamped integer index took (-1 if none).
type basicPlanner struct {
	shape       []int
	rules       Rules
	widen, drop bool // see getItemPlan
	consumed    int
	plan        *Plan
	axis        int
	emptyFixed  int
}

// full adds the next n dimensions of the input, whole.
func (b *basicPlanner) full(n int) {
	for ; n > 0; n-- {
		b.plan.Axes = append(b.plan.Axes, PlanAxis{Input: b.axis, Step: 1, Count: b.shape[b.axis]})
		b.axis++
	}
}

// add adds one item: an integer or a slice consumes the next dimension
// (ignored past the last one under drop), an ellipsis the dimensions no
// other item consumes (one under widen). fromBool marks an integer that
// is a Python bool read as 1/0 (BoolAsInteger).
func (b *basicPlanner) add(it IndexItem, fromBool bool) error {
	rank := len(b.shape)
	switch it.Kind {
	case IndexEllipsis:
		b.rules.Trace.add(RuleGetItemEllipsis)
		if b.widen {
			b.full(min(1, rank-b.axis))
		} else {
			b.rules.Trace.addIf(rank == b.consumed, RuleGetItemEllipsisNoDims)
			b.full(rank - b.consumed)
		}
	case IndexNewAxis:
		b.rules.Trace.add(RuleGetItemNewAxis)
		b.plan.Axes = append(b.plan.Axes, PlanAxis{Input: NewAxis, Step: 1, Count: 1})
	case IndexInt:
		if b.axis == rank && b.drop { // past the last dimension
			return nil
		}
		size := int64(b.shape[b.axis])
		pos, inBounds := resolveIndex(it.Index, size, b.rules)
		if !inBounds {
			return indexOutOfBounds(it.Index, b.axis, size, fromBool)
		}
		if size == 0 {
			b.emptyFixed = b.axis // clamped into an empty dimension
		}
		if t := b.rules.Trace; t != nil {
			t.add(RuleGetItemIntegerIndex)
			t.addIf(it.Index < 0, RuleGetItemNegativeIndex)
		}
		b.plan.Fixed[b.axis] = int(pos)
		b.axis++
	case IndexSlice:
		if b.axis == rank && b.drop { // past the last dimension
			return nil
		}
		step, err := sliceStep(it, b.axis, b.rules)
		if err != nil {
			return err
		}
		start, count := canonicalRange(int64(b.shape[b.axis]), it.Start, it.Stop, step, !it.HasStart, !it.HasStop)
		if b.rules.Trace != nil {
			b.rules.Trace.traceRange(getItemRanges, int64(b.shape[b.axis]), it.Start, it.Stop, step, !it.HasStart, !it.HasStop, count)
		}
		b.plan.Axes = append(b.plan.Axes, PlanAxis{Input: b.axis, Start: int(start), Step: int(step), Count: int(count)})
		b.axis++
	}
	return nil
}

// indexOutOfBounds is the error of an integer index out of bounds for
// axis of the given size: the variant BoolAsInteger's own rule when the
// integer is a Python bool read as 1/0 (fromBool).
func indexOutOfBounds(index int64, axis int, size int64, fromBool bool) error {
	if fromBool {
		return RuleBoolAsIntegerOut.Errorf("index %d (a bool read as an integer) is out of bounds for axis %d with size %d (variant %s)", index, axis, size, BoolAsInteger)
	}
	return RuleGetItemIndexOutOfBounds.Errorf("index %d is out of bounds for axis %d with size %d", index, axis, size)
}

// sliceStep returns the step of slice item it on axis (1 if it has none),
// or its error (a bound that is not an integer), or invalid_spec for a
// zero step, or under NegativeStepRefused for a negative one.
func sliceStep(it IndexItem, axis int, rules Rules) (int64, error) {
	if it.Err != nil {
		return 0, it.Err
	}
	step := int64(1)
	if it.HasStep {
		step = it.Step
	}
	if step == 0 {
		return 0, RuleGetItemZeroStep.Errorf("slice step cannot be zero (axis %d)", axis)
	}
	if step < 0 && rules.Has(NegativeStepRefused) {
		return 0, RuleNegativeStepRefused.Errorf("slice step %d is negative (axis %d): refused (variant %s)", step, axis, NegativeStepRefused)
	}
	return step, nil
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
	return GetItemUnder(x, items, Rules{})
}

// GetItemUnder is GetItem under the variants r (see Variant).
func GetItemUnder(x *Tensor, items []IndexItem, r Rules) (*Tensor, error) {
	r.Trace.traceGetItemCount(items, x.Rank())
	if hasArrays(items) {
		return advancedGetItem(x, items, r)
	}
	return basicGetItem(x, items, r, nil)
}

// basicGetItem is GetItemUnder for items with no array; fromBool is as for
// getItemPlan.
func basicGetItem(x *Tensor, items []IndexItem, r Rules, fromBool []bool) (*Tensor, error) {
	p, err := getItemPlan(x.Shape, items, r, fromBool)
	if err != nil {
		return nil, err
	}
	out, err := p.applyLimited(x, r.outputLimit())
	if err != nil {
		return nil, err
	}
	if r.Trace != nil && len(items) == x.Rank() && !r.Has(InputByteOrder) && !slices.ContainsFunc(items, func(it IndexItem) bool { return it.Kind != IndexInt }) {
		r.Trace.add(RuleGetItemScalarResult)
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
//   - bool: np.True_ or np.False_, so a byte other than 0 and 1 (which a
//     .npy file may hold; NumPy reads it as true) becomes 1.
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
	case Bool:
		if b[0] > 1 {
			// np.True_: a .npy byte other than 0 and 1 is true, and the
			// scalar NumPy makes of it holds 1.
			return &Tensor{DType: dt, Shape: []int{}, Strides: []int{}, Data: []byte{1}}
		}
		return out
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
