package engine

import (
	"encoding/binary"
	"math/bits"
	"slices"
	"sort"
	"sync/atomic"
)

// Advanced indexing: getitem with IndexArray items, NumPy 1.24's
// x[idx] for integer and boolean arrays. The evaluation follows NumPy's
// steps and their order of errors:
//
//  1. prepare (NumPy's prepare_index), item by item: an array of another
//     dtype than integer or bool is invalid_spec; a 0-d integer array is
//     an integer (a uint64 beyond int64 is NumPy's OverflowError, here
//     out_of_range); a 0-d boolean adds a dimension of size 1 (True) or 0
//     (False) and uses no dimension of x; a boolean array with as many
//     dimensions as x and x's shape, when it is the only item, selects
//     the elements where it is true (a 1-d result); any other boolean
//     array stands for its nonzero() arrays, one per dimension it covers.
//     Then: more dimensions used than x has is invalid_spec; with a new
//     axis or an array, a result of more than MaxRank dimensions (counted
//     as NumPy counts them: slices, new axes and ellipsis dimensions plus
//     the largest index array rank) is invalid_spec; a boolean array
//     whose shape differs from the dimensions it covers is invalid_spec,
//     except on its dimensions of size 0, which NumPy does not check.
//  2. the view of the basic items, in item order: an integer out of
//     bounds is out_of_range (whatever the arrays), a zero slice step
//     invalid_spec.
//  3. the index arrays broadcast together (a 0-d False broadcasts only
//     against a last dimension of 1 or less): a mismatch is invalid_spec.
//     Then NumPy's index iterator refuses more than 32 index arrays
//     (each nonzero() array and each 0-d boolean counts), or 32 when the
//     basic items leave one element per grid position (invalid_spec,
//     even for an empty result).
//  4. the engine's output limit (invalid_spec).
//  5. unless the result is empty, every value of every integer array must
//     be in [-d, d) for the dimension d it indexes (out_of_range); a
//     negative value counts from the end. NumPy checks no index of an
//     empty result (it warns when only the non-indexed dimensions are
//     empty). Unsigned values are read as NumPy casts them to intp: a
//     uint64 beyond int64 is negative.
//
// Integer scalars among arrays count as arrays for the placement of the
// broadcast dimensions: if the arrays (and integers) are adjacent items
// the broadcast dimensions replace them in place, otherwise (separated
// by a slice, an ellipsis, even one that covers no dimension, or a new
// axis) they come first. A result is a new C-contiguous tensor of x's
// dtype, byte order included.

// advKind is the kind of a prepared index entry.
type advKind int

const (
	advInt      advKind = iota // an integer (also a 0-d integer array)
	advSlice                   // a slice
	advNewAxis                 // a new axis
	advEllipsis                // an ellipsis covering dims dimensions
	advArray                   // an integer array of rank >= 1
	advMask                    // a boolean array covering dims dimensions
	advBool0                   // a 0-d boolean
)

// advEntry is one prepared index entry.
type advEntry struct {
	kind  advKind
	item  IndexItem // the item of an integer or a slice
	index int64     // the value of an integer
	arr   *Tensor   // the array of advArray; the C-contiguous mask of advMask
	dims  int       // dimensions covered by advEllipsis and advMask
	truth bool      // the value of advBool0
	// The nonzero count of a mask, and its running count per chunk of
	// maskChunk elements (see countMask).
	count  int
	prefix []int
	// whole marks NumPy's single boolean index (a mask of x's shape as
	// the only item), which NumPy evaluates without its index iterator.
	whole bool
	// fromBool marks an advInt that is a Python True/False read as 1/0
	// (the variant BoolAsInteger).
	fromBool bool
}

// hasArrays reports whether items has an IndexArray item.
func hasArrays(items []IndexItem) bool {
	for _, it := range items {
		if it.Kind == IndexArray {
			return true
		}
	}
	return false
}

// advancedGetItem is GetItemUnder for an index with IndexArray items.
func advancedGetItem(x *Tensor, items []IndexItem, r Rules) (*Tensor, error) {
	r.Trace.traceIndexItems(items)
	entries, fancy, err := prepareAdvanced(x, items, r)
	if err != nil {
		return nil, err
	}
	if !fancy {
		// Only 0-d integer arrays (or, under BoolAsInteger, Python
		// bools): a basic index, as NumPy treats it (its result is a
		// copy of the same elements).
		basic := make([]IndexItem, 0, len(entries))
		var fromBool []bool
		for i, e := range entries {
			if e.fromBool {
				if fromBool == nil {
					fromBool = make([]bool, len(entries))
				}
				fromBool[i] = true
			}
			switch e.kind {
			case advInt:
				basic = append(basic, IndexItem{Kind: IndexInt, Index: e.index})
			case advEllipsis:
				basic = append(basic, IndexItem{Kind: IndexEllipsis})
			default:
				basic = append(basic, e.item)
			}
		}
		if fromBool == nil {
			r.Trace.add(RuleGetItem0DIntArray)
		}
		return basicGetItem(x, basic, r, fromBool)
	}
	p, err := planAdvanced(x, entries, r)
	if err != nil {
		return nil, err
	}
	if r.Trace != nil {
		traceAdvanced(r.Trace, x, items, entries, p)
	}
	out, err := p.run()
	if err != nil {
		return nil, err
	}
	return r.finish(out)
}

