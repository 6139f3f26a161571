package engine

import (
	"math"
	"slices"
)

// Trace records the rules of RuleTable that an evaluation exercised: a
// negative step, an ellipsis covering no dimension, a 0-d index array,
// separated advanced indices, an empty axis, ... An evaluation records
// into the Trace of the Rules it runs under (Rules.Trace); with none (the
// default) nothing is recorded and nothing is paid.
//
// The trace is partial: it holds the rules that decide an output, where
// the engine records them (most of the rules of RuleTable that are not
// errors; see TracedRules), not the error rules. The rule of an error the
// evaluation returns is named by the error itself (RuleOf). A Trace must
// not be shared by evaluations that run at the same time.
type Trace struct {
	seen map[RuleID]bool
}

// add records rule id; a nil Trace records nothing.
func (t *Trace) add(id RuleID) {
	if t == nil {
		return
	}
	if t.seen == nil {
		t.seen = map[RuleID]bool{}
	}
	t.seen[id] = true
}

// addIf records rule id if cond holds.
func (t *Trace) addIf(cond bool, id RuleID) {
	if cond {
		t.add(id)
	}
}

// Has reports whether the trace holds rule id.
func (t *Trace) Has(id RuleID) bool { return t != nil && t.seen[id] }

// Rules returns the rules the trace holds, in the order of RuleTable.
func (t *Trace) Rules() []RuleID {
	if t == nil || len(t.seen) == 0 {
		return nil
	}
	// The few rules seen, sorted, rather than the whole table scanned.
	out := make([]RuleID, 0, len(t.seen))
	for id, seen := range t.seen {
		if _, ok := ruleIndex[id]; ok && seen {
			out = append(out, id)
		}
	}
	slices.SortFunc(out, func(a, b RuleID) int { return ruleIndex[a] - ruleIndex[b] })
	return out
}

// Reset empties the trace, for the next evaluation.
func (t *Trace) Reset() {
	if t != nil {
		clear(t.seen)
	}
}

// rangeRules are the rules of one op's strided ranges (see traceRange).
type rangeRules struct {
	negativeStep, negativeStepNoStart, negativeStepNoStop RuleID
	negativeBound, boundClamped, stepOver1, emptyRange    RuleID
	startBelow                                            RuleID
}

// getItemRanges and stridedRanges are the range rules of getitem's
// slices and strided_slice's ranges.
var (
	getItemRanges = rangeRules{RuleGetItemNegativeStep, RuleGetItemNegativeStepNoStart, RuleGetItemNegativeStepNoStop,
		RuleGetItemNegativeBound, RuleGetItemBoundClamped, RuleGetItemStepOver1, RuleGetItemEmptyRange, RuleGetItemStartBelowRange}
	stridedRanges = rangeRules{RuleStridedNegativeStride, RuleStridedNegativeBeginMsk, RuleStridedEndSentinel,
		RuleStridedNegativeBound, RuleStridedBoundClamped, RuleStridedStrideOver1, RuleStridedEmptyRange, RuleStridedBeginBelowRange}
)

// traceRange records the rules a range of canonicalRange exercised: one
// over a dimension of size d, with a begin and an end (masked or not), a
// stride that is not 0, and count positions.
func (t *Trace) traceRange(rr rangeRules, d, begin, end, stride int64, beginMasked, endMasked bool, count int64) {
	if t == nil {
		return
	}
	t.addIf(stride < 0, rr.negativeStep)
	t.addIf(stride < 0 && beginMasked, rr.negativeStepNoStart)
	t.addIf(stride < 0 && endMasked, rr.negativeStepNoStop)
	t.addIf(stride > 1 || stride < -1, rr.stepOver1)
	t.addIf(count == 0, rr.emptyRange)
	t.addIf(stride < 0 && !beginMasked && begin < -d, rr.startBelow)
	lo, hi := int64(0), d
	if stride < 0 {
		lo, hi = -1, d-1
	}
	for _, b := range [...]struct {
		v      int64
		masked bool
	}{{begin, beginMasked}, {end, endMasked}} {
		if b.masked {
			continue
		}
		v := b.v
		if v < 0 {
			t.add(rr.negativeBound)
			v += d
		}
		t.addIf(v < lo || v > hi, rr.boundClamped)
	}
}

