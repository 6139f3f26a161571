package engine

import (
	"math"
	"math/bits"
)

// MaxSpecLength bounds the number of entries of a strided_slice spec: TF
// keeps the masks in 32-bit integers and requires n < 32.
const MaxSpecLength = 31

// Mask is one of the five strided_slice masks: bit i refers to spec entry
// i. TF passes masks as integers; OpenVINO's StridedSlice-1 passes them as
// lists of 0/1 (entry i of the list is bit i). Both convert to a Mask.
type Mask struct {
	// Bits holds positions 0-63.
	Bits uint64
	// Extra counts set positions beyond 63 (only possible in list form);
	// they matter only for the "at most one ellipsis" check.
	Extra int
}

// MaskFromInt converts a TF integer bitmask. TF keeps the masks in int32
// attributes, so a value in the int32 range is its 32-bit two's-complement
// pattern: -2^31 is bit 31 alone (one ellipsis bit, which TF's
// "ellipsis_mask & (ellipsis_mask - 1)" check and TF.js accept), not bits
// 31 to 63. A value beyond int32, which TF itself refuses as an attribute
// ("out of range for an int32"), is taken as its 64-bit two's-complement
// pattern: its bits past the spec's entries are ignored.
func MaskFromInt(v int64) Mask {
	if v >= math.MinInt32 && v <= math.MaxInt32 {
		return Mask{Bits: uint64(uint32(v))}
	}
	return Mask{Bits: uint64(v)}
}

// Int returns the integer bitmask that MaskFromInt reads as m (its bits
// 0-63; Extra is not representable): TF's int32 spelling when m has no
// bit above 31 (bit 31 as the sign bit, so that TF takes the value), its
// 64-bit two's-complement pattern otherwise.
func (m Mask) Int() int64 {
	if m.Bits>>32 == 0 {
		return int64(int32(uint32(m.Bits)))
	}
	return int64(m.Bits)
}

// MaskFromList converts an OpenVINO 0/1 list mask. Entries other than 0
// and 1 are an invalid_spec error.
func MaskFromList(list []int64) (Mask, error) {
	var m Mask
	for i, v := range list {
		switch v {
		case 0:
		case 1:
			if i < 64 {
				m.Bits |= 1 << uint(i)
			} else {
				m.Extra++
			}
		default:
			return Mask{}, RuleStridedMaskList.Errorf("mask list entry %d is %d; entries must be 0 or 1", i, v)
		}
	}
	return m, nil
}

// Has reports whether bit i is set.
func (m Mask) Has(i int) bool { return i < 64 && m.Bits&(1<<uint(i)) != 0 }

// count returns the number of set positions.
func (m Mask) count() int { return bits.OnesCount64(m.Bits) + m.Extra }

// StridedSliceSpec is the spec of TF's StridedSlice op. Strides may be nil,
// meaning all ones.
type StridedSliceSpec struct {
	Begin, End, Strides []int64
	BeginMask           Mask
	EndMask             Mask
	EllipsisMask        Mask
	NewAxisMask         Mask
	ShrinkAxisMask      Mask
}

// denseDim is one entry of a strided_slice dense spec: the range or
// shrink index of one input dimension.
type denseDim struct {
	begin, end, stride     int64
	beginMasked, endMasked bool
	shrink                 bool
}

// StridedSlicePlan normalises a TF StridedSlice spec over an input of the
// given shape into a Plan, following tensorflow/core/util/strided_slice_op.cc:
// length and ellipsis checks, the sparse-to-dense expansion (ellipsis >
// new axis > shrink/range on one position), then per-dimension
// canonicalisation in dimension order.
func StridedSlicePlan(shape []int, spec StridedSliceSpec) (*Plan, error) {
	return stridedSlicePlan(shape, spec, Rules{})
}