// prepareAdvanced is NumPy's prepare_index: it classifies the items into
// entries (an implicit trailing ellipsis included) and makes the checks
// of step 1. fancy reports whether any entry is an array (advArray,
// advMask, advBool0). Under the variants r it reads Python bools as
// integers (BoolAsInteger) and refuses index arrays the variants refuse
// (see addArray and OneIndexArrayOnly).
func prepareAdvanced(x *Tensor, items []IndexItem, r Rules) (entries []advEntry, fancy bool, err error) {
	p := advPrep{ellipsis: -1, rules: r}
	for _, it := range items {
		if len(p.entries) > 2*MaxRank {
			return nil, false, RuleGetItemTooManyItems.Errorf("too many indices for array")
		}
		if it.Kind == IndexArray && len(items) == 1 && isWholeMask(it.Array, x) {
			// NumPy's single boolean index: the elements where it is
			// true, in a 1-d result.
			e := newMaskEntry(it.Array)
			e.whole = true
			return []advEntry{e}, true, nil
		}
		if err := p.add(it); err != nil {
			return nil, false, err
		}
	}
	if err := p.fillEllipsis(x.Rank()); err != nil {
		return nil, false, err
	}
	if r.Has(OneIndexArrayOnly) {
		if n := countIndexArrays(p.entries); n > 1 {
			return nil, false, RuleOneIndexArrayOnly.Errorf("%d index arrays in one subscript: at most one is supported (variant %s)", n, OneIndexArrayOnly)
		}
	}
	if !p.fancy {
		return p.entries, false, nil
	}
	if n := p.newDims + p.fancyDims; n > MaxRank {
		return nil, false, RuleResultRank.Errorf("number of dimensions must be within [0, %d], indexing result would have %d", MaxRank, n)
	}
	if err := checkMaskShapes(x, p.entries); err != nil {
		return nil, false, err
	}
	return p.entries, true, nil
}

// advPrep is the state of prepareAdvanced: the entries so far, the
// dimensions of x they use, the result dimensions of the basic items
// (newDims) and the largest array rank (fancyDims), as NumPy counts them,
// the ellipsis' entry (-1 if none), and whether an entry is an array.
type advPrep struct {
	entries                  []advEntry
	used, newDims, fancyDims int
	ellipsis                 int
	fancy                    bool
	rules                    Rules
	boolInts                 int // Python bools read as integers (BoolAsInteger)
}

// countIndexArrays returns the number of index arrays of rank >= 1
// (integer arrays and masks) among entries.
func countIndexArrays(entries []advEntry) int {
	n := 0
	for _, e := range entries {
		if e.kind == advArray || e.kind == advMask {
			n++
		}
	}
	return n
}

// add classifies one item.
func (p *advPrep) add(it IndexItem) error {
	switch it.Kind {
	case IndexEllipsis:
		if p.ellipsis >= 0 {
			return RuleGetItemTwoEllipses.Errorf("an index can only have a single ellipsis ('...')")
		}
		p.ellipsis = len(p.entries)
		p.entries = append(p.entries, advEntry{kind: advEllipsis})
	case IndexNewAxis:
		p.newDims++
		p.entries = append(p.entries, advEntry{kind: advNewAxis, item: it})
	case IndexSlice:
		p.used++
		p.newDims++
		p.entries = append(p.entries, advEntry{kind: advSlice, item: it})
	case IndexInt:
		p.used++
		p.entries = append(p.entries, advEntry{kind: advInt, index: it.Index})
	case IndexArray:
		return p.addArray(it)
	case IndexInvalid:
		return it.Err
	default:
		return RuleGetItemUnknownItem.Errorf("unknown index item kind %d", it.Kind)
	}
	return nil
}

// addArray classifies an index array: a boolean array is a 0-d boolean
// or a mask, a 0-d integer array an integer, any other integer array an
// array; an array of another dtype (or a name bound to no input) is
// invalid_spec. Under the variants: a Python bool (a 0-d boolean written
// inline) is the integer 1 or 0 (BoolAsInteger); a 0-d array input is
// refused (ZeroDIndexArrayRefused), as are integer arrays of a dtype
// PyTorch does not take (Int64IndicesOnly) and non-empty integer arrays
// of 2 or more dimensions (NDIndexArrayRefused).
func (p *advPrep) addArray(it IndexItem) error {
	a := it.Array
	if a == nil {
		return RuleGetItemUnboundArray.Errorf("the index array %q has no value: its name is not bound to an input", it.Name)
	}
	switch {
	case a.DType.Kind == Bool:
		if a.Rank() == 0 && it.Name == "" && p.rules.Has(BoolAsInteger) {
			p.used++
			p.boolInts++
			p.entries = append(p.entries, advEntry{kind: advInt, index: int64(b2i(a.Bytes()[0] != 0)), fromBool: true})
			return nil
		}
		if a.Rank() == 0 && it.Name != "" && p.rules.Has(ZeroDIndexArrayRefused) {
			return Rule0DIndexArrayRefused.Errorf("the index array %s is 0-d: refused (variant %s)", arrayName(it), ZeroDIndexArrayRefused)
		}
		p.fancy = true
		p.fancyDims = max(p.fancyDims, 1)
		if a.Rank() == 0 {
			p.entries = append(p.entries, advEntry{kind: advBool0, truth: a.Bytes()[0] != 0})
			return nil
		}
		if len(p.entries)+a.Rank() >= 2*MaxRank {
			return RuleGetItemTooManyItems.Errorf("too many indices for array")
		}
		p.used += a.Rank()
		p.entries = append(p.entries, newMaskEntry(a))
	case a.DType.IsInteger():
		if err := p.variantRefuses(it); err != nil {
			return err
		}
		if a.Rank() == 0 {
			var v [1]int64
			readInts(v[:], a.Data, a.Offset, 0, a.DType)
			if a.DType.Kind == Uint && v[0] < 0 {
				return RuleGetItem0DOverflow.Errorf("0-d index array %s holds a value beyond int64 (NumPy: OverflowError)", arrayName(it))
			}
			p.used++
			p.entries = append(p.entries, advEntry{kind: advInt, index: v[0]})
			return nil
		}
		p.fancy = true
		p.fancyDims = max(p.fancyDims, a.Rank())
		p.used++
		p.entries = append(p.entries, advEntry{kind: advArray, arr: a})
	default:
		return RuleGetItemArrayDType.Errorf("arrays used as indices must be of integer (or boolean) type; %s has dtype %v", arrayName(it), a.DType)
	}
	return nil
}

