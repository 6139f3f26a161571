package golden

import (
	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/signature"
	"github.com/conformsuite/conform/internal/tfspec"
)

// The codes of the crashes the TFLite oracle reports (internal/oracle/tflite/oracle.js,
// internal/oracle/README.md), on cases where TFLite raised no error but failed.
const (
	tfliteTrapped       = "trap"           // a WebAssembly trap: an out-of-bounds access
	tfliteReadOutside   = "read-outside"   // output elements that are not input elements
	tfliteInvalidTensor = "invalid-tensor" // a negative dimension
	// The oracle does not run specs TFLite would get wrong in a way that
	// makes its answer chance or hangs it; it reports them as crashes
	// with these codes.
	tfliteStrideOverflow = "not-run-stride-overflow" // int32 index arithmetic overflows
	tfliteReadsOperands  = "not-run-reads-past"      // the spec's expansion reads past the operands
	tfliteSliceShortSpec = "not-run-short-spec"      // SLICE would read past a short begin/size
)

// slice reports whether m is a slice case whose begin/size have feature f.
func slice(m *casefile.Case, f func(tfspec.Slice) bool) bool {
	s, ok := tfspec.ReadSlice(m)
	return ok && f(s)
}

// The TensorFlow Lite divergences from TF, on the STRIDED_SLICE
// (strided_slice, and getitem through TF's encoding), SLICE and GATHER_ND
// kernels of the WebAssembly build the oracle runs (internal/oracle/README.md;
// internal/oracle/tflite_test.go pins an example of each). Where TF refuses a
// spec, the classes follow the order of TF's checks, so a spec with
// several faults is classed by the check TF fails first and TFLite
// lacks; the differences in results come after.
func init() {
	Divergences = append(Divergences, tfliteNotRun...)
	Divergences = append(Divergences, tfliteStridedSlice...)
	Divergences = append(Divergences, tfliteSlice...)
	Divergences = append(Divergences, tfliteGather...)
}

// tfliteNotRun are the specs the TFLite oracle does not run, reporting
// them as crashes: TFLite would get them wrong in a way that makes its
// answer chance or hangs it.
var tfliteNotRun = []Divergence{
	{
		ID: "tflite-stride-overflow", Oracle: "tflite",
		Explanation: "TFLite's STRIDED_SLICE computes indices in int32, so a stride whose product with the input size reaches 2^31 wraps: out-of-bounds reads (traps) or loops of about 2^32 steps, where TF computes in int64. The oracle reports such specs as crashes without running them.",
		Match: func(d *Disagreement) bool {
			return crashed(d.Got, tfliteStrideOverflow)
		},
	},
	{
		ID: "tflite-spec-expansion-reads-past", Oracle: "tflite",
		Explanation: "TFLite's STRIDED_SLICE expands a spec whose entries (with an ellipsis or new axes) reach past the input's dimensions or past the spec itself by reading beyond its operands, so its answer depends on uninitialised memory, where TF answers from the spec alone. The oracle reports such specs as crashes without running them.",
		Match: func(d *Disagreement) bool {
			return crashed(d.Got, tfliteReadsOperands)
		},
	},
	{
		ID: "tflite-slice-short-spec", Oracle: "tflite",
		Explanation: "TFLite's SLICE does not check that begin and size have one entry per dimension and reads past them when they are shorter, where TF refuses the spec. The oracle reports such specs as crashes without running them.",
		Match: func(d *Disagreement) bool {
			return d.Op() == casefile.OpSlice && crashed(d.Got, tfliteSliceShortSpec)
		},
	},
}

