package engine

import (
	"math"
	"slices"
)

// This file holds the ONNX front-ends: Slice (opset 13) and GatherND
// (opsets 12 and 13, batch_dims). The rules come from the operator
// specification (onnx/defs/tensor/defs.cc: the Slice-13 and GatherND-13
// docs and their shape-inference functions, which include ONNX's own
// processSliceInputs). Where the specification is silent or leaves the
// behaviour undefined, conform follows ONNX Runtime's CPU kernels
// (onnxruntime/core/providers/cpu/tensor/slice_helper.h, slice.cc,
// gather_nd.cc): a rank-0 data tensor cannot be sliced, repeated axes are
// an error, an axis of size 0 yields nothing whatever the step, and an
// index depth of 0 gathers whole slices. Where ONNX Runtime departs from
// an explicit rule of the specification, conform follows the
// specification (see ONNXSlicePlan and ONNXGatherND); the differences are
// divergences to report, not rules.

// ONNXSliceSpec is the spec of ONNX's Slice-13: starts and ends, and the
// optional axes and steps. A nil Axes means [0, 1, ..., len(Starts)-1]; a
// nil Steps means all ones. (An empty, non-nil slice is a given input of
// length 0.)
type ONNXSliceSpec struct {
	Starts, Ends []int64
	Axes, Steps  []int64
}

// ONNXSlicePlan normalises an ONNX Slice-13 spec over data of the given
// shape into a Plan. The output has the rank of the input; axes that no
// entry names are kept whole.
//
// Checks, in ONNX Runtime's order (every failure is invalid_spec):
//  1. data must not be rank 0 (ONNX Runtime: "Cannot slice scalars"; the
//     specification defines Slice per axis and says nothing about scalars);
//  2. ends, and axes and steps when given, have the length of starts;
//  3. per entry i, in order: axes[i] + r if negative must be in [0, r);
//     no axis may repeat (the specification: "behavior is undefined if an
//     axis is repeated"; ONNX Runtime rejects it); steps[i] must not be 0.
//
// Then per entry, on the axis of size d with step s (the specification's
// rules): a negative start or end gets d added once; start is clamped into
// [0, d] for s > 0 and into [0, d-1] for s < 0 (NumPy and TF clamp a
// reverse start into [-1, d-1], which makes x[-d-1::-1] empty where ONNX
// starts it at position 0); end is clamped into [0, d] for s > 0 and into
// [-1, d-1] for s < 0, where -1 means "before position 0". The count is
// ceil((end - start) / s), or 0 when that is not positive. So INT64_MAX
// (or INT32_MAX) as an end slices to the end going forward and INT64_MIN
// to the beginning going backward, as the specification recommends; an
// end of INT64_MAX or INT32_MAX with a negative step is clamped to d-1 and
// selects nothing (ONNX Runtime instead reads it as "to the beginning", a
// divergence from the specification). An axis of size 0 selects nothing
// (the specification's clamp into [0, -1] is degenerate; ONNX Runtime
// returns 0 elements, as here).
func ONNXSlicePlan(shape []int, spec ONNXSliceSpec) (*Plan, error) {
	return onnxSlicePlan(shape, spec, Rules{})
}