// variantRefuses returns the error of the variants of p.rules that refuse
// the integer index array of it, or nil.
func (p *advPrep) variantRefuses(it IndexItem) error {
	a := it.Array
	switch {
	case p.rules.Has(Int64IndicesOnly) && !(a.DType.Kind == Int && a.DType.Size == 8) && !(a.DType.Kind == Uint && a.DType.Size == 1):
		return RuleInt64IndicesOnly.Errorf("the index array %s has dtype %v: only int64 (or uint8, bool) indices are taken (variant %s)", arrayName(it), a.DType, Int64IndicesOnly)
	case p.rules.Has(ZeroDIndexArrayRefused) && a.Rank() == 0:
		return Rule0DIndexArrayRefused.Errorf("the index array %s is 0-d: refused (variant %s)", arrayName(it), ZeroDIndexArrayRefused)
	case p.rules.Has(NDIndexArrayRefused) && a.Rank() >= 2 && a.Len() > 0:
		return RuleNDIndexArrayRefused.Errorf("the index array %s has %d dimensions: at most 1 is supported (variant %s)", arrayName(it), a.Rank(), NDIndexArrayRefused)
	}
	return nil
}

// isWholeMask reports whether a is a boolean array of x's shape, which as
// the only item is NumPy's single boolean index.
func isWholeMask(a, x *Tensor) bool {
	return a != nil && a.DType.Kind == Bool && slices.Equal(a.Shape, x.Shape)
}

// fillEllipsis gives the dimensions of x of the given rank that no item
// uses to the ellipsis, or to an implicit one at the end; more dimensions
// used than x has is invalid_spec (under BoolAsInteger, the variant's
// own error where only the bools read as integers use too many).
func (p *advPrep) fillEllipsis(rank int) error {
	switch {
	case p.used > rank && p.used-p.boolInts <= rank:
		return RuleBoolAsIntegerTooMany.Errorf("too many indices for array: array is %d-dimensional, but %d were indexed, %d of them bools read as integers (variant %s)", rank, p.used, p.boolInts, BoolAsInteger)
	case p.used > rank:
		return RuleGetItemTooManyIndices.Errorf("too many indices for array: array is %d-dimensional, but %d were indexed", rank, p.used)
	case p.used < rank && p.ellipsis >= 0:
		p.entries[p.ellipsis].dims = rank - p.used
		p.newDims += rank - p.used
	case p.used < rank:
		p.entries = append(p.entries, advEntry{kind: advEllipsis, dims: rank - p.used})
		p.newDims += rank - p.used
	}
	return nil
}

// checkMaskShapes checks that each mask has the shape of the dimensions
// of x it covers (invalid_spec), except on its dimensions of size 0.
func checkMaskShapes(x *Tensor, entries []advEntry) error {
	axis := 0
	for _, e := range entries {
		switch e.kind {
		case advMask:
			for k, d := range e.arr.Shape {
				// NumPy checks only the mask's dimensions that are
				// not empty: a mask of shape (0,) is an empty index
				// on a dimension of any size.
				if d != 0 && d != x.Shape[axis+k] {
					return RuleGetItemBoolShape.Errorf("boolean index did not match indexed array along dimension %d; dimension is %d but corresponding boolean dimension is %d", axis+k, x.Shape[axis+k], d)
				}
			}
			axis += e.dims
		case advEllipsis:
			axis += e.dims
		case advInt, advSlice, advArray:
			axis++
		}
	}
	return nil
}

// arrayName names an index array in messages.
func arrayName(it IndexItem) string {
	if it.Name != "" {
		return "'" + it.Name + "'"
	}
	return "an inline array"
}

// newMaskEntry prepares the boolean array a as a mask: C-contiguous,
// with its nonzero count.
func newMaskEntry(a *Tensor) advEntry {
	m := a.Contiguous()
	prefix := countMask(m.Data)
	return advEntry{kind: advMask, arr: m, dims: a.Rank(), count: prefix[len(prefix)-1], prefix: prefix}
}

// maskChunk is the number of mask elements per entry of a mask's running
// count, from which a walk can start anywhere in the mask.
const maskChunk = 1 << 16

// countMask returns the running count of the nonzero bytes of mask per
// chunk of maskChunk bytes: prefix[c] is the count in the chunks before
// chunk c, and the last entry the total.
func countMask(mask []byte) []int {
	chunks := (len(mask) + maskChunk - 1) / maskChunk
	prefix := make([]int, chunks+1)
	parallelFor(chunks, 0, len(mask), func(lo, hi int) {
		for c := lo; c < hi; c++ {
			prefix[c+1] = countNonzero(mask[c*maskChunk : min((c+1)*maskChunk, len(mask))])
		}
	})
	for c := 1; c <= chunks; c++ {
		prefix[c] += prefix[c-1]
	}
	return prefix
}