// traceONNXRange records the rules an ONNX Slice range of onnxRange
// exercised: over a dimension of size d, from start to end by step (not
// 0), count positions.
func traceONNXRange(t *Trace, d, start, end, step, count int64) {
	t.addIf(step < 0, RuleONNXSliceNegativeStep)
	t.addIf(step > 1 || step < -1, RuleONNXSliceStepOver1)
	t.addIf(count == 0, RuleONNXSliceEmptyRange)
	t.addIf(start < 0 || end < 0, RuleONNXSliceNegativeBound)
	// A start below -d: ONNX clamps it to position 0 going backwards
	// where NumPy and TF run past it (an empty range).
	t.addIf(step < 0 && d > 0 && start < -d, RuleONNXSliceReverseStart)
	intMax := end == math.MaxInt64 || end == math.MaxInt32
	t.addIf(intMax && step > 0, RuleONNXSliceHugeEnd)
	t.addIf(intMax && step < 0, RuleONNXSliceHugeNegStepEnd)
	startHi, endLo, endHi := d, int64(0), d
	if step < 0 {
		startHi, endLo, endHi = d-1, -1, d-1
	}
	if start < 0 {
		start += d
	}
	if end < 0 {
		end += d
	}
	t.addIf(start < 0 || start > startHi || end < endLo || end > endHi, RuleONNXSliceBoundClamped)
}

// traceNegative records rule id if the integer tensor indices holds a
// negative value (an unsigned one beyond int64 reads as negative).
func (t *Trace) traceNegative(indices *Tensor, id RuleID) {
	if t == nil || !indices.DType.IsInteger() {
		return
	}
	c := indices.Contiguous()
	for i := range c.Len() {
		if readInt(c, i) < 0 {
			t.add(id)
			return
		}
	}
}

// traceNarrow records rule id if indices are of an integer dtype
// narrower than 64 bits (int8, int16, int32, uint8, uint16, uint32): the
// index dtypes a library that takes only int64 refuses.
func (t *Trace) traceNarrow(indices *Tensor, id RuleID) {
	t.addIf(indices.DType.IsInteger() && indices.DType.Size < 8, id)
}

// traceIndexItems records the rules the index arrays among items
// exercise whatever the evaluation does with them — Python bools, 0-d
// boolean arrays, index arrays and masks of two or more dimensions,
// several index arrays — before anything is checked, so that a case whose evaluation
// stops at an error still shows them. A 0-d boolean (RuleGetItemBool0D)
// is recorded as the one of its two forms the subscript holds, a Python
// True/False or a 0-d boolean array: libraries handle the two apart.
func (t *Trace) traceIndexItems(items []IndexItem) {
	if t == nil {
		return
	}
	arrays := 0
	for _, it := range items {
		a := it.Array
		if it.Kind != IndexArray || a == nil {
			continue
		}
		switch {
		case a.DType.Kind == Bool && a.Rank() == 0 && it.Name == "":
			t.add(RuleGetItemPythonBool)
		case a.DType.Kind == Bool && a.Rank() == 0:
			t.add(RuleGetItem0DBoolArray)
		case a.DType.IsInteger() && a.Rank() == 0:
			t.add(RuleGetItem0DIntArray)
		case a.DType.IsInteger() && a.Rank() >= 2:
			t.add(RuleGetItemNDIndexArray)
		case a.DType.Kind == Bool && a.Rank() >= 2:
			t.add(RuleGetItemNDMask)
		}
		if a.Rank() > 0 {
			arrays++
		}
		if a.DType.IsInteger() {
			t.traceNarrow(a, RuleGetItemNarrowArray)
			t.addIf(a.DType.Kind == Uint, RuleGetItemUnsignedArray)
		}
	}
	t.addIf(arrays >= 2, RuleGetItemSeveralArrays)
}

// traceGetItemCount records RuleGetItemExtraIndices if the items of a
// subscript over an array of the given rank address more dimensions than
// it has (integers and slices one each, an integer array one, a boolean
// array its dimensions), before anything is checked: so that a subscript
// the evaluation refuses for another fault first (two ellipses) still
// shows it. A subscript holding an item NumPy refuses (IndexInvalid)
// addresses nothing and records nothing.
func (t *Trace) traceGetItemCount(items []IndexItem, rank int) {
	if t == nil {
		return
	}
	used := 0
	for _, it := range items {
		switch it.Kind {
		case IndexInt, IndexSlice:
			used++
		case IndexArray:
			if it.Array != nil && it.Array.DType.Kind == Bool {
				used += it.Array.Rank()
			} else {
				used++
			}
		case IndexInvalid:
			return
		}
	}
	t.addIf(used > rank, RuleGetItemExtraIndices)
}

// traceStridedSpec records the rules of a strided_slice spec's entries
// over an input of the given rank before anything is checked, so that a
// spec refused for another fault first (lengths that differ, a shrink
// index out of range on an earlier dimension) still shows them: more entries that consume a dimension
// (neither an ellipsis nor a new axis, by the masks' priority) than the
// input has (RuleStridedExtraIndices; not with several ellipses, where
// TF expands nothing), and a shrink entry with its begin_mask bit
// (RuleStridedShrinkBeginMask).
func (t *Trace) traceStridedSpec(spec StridedSliceSpec, rank int) {
	if t == nil {
		return
	}
	consuming := 0
	for i := range spec.Begin {
		if spec.EllipsisMask.Has(i) || spec.NewAxisMask.Has(i) {
			continue
		}
		consuming++
		t.addIf(spec.ShrinkAxisMask.Has(i) && spec.BeginMask.Has(i), RuleStridedShrinkBeginMask)
	}
	t.addIf(consuming > rank && spec.EllipsisMask.count() <= 1, RuleStridedExtraIndices)
}