// onnxSlicePlan is ONNXSlicePlan under the variants r.
func onnxSlicePlan(shape []int, spec ONNXSliceSpec, rules Rules) (*Plan, error) {
	rank := len(shape)
	if rank == 0 {
		return nil, RuleONNXSliceScalar.Errorf("cannot slice a scalar: ONNX Slice needs data of rank >= 1")
	}
	n := len(spec.Starts)
	if len(spec.Ends) != n {
		return nil, RuleONNXSliceEnds.Errorf("starts and ends must have the same length, got %d and %d", n, len(spec.Ends))
	}
	if spec.Axes != nil && len(spec.Axes) != n {
		return nil, RuleONNXSliceAxesLength.Errorf("axes must have the length of starts (%d), got %d", n, len(spec.Axes))
	}
	if spec.Steps != nil && len(spec.Steps) != n {
		return nil, RuleONNXSliceStepsLength.Errorf("steps must have the length of starts (%d), got %d", n, len(spec.Steps))
	}
	plan := &Plan{Fixed: make([]int, rank), Axes: make([]PlanAxis, rank)}
	for i, d := range shape {
		plan.Axes[i] = PlanAxis{Input: i, Start: 0, Step: 1, Count: d}
	}
	seen := make([]bool, rank)
	for i := 0; i < n; i++ {
		axis := int64(i)
		if spec.Axes != nil {
			axis = spec.Axes[i]
		}
		if axis < 0 {
			axis += int64(rank) // rank <= MaxRank: no overflow
		}
		if axis < 0 || axis >= int64(rank) {
			return nil, RuleONNXSliceAxis.Errorf("axes[%d] = %d is outside [-%d, %d) for data of rank %d", i, onnxAxisValue(spec.Axes, i), rank, rank, rank)
		}
		if seen[axis] {
			return nil, RuleONNXSliceRepeatedAxis.Errorf("axes[%d] = %d repeats axis %d", i, onnxAxisValue(spec.Axes, i), axis)
		}
		seen[axis] = true
		step := int64(1)
		if spec.Steps != nil {
			step = spec.Steps[i]
		}
		if step == 0 {
			return nil, RuleONNXSliceZeroStep.Errorf("steps[%d] must be non-zero", i)
		}
		d := int64(shape[axis])
		start, count := onnxRange(d, spec.Starts[i], spec.Ends[i], step)
		if rules.Trace != nil {
			traceONNXRange(rules.Trace, d, spec.Starts[i], spec.Ends[i], step, count)
		}
		if count > 1 {
			// |step| < count*|step| <= d here, so it fits an int; keep
			// the plan's step small whatever the spec says.
			plan.Axes[axis] = PlanAxis{Input: int(axis), Start: int(start), Step: int(step), Count: int(count)}
		} else {
			plan.Axes[axis] = PlanAxis{Input: int(axis), Start: int(start), Step: 1, Count: int(count)}
		}
	}
	if t := rules.Trace; t != nil {
		t.addIf(spec.Axes != nil, RuleONNXSliceAxes)
		t.addIf(slices.ContainsFunc(spec.Axes, func(a int64) bool { return a < 0 }), RuleONNXSliceNegativeAxis)
		t.addIf(slices.Contains(seen, false), RuleONNXSliceAxisNotSliced)
	}
	return plan, nil
}

// onnxAxisValue returns axes[i] as written, or i when axes were omitted.
func onnxAxisValue(axes []int64, i int) int64 {
	if axes == nil {
		return int64(i)
	}
	return axes[i]
}

// onnxRange resolves one Slice entry on an axis of size d (step != 0):
// the first position and the number of positions, by the clamping rules
// of the ONNX specification (see ONNXSlicePlan).
func onnxRange(d, start, end, step int64) (first, count int64) {
	if d == 0 {
		return 0, 0
	}
	if start < 0 {
		start += d // start < 0 < d: cannot overflow
	}
	if end < 0 {
		end += d
	}
	var startLo, startHi, endLo, endHi int64 = 0, d, 0, d
	if step < 0 {
		startHi, endLo, endHi = d-1, -1, d-1
	}
	start = min(max(start, startLo), startHi)
	end = min(max(end, endLo), endHi)
	length := end - start // |length| <= d + 1
	if length == 0 || (length < 0) != (step < 0) {
		return start, 0
	}
	// length and step have the same sign: the quotient is non-negative
	// and cannot overflow (step is never -1 with length == MinInt64).
	count = length / step
	if length%step != 0 {
		count++
	}
	return start, count
}

// ONNXSlice evaluates ONNX's Slice-13 on data and returns a C-contiguous
// tensor, which may share memory with data (see Plan.Apply).
func ONNXSlice(data *Tensor, spec ONNXSliceSpec) (*Tensor, error) {
	return ONNXSliceUnder(data, spec, Rules{})
}