// countNonzero returns the number of nonzero bytes of b.
func countNonzero(b []byte) int {
	n, i := 0, 0
	for ; i+8 <= len(b); i += 8 {
		w := binary.LittleEndian.Uint64(b[i : i+8 : i+8])
		if w == 0 {
			continue
		}
		// Fold each byte onto its lowest bit.
		w |= w >> 4
		w |= w >> 2
		w |= w >> 1
		n += bits.OnesCount64(w & 0x0101010101010101)
	}
	for ; i < len(b); i++ {
		if b[i] != 0 {
			n++
		}
	}
	return n
}

// advDim is a dimension of the result that is not a broadcast one: its
// size and its stride in x (0 for a new axis).
type advDim struct {
	count, stride int
}

// advPlan is a validated advanced index: the result is, in row-major
// order, pre x grid x post, where pre and post are the result dimensions
// of the basic items before and after the broadcast dimensions (grid).
// Row (p, g) is the block of post elements at byte offset base + the
// offset of p + the offset of grid position g in x.
type advPlan struct {
	x         *Tensor
	base      int
	pre, post []advDim
	grid      []int
	outShape  []int
	arrays    []arraySource // the integer arrays
	masks     []*advEntry   // the masks, when they are not the only array
	masksXs   [][]int       // and the x strides of their dimensions
	mask      *advEntry     // the mask, when it is the only array
	maskAxes  []int         // the x strides of the mask's dimensions
	gridSize  int
	rows      int
	rowBytes  int
	checkArgs []arraySource // the integer arrays to bounds-check
	walk      *walkPlan     // the walk over arrays and masks, made by run
	gridOffs  []int         // the offsets of all grid positions, when run makes them once for many rows
	separated bool          // the arrays are separated: the broadcast dimensions go first
}

// arraySource is an integer index array read in place: its values at a
// grid position are at byte off0 + sum(idx[d] * strides[d]) of data.
type arraySource struct {
	data    []byte
	dt      DType
	off0    int
	strides []int // per grid dimension, 0 where the array is broadcast
	xStride int   // the stride of the indexed dimension of x
	dim     int   // and its size
	t       *Tensor
}

// planAdvanced makes steps 2 to 4 over the prepared entries (at least
// one of them an array), under the variants r.
func planAdvanced(x *Tensor, entries []advEntry, r Rules) (*advPlan, error) {
	limit := r.outputLimit()
	p := &advPlan{x: x, base: x.Offset}
	// Step 2: the view of the basic items, in item order, and where the
	// broadcast dimensions go.
	dims, insert, fancies, err := p.view(entries, r)
	if err != nil {
		return nil, err
	}
	// Step 3: broadcast, then the limits of NumPy's index iterator.
	grid, err := broadcastFancies(fancies)
	if err != nil {
		return nil, err
	}
	if err := checkIndexIterator(iteratorArrays(fancies), oneElement(dims), RuleGetItemNoSubspaceArrays); err != nil {
		return nil, err
	}
	p.grid = grid
	p.pre, p.post = dims[:insert], dims[insert:]
	p.outShape = advOutShape(p.pre, grid, p.post)

	// Step 4: the output limit.
	if err := checkOutputSize(p.outShape, x.DType.Size, limit); err != nil {
		return nil, err
	}
	nd := len(grid)
	p.gridSize = NumElements(grid)
	p.rows = NumElements(p.outShape[:len(p.pre)+nd])
	p.rowBytes = NumElements(p.outShape[len(p.pre)+nd:]) * x.DType.Size
	if p.rows*p.rowBytes == 0 {
		return p, nil // nothing to read or check
	}
	p.addSources(fancies)
	return p, nil
}

// advFancy is an array entry (an integer array, a mask or a 0-d
// boolean) and the first dimension of x it indexes.
type advFancy struct {
	e    *advEntry
	axis int
}

// view makes step 2: it moves p.base by the integers and the slices'
// starts, in item order (an integer out of bounds is out_of_range, a zero
// slice step invalid_spec), and returns the result dimensions of the
// basic items, the index in them where the broadcast dimensions go (0
// when the arrays are separated), and the array entries with their axes.
// Under IntegersBesideArraysBasic the integers take no part in where the
// broadcast dimensions go; under NegativeStepRefused a negative step is
// refused.
func (p *advPlan) view(entries []advEntry, r Rules) (dims []advDim, insert int, fancies []advFancy, err error) {
	x := p.x
	var place broadcastPlace
	basicInts := r.Has(IntegersBesideArraysBasic)
	axis := 0
	for i := range entries {
		e := &entries[i]
		if e.kind != advInt || !basicInts {
			place.see(e.kind, len(dims))
		}
		switch e.kind {
		case advInt:
			off, err := intOffset(x, axis, e.index, e.fromBool)
			if err != nil {
				return nil, 0, nil, err
			}
			p.base += off
			axis++
		case advSlice:
			d, off, err := sliceDim(x, axis, e.item, r)
			if err != nil {
				return nil, 0, nil, err
			}
			p.base += off
			dims = append(dims, d)
			axis++
		case advNewAxis:
			dims = append(dims, advDim{count: 1})
		case advEllipsis:
			for k := 0; k < e.dims; k++ {
				dims = append(dims, advDim{count: x.Shape[axis], stride: x.Strides[axis]})
				axis++
			}
		case advArray:
			fancies = append(fancies, advFancy{e, axis})
			axis++
		case advMask:
			fancies = append(fancies, advFancy{e, axis})
			axis += e.dims
		case advBool0:
			fancies = append(fancies, advFancy{e, axis})
		}
	}
	p.separated = place.status == 3
	return dims, place.insert(), fancies, nil
}