// stridedSlicePlan is StridedSlicePlan under the variants rules, each
// applied where the rule it replaces is: Int32Arithmetic truncates
// begin, end and strides before anything else; ExtraEntriesIgnored,
// EllipsisCoversOneDim and MaskBitsPastSpecApplied change the
// sparse-to-dense expansion; ShrinkIndexClamped the shrink index check.
// Under MaskBitsPastSpecApplied the plan may cover only the first
// len(plan.Fixed) dimensions of shape: it reads the input as the
// C-ordered array of those (see pastSpec and StridedSliceUnder).
func stridedSlicePlan(shape []int, spec StridedSliceSpec, rules Rules) (*Plan, error) {
	e, err := expandStridedSlice(shape, spec, rules)
	if err != nil {
		return nil, err
	}
	dense, outputs, rank := e.dense, e.outputs, e.rank

	// Step 3: per-dimension checks and canonicalisation, in order.
	plan := &Plan{Fixed: make([]int, rank)}
	ranges := make([]PlanAxis, rank)
	emptyShrink := -1 // a dimension of size 0 that a clamped shrink index took
	for i, d := range dense[:rank] {
		size := int64(shape[i])
		if d.stride == 0 {
			return nil, RuleStridedZeroStride.Errorf("strides[%d] must be non-zero", i)
		}
		if d.shrink {
			if d.stride < 0 {
				return nil, RuleStridedShrinkStride.Errorf("only stride 1 allowed on non-range indexing (dimension %d has stride %d)", i, d.stride)
			}
			pos, inBounds := resolveIndex(d.begin, size, rules)
			if !inBounds {
				return nil, RuleStridedShrinkOutOfBounds.Errorf("slice index %d of dimension %d out of bounds (size %d)", d.begin, i, size)
			}
			if size == 0 {
				emptyShrink = i // clamped into an empty dimension
			}
			if t := rules.Trace; t != nil {
				t.add(RuleStridedShrink)
				t.addIf(d.begin < 0, RuleStridedShrinkNegative)
				t.addIf(d.stride > 1, RuleStridedShrinkStrideOver)
			}
			plan.Fixed[i] = int(pos)
			continue
		}
		start, count := canonicalRange(size, d.begin, d.end, d.stride, d.beginMasked, d.endMasked)
		if rules.Trace != nil {
			rules.Trace.traceRange(stridedRanges, size, d.begin, d.end, d.stride, d.beginMasked, d.endMasked, count)
		}
		ranges[i] = PlanAxis{Input: i, Start: int(start), Step: int(d.stride), Count: int(count)}
	}
	for _, o := range outputs {
		switch o {
		case shrunkAxis:
		case NewAxis:
			plan.Axes = append(plan.Axes, PlanAxis{Input: NewAxis, Step: 1, Count: 1})
		default:
			plan.Axes = append(plan.Axes, ranges[o])
		}
	}
	if emptyShrink >= 0 && NumElements(plan.OutputShape()) > 0 {
		return nil, RuleShrinkClampedEmpty.Errorf("dimension %d is empty: a shrink index has no element to be clamped to (variant %s)", emptyShrink, ShrinkIndexClamped)
	}
	return plan, nil
}

// pastSpec expands the positions past a spec of n entries without an
// ellipsis under the variant MaskBitsPastSpecApplied, as TFLite's
// BuildStridedSliceParams does: TF treats them as an implicit ellipsis
// over the dimensions from full on; TFLite gives them one position per
// dimension left and applies the 32-bit masks' bits there. A new_axis bit
// makes its position a new axis, so that the last dimension left falls
// off: TFLite then reads the input as the C-ordered array of its leading
// dimensions (its first elements). An ellipsis bit makes every position
// from it on a full range; the other masks have no effect there. pastSpec
// fills dense with full ranges, appends the output axes to outputs and
// returns them with the number of dimensions that fell off.
func pastSpec(spec StridedSliceSpec, n, full, rank int, dense []denseDim, outputs []int) ([]int, int) {
	dropped := 0
	for p := n; full < rank-dropped; p++ {
		if p < 32 && spec.EllipsisMask.Has(p) {
			break
		}
		if p < 32 && spec.NewAxisMask.Has(p) {
			outputs = append(outputs, NewAxis)
			dropped++
			continue
		}
		dense[full] = denseDim{stride: 1, beginMasked: true, endMasked: true}
		outputs = append(outputs, full)
		full++
	}
	for ; full < rank-dropped; full++ {
		dense[full] = denseDim{stride: 1, beginMasked: true, endMasked: true}
		outputs = append(outputs, full)
	}
	return outputs, dropped
}