// ONNXSliceUnder is ONNXSlice under the variants r (see Variant).
func ONNXSliceUnder(data *Tensor, spec ONNXSliceSpec, r Rules) (*Tensor, error) {
	p, err := onnxSlicePlan(data.Shape, spec, r)
	if err != nil {
		return nil, err
	}
	out, err := p.applyLimited(data, r.outputLimit())
	if err != nil {
		return nil, err
	}
	return r.finish(out)
}

// ONNXGatherND evaluates ONNX's GatherND (opsets 12 and 13) and returns a
// new C-contiguous tensor: output shape indices.shape[:-1] +
// data.shape[batch_dims + k:] with k = indices.shape[-1], each index
// tuple selecting a slice of data within its batch entry.
//
// Checks, in order (the specification's numbered conditions):
//   - indices must be int64, either byte order (the specification's only
//     index type): otherwise bad_input;
//   - r = rank(data) >= 1 and q = rank(indices) >= 1: invalid_spec;
//   - 0 <= batch_dims < min(q, r): invalid_spec;
//   - indices.shape[:batch_dims] == data.shape[:batch_dims]: invalid_spec
//     (ONNX Runtime only checks that the product of the indices' batch
//     dimensions is a multiple of data's, a divergence);
//   - k <= r - batch_dims: invalid_spec. k == 0 is accepted (each index
//     tuple selects a whole batch entry): the specification's computation
//     rules cover it (its third case, k < r - b) and ONNX Runtime accepts
//     it, although its list of "salient points" asks for k >= 1;
//   - every index component along an axis of size s is in [-s, s-1]
//     (a negative one gets s added once), else out_of_range. Every index
//     tuple is checked, also when the slices it selects are empty (ONNX
//     Runtime returns an empty output without checking, a divergence).
//
// There is no equivalent of TF's "params is empty" rule: an index into an
// axis of size 0 is out of range by the rule above, and index tuples into
// non-empty axes of data with no elements select empty slices.
//
// The bounds rule is gather_nd's variant NegativeGatherIndicesWrap, run
// by the same code; under GatherFlatBounds only each tuple's flattened
// offset (after the wrap) is checked (see rowCursor.resolve).
func ONNXGatherND(data, indices *Tensor, batchDims int) (*Tensor, error) {
	return ONNXGatherNDUnder(data, indices, batchDims, Rules{})
}

// ONNXGatherNDUnder is ONNXGatherND under the variants r (see Variant).
func ONNXGatherNDUnder(data, indices *Tensor, batchDims int, r Rules) (*Tensor, error) {
	out, err := onnxGatherND(data, indices, batchDims, r)
	if err != nil {
		return nil, err
	}
	return r.finish(out)
}