// traceAdvanced records into t the rules of advanced indexing that the
// items over x exercise, prepared as entries and planned as p: the kinds
// of index arrays, their broadcast, where their dimensions go, the
// values left unchecked in an empty result, and the basic items' rules.
func traceAdvanced(t *Trace, x *Tensor, items []IndexItem, entries []advEntry, p *advPlan) {
	var first []int
	hasArrays, unchecked := false, NumElements(p.outShape) == 0
	for _, it := range items {
		switch {
		case it.Kind == IndexArray && it.Array != nil && it.Array.DType.IsInteger() && it.Array.Rank() == 0:
			t.add(RuleGetItem0DIntArray)
			t.add(RuleGetItemIntAmongArrays)
		case it.Kind == IndexInt:
			t.add(RuleGetItemIntAmongArrays)
			t.add(RuleGetItemIntegerIndex)
			t.addIf(it.Index < 0, RuleGetItemNegativeIndex)
		case it.Kind == IndexNewAxis:
			t.add(RuleGetItemNewAxis)
		}
	}
	axis := 0
	for _, e := range entries {
		switch e.kind {
		case advArray:
			t.add(RuleGetItemIntArray)
			t.addIf(e.arr.DType.Kind == Uint, RuleGetItemUnsignedArray)
			t.traceNarrow(e.arr, RuleGetItemNarrowArray)
			t.addIf(unchecked && e.arr.Len() > 0, RuleGetItemEmptyUnchecked)
			if !hasArrays {
				first, hasArrays = e.arr.Shape, true
			} else if !slices.Equal(first, e.arr.Shape) {
				t.add(RuleGetItemBroadcast)
			}
			if !unchecked {
				t.traceNegative(e.arr, RuleGetItemNegativeIndex)
			}
			axis++
		case advMask:
			t.add(RuleGetItemBoolArray)
			t.addIf(e.whole, RuleGetItemSingleBool)
			axis += e.dims
		case advEllipsis:
			if e.dims == 0 {
				t.addIf(slices.ContainsFunc(items, func(it IndexItem) bool { return it.Kind == IndexEllipsis }), RuleGetItemEllipsisNoDims)
			} else if !slices.ContainsFunc(items, func(it IndexItem) bool { return it.Kind == IndexEllipsis }) {
				t.add(RuleGetItemImplicitEllipsis)
			}
			axis += e.dims
		case advSlice:
			if step, err := sliceStep(e.item, axis, Rules{}); err == nil {
				d := int64(x.Shape[axis])
				_, count := canonicalRange(d, e.item.Start, e.item.Stop, step, !e.item.HasStart, !e.item.HasStop)
				t.traceRange(getItemRanges, d, e.item.Start, e.item.Stop, step, !e.item.HasStart, !e.item.HasStop, count)
			}
			axis++
		case advInt:
			axis++
		}
	}
	if slices.ContainsFunc(items, func(it IndexItem) bool { return it.Kind == IndexEllipsis }) {
		t.add(RuleGetItemEllipsis)
	}
	switch {
	case p.separated:
		t.add(RuleGetItemSeparatedFirst)
	case len(p.pre)+len(p.post) > 0:
		t.add(RuleGetItemAdjacentInPlace)
	}
}

// broadcastPlace finds where the broadcast dimensions go as view reads
// the entries: in place of the arrays (integers included) when they are
// adjacent, first otherwise.
type broadcastPlace struct {
	at     int // the result dimensions before the first array
	status int // 0 no array yet, 1 in the run of arrays, 2 after it, 3 separated
}

// see notes an entry of kind k read after ndims result dimensions.
func (b *broadcastPlace) see(k advKind, ndims int) {
	fancy := k == advInt || k == advArray || k == advMask || k == advBool0
	switch {
	case fancy && b.status == 0:
		b.at, b.status = ndims, 1
	case fancy && b.status == 2:
		b.status = 3
	case !fancy && b.status == 1:
		b.status = 2
	}
}

// insert returns the index among the basic items' result dimensions
// where the broadcast dimensions go.
func (b *broadcastPlace) insert() int {
	if b.status == 3 {
		return 0
	}
	return b.at
}

// intOffset returns the byte offset in x of index on axis, or
// out_of_range (see indexOutOfBounds for fromBool).
func intOffset(x *Tensor, axis int, index int64, fromBool bool) (int, error) {
	size := int64(x.Shape[axis])
	pos, ok := resolveIndex(index, size, Rules{})
	if !ok {
		return 0, indexOutOfBounds(index, axis, size, fromBool)
	}
	return int(pos) * x.Strides[axis], nil
}

// sliceDim returns the result dimension of slice it on axis of x and the
// byte offset of its start (0 for an empty slice), or the slice's error
// (a bound that is not an integer) or invalid_spec for a zero step (or
// a negative one under NegativeStepRefused).
func sliceDim(x *Tensor, axis int, it IndexItem, r Rules) (advDim, int, error) {
	step, err := sliceStep(it, axis, r)
	if err != nil {
		return advDim{}, 0, err
	}
	start, count := canonicalRange(int64(x.Shape[axis]), it.Start, it.Stop, step, !it.HasStart, !it.HasStop)
	off := 0
	if count > 0 {
		off = int(start) * x.Strides[axis]
	}
	return advDim{count: int(count), stride: int(step) * x.Strides[axis]}, off, nil
}