// resolveIndex is the rule of an integer index (NumPy's x[i], TF's shrink
// axis) into a dimension of the given size: a negative index counts from
// the end, once; anything still outside [0, size) is out of bounds
// (inBounds false). Under the variant ShrinkIndexClamped an index out of
// bounds is clamped into [0, size-1] instead; in an empty dimension it
// is 0, which only a result with no elements may use (the callers check).
func resolveIndex(index, size int64, rules Rules) (pos int64, inBounds bool) {
	pos = index
	if pos < 0 {
		pos += size
	}
	if pos >= 0 && pos < size {
		return pos, true
	}
	if !rules.Has(ShrinkIndexClamped) {
		return pos, false
	}
	if pos >= size {
		pos = size - 1
	}
	return max(pos, 0), true
}

// truncateInt32 returns the values of v truncated to 32-bit integers (the
// low 32 bits, sign-extended), for the variant Int32Arithmetic.
func truncateInt32(v []int64) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(int32(x))
	}
	return out
}

// stridedExpansion is TF's sparse-to-dense expansion of a strided_slice
// spec over an input: which input dimension each entry addresses, and the
// order of the output axes.
type stridedExpansion struct {
	dense   []denseDim // per input dimension (the first rank)
	outputs []int      // per output axis: an input dimension, NewAxis or shrunkAxis
	rank    int        // the input dimensions the spec addresses
	entries []int      // per spec entry: the input dimension it addresses, or -1
}

// shrunkAxis marks an output axis that a shrink entry drops.
const shrunkAxis = -2

// expandStridedSlice runs the checks of a spec's lengths and ellipses and
// its expansion (steps 1 and 2 of stridedSlicePlan) under the variants
// rules.
func expandStridedSlice(shape []int, spec StridedSliceSpec, rules Rules) (*stridedExpansion, error) {
	ops, err := stridedOperands(spec, rules)
	if err != nil {
		return nil, err
	}
	sp := sparseStridedSpec(spec, len(ops.begin))
	if rules.Trace != nil {
		traceStridedMasks(rules.Trace, spec, sp.n, rules)
	}
	x, err := expandDense(shape, spec, ops, sp, rules)
	if err != nil {
		return nil, err
	}
	outRank := 0
	for _, o := range x.outputs {
		if o != shrunkAxis {
			outRank++
		}
	}
	if err := checkOutputRank(outRank); err != nil {
		return nil, err
	}
	return x, nil
}

// traceStridedMasks records into t the mask rules of a spec of n
// entries: several mask bits on one entry, and bits past the entries
// (ignored unless rules apply them).
func traceStridedMasks(t *Trace, spec StridedSliceSpec, n int, rules Rules) {
	for i := 0; i < n && i < 64; i++ {
		special := 0
		for _, m := range []Mask{spec.EllipsisMask, spec.NewAxisMask, spec.ShrinkAxisMask} {
			if m.Has(i) {
				special++
			}
		}
		t.addIf(special > 1, RuleStridedMaskPriority)
	}
	if rules.Has(MaskBitsPastSpecApplied) {
		return
	}
	for _, m := range []Mask{spec.BeginMask, spec.EndMask, spec.EllipsisMask, spec.NewAxisMask, spec.ShrinkAxisMask} {
		t.addIf(m.Bits>>uint(min(n, 63)) != 0 || m.Extra > 0, RuleStridedMaskPastSpec)
	}
}

// stridedOps are a spec's begin, end and strides as the kernel reads
// them.
type stridedOps struct {
	begin, end, strides []int64
}