// onnxGatherND is ONNXGatherND under the variants r, except those that
// finish applies.
func onnxGatherND(data, indices *Tensor, batchDims int, rules Rules) (*Tensor, error) {
	if indices.DType.Kind != Int || indices.DType.Size != 8 {
		return nil, RuleONNXGatherNDIndexDType.Errorf("ONNX GatherND takes int64 indices, got dtype %v", indices.DType)
	}
	r, q := data.Rank(), indices.Rank()
	if r < 1 || q < 1 {
		return nil, RuleONNXGatherNDRank.Errorf("data and indices must have rank >= 1, got shapes %v and %v", data.Shape, indices.Shape)
	}
	if batchDims < 0 || batchDims >= min(q, r) {
		return nil, RuleONNXGatherNDBatchDims.Errorf("batch_dims = %d must be in [0, min(rank(indices), rank(data))) = [0, %d)", batchDims, min(q, r))
	}
	for i := 0; i < batchDims; i++ {
		if data.Shape[i] != indices.Shape[i] {
			return nil, RuleONNXGatherNDBatchShape.Errorf("batch dimensions differ: data.shape[:%d] = %v, indices.shape[:%d] = %v", batchDims, data.Shape[:batchDims], batchDims, indices.Shape[:batchDims])
		}
	}
	k := indices.Shape[q-1]
	if k > r-batchDims {
		return nil, RuleONNXGatherNDDepth.Errorf("indices.shape[-1] = %d must be <= rank(data) - batch_dims = %d", k, r-batchDims)
	}
	outShape := append(append([]int{}, indices.Shape[:q-1]...), data.Shape[batchDims+k:]...)
	if len(outShape) > MaxRank {
		return nil, RuleResultRank.Errorf("number of dimensions must be within [0, %d], GatherND result would have %d", MaxRank, len(outShape))
	}
	nOut := NumElements(outShape)
	if nOut < 0 || nOut > math.MaxInt/data.DType.Size {
		return nil, RuleONNXGatherNDOverflow.Errorf("output shape %v is too large", outShape)
	}
	if err := checkOutputSize(outShape, data.DType.Size, rules.outputLimit()); err != nil {
		return nil, err
	}
	if t := rules.Trace; t != nil {
		t.addIf(batchDims > 0, RuleONNXGatherNDBatched)
		t.addIf(k == 0, RuleONNXGatherNDDepth0)
		t.traceNegative(indices, RuleONNXGatherNDNegative)
	}
	rows := NumElements(indices.Shape[:q-1])
	rowsPerBatch := NumElements(indices.Shape[batchDims : q-1])
	block := NumElements(data.Shape[batchDims+k:])
	if k == 0 || rows == 0 {
		// No index components to check: every row is its whole batch
		// entry. rows may be huge here only when the result is empty.
		out, err := Zeros(data.DType, outShape)
		if err != nil {
			return nil, err
		}
		if blockBytes := block * data.DType.Size; blockBytes > 0 && rows > 0 {
			// k == 0 here: a batch entry is a block.
			src := newGatherSource(data, batchDims)
			var offsets [gatherBatch]int
			for first := 0; first < rows; first += gatherBatch {
				m := min(gatherBatch, rows-first)
				for q := range m {
					offsets[q] = (first + q) / max(rowsPerBatch, 1) * blockBytes
				}
				src.copyBlocks(out.Data[first*blockBytes:(first+m)*blockBytes], offsets[:m])
			}
		}
		return out, nil
	}
	// With k > 0, indices holds rows*k elements, so rows is bounded by the
	// input. The rows are gathered as gather_nd gathers them, under its
	// variant NegativeGatherIndicesWrap, which is ONNX's bounds rule: one
	// code path for both ops (see rowCursor.resolve).
	g := &gatherND{
		params:       data,
		indices:      indices,
		batchDims:    batchDims,
		depth:        k,
		rows:         rows,
		rowsPerBatch: rowsPerBatch,
		block:        block,
		outShape:     outShape,
		rules:        rules.With(NegativeGatherIndicesWrap),
	}
	out, idx, bad := g.gather(BadIndexError)
	if bad >= 0 {
		return nil, onnxBadRow(g, idx, bad)
	}
	return out, nil
}

// onnxBadRow returns the error for index row r of the contiguous indices
// idx, which is outside data: it names the first component outside
// [-dim, dim), or, under GatherFlatBounds, the row's flattened offset.
func onnxBadRow(g *gatherND, idx *Tensor, r int) error {
	row := make([]int64, g.depth)
	readRow(row, idx, r)
	dims := g.params.Shape[g.batchDims : g.batchDims+g.depth]
	for j, v := range row {
		if dim := int64(dims[j]); v < -dim || v >= dim {
			return RuleONNXGatherNDOutOfRange.Errorf("indices%s = %v: component %d is outside [-%d, %d)", rowPosition(g.indices.Shape, r), row[:j+1], j, dim, dim)
		}
	}
	return RuleGatherFlatBoundsOut.Errorf("indices%s = %v: its flattened offset is outside data (shape %v) (variant %s)", rowPosition(g.indices.Shape, r), row, g.params.Shape, GatherFlatBounds)
}