// traceSliceBegin records RuleSliceNegativeBegin if a begin value of a
// slice spec is negative, before anything is checked: so that a spec
// refused for another fault first (begin and size of other lengths than
// the rank) still shows it.
func (t *Trace) traceSliceBegin(begin []int64) {
	if t == nil {
		return
	}
	t.addIf(slices.ContainsFunc(begin, func(b int64) bool { return b < 0 }), RuleSliceNegativeBegin)
}

// TracedRules lists the rules the engine records into a Trace: the rules
// that decide an output whose use an evaluation reports. The other rules
// that are not errors are not traced yet.
func TracedRules() []RuleID {
	out := make([]RuleID, 0, len(tracedRules))
	for _, r := range RuleTable {
		if tracedRules[r.ID] {
			out = append(out, r.ID)
		}
	}
	return out
}

// tracedRules is the set of TracedRules.
var tracedRules = map[RuleID]bool{}

func init() {
	for _, rr := range []rangeRules{getItemRanges, stridedRanges} {
		for _, id := range []RuleID{rr.negativeStep, rr.negativeStepNoStart, rr.negativeStepNoStop, rr.negativeBound, rr.boundClamped, rr.stepOver1, rr.emptyRange, rr.startBelow} {
			tracedRules[id] = true
		}
	}
	for _, id := range []RuleID{
		RuleGetItemIntegerIndex, RuleGetItemNegativeIndex, RuleGetItemEllipsis, RuleGetItemEllipsisNoDims,
		RuleGetItemImplicitEllipsis, RuleGetItemNewAxis, RuleGetItemScalarResult,
		RuleGetItemIntArray, RuleGetItemUnsignedArray, RuleGetItemBoolArray, RuleGetItemSingleBool,
		RuleGetItem0DIntArray, RuleGetItemBroadcast, RuleGetItemIntAmongArrays, RuleGetItemAdjacentInPlace,
		RuleGetItemSeparatedFirst, RuleGetItemEmptyUnchecked, RuleGetItemNarrowArray,
		RuleGetItemPythonBool, RuleGetItem0DBoolArray, RuleGetItemNDIndexArray, RuleGetItemSeveralArrays, RuleGetItemNDMask,
		RuleTake0DIndices, RuleTakeNDIndices,
		RuleTakeNarrow, RuleTakeAlongNarrow, RuleGatherInt32Indices, RuleGatherNDNarrow, RuleONNXGatherInt32, RuleONNXElemInt32,
		RuleTakeFlattened, RuleTake0DInput, RuleTakeAxisNonZero, RuleTakeNegativeIndex, RuleTakeWrap, RuleTakeClip,
		RuleTakeBoolIndices, RuleTakeScalarResult, RuleTakeEmptyChecked,
		RuleTakeAlongFlattened, RuleTakeAlongAxisNonZero, RuleTakeAlongBroadcasts, RuleTakeAlongNegativeIndex,
		RuleTakeAlongUint64, RuleTakeAlongEmptyResult,
		RuleStridedEllipsis, RuleStridedEllipsisNoDims, RuleStridedImplicitEllipsis, RuleStridedNewAxis,
		RuleStridedShrink, RuleStridedShrinkNegative, RuleStridedShrinkStrideOver, RuleStridedMaskPriority, RuleStridedMaskPastSpec,
		RuleStridedExtraIndices, RuleStridedShrinkBeginMask, RuleGetItemExtraIndices,
		RuleSliceSizeToEnd, RuleSliceEmptyResult, RuleSliceNegativeBegin,
		RuleGatherAxisNonZero, RuleGatherBatched, RuleGatherZeroMode, RuleGatherEmptyResult, RuleGatherNegativeIndex,
		RuleGatherNDDepth0, RuleGatherNDFullDepth, RuleGatherNDBatched, RuleGatherNDZeroMode, RuleGatherNDEmptyRows, RuleGatherNDNegative,
		RuleONNXSliceAxes, RuleONNXSliceNegativeAxis, RuleONNXSliceAxisNotSliced, RuleONNXSliceNegativeStep, RuleONNXSliceReverseStart,
		RuleONNXSliceNegativeBound, RuleONNXSliceBoundClamped, RuleONNXSliceStepOver1, RuleONNXSliceEmptyRange,
		RuleONNXSliceHugeEnd, RuleONNXSliceHugeNegStepEnd,
		RuleONNXGatherNegative, RuleONNXGatherAxisNon0, RuleONNXGatherEmpty,
		RuleONNXElemNegative, RuleONNXElemSmaller, RuleONNXElemAxisNon0,
		RuleONNXGatherNDNegative, RuleONNXGatherNDBatched, RuleONNXGatherNDDepth0,
	} {
		tracedRules[id] = true
	}
}