// entry returns the dense dimension of range or shrink entry i of spec.
func (o stridedOps) entry(spec StridedSliceSpec, i int) denseDim {
	return denseDim{
		begin:       o.begin[i],
		end:         o.end[i],
		stride:      o.strides[i],
		beginMasked: spec.BeginMask.Has(i),
		endMasked:   spec.EndMask.Has(i),
		shrink:      spec.ShrinkAxisMask.Has(i),
	}
}

// stridedOperands returns a spec's begin, end and strides as the kernel
// reads them (strides of 1 when omitted, truncated to 32 bits under
// Int32Arithmetic) after the checks of their lengths and of the ellipses
// (invalid_spec).
func stridedOperands(spec StridedSliceSpec, rules Rules) (stridedOps, error) {
	n := len(spec.Begin)
	begin, end, strides := spec.Begin, spec.End, spec.Strides
	if strides == nil {
		strides = make([]int64, n)
		for i := range strides {
			strides[i] = 1
		}
	}
	if rules.Has(Int32Arithmetic) {
		begin, end, strides = truncateInt32(begin), truncateInt32(end), truncateInt32(strides)
	}
	if len(end) != n || len(strides) != n {
		return stridedOps{}, RuleStridedLengths.Errorf("begin, end and strides must have equal lengths, got %d, %d and %d", n, len(end), len(strides))
	}
	if n > MaxSpecLength {
		return stridedOps{}, RuleStridedTooLong.Errorf("spec has %d entries; at most %d are allowed (masks are 32-bit)", n, MaxSpecLength)
	}
	if spec.EllipsisMask.count() > 1 {
		return stridedOps{}, RuleStridedTwoEllipses.Errorf("multiple ellipses in slice spec not allowed")
	}
	return stridedOps{begin, end, strides}, nil
}

// sparseSpec is step 1, TF's sparse spec of n entries: without an
// ellipsis among positions 0..n-1, an implicit one is appended at
// position n.
type sparseSpec struct {
	n                    int // the spec's entries
	len                  int // n, or n+1 with the implicit ellipsis
	ellipsisAt           int
	newAxesAfterEllipsis int
}

// sparseStridedSpec returns the sparse spec of a spec of n entries.
func sparseStridedSpec(spec StridedSliceSpec, n int) sparseSpec {
	sp := sparseSpec{n: n, len: n, ellipsisAt: -1}
	for i := 0; i < n; i++ {
		if sp.ellipsisAt >= 0 && spec.NewAxisMask.Has(i) {
			sp.newAxesAfterEllipsis++
		}
		if spec.EllipsisMask.Has(i) {
			sp.ellipsisAt = i
		}
	}
	if sp.ellipsisAt < 0 {
		sp.ellipsisAt = n
		sp.len = n + 1
	}
	return sp
}

// expandDense is step 2: the dense spec, one entry per input dimension,
// and the order of output axes. An entry that consumes a dimension past
// the last one is invalid_spec unless rules ignore it.
func expandDense(shape []int, spec StridedSliceSpec, ops stridedOps, sp sparseSpec, rules Rules) (*stridedExpansion, error) {
	n := sp.n
	rank := len(shape)
	dense := make([]denseDim, rank)
	var outputs []int         // per output axis: input dim, NewAxis, or shrunkAxis (dropped later)
	entries := make([]int, n) // per spec entry: the input dim it addresses, or -1
	for i := range entries {
		entries[i] = -1
	}
	full := 0
	// dropPastRank: entries that consume a dimension past the last one
	// are ignored instead of refused (ExtraEntriesIgnored, or an
	// ellipsis widened by EllipsisCoversOneDim, which pushes the last
	// entry off the end).
	dropPastRank := rules.Has(ExtraEntriesIgnored)
	for i := 0; i < sp.len; i++ {
		switch {
		case i == n && rules.Has(MaskBitsPastSpecApplied):
			// The positions past the spec, where TF ignores every mask
			// bit (see pastSpec).
			var dropped int
			outputs, dropped = pastSpec(spec, n, full, rank, dense, outputs)
			rank -= dropped
			full = rank
		case i == sp.ellipsisAt:
			next := min(rank-(sp.len-i)+1+sp.newAxesAfterEllipsis, rank)
			if rules.Has(EllipsisCoversOneDim) && sp.len == n && next <= full && full < rank {
				next = full + 1
				dropPastRank = true
			}
			if t := rules.Trace; t != nil {
				t.addIf(i < n, RuleStridedEllipsis)
				t.addIf(i < n && next <= full, RuleStridedEllipsisNoDims)
				t.addIf(i == n && next > full, RuleStridedImplicitEllipsis)
			}
			for ; full < next; full++ {
				dense[full] = denseDim{stride: 1, beginMasked: true, endMasked: true}
				outputs = append(outputs, full)
			}
		case spec.NewAxisMask.Has(i):
			rules.Trace.add(RuleStridedNewAxis)
			outputs = append(outputs, NewAxis)
		default:
			if full == rank {
				if dropPastRank {
					continue
				}
				return nil, RuleStridedTooManyDims.Errorf("index out of range using input dim %d; input has only %d dims", full, rank)
			}
			d := ops.entry(spec, i)
			dense[full] = d
			entries[i] = full
			if d.shrink {
				outputs = append(outputs, shrunkAxis)
			} else {
				outputs = append(outputs, full)
			}
			full++
		}
	}
	return &stridedExpansion{dense: dense, outputs: outputs, rank: rank, entries: entries}, nil
}