// tfliteStridedSlice are the divergences of TFLite's STRIDED_SLICE
// (strided_slice, and getitem through TF's encoding), in the order of
// TF's checks.
var tfliteStridedSlice = []Divergence{
	{
		ID: "tflite-several-ellipses", Oracle: "tflite",
		Explanation: "TFLite's STRIDED_SLICE does not refuse several ellipses as TF does (TF counts every bit of ellipsis_mask, past the spec's entries too): it expands the ones in the spec and returns a result.",
		Match: func(d *Disagreement) bool {
			rule := d.Raised()
			return noError(d.Got) && (rule == engine.RuleStridedTwoEllipses || rule == engine.RuleGetItemTwoEllipses)
		},
	},
	{
		ID: "tflite-extra-indices-ignored", Oracle: "tflite",
		Explanation: "TFLite's STRIDED_SLICE ignores the entries that index past the input's last dimension where TF refuses more indices than dimensions.",
		Match: func(d *Disagreement) bool {
			// The engine records extra entries before any check, so a
			// spec it refuses for another fault too (a zero stride)
			// still shows them.
			return isStridedSlice(d.Case) && d.Ref.Kind() == engine.InvalidSpec && noError(d.Got) &&
				(d.Exercises(engine.RuleStridedExtraIndices) || d.Exercises(engine.RuleGetItemExtraIndices))
		},
	},
	{
		ID: "tflite-shrink-negative-stride", Oracle: "tflite",
		Explanation: "TFLite's STRIDED_SLICE does not refuse a shrink axis with a negative stride as TF does: it returns a result, or (stride -1) one whose element it never wrote.",
		Match: func(d *Disagreement) bool {
			return (d.Got.IsOutput() || crashed(d.Got, tfliteReadOutside)) && d.Raised() == engine.RuleStridedShrinkStride
		},
	},
	{
		ID: "tflite-zero-stride-reported-first", Oracle: "tflite",
		Explanation: "On a spec with an out-of-range shrink index and a zero stride TFLite's STRIDED_SLICE reports the zero stride (in Prepare) where TF, checking dimension by dimension, reports the index first.",
		Match: func(d *Disagreement) bool {
			// Clamping the index, the engine reaches the zero stride
			// (of strided_slice, or of a getitem slice).
			if !d.Is(signature.ErrorKind, "invalid_spec-for-out_of_range") {
				return false
			}
			rule := d.RaisedUnder(engine.ShrinkIndexClamped)
			return rule == engine.RuleStridedZeroStride || rule == engine.RuleGetItemZeroStep
		},
	},
	{
		ID: "tflite-begin-mask-on-shrink-axis", Oracle: "tflite",
		Explanation: "TFLite's STRIDED_SLICE applies begin_mask to a shrink axis, taking its first element, where TF ignores begin_mask there and takes (or refuses) the index.",
		Match: func(d *Disagreement) bool {
			return d.Ref.Kind() != engine.InvalidSpec && d.Got.IsOutput() && d.Exercises(engine.RuleStridedShrinkBeginMask)
		},
	},
	{
		ID: "tflite-shrink-index-read-past-end", Oracle: "tflite",
		Explanation: "TFLite's STRIDED_SLICE does not check a shrink index (TF: out of range): it clamps one at or past the dimension's size to the size and reads the element one past the end, with no error.",
		Match: func(d *Disagreement) bool {
			// The engine cannot clamp an index into an empty dimension,
			// as TFLite does (to 0, reading one past the end): the spec
			// feature decides.
			rule := d.Raised()
			return crashed(d.Got, tfliteReadOutside) && (rule == engine.RuleStridedShrinkOutOfBounds || rule == engine.RuleGetItemIndexOutOfBounds)
		},
	},
	{
		ID: "tflite-shrink-index-clamped", Oracle: "tflite",
		Explanation: "TFLite's STRIDED_SLICE does not check a shrink index (TF: out of range): it clamps it into the dimension (one below -d to the first element) and returns that element.",
		Match: func(d *Disagreement) bool {
			return d.Is(signature.OutputForError, string(engine.OutOfRange)) && d.Applies(engine.ShrinkIndexClamped)
		},
	},
	{
		ID: "tflite-ellipsis-covers-one-dim", Oracle: "tflite",
		Explanation: "TFLite's STRIDED_SLICE expands an ellipsis over at least one dimension, so where the other entries consume every dimension (TF: the ellipsis covers none) the entries after it shift by one dimension (an index can land past the end of its new one) and the last falls off.",
		Match: func(d *Disagreement) bool {
			return noError(d.Got) && d.Applies(engine.EllipsisCoversOneDim)
		},
	},
	{
		ID: "tflite-mask-bits-past-spec", Oracle: "tflite",
		Explanation: "TFLite's STRIDED_SLICE applies mask bits at positions past the spec's entries (a new axis, a shrink, an ellipsis) where TF ignores them.",
		Match: func(d *Disagreement) bool {
			return noError(d.Got) && d.Applies(engine.MaskBitsPastSpecApplied)
		},
	},
}