// broadcastFancies broadcasts the arrays in item order, as NumPy's
// mapiter_fill_info: each integer array by its shape, each mask by its
// nonzero() arrays' shape (count,), a 0-d True as (1,) and a 0-d False as
// (0,), which broadcasts only against a last dimension of 1 or less. It
// returns the broadcast shape (at least 1-d) or invalid_spec.
func broadcastFancies(fancies []advFancy) ([]int, error) {
	nd := 1
	for _, f := range fancies {
		if f.e.kind == advArray {
			nd = max(nd, f.e.arr.Rank())
		}
	}
	grid := make([]int, nd)
	for i := range grid {
		grid[i] = 1
	}
	for _, f := range fancies {
		switch f.e.kind {
		case advArray:
			if !broadcastInto(grid, f.e.arr.Shape) {
				return nil, broadcastMismatch(fancies)
			}
		case advMask:
			if !broadcastInto(grid, []int{f.e.count}) {
				return nil, broadcastMismatch(fancies)
			}
		case advBool0:
			if !f.e.truth && grid[nd-1] > 1 {
				return nil, broadcastMismatch(fancies)
			}
			grid[nd-1] *= b2i(f.e.truth)
		}
	}
	return grid, nil
}

// broadcastInto broadcasts shape (aligned to the right) into grid, or
// reports false if they do not broadcast.
func broadcastInto(grid, shape []int) bool {
	for k := len(shape) - 1; k >= 0; k-- {
		g := len(grid) - len(shape) + k
		if d := shape[k]; d != 1 && d != grid[g] {
			if grid[g] != 1 {
				return false
			}
			grid[g] = d
		}
	}
	return true
}

// broadcastMismatch is the invalid_spec of arrays that do not broadcast,
// naming their shapes as NumPy does.
func broadcastMismatch(fancies []advFancy) error {
	var shapes []string
	for _, f := range fancies {
		switch f.e.kind {
		case advArray:
			shapes = append(shapes, shapeString(f.e.arr.Shape))
		case advMask:
			shapes = append(shapes, shapeString([]int{f.e.count}))
		case advBool0:
			shapes = append(shapes, shapeString([]int{b2i(f.e.truth)}))
		}
	}
	return RuleGetItemBroadcastMismatch.Errorf("shape mismatch: indexing arrays could not be broadcast together with shapes %v", shapes)
}

// iteratorArrays counts the index arrays NumPy's index iterator holds:
// one per integer array and 0-d boolean, one per dimension of a mask
// (its nonzero() arrays), none for the single boolean index.
func iteratorArrays(fancies []advFancy) int {
	n := 0
	for _, f := range fancies {
		switch {
		case f.e.whole:
		case f.e.kind == advMask:
			n += f.e.dims
		default:
			n++
		}
	}
	return n
}

// oneElement reports whether the basic items' result dimensions (NumPy's
// "subspace") hold one element.
func oneElement(dims []advDim) bool {
	for _, d := range dims {
		if d.count != 1 {
			return false
		}
	}
	return true
}

// advOutShape returns the result's shape: pre, grid, post.
func advOutShape(pre []advDim, grid []int, post []advDim) []int {
	out := make([]int, 0, len(pre)+len(grid)+len(post))
	for _, d := range pre {
		out = append(out, d.count)
	}
	out = append(out, grid...)
	for _, d := range post {
		out = append(out, d.count)
	}
	return out
}