// StridedSliceEntryDims returns, for each entry of spec over an input of
// the given shape, the input dimension it addresses after TF's
// sparse-to-dense expansion, or -1 for a new axis or the ellipsis. It
// fails as StridedSlicePlan does for a spec whose lengths or ellipses are
// wrong, whose entries address more dimensions than the input has, or
// whose result would have more than MaxRank dimensions.
func StridedSliceEntryDims(shape []int, spec StridedSliceSpec) ([]int, error) {
	e, err := expandStridedSlice(shape, spec, Rules{})
	if err != nil {
		return nil, err
	}
	return e.entries, nil
}

// StridedSlice evaluates TF's StridedSlice on x and returns a
// C-contiguous tensor, which may share memory with x (see Plan.Apply).
func StridedSlice(x *Tensor, spec StridedSliceSpec) (*Tensor, error) {
	return StridedSliceUnder(x, spec, Rules{})
}

// StridedSliceUnder is StridedSlice under the variants r (see Variant).
func StridedSliceUnder(x *Tensor, spec StridedSliceSpec, r Rules) (*Tensor, error) {
	r.Trace.traceStridedSpec(spec, x.Rank())
	p, err := stridedSlicePlan(x.Shape, spec, r)
	if err != nil {
		return nil, err
	}
	if len(p.Fixed) < x.Rank() {
		// MaskBitsPastSpecApplied: the plan reads x as the C-ordered
		// array of its leading dimensions.
		if x, err = leading(x, len(p.Fixed), p); err != nil {
			return nil, err
		}
	}
	out, err := p.applyLimited(x, r.outputLimit())
	if err != nil {
		return nil, err
	}
	return r.finish(out)
}

// leading returns the first elements of x, in row-major order, as a
// C-contiguous tensor of x's first k dimensions, the input p reads under
// MaskBitsPastSpecApplied. When x has fewer elements (a dropped dimension
// is 0) and p reads any, there is nothing to read: out_of_range.
func leading(x *Tensor, k int, p *Plan) (*Tensor, error) {
	shape := x.Shape[:k]
	n := NumElements(shape)
	if n > x.Len() {
		if NumElements(p.OutputShape()) > 0 {
			return nil, RuleMaskBitsShortInput.Errorf("the input read as shape %v has only %d elements (variant %s)", shape, x.Len(), MaskBitsPastSpecApplied)
		}
		return &Tensor{DType: x.DType, Shape: append([]int{}, shape...), Strides: ContiguousStrides(shape, x.DType.Size), Data: []byte{}}, nil
	}
	return FromBytes(x.DType, append([]int{}, shape...), x.Bytes()[:n*x.DType.Size])
}