// tfliteSlice are the divergences of TFLite's SLICE, in the order of
// TF's checks.
var tfliteSlice = []Divergence{
	{
		ID: "tflite-slice-extra-entries-ignored", Oracle: "tflite",
		Explanation: "TFLite's SLICE reads one begin/size entry per dimension and ignores the rest where TF refuses begin/size longer than the rank.",
		Match: func(d *Disagreement) bool {
			return d.Op() == casefile.OpSlice && d.Ref.Kind() == engine.InvalidSpec && d.Got.Kind() != engine.InvalidSpec && d.Applies(engine.ExtraEntriesIgnored)
		},
	},
	{
		ID: "tflite-slice-int64-truncated", Oracle: "tflite",
		Explanation: "TFLite's SLICE checks int64 begin/size in int64 arithmetic that overflows and then truncates them to 32 bits, so a value beyond int32 gives a wrong slice or a tensor with a negative dimension where TF reports out of range.",
		Match: func(d *Disagreement) bool {
			return d.Op() == casefile.OpSlice && d.Ref.Kind() == engine.OutOfRange && noError(d.Got) && d.Applies(engine.Int32Arithmetic)
		},
	},
	{
		ID: "tflite-slice-negative-begin", Oracle: "tflite",
		Explanation: "TFLite's SLICE does not check for a negative begin (TF: out of range) and reads before its input: elements from outside it, a trap far below it, or an empty result.",
		Match: func(d *Disagreement) bool {
			return d.Ref.Kind() == engine.OutOfRange && (d.Got.IsOutput() || crashed(d.Got, tfliteReadOutside) || crashed(d.Got, tfliteTrapped)) &&
				d.Exercises(engine.RuleSliceNegativeBegin)
		},
	},
	{
		ID: "tflite-slice-begin-size-overflow", Oracle: "tflite",
		Explanation: "TFLite's SLICE checks begin + size <= dim in int32 arithmetic, so a sum that overflows passes the check where TF reports out of range.",
		Match: func(d *Disagreement) bool {
			return d.Ref.Kind() == engine.OutOfRange && noError(d.Got) && slice(d.Case, tfspec.Slice.BeginSizeOverflow)
		},
	},
	{
		ID: "tflite-slice-negative-dim", Oracle: "tflite",
		Explanation: "TFLite's SLICE turns size -1 with a begin past the dimension into a negative dimension and, when the output still has no bytes to allocate, returns a tensor of that shape with no error where TF reports out of range.",
		Match: func(d *Disagreement) bool {
			return d.Ref.Kind() == engine.OutOfRange && crashed(d.Got, tfliteInvalidTensor) && slice(d.Case, tfspec.Slice.NegativeDim)
		},
	},
}

// tfliteGather are the divergences of TFLite's GATHER and GATHER_ND.
var tfliteGather = []Divergence{
	{
		ID: "tflite-gather-nd-empty-params-depth-0", Oracle: "tflite",
		Explanation: "TFLite's GATHER_ND with index depth 0 on params with no elements returns the requested rows (empty) where TF reports out of range: it checks that there are indices, not rows.",
		Match: func(d *Disagreement) bool {
			return d.Is(signature.OutputForError, string(engine.OutOfRange)) &&
				d.Raised() == engine.RuleGatherNDEmptyParams && d.Exercises(engine.RuleGatherNDDepth0)
		},
	},
	{
		ID: "tflite-gather-index-dtype", Oracle: "tflite",
		Explanation: "TFLite's GATHER takes int32 and int64 indices only and refuses the other integer dtypes in Prepare, where TF's gather reads any integer index.",
		Match: func(d *Disagreement) bool {
			idx := d.Case.Inputs["indices"]
			return d.Op() == casefile.OpGather && d.Got.Kind() == engine.BadInput && idx.DType.IsInteger() &&
				idx.DType != engine.Int32Type && idx.DType != engine.Int64Type
		},
	},
	{
		ID: "tflite-gather-flat-bounds", Oracle: "tflite",
		Explanation: "TFLite's GATHER with batch_dims accepts an index beyond its axis when its block still lies in params, and reads there (another batch entry's data) where TF reports out of range or, with bad_indices zero, writes zeros.",
		Match: func(d *Disagreement) bool {
			return d.Op() == casefile.OpGather && d.Follows(engine.GatherFlatBounds)
		},
	},
	{
		ID: "tflite-gather-negative-index-on-empty", Oracle: "tflite",
		Explanation: "TFLite's GATHER refuses a negative index before anything else, also when the result has no elements, where TF returns the empty result without reading an index.",
		Match: func(d *Disagreement) bool {
			return d.Op() == casefile.OpGather && d.Is(signature.ErrorForOutput, string(engine.OutOfRange)) &&
				emptyOutput(d.Ref) && anyNegative(d.Case.Inputs["indices"])
		},
	},
	{
		ID: "tflite-gather-nd-flat-bounds", Oracle: "tflite",
		Explanation: "TFLite's GATHER_ND refuses a row with a negative component, then bounds-checks only the row's flattened offset, so a row with a too-large component that lands inside params is accepted where TF reports out of range.",
		Match: func(d *Disagreement) bool {
			return d.Op() == casefile.OpGatherND && d.Follows(engine.GatherFlatBounds)
		},
	},
}

// anyNegative reports whether a signed integer tensor holds a negative
// element (its sign bit set).
func anyNegative(t *engine.Tensor) bool {
	if t == nil || t.DType.Kind != engine.Int {
		return false
	}
	c := t.Contiguous()
	size := c.DType.Size
	for i := 0; i+size <= len(c.Data); i += size {
		msb := c.Data[i+size-1]
		if c.DType.BigEndian {
			msb = c.Data[i]
		}
		if msb&0x80 != 0 {
			return true
		}
	}
	return false
}