// addSources sets the index sources of the grid: the integer arrays and
// the masks, walked in place (see advwalk.go), one mask that is the only
// array by a walk of its own.
func (p *advPlan) addSources(fancies []advFancy) {
	x := p.x
	masks, arrays := 0, 0
	for _, f := range fancies {
		switch f.e.kind {
		case advMask:
			masks++
		case advArray:
			arrays++
		}
	}
	for _, f := range fancies {
		switch f.e.kind {
		case advArray:
			a := f.e.arr
			src := arraySource{data: a.Data, dt: a.DType, off0: a.Offset, strides: broadcastStrides(a.Shape, a.Strides, p.grid), xStride: x.Strides[f.axis], dim: x.Shape[f.axis], t: a}
			p.arrays = append(p.arrays, src)
			p.checkArgs = append(p.checkArgs, src)
		case advMask:
			if masks == 1 && arrays == 0 {
				p.mask = f.e
				p.maskAxes = x.Strides[f.axis : f.axis+f.e.dims]
				continue
			}
			p.masks = append(p.masks, f.e)
			p.masksXs = append(p.masksXs, x.Strides[f.axis:f.axis+f.e.dims])
		}
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// shapeString formats a shape as NumPy does, e.g. "(2,)" or "(2,3)".
func shapeString(shape []int) string {
	s := "("
	for i, d := range shape {
		if i > 0 {
			s += ","
		}
		s += itoa(d)
	}
	if len(shape) == 1 {
		s += ","
	}
	return s + ")"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

// broadcastStrides returns the byte strides of an array of the given
// shape and strides broadcast to grid (aligned to the right): 0 where the
// array has no dimension or a dimension of 1.
func broadcastStrides(shape, strides, grid []int) []int {
	out := make([]int, len(grid))
	for k := range shape {
		g := len(grid) - len(shape) + k
		if shape[k] != 1 {
			out[g] = strides[k]
		}
	}
	return out
}

// run checks the integer arrays' bounds (step 5) and gathers the result.
func (p *advPlan) run() (*Tensor, error) {
	x := p.x
	n := p.rows * p.rowBytes
	out := &Tensor{DType: x.DType, Shape: p.outShape, Strides: ContiguousStrides(p.outShape, x.DType.Size)}
	if n == 0 {
		out.Data = []byte{}
		return out, nil
	}
	for _, s := range p.checkArgs {
		if err := checkBounds(s); err != nil {
			return nil, err
		}
	}
	var steps int
	if p.mask == nil {
		p.walk = newWalkPlan(p.grid, p.arrays, p.masks, p.masksXs, &steps)
	}
	if len(p.pre) > 0 && p.rows > p.gridSize && p.gridSize <= gridOffsMax {
		// The grid repeats for every position of the dimensions
		// before it: its offsets are resolved once.
		w := p.walker()
		offs := make([]int, p.gridSize)
		w.seek(0)
		for k := 0; k < p.gridSize; k += advBatch {
			w.fill(offs[k:min(k+advBatch, p.gridSize)])
		}
		steps += walkerSteps(w)
		p.gridOffs = offs
	}
	advSteps.Add(int64(steps))
	out.Data = newBytes(n)
	own(out)
	post := newLayout(&Tensor{DType: x.DType, Shape: dimCounts(p.post), Strides: dimStrides(p.post), Data: x.Data})
	traffic := n + p.rows*max(p.rowBytes, cacheLine)
	parallelFor(p.rows, n, traffic, func(lo, hi int) {
		p.gather(out.Data, &post, lo, hi)
	})
	return out, nil
}

func dimCounts(d []advDim) []int {
	s := make([]int, len(d))
	for i, a := range d {
		s[i] = a.count
	}
	return s
}

func dimStrides(d []advDim) []int {
	s := make([]int, len(d))
	for i, a := range d {
		s[i] = a.stride
	}
	return s
}

// gridWalker yields the byte offsets in x of consecutive grid positions.
type gridWalker interface {
	// seek moves to grid position g (row-major).
	seek(g int)
	// fill writes the offsets of the next len(offs) positions, which
	// must not run past the end of the grid, and moves past them.
	fill(offs []int)
}

// advBatch is how many rows gather resolves before it copies them.
const advBatch = 256

// gather writes rows lo to hi-1 of the result into out.
func (p *advPlan) gather(out []byte, post *layout, lo, hi int) {
	w := p.walker()
	defer func() { advSteps.Add(int64(walkerSteps(w))) }()
	// The position of row lo: pre index and grid position.
	preIdx := make([]int, len(p.pre))
	preOff := p.base
	q, g := lo/p.gridSize, lo%p.gridSize
	for a := len(p.pre) - 1; a >= 0; a-- {
		preIdx[a] = q % p.pre[a].count
		q /= p.pre[a].count
		preOff += preIdx[a] * p.pre[a].stride
	}
	w.seek(g)
	var offs [advBatch]int
	var pc postCopier
	if len(post.shape) > 0 {
		pc = postCopier{l: post, idx: make([]int, len(post.shape))}
	}
	for r := lo; r < hi; {
		n := min(advBatch, hi-r, p.gridSize-g)
		batch := offs[:n]
		w.fill(batch)
		for k := range batch {
			batch[k] += preOff
		}
		dst := out[r*p.rowBytes : (r+n)*p.rowBytes]
		if len(post.shape) == 0 {
			copyBlocks(dst, p.x.Data, batch, p.rowBytes)
		} else {
			for k, o := range batch {
				pc.copy(dst[k*p.rowBytes:(k+1)*p.rowBytes], o)
			}
		}
		r += n
		g += n
		if g == p.gridSize && r < hi {
			g = 0
			for a := len(p.pre) - 1; a >= 0; a-- {
				preIdx[a]++
				preOff += p.pre[a].stride
				if preIdx[a] < p.pre[a].count {
					break
				}
				preOff -= preIdx[a] * p.pre[a].stride
				preIdx[a] = 0
			}
			w.seek(0)
		}
	}
}

// gridOffsMax is the largest grid whose offsets run resolves once when
// the grid repeats for many rows: 512 KiB of offsets.
const gridOffsMax = 1 << 16

// walker returns a new walker over the grid positions of p.
func (p *advPlan) walker() gridWalker {
	switch {
	case p.gridOffs != nil:
		return &offsetsWalker{offs: p.gridOffs}
	case p.mask != nil:
		return newMaskWalker(p.mask, p.maskAxes)
	default:
		return newLevelWalker(p.walk)
	}
}

// walkerSteps returns the steps w has taken (see advSteps).
func walkerSteps(w gridWalker) int {
	if l, ok := w.(*levelWalker); ok {
		return l.steps
	}
	return 0
}

// offsetsWalker walks grid positions whose offsets are resolved.
type offsetsWalker struct {
	offs []int
	g    int
}

func (w *offsetsWalker) seek(g int) { w.g = g }

func (w *offsetsWalker) fill(offs []int) {
	w.g += copy(offs, w.offs[w.g:])
}

// advSteps counts the steps of the walks over index arrays: index values
// read and read positions moved (see AdvancedSteps in export_test.go).
var advSteps atomic.Int64

// postCopier copies the post dimensions of one row, a strided view of x
// reduced to a layout (l.offset unused), from a given byte offset.
type postCopier struct {
	l   *layout
	idx []int
}

func (c *postCopier) copy(dst []byte, off int) {
	l := c.l
	inner := len(l.shape) - 1
	n, stride := l.shape[inner], l.strides[inner]
	line := n * l.block
	clear(c.idx)
	for p := 0; p < len(dst); p += line {
		copyLine(dst[p:p+line], l.data, off, stride, l.block)
		for a := inner - 1; a >= 0; a-- {
			c.idx[a]++
			off += l.strides[a]
			if c.idx[a] < l.shape[a] {
				break
			}
			off -= c.idx[a] * l.strides[a]
			c.idx[a] = 0
		}
	}
}

// readInts reads len(dst) integers of dtype dt from data, starting at byte
// pos and stride bytes apart, as NumPy casts them to intp: unsigned
// values beyond int64 wrap to negative ones.
func readInts(dst []int64, data []byte, pos, stride int, dt DType) {
	big := dt.BigEndian && dt.Size > 1
	switch {
	case dt.Size == 8 && !big:
		for i := range dst {
			dst[i] = int64(binary.LittleEndian.Uint64(data[pos : pos+8 : pos+8]))
			pos += stride
		}
	case dt.Size == 8:
		for i := range dst {
			dst[i] = int64(binary.BigEndian.Uint64(data[pos : pos+8 : pos+8]))
			pos += stride
		}
	case dt.Size == 4:
		var order binary.ByteOrder = binary.LittleEndian
		if big {
			order = binary.BigEndian
		}
		for i := range dst {
			u := order.Uint32(data[pos : pos+4 : pos+4])
			if dt.Kind == Uint {
				dst[i] = int64(u)
			} else {
				dst[i] = int64(int32(u))
			}
			pos += stride
		}
	case dt.Size == 2:
		var order binary.ByteOrder = binary.LittleEndian
		if big {
			order = binary.BigEndian
		}
		for i := range dst {
			u := order.Uint16(data[pos : pos+2 : pos+2])
			if dt.Kind == Uint {
				dst[i] = int64(u)
			} else {
				dst[i] = int64(int16(u))
			}
			pos += stride
		}
	default: // one byte
		for i := range dst {
			if dt.Kind == Uint {
				dst[i] = int64(data[pos])
			} else {
				dst[i] = int64(int8(data[pos]))
			}
			pos += stride
		}
	}
}

// checkBounds checks every value of the integer array of s against the
// dimension it indexes (step 5): -dim <= v < dim.
func checkBounds(s arraySource) error {
	t := s.t
	rank := t.Rank()
	if t.Len() == 0 {
		return nil
	}
	dim := int64(s.dim)
	var vals [advBatch]int64
	inner := rank - 1
	n, stride := t.Shape[inner], t.Strides[inner]
	idx := make([]int, rank)
	off := t.Offset
	for {
		for j := 0; j < n; j += advBatch {
			m := min(advBatch, n-j)
			readInts(vals[:m], t.Data, off+j*stride, stride, t.DType)
			for _, v := range vals[:m] {
				if v < -dim || v >= dim {
					return RuleGetItemArrayOutOfBounds.Errorf("index %d is out of bounds for axis with size %d", v, dim)
				}
			}
		}
		a := inner - 1
		for ; a >= 0; a-- {
			idx[a]++
			off += t.Strides[a]
			if idx[a] < t.Shape[a] {
				break
			}
			off -= idx[a] * t.Strides[a]
			idx[a] = 0
		}
		if a < 0 {
			return nil
		}
	}
}

// maskWalker walks the true elements of a C-contiguous mask in row-major
// order, the only index array, without materialising their coordinates.
type maskWalker struct {
	mask     []byte
	shape    []int // the mask's shape (a 0-d mask as one element)
	xStrides []int // the strides in x of the dimensions it covers
	prefix   []int
	e        int   // the next element to look at
	idx      []int // its coordinates
	off      int   // its byte offset in x, relative
}

func newMaskWalker(m *advEntry, xStrides []int) *maskWalker {
	w := &maskWalker{mask: m.arr.Data, shape: m.arr.Shape, xStrides: xStrides, prefix: m.prefix}
	if len(w.shape) == 0 {
		w.shape, w.xStrides = []int{1}, []int{0}
	}
	w.idx = make([]int, len(w.shape))
	return w
}

// seek moves to the g-th true element.
func (w *maskWalker) seek(g int) {
	c := sort.Search(len(w.prefix), func(c int) bool { return w.prefix[c] > g }) - 1
	e, left := c*maskChunk, g-w.prefix[c]
	for ; ; e++ {
		if w.mask[e] != 0 {
			if left == 0 {
				break
			}
			left--
		}
	}
	w.e, w.off = e, 0
	for d := len(w.shape) - 1; d >= 0; d-- {
		w.idx[d] = e % w.shape[d]
		e /= w.shape[d]
		w.off += w.idx[d] * w.xStrides[d]
	}
}

func (w *maskWalker) fill(offs []int) {
	last := len(w.shape) - 1
	n, xs := w.shape[last], w.xStrides[last]
	k := 0
	for k < len(offs) {
		// The rest of the current row of the mask.
		j, e := w.idx[last], w.e
		row := w.mask[e-j : e-j+n]
		base := w.off - j*xs
		// Eight mask bytes at a time while eight offsets fit: a word of
		// zeros is skipped, the others written without branches (each
		// position is written, and kept if its byte is nonzero).
		for j+8 <= n && k+8 <= len(offs) {
			if binary.LittleEndian.Uint64(row[j:j+8:j+8]) != 0 {
				o := offs[k : k+8 : k+8]
				b := row[j : j+8 : j+8]
				p := base + j*xs
				m := 0
				for t := 0; t < 8; t++ {
					o[m] = p
					m += b2i(b[t] != 0)
					p += xs
				}
				k += m
			}
			j += 8
		}
		for j < n && k < len(offs) {
			offs[k] = base + j*xs
			k += b2i(row[j] != 0)
			j++
		}
		w.e += j - w.idx[last]
		if j < n {
			w.idx[last], w.off = j, base+j*xs
			return
		}
		// Next row.
		w.idx[last], w.off = 0, base
		for d := last - 1; d >= 0; d-- {
			w.idx[d]++
			w.off += w.xStrides[d]
			if w.idx[d] < w.shape[d] {
				break
			}
			w.off -= w.idx[d] * w.xStrides[d]
			w.idx[d] = 0
		}
	}
}
