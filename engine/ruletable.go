package engine

import (
	"fmt"
	"strings"
)

// RuleID is the stable identifier of one rule of the reference semantics
// (see Rule), such as "getitem/negative-step": the op it belongs to
// ("common" for a rule of every op, or a variant's name for a rule only
// that variant follows), a slash, and the rule's name.
type RuleID string

// Rule is one rule of the reference semantics that can decide an answer:
// an error it raises (Kind set) or a way it computes an output. The table
// of every rule is RuleTable; every *Error the engine returns names the
// rule that raised it (Error.Rule).
type Rule struct {
	ID RuleID
	// Ops lists the ops the rule belongs to.
	Ops []string
	// Statement says what the rule is, in one line.
	Statement string
	// Source is where the reference states the rule: a section of the
	// NumPy documentation, a function of NumPy's or TensorFlow's source,
	// an ONNX operator specification.
	Source string
	// Kind is the kind of the error the rule raises, "" for a rule that
	// decides an output.
	Kind ErrorKind
	// RefError is the reference's own error for an error rule: the
	// NumPy exception class (with its message where quoted), the TF
	// status, ONNX Runtime's message; "" for a rule that decides an
	// output, or where the rule is conform's own.
	RefError string
	// Variant is the variant whose rule this is (see Variant), 0 for a
	// rule of the reference semantics.
	Variant Variant
}

// IsError reports whether the rule raises an error.
func (r Rule) IsError() bool { return r.Kind != "" }

// The op names of the rules' Ops (the names case files use).
const (
	opGetItem             = "getitem"
	opTake                = "take"
	opTakeAlongAxis       = "take_along_axis"
	opStridedSlice        = "strided_slice"
	opSlice               = "slice"
	opGatherND            = "gather_nd"
	opGather              = "gather"
	opONNXSlice           = "onnx_slice"
	opONNXGather          = "onnx_gather"
	opONNXGatherND        = "onnx_gather_nd"
	opONNXGatherElements  = "onnx_gather_elements"
	numpyIndexing         = "NumPy 1.24 user guide, Indexing on ndarrays"
	numpyMapping          = "NumPy 1.24 numpy/core/src/multiarray/mapping.c"
	tfStridedSlice        = "TensorFlow tensorflow/core/util/strided_slice_op.cc, ValidateStridedSliceOp"
	tfSlice               = "TensorFlow tensorflow/core/kernels/slice_op.cc, SharedSliceValidation"
	tfGather              = "TensorFlow tensorflow/core/kernels/gather_op.cc, GatherOp::Compute"
	tfGatherND            = "TensorFlow tensorflow/core/kernels/gather_nd_op.h, DoGatherNd"
	onnxSliceSpec         = "ONNX operator specification, Slice-13"
	onnxGatherSpec        = "ONNX operator specification, Gather-13"
	onnxGatherElemSpec    = "ONNX operator specification, GatherElements-13"
	onnxGatherNDSpec      = "ONNX operator specification, GatherND-13"
	numpyTake             = "NumPy 1.24 reference, numpy.take; numpy/core/src/multiarray/item_selection.c, PyArray_TakeFrom"
	numpyTakeAlongAxis    = "NumPy 1.24 reference, numpy.take_along_axis; numpy/lib/shape_base.py"
	tfInvalidArgument     = "InvalidArgument"
	conformOwn            = "conform's own rule"
	pythonSyntaxError     = "SyntaxError"
	numpyIndexErrorTooMny = "IndexError: too many indices for array"
)

// allOps lists every op, for the rules they share.
var allOps = []string{opGetItem, opTake, opTakeAlongAxis, opStridedSlice, opSlice, opGatherND, opGather, opONNXSlice, opONNXGather, opONNXGatherND, opONNXGatherElements}

// The rules of getitem (NumPy's x[index], basic and advanced).
const (
	RuleGetItemSyntax               RuleID = "getitem/subscript-syntax"
	RuleGetItemNotLiteral           RuleID = "getitem/expression-item"
	RuleGetItemTooManyItems         RuleID = "getitem/too-many-items"
	RuleGetItemInvalidItem          RuleID = "getitem/invalid-item"
	RuleGetItemArrayTooDeep         RuleID = "getitem/item-array-too-deep"
	RuleGetItemRaggedArray          RuleID = "getitem/ragged-item-array"
	RuleGetItemIndexBeyondInt64     RuleID = "getitem/index-beyond-int64"
	RuleGetItemNameWithoutInput     RuleID = "getitem/name-without-input"
	RuleGetItemUnboundArray         RuleID = "getitem/unbound-array"
	RuleGetItemUnknownItem          RuleID = "getitem/unknown-item-kind"
	RuleGetItemTwoEllipses          RuleID = "getitem/two-ellipses"
	RuleGetItemTooManyIndices       RuleID = "getitem/too-many-indices"
	RuleGetItemArrayDType           RuleID = "getitem/index-array-dtype"
	RuleGetItem0DOverflow           RuleID = "getitem/0d-index-overflow"
	RuleGetItemBoolShape            RuleID = "getitem/bool-shape-mismatch"
	RuleGetItemIndexOutOfBounds     RuleID = "getitem/index-out-of-bounds"
	RuleGetItemSliceBoundNotInteger RuleID = "getitem/slice-bound-not-integer"
	RuleGetItemZeroStep             RuleID = "getitem/zero-step"
	RuleGetItemBroadcastMismatch    RuleID = "getitem/broadcast-mismatch"
	RuleGetItemTooManyIndexArrays   RuleID = "getitem/too-many-index-arrays"
	RuleGetItemNoSubspaceArrays     RuleID = "getitem/index-arrays-without-subspace"
	RuleGetItemArrayOutOfBounds     RuleID = "getitem/index-array-out-of-bounds"

	RuleGetItemIntegerIndex        RuleID = "getitem/integer-index"
	RuleGetItemNegativeIndex       RuleID = "getitem/negative-index"
	RuleGetItemNegativeStep        RuleID = "getitem/negative-step"
	RuleGetItemNegativeStepNoStart RuleID = "getitem/negative-step-omitted-start"
	RuleGetItemNegativeStepNoStop  RuleID = "getitem/negative-step-omitted-stop"
	RuleGetItemNegativeBound       RuleID = "getitem/negative-bound"
	RuleGetItemBoundClamped        RuleID = "getitem/bound-clamped"
	RuleGetItemStartBelowRange     RuleID = "getitem/negative-step-start-below"
	RuleGetItemStepOver1           RuleID = "getitem/step-over-1"
	RuleGetItemEmptyRange          RuleID = "getitem/empty-range"
	RuleGetItemEllipsis            RuleID = "getitem/ellipsis"
	RuleGetItemEllipsisNoDims      RuleID = "getitem/ellipsis-covers-no-dims"
	RuleGetItemImplicitEllipsis    RuleID = "getitem/implicit-ellipsis"
	RuleGetItemNewAxis             RuleID = "getitem/new-axis"
	RuleGetItemScalarResult        RuleID = "getitem/scalar-result"
	RuleGetItemIntArray            RuleID = "getitem/int-array"
	RuleGetItemUnsignedArray       RuleID = "getitem/unsigned-array"
	RuleGetItemBoolArray           RuleID = "getitem/bool-array"
	RuleGetItemSingleBool          RuleID = "getitem/single-bool-array"
	RuleGetItemBool0D              RuleID = "getitem/0d-bool"
	RuleGetItem0DIntArray          RuleID = "getitem/0d-index-array"
	RuleGetItemBoolEmptyDims       RuleID = "getitem/bool-empty-dims-unchecked"
	RuleGetItemBroadcast           RuleID = "getitem/index-arrays-broadcast"
	RuleGetItemIntAmongArrays      RuleID = "getitem/integer-among-arrays"
	RuleGetItemAdjacentInPlace     RuleID = "getitem/adjacent-advanced-in-place"
	RuleGetItemSeparatedFirst      RuleID = "getitem/separated-advanced-first"
	RuleGetItemEmptyUnchecked      RuleID = "getitem/empty-result-unchecked"
	RuleGetItemNarrowArray         RuleID = "getitem/narrow-int-array"
	RuleGetItemPythonBool          RuleID = "getitem/python-bool"
	RuleGetItem0DBoolArray         RuleID = "getitem/0d-bool-array"
	RuleGetItemNDIndexArray        RuleID = "getitem/nd-index-array"
	RuleGetItemSeveralArrays       RuleID = "getitem/several-index-arrays"
	RuleGetItemNDMask              RuleID = "getitem/nd-mask"
	RuleGetItemExtraIndices        RuleID = "getitem/more-indices-than-dims"
)

// The rules of take (np.take).
const (
	RuleTakeMode          RuleID = "take/bad-mode"
	RuleTakeAxis          RuleID = "take/axis-out-of-bounds"
	RuleTakeIndexDType    RuleID = "take/index-dtype"
	RuleTakeEmptyAxis     RuleID = "take/empty-axis"
	RuleTakeOutOfBounds   RuleID = "take/index-out-of-bounds"
	RuleTakeFlattened     RuleID = "take/flattened"
	RuleTake0DInput       RuleID = "take/0d-input"
	RuleTakeAxisNonZero   RuleID = "take/axis"
	RuleTakeNegativeIndex RuleID = "take/negative-index"
	RuleTakeNarrow        RuleID = "take/narrow-indices"
	RuleTake0DIndices     RuleID = "take/0d-indices"
	RuleTakeNDIndices     RuleID = "take/nd-indices"
	RuleTakeWrap          RuleID = "take/mode-wrap"
	RuleTakeClip          RuleID = "take/mode-clip"
	RuleTakeBoolIndices   RuleID = "take/bool-indices"
	RuleTakeScalarResult  RuleID = "take/scalar-result"
	RuleTakeEmptyChecked  RuleID = "take/empty-result-checked"
)

// The rules of take_along_axis (np.take_along_axis).
const (
	RuleTakeAlongAxis          RuleID = "take_along_axis/axis-out-of-bounds"
	RuleTakeAlongIndexDType    RuleID = "take_along_axis/index-dtype"
	RuleTakeAlongRank          RuleID = "take_along_axis/rank-mismatch"
	RuleTakeAlongBroadcast     RuleID = "take_along_axis/broadcast-mismatch"
	RuleTakeAlongTooManyDims   RuleID = "take_along_axis/too-many-dims"
	RuleTakeAlongOutOfBounds   RuleID = "take_along_axis/index-out-of-bounds"
	RuleTakeAlongFlattened     RuleID = "take_along_axis/flattened"
	RuleTakeAlongAxisNonZero   RuleID = "take_along_axis/axis"
	RuleTakeAlongBroadcasts    RuleID = "take_along_axis/indices-broadcast"
	RuleTakeAlongNegativeIndex RuleID = "take_along_axis/negative-index"
	RuleTakeAlongNarrow        RuleID = "take_along_axis/narrow-indices"
	RuleTakeAlongUint64        RuleID = "take_along_axis/uint64-as-intp"
	RuleTakeAlongEmptyResult   RuleID = "take_along_axis/empty-result-unchecked"
)

// The rules of strided_slice (TF's StridedSlice).
const (
	RuleStridedMaskList          RuleID = "strided_slice/mask-list-entry"
	RuleStridedLengths           RuleID = "strided_slice/length-mismatch"
	RuleStridedTooLong           RuleID = "strided_slice/too-many-entries"
	RuleStridedTwoEllipses       RuleID = "strided_slice/multiple-ellipses"
	RuleStridedTooManyDims       RuleID = "strided_slice/too-many-dims"
	RuleStridedZeroStride        RuleID = "strided_slice/zero-stride"
	RuleStridedShrinkStride      RuleID = "strided_slice/shrink-stride"
	RuleStridedShrinkOutOfBounds RuleID = "strided_slice/shrink-out-of-bounds"

	RuleStridedNegativeStride   RuleID = "strided_slice/negative-stride"
	RuleStridedNegativeBeginMsk RuleID = "strided_slice/negative-stride-begin-mask"
	RuleStridedEndSentinel      RuleID = "strided_slice/negative-stride-end-mask"
	RuleStridedNegativeBound    RuleID = "strided_slice/negative-bound"
	RuleStridedBoundClamped     RuleID = "strided_slice/bound-clamped"
	RuleStridedBeginBelowRange  RuleID = "strided_slice/negative-stride-begin-below"
	RuleStridedStrideOver1      RuleID = "strided_slice/stride-over-1"
	RuleStridedEmptyRange       RuleID = "strided_slice/empty-range"
	RuleStridedEllipsis         RuleID = "strided_slice/ellipsis"
	RuleStridedEllipsisNoDims   RuleID = "strided_slice/ellipsis-covers-no-dims"
	RuleStridedImplicitEllipsis RuleID = "strided_slice/implicit-ellipsis"
	RuleStridedNewAxis          RuleID = "strided_slice/new-axis"
	RuleStridedShrink           RuleID = "strided_slice/shrink"
	RuleStridedShrinkNegative   RuleID = "strided_slice/shrink-negative-index"
	RuleStridedShrinkStrideOver RuleID = "strided_slice/shrink-stride-over-1"
	RuleStridedMaskPriority     RuleID = "strided_slice/mask-priority"
	RuleStridedMaskPastSpec     RuleID = "strided_slice/mask-bits-past-spec-ignored"
	RuleStridedExtraIndices     RuleID = "strided_slice/more-indices-than-dims"
	RuleStridedShrinkBeginMask  RuleID = "strided_slice/shrink-ignores-begin-mask"
)

// The rules of slice (tf.slice).
const (
	RuleSliceLengths       RuleID = "slice/length-mismatch"
	RuleSliceEmptyDim      RuleID = "slice/empty-dimension"
	RuleSliceBegin         RuleID = "slice/begin-out-of-range"
	RuleSliceSize          RuleID = "slice/size-out-of-range"
	RuleSliceSizeToEnd     RuleID = "slice/size-minus-one"
	RuleSliceEmptyResult   RuleID = "slice/empty-range"
	RuleSliceNegativeBegin RuleID = "slice/negative-begin"
)

// The rules of gather (tf.gather).
const (
	RuleGatherPolicy        RuleID = "gather/bad-indices-policy"
	RuleGatherIndexDType    RuleID = "gather/index-dtype"
	RuleGatherParamsScalar  RuleID = "gather/params-scalar"
	RuleGatherAxis          RuleID = "gather/axis-out-of-range"
	RuleGatherBatchDims     RuleID = "gather/batch-dims-out-of-range"
	RuleGatherBatchAxis     RuleID = "gather/batch-dims-after-axis"
	RuleGatherBatchShape    RuleID = "gather/batch-shape-mismatch"
	RuleGatherOutOfRange    RuleID = "gather/index-out-of-range"
	RuleGatherAxisNonZero   RuleID = "gather/axis"
	RuleGatherBatched       RuleID = "gather/batch-dims"
	RuleGatherZeroMode      RuleID = "gather/bad-index-zeros"
	RuleGatherEmptyResult   RuleID = "gather/empty-result-unchecked"
	RuleGatherNegativeIndex RuleID = "gather/negative-index-refused"
	RuleGatherInt32Indices  RuleID = "gather/int32-indices"
)

// The rules of gather_nd (tf.gather_nd).
const (
	RuleGatherNDPolicy        RuleID = "gather_nd/bad-indices-policy"
	RuleGatherNDIndexDType    RuleID = "gather_nd/index-dtype"
	RuleGatherNDParamsScalar  RuleID = "gather_nd/params-scalar"
	RuleGatherNDIndicesScalar RuleID = "gather_nd/indices-scalar"
	RuleGatherNDBatchNegative RuleID = "gather_nd/batch-dims-negative"
	RuleGatherNDBatchIndices  RuleID = "gather_nd/batch-dims-indices-rank"
	RuleGatherNDBatchParams   RuleID = "gather_nd/batch-dims-params-rank"
	RuleGatherNDBatchShape    RuleID = "gather_nd/batch-shape-mismatch"
	RuleGatherNDDepth         RuleID = "gather_nd/index-depth"
	RuleGatherNDOverflow      RuleID = "gather_nd/output-overflow"
	RuleGatherNDEmptyParams   RuleID = "gather_nd/empty-params"
	RuleGatherNDOutOfRange    RuleID = "gather_nd/index-out-of-range"
	RuleGatherNDDepth0        RuleID = "gather_nd/depth-0"
	RuleGatherNDFullDepth     RuleID = "gather_nd/full-depth"
	RuleGatherNDBatched       RuleID = "gather_nd/batch-dims"
	RuleGatherNDZeroMode      RuleID = "gather_nd/bad-index-zeros"
	RuleGatherNDEmptyRows     RuleID = "gather_nd/empty-rows"
	RuleGatherNDNegative      RuleID = "gather_nd/negative-index-refused"
	RuleGatherNDNarrow        RuleID = "gather_nd/narrow-indices"
)

// The rules of onnx_slice (ONNX Slice-13).
const (
	RuleONNXSliceScalar         RuleID = "onnx_slice/scalar-data"
	RuleONNXSliceEnds           RuleID = "onnx_slice/ends-length"
	RuleONNXSliceAxesLength     RuleID = "onnx_slice/axes-length"
	RuleONNXSliceStepsLength    RuleID = "onnx_slice/steps-length"
	RuleONNXSliceAxis           RuleID = "onnx_slice/axis-out-of-range"
	RuleONNXSliceRepeatedAxis   RuleID = "onnx_slice/repeated-axis"
	RuleONNXSliceZeroStep       RuleID = "onnx_slice/zero-step"
	RuleONNXSliceAxes           RuleID = "onnx_slice/axes"
	RuleONNXSliceNegativeStep   RuleID = "onnx_slice/negative-step"
	RuleONNXSliceReverseStart   RuleID = "onnx_slice/negative-step-start-clamp"
	RuleONNXSliceNegativeBound  RuleID = "onnx_slice/negative-bound"
	RuleONNXSliceBoundClamped   RuleID = "onnx_slice/bound-clamped"
	RuleONNXSliceStepOver1      RuleID = "onnx_slice/step-over-1"
	RuleONNXSliceEmptyRange     RuleID = "onnx_slice/empty-range"
	RuleONNXSliceAxisNotSliced  RuleID = "onnx_slice/axis-not-sliced"
	RuleONNXSliceNegativeAxis   RuleID = "onnx_slice/negative-axis"
	RuleONNXSliceHugeEnd        RuleID = "onnx_slice/int-max-end"
	RuleONNXSliceHugeNegStepEnd RuleID = "onnx_slice/int-max-end-negative-step"
)

// The rules of onnx_gather (ONNX Gather-13).
const (
	RuleONNXGatherIndexDType RuleID = "onnx_gather/index-dtype"
	RuleONNXGatherScalar     RuleID = "onnx_gather/scalar-data"
	RuleONNXGatherAxis       RuleID = "onnx_gather/axis-out-of-range"
	RuleONNXGatherOutOfRange RuleID = "onnx_gather/index-out-of-range"
	RuleONNXGatherNegative   RuleID = "onnx_gather/negative-index-wraps"
	RuleONNXGatherInt32      RuleID = "onnx_gather/int32-indices"
	RuleONNXGatherAxisNon0   RuleID = "onnx_gather/axis"
	RuleONNXGatherEmpty      RuleID = "onnx_gather/empty-result-checked"
)

// The rules of onnx_gather_elements (ONNX GatherElements-13).
const (
	RuleONNXElemIndexDType RuleID = "onnx_gather_elements/index-dtype"
	RuleONNXElemScalar     RuleID = "onnx_gather_elements/scalar-data"
	RuleONNXElemRank       RuleID = "onnx_gather_elements/rank-mismatch"
	RuleONNXElemAxis       RuleID = "onnx_gather_elements/axis-out-of-range"
	RuleONNXElemShape      RuleID = "onnx_gather_elements/indices-exceed-data"
	RuleONNXElemOutOfRange RuleID = "onnx_gather_elements/index-out-of-range"
	RuleONNXElemNegative   RuleID = "onnx_gather_elements/negative-index-wraps"
	RuleONNXElemInt32      RuleID = "onnx_gather_elements/int32-indices"
	RuleONNXElemSmaller    RuleID = "onnx_gather_elements/indices-smaller-than-data"
	RuleONNXElemAxisNon0   RuleID = "onnx_gather_elements/axis"
)

// The rules of onnx_gather_nd (ONNX GatherND-13).
const (
	RuleONNXGatherNDIndexDType RuleID = "onnx_gather_nd/index-dtype"
	RuleONNXGatherNDRank       RuleID = "onnx_gather_nd/rank"
	RuleONNXGatherNDBatchDims  RuleID = "onnx_gather_nd/batch-dims-out-of-range"
	RuleONNXGatherNDBatchShape RuleID = "onnx_gather_nd/batch-shape-mismatch"
	RuleONNXGatherNDDepth      RuleID = "onnx_gather_nd/index-depth"
	RuleONNXGatherNDOverflow   RuleID = "onnx_gather_nd/output-overflow"
	RuleONNXGatherNDOutOfRange RuleID = "onnx_gather_nd/index-out-of-range"
	RuleONNXGatherNDNegative   RuleID = "onnx_gather_nd/negative-index-wraps"
	RuleONNXGatherNDBatched    RuleID = "onnx_gather_nd/batch-dims"
	RuleONNXGatherNDDepth0     RuleID = "onnx_gather_nd/depth-0"
)

// The rules every op shares: the limits of a result, and of an input
// tensor.
const (
	RuleResultRank      RuleID = "common/result-rank"
	RuleArrayTooBig     RuleID = "common/array-too-big"
	RuleOutputLimit     RuleID = "common/output-limit"
	RuleInputRank       RuleID = "common/input-rank"
	RuleInputDType      RuleID = "common/input-dtype"
	RuleInputTooBig     RuleID = "common/input-too-big"
	RuleInputDataLength RuleID = "common/input-data-length"
)

// The rules only a variant follows, where it raises an error the
// reference does not.
const (
	RuleEmptyRangeRefused    RuleID = "empty-range-refused/empty-result"
	RuleShrinkClampedEmpty   RuleID = "shrink-index-clamped/empty-dimension"
	RuleMaskBitsShortInput   RuleID = "mask-bits-past-spec-applied/short-input"
	RuleGatherFlatBoundsOut  RuleID = "gather-flat-bounds/offset-outside"
	RuleNegativeStepRefused  RuleID = "negative-step-refused/refused"
	RuleInt64IndicesOnly     RuleID = "int64-indices-only/dtype-refused"
	RuleNegativeIndexOut     RuleID = "negative-indices-refused/negative-index"
	RuleBoolAsIntegerOut     RuleID = "bool-as-integer/index-out-of-bounds"
	RuleBoolAsIntegerTooMany RuleID = "bool-as-integer/too-many-indices"
	Rule0DIndexArrayRefused  RuleID = "0d-index-array-refused/refused"
	RuleOneIndexArrayOnly    RuleID = "one-index-array-only/refused"
	RuleNDIndexArrayRefused  RuleID = "nd-index-array-refused/refused"
)

// The libraries the variants' rules come from, as run to confirm them.
const (
	pytorch113 = "PyTorch 1.13"
	dask2022   = "Dask 2022.12"
)

// RuleTable lists every rule, by op in the order of the ops' documentation
// (getitem, take, take_along_axis, strided_slice, slice, gather,
// gather_nd, the ONNX ops), then the rules every op shares and the
// variants' rules; within an op, error rules first, in the order the
// reference checks them.
var RuleTable = []Rule{
	// getitem: the subscript (read by package internal/expr).
	getitem(RuleGetItemSyntax, InvalidSpec, pythonSyntaxError,
		"the index is one Python subscript of a name, x[...], that parses", "Python 3 language reference, Subscriptions; conform's case format (docs/case-format.md)"),
	getitem(RuleGetItemNotLiteral, InvalidSpec, "",
		"every item is a literal (an integer, a slice, None, ..., a list, True/False) or a name: conform evaluates no expressions", "conform's case format (docs/case-format.md)"),
	getitem(RuleGetItemTooManyItems, InvalidSpec, numpyIndexErrorTooMny,
		"a subscript holds at most 64 items (twice NumPy's 32 dimensions)", numpyMapping+", prepare_index"),
	getitem(RuleGetItemInvalidItem, InvalidSpec, "IndexError: only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices",
		"an item that is not an integer, slice, ellipsis, None or integer/boolean array (a float, a string, a list of floats, ...) is refused", numpyIndexing+", Basic indexing; "+numpyMapping+", prepare_index"),
	getitem(RuleGetItemArrayTooDeep, InvalidSpec, "ValueError",
		"a list item nested deeper than 32 levels makes no NumPy array", "NumPy 1.24 numpy/core/src/multiarray/ctors.c, PyArray_DiscoverDTypeAndShape (NPY_MAXDIMS)"),
	getitem(RuleGetItemRaggedArray, InvalidSpec, "ValueError",
		"a list item of inhomogeneous shape (ragged nesting) makes no integer array", "NumPy 1.24 numpy/core/src/multiarray/array_coercion.c"),
	getitem(RuleGetItemIndexBeyondInt64, OutOfRange, "IndexError: only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices",
		"an integer item beyond int64 is out of bounds for any axis", numpyMapping+", prepare_index"),
	getitem(RuleGetItemNameWithoutInput, BadInput, "",
		"a name in the subscript must be an input of the case", "conform's case format (docs/case-format.md)"),
	getitem(RuleGetItemUnboundArray, InvalidSpec, "",
		"an IndexArray item must hold an array (its name bound to an input)", "package engine, IndexItem"),
	getitem(RuleGetItemUnknownItem, InvalidSpec, "",
		"an IndexItem must be of a known kind", "package engine, IndexItem"),
	getitem(RuleGetItemTwoEllipses, InvalidSpec, "IndexError: an index can only have a single ellipsis ('...')",
		"an index has at most one ellipsis", numpyIndexing+", Dimensional indexing tools; "+numpyMapping+", prepare_index"),
	getitem(RuleGetItemTooManyIndices, InvalidSpec, numpyIndexErrorTooMny,
		"integers, slices and array dimensions address at most the array's dimensions", numpyMapping+", prepare_index"),
	getitem(RuleGetItemArrayDType, InvalidSpec, "IndexError: arrays used as indices must be of integer (or boolean) type",
		"an index array has an integer or boolean dtype", numpyIndexing+", Advanced indexing; "+numpyMapping+", prepare_index"),
	getitem(RuleGetItem0DOverflow, OutOfRange, "OverflowError",
		"a 0-d unsigned index array beyond int64 does not convert to an integer", numpyMapping+", prepare_index (PyArray_PyIntAsIntp)"),
	getitem(RuleGetItemBoolShape, InvalidSpec, "IndexError: boolean index did not match indexed array along dimension",
		"a boolean array has the shape of the dimensions it covers (its dimensions of size 0 are not checked)", numpyIndexing+", Boolean array indexing; "+numpyMapping+", prepare_index"),
	getitem(RuleGetItemIndexOutOfBounds, OutOfRange, "IndexError: index is out of bounds for axis",
		"an integer index i is in [-d, d) for its dimension of size d", numpyIndexing+", Single element indexing; "+numpyMapping+", get_item_pointer"),
	getitem(RuleGetItemSliceBoundNotInteger, InvalidSpec, "TypeError: slice indices must be integers or None or have an __index__ method",
		"a slice's start, stop and step are integers or None", "Python 3 reference, slice.indices; "+numpyMapping+", get_view_from_index"),
	getitem(RuleGetItemZeroStep, InvalidSpec, "ValueError: slice step cannot be zero",
		"a slice's step is not zero", numpyIndexing+", Slicing and striding"),
	getitem(RuleGetItemBroadcastMismatch, InvalidSpec, "IndexError: shape mismatch: indexing arrays could not be broadcast together with shapes",
		"the index arrays (and integers among them) broadcast together", numpyIndexing+", Integer array indexing; "+numpyMapping+", mapiter_fill_info"),
	getitem(RuleGetItemTooManyIndexArrays, InvalidSpec, "IndexError",
		"NumPy's index iterator takes at most 32 index arrays (each dimension of a boolean array counts)", numpyMapping+", PyArray_MapIterNew"),
	getitem(RuleGetItemNoSubspaceArrays, InvalidSpec, "IndexError: when no subspace is given, the number of index arrays cannot be above 31",
		"index arrays that cover every dimension number at most 31", numpyMapping+", PyArray_MapIterNew"),
	getitem(RuleGetItemArrayOutOfBounds, OutOfRange, "IndexError: index is out of bounds for axis",
		"every value of an integer index array is in [-d, d) for the dimension it indexes, unless the result is empty", numpyIndexing+", Integer array indexing; "+numpyMapping+", mapiter_fill_info"),
	// getitem: the rules of an output.
	getitem(RuleGetItemIntegerIndex, "", "",
		"an integer index selects one position and drops the dimension", numpyIndexing+", Single element indexing"),
	getitem(RuleGetItemNegativeIndex, "", "",
		"a negative integer index counts from the end, once", numpyIndexing+", Single element indexing"),
	getitem(RuleGetItemNegativeStep, "", "",
		"a negative step walks the dimension backwards", numpyIndexing+", Slicing and striding"),
	getitem(RuleGetItemNegativeStepNoStart, "", "",
		"with a negative step an omitted start is the last position", numpyIndexing+", Slicing and striding"),
	getitem(RuleGetItemNegativeStepNoStop, "", "",
		"with a negative step an omitted stop runs past position 0", numpyIndexing+", Slicing and striding"),
	getitem(RuleGetItemNegativeBound, "", "",
		"a negative start or stop counts from the end, once", numpyIndexing+", Slicing and striding"),
	getitem(RuleGetItemBoundClamped, "", "",
		"a start or stop outside the dimension is clamped into it (into [-1, d-1] for a negative step)", "Python 3 reference, slice.indices (PySlice_AdjustIndices)"),
	getitem(RuleGetItemStartBelowRange, "", "",
		"with a negative step a start below -d is clamped to -1, before the first position: the slice is empty", "Python 3 reference, slice.indices (PySlice_AdjustIndices)"),
	getitem(RuleGetItemStepOver1, "", "",
		"a step greater than 1 or less than -1 skips positions", numpyIndexing+", Slicing and striding"),
	getitem(RuleGetItemEmptyRange, "", "",
		"a slice that selects nothing gives a dimension of size 0", numpyIndexing+", Slicing and striding"),
	getitem(RuleGetItemEllipsis, "", "",
		"an ellipsis stands for as many full slices as the other items leave dimensions", numpyIndexing+", Dimensional indexing tools"),
	getitem(RuleGetItemEllipsisNoDims, "", "",
		"an ellipsis where the other items address every dimension stands for none", numpyIndexing+", Dimensional indexing tools"),
	getitem(RuleGetItemImplicitEllipsis, "", "",
		"an index that addresses fewer dimensions than the array has takes the rest whole", numpyIndexing+", Basic indexing"),
	getitem(RuleGetItemNewAxis, "", "",
		"None (np.newaxis) inserts a dimension of size 1", numpyIndexing+", Dimensional indexing tools"),
	getitem(RuleGetItemScalarResult, "", "",
		"an integer for every dimension gives a NumPy scalar: native byte order, strings without trailing NULs", numpyIndexing+", Single element indexing"),
	getitem(RuleGetItemIntArray, "", "",
		"an integer array selects the positions it holds", numpyIndexing+", Integer array indexing"),
	getitem(RuleGetItemUnsignedArray, "", "",
		"an unsigned index array is cast to intp: a uint64 beyond int64 reads as a negative index", numpyMapping+", prepare_index"),
	getitem(RuleGetItemNarrowArray, "", "",
		"an integer index array narrower than intp (int8, int16, int32, uint8, uint16, uint32) is cast to intp and indexes as its values", numpyMapping+", prepare_index"),
	getitem(RuleGetItemPythonBool, "", "",
		"a Python True or False in the subscript is a 0-d boolean index (see getitem/0d-bool), not the integer 1 or 0", numpyIndexing+", Boolean array indexing"),
	getitem(RuleGetItem0DBoolArray, "", "",
		"a 0-d boolean array is a 0-d boolean index (see getitem/0d-bool), not a mask over a dimension", numpyMapping+", prepare_index"),
	getitem(RuleGetItemNDIndexArray, "", "",
		"an integer index array of two or more dimensions puts all its dimensions in the result", numpyIndexing+", Integer array indexing"),
	getitem(RuleGetItemNDMask, "", "",
		"a boolean array of two or more dimensions covers as many dimensions of the array, from where it stands", numpyIndexing+", Boolean array indexing"),
	getitem(RuleGetItemExtraIndices, "", "",
		"integers, slices and array dimensions outnumber the array's dimensions: the index is refused (getitem/too-many-indices), not cut to the array's dimensions", numpyMapping+", prepare_index"),
	getitem(RuleGetItemSeveralArrays, "", "",
		"several index arrays (integer arrays or masks) in one subscript index together, position by position", numpyIndexing+", Integer array indexing"),
	getitem(RuleGetItemBoolArray, "", "",
		"a boolean array stands for its nonzero() arrays, one per dimension it covers", numpyIndexing+", Boolean array indexing"),
	getitem(RuleGetItemSingleBool, "", "",
		"a boolean array of the array's shape as the only item selects the elements where it is true, in a 1-d result", numpyIndexing+", Boolean array indexing"),
	getitem(RuleGetItemBool0D, "", "",
		"a 0-d boolean (True/False) adds a dimension of size 1 or 0 and addresses none (traced as getitem/python-bool or getitem/0d-bool-array)", numpyMapping+", prepare_index"),
	getitem(RuleGetItem0DIntArray, "", "",
		"a 0-d integer array is an integer index", numpyMapping+", prepare_index"),
	getitem(RuleGetItemBoolEmptyDims, "", "",
		"a boolean array's dimensions of size 0 are not checked against the array's", numpyMapping+", prepare_index"),
	getitem(RuleGetItemBroadcast, "", "",
		"index arrays of different shapes broadcast together", numpyIndexing+", Integer array indexing"),
	getitem(RuleGetItemIntAmongArrays, "", "",
		"an integer among index arrays is a 0-d index array: it broadcasts with them and places their dimensions", numpyIndexing+", Combining advanced and basic indexing"),
	getitem(RuleGetItemAdjacentInPlace, "", "",
		"adjacent advanced indices put their broadcast dimensions where they stand", numpyIndexing+", Combining advanced and basic indexing"),
	getitem(RuleGetItemSeparatedFirst, "", "",
		"advanced indices separated by a slice, ellipsis or new axis put their broadcast dimensions first", numpyIndexing+", Combining advanced and basic indexing"),
	getitem(RuleGetItemEmptyUnchecked, "", "",
		"no index array value is checked when the result is empty", numpyMapping+", mapiter_fill_info"),

	// take.
	opRule(RuleTakeMode, opTake, InvalidSpec, "ValueError: clipmode must be one of 'clip', 'raise', or 'wrap'",
		"the mode is raise, wrap or clip", numpyTake),
	opRule(RuleTakeAxis, opTake, InvalidSpec, "numpy.AxisError: axis is out of bounds for array of dimension",
		"the axis is in [-r, r) for the rank r of a (1 for a 0-d a)", numpyTake),
	opRule(RuleTakeIndexDType, opTake, InvalidSpec, "TypeError: Cannot cast array data to dtype('int64') according to the rule 'safe'",
		"the indices cast safely to intp: bool, integers up to 32 bits and int64 (uint64 only as a 0-d value within int64)", numpyTake),
	opRule(RuleTakeEmptyAxis, opTake, OutOfRange, "IndexError: cannot do a non-empty take from an empty axes.",
		"a non-empty result cannot come from an axis of size 0, in any mode", numpyTake),
	opRule(RuleTakeOutOfBounds, opTake, OutOfRange, "IndexError: index is out of bounds for axis",
		"in raise mode every index is in [-n, n) for the axis size n", numpyTake),
	opRule(RuleTakeFlattened, opTake, "", "", "axis=None takes from the input flattened in row-major order", numpyTake),
	opRule(RuleTake0DInput, opTake, "", "", "a 0-d input is taken as the 1-d array of its element", numpyTake),
	opRule(RuleTakeAxisNonZero, opTake, "", "", "a take along an axis other than 0 (a negative axis counts from the end)", numpyTake),
	opRule(RuleTakeNegativeIndex, opTake, "", "", "a negative index counts from the end, once", numpyTake),
	opRule(RuleTakeWrap, opTake, "", "", "mode=wrap takes every index modulo the axis size", numpyTake),
	opRule(RuleTakeClip, opTake, "", "", "mode=clip clamps every index into [0, n-1], a negative one to 0", numpyTake),
	opRule(RuleTakeBoolIndices, opTake, "", "", "boolean indices are the integers 0 and 1", numpyTake),
	opRule(RuleTakeNarrow, opTake, "", "", "integer indices narrower than intp (int8, int16, int32, uint8, uint16, uint32) are cast to intp and index as their values", numpyTake),
	opRule(RuleTake0DIndices, opTake, "", "", "0-d indices take one position and drop the axis", numpyTake),
	opRule(RuleTakeNDIndices, opTake, "", "", "indices of two or more dimensions put all their dimensions in the result, in place of the axis", numpyTake),
	opRule(RuleTakeScalarResult, opTake, "", "", "a 0-d result is a NumPy scalar (native byte order)", numpyTake),
	opRule(RuleTakeEmptyChecked, opTake, "", "", "in raise mode the indices are checked even when the result is empty, unless the dimensions before the axis hold nothing", numpyTake),

	// take_along_axis.
	opRule(RuleTakeAlongAxis, opTakeAlongAxis, InvalidSpec, "numpy.AxisError: axis is out of bounds for array of dimension",
		"the axis is in [-r, r) for the rank r of arr", numpyTakeAlongAxis),
	opRule(RuleTakeAlongIndexDType, opTakeAlongAxis, InvalidSpec, "IndexError: `indices` must be an integer array",
		"indices have an integer dtype", numpyTakeAlongAxis),
	opRule(RuleTakeAlongRank, opTakeAlongAxis, InvalidSpec, "ValueError: `indices` and `arr` must have the same number of dimensions",
		"indices have the rank of arr (1 with axis=None)", numpyTakeAlongAxis),
	opRule(RuleTakeAlongBroadcast, opTakeAlongAxis, InvalidSpec, "IndexError: shape mismatch: indexing arrays could not be broadcast together with shapes",
		"off the axis, indices and arr broadcast against each other", numpyTakeAlongAxis),
	opRule(RuleTakeAlongTooManyDims, opTakeAlongAxis, InvalidSpec, "IndexError: when no subspace is given, the number of index arrays cannot be above 31",
		"arr has at most 31 dimensions (one index array per dimension, no subspace)", numpyTakeAlongAxis+"; "+numpyMapping+", PyArray_MapIterNew"),
	opRule(RuleTakeAlongOutOfBounds, opTakeAlongAxis, OutOfRange, "IndexError: index is out of bounds for axis",
		"every index is in [-n, n) for the axis size n, unless the result is empty", numpyTakeAlongAxis),
	opRule(RuleTakeAlongFlattened, opTakeAlongAxis, "", "", "axis=None takes from arr flattened in row-major order, with 1-d indices", numpyTakeAlongAxis),
	opRule(RuleTakeAlongAxisNonZero, opTakeAlongAxis, "", "", "a take along an axis other than 0 (a negative axis counts from the end)", numpyTakeAlongAxis),
	opRule(RuleTakeAlongBroadcasts, opTakeAlongAxis, "", "", "off the axis, a dimension of 1 of indices or arr broadcasts against the other", numpyTakeAlongAxis),
	opRule(RuleTakeAlongNegativeIndex, opTakeAlongAxis, "", "", "a negative index counts from the end, once", numpyTakeAlongAxis),
	opRule(RuleTakeAlongUint64, opTakeAlongAxis, "", "", "uint64 indices are cast to intp: a value beyond int64 reads as a negative index", numpyTakeAlongAxis),
	opRule(RuleTakeAlongNarrow, opTakeAlongAxis, "", "", "integer indices narrower than intp (int8, int16, int32, uint8, uint16, uint32) are cast to intp and index as their values", numpyTakeAlongAxis),
	opRule(RuleTakeAlongEmptyResult, opTakeAlongAxis, "", "", "no index is checked when the result is empty", numpyTakeAlongAxis),

	// strided_slice.
	opRule(RuleStridedMaskList, opStridedSlice, InvalidSpec, "",
		"a mask written as a list holds only 0 and 1", "OpenVINO operation specification, StridedSlice-1"),
	opRule(RuleStridedLengths, opStridedSlice, InvalidSpec, tfInvalidArgument,
		"begin, end and strides have the same length", tfStridedSlice),
	opRule(RuleStridedTooLong, opStridedSlice, InvalidSpec, tfInvalidArgument,
		"the spec has at most 31 entries (the masks are 32-bit)", tfStridedSlice),
	opRule(RuleStridedTwoEllipses, opStridedSlice, InvalidSpec, tfInvalidArgument,
		"at most one ellipsis_mask bit is set", tfStridedSlice),
	opRule(RuleStridedTooManyDims, opStridedSlice, InvalidSpec, tfInvalidArgument,
		"the entries that consume a dimension address at most the input's dimensions", tfStridedSlice),
	opRule(RuleStridedZeroStride, opStridedSlice, InvalidSpec, tfInvalidArgument,
		"no stride is zero", tfStridedSlice),
	opRule(RuleStridedShrinkStride, opStridedSlice, InvalidSpec, tfInvalidArgument,
		"a shrink axis has a positive stride", tfStridedSlice),
	opRule(RuleStridedShrinkOutOfBounds, opStridedSlice, OutOfRange, tfInvalidArgument,
		"a shrink index i is in [-d, d) for its dimension of size d", tfStridedSlice),
	opRule(RuleStridedNegativeStride, opStridedSlice, "", "", "a negative stride walks the dimension backwards", tfStridedSlice),
	opRule(RuleStridedNegativeBeginMsk, opStridedSlice, "", "", "begin_mask with a negative stride starts at the last position", tfStridedSlice),
	opRule(RuleStridedEndSentinel, opStridedSlice, "", "", "end_mask with a negative stride runs past position 0", tfStridedSlice),
	opRule(RuleStridedNegativeBound, opStridedSlice, "", "", "a negative begin or end counts from the end, once", tfStridedSlice),
	opRule(RuleStridedBoundClamped, opStridedSlice, "", "", "a begin or end outside the dimension is clamped into it (into [-1, d-1] for a negative stride)", tfStridedSlice),
	opRule(RuleStridedBeginBelowRange, opStridedSlice, "", "", "with a negative stride a begin below -d is clamped to -1, before the first position: the range is empty", tfStridedSlice),
	opRule(RuleStridedStrideOver1, opStridedSlice, "", "", "a stride greater than 1 or less than -1 skips positions", tfStridedSlice),
	opRule(RuleStridedEmptyRange, opStridedSlice, "", "", "a range that selects nothing gives a dimension of size 0", tfStridedSlice),
	opRule(RuleStridedEllipsis, opStridedSlice, "", "", "an ellipsis stands for as many full ranges as the other entries leave dimensions", tfStridedSlice),
	opRule(RuleStridedEllipsisNoDims, opStridedSlice, "", "", "an ellipsis where the other entries address every dimension stands for none", tfStridedSlice),
	opRule(RuleStridedImplicitEllipsis, opStridedSlice, "", "", "a spec without an ellipsis ends with an implicit one: the dimensions it leaves are taken whole", tfStridedSlice),
	opRule(RuleStridedNewAxis, opStridedSlice, "", "", "a new_axis_mask bit inserts a dimension of size 1", tfStridedSlice),
	opRule(RuleStridedShrink, opStridedSlice, "", "", "a shrink_axis_mask bit takes the position begin and drops the dimension", tfStridedSlice),
	opRule(RuleStridedShrinkNegative, opStridedSlice, "", "", "a negative shrink index counts from the end, once", tfStridedSlice),
	opRule(RuleStridedShrinkStrideOver, opStridedSlice, "", "", "a shrink axis with a stride of 2 or more is accepted", tfStridedSlice),
	opRule(RuleStridedMaskPriority, opStridedSlice, "", "", "several mask bits on one entry: ellipsis wins over new axis, new axis over shrink", tfStridedSlice),
	opRule(RuleStridedMaskPastSpec, opStridedSlice, "", "", "mask bits at positions beyond the spec's entries are ignored", tfStridedSlice),
	opRule(RuleStridedExtraIndices, opStridedSlice, "", "", "more entries consume a dimension (ranges and shrinks) than the input has: the spec is refused (strided_slice/too-many-dims), not cut to the input's dimensions", tfStridedSlice),
	opRule(RuleStridedShrinkBeginMask, opStridedSlice, "", "", "begin_mask is ignored on a shrink axis: the axis takes (or refuses) its index, not its first element", tfStridedSlice),

	// slice.
	opRule(RuleSliceLengths, opSlice, InvalidSpec, tfInvalidArgument,
		"begin and size have one entry per input dimension", tfSlice),
	opRule(RuleSliceEmptyDim, opSlice, OutOfRange, tfInvalidArgument,
		"on a dimension of size 0, begin is 0 and size is 0 (or -1)", tfSlice),
	opRule(RuleSliceBegin, opSlice, OutOfRange, tfInvalidArgument,
		"begin[i] is in [0, d]: no negative begin, no clamping", tfSlice),
	opRule(RuleSliceSize, opSlice, OutOfRange, tfInvalidArgument,
		"size[i] is -1 or in [0, d - begin[i]]", tfSlice),
	opRule(RuleSliceSizeToEnd, opSlice, "", "", "a size of -1 takes the rest of the dimension", tfSlice),
	opRule(RuleSliceEmptyResult, opSlice, "", "", "a size of 0 gives a dimension of size 0", tfSlice),
	opRule(RuleSliceNegativeBegin, opSlice, "", "", "a negative begin is refused (slice/begin-out-of-range), not counted from the end", tfSlice),

	// gather.
	opRule(RuleGatherPolicy, opGather, InvalidSpec, "",
		"bad_indices is error (TF on CPU) or zero (TF on GPU)", "conform's case format (docs/case-format.md)"),
	opRule(RuleGatherIndexDType, opGather, BadInput, tfInvalidArgument+" (attr Tindices)",
		"indices are int32 or int64", "TensorFlow API reference, tf.gather (indices: int32, int64); GatherV2's op registration"),
	opRule(RuleGatherParamsScalar, opGather, InvalidSpec, tfInvalidArgument,
		"params has at least 1 dimension", tfGather),
	opRule(RuleGatherAxis, opGather, InvalidSpec, tfInvalidArgument,
		"the axis is in [-r, r) for the rank r of params", tfGather),
	opRule(RuleGatherBatchDims, opGather, InvalidSpec, tfInvalidArgument,
		"batch_dims is in [-q, q] for the rank q of indices", tfGather),
	opRule(RuleGatherBatchAxis, opGather, InvalidSpec, tfInvalidArgument,
		"batch_dims is at most the axis", tfGather),
	opRule(RuleGatherBatchShape, opGather, InvalidSpec, tfInvalidArgument,
		"params and indices agree on the batch dimensions", tfGather),
	opRule(RuleGatherOutOfRange, opGather, OutOfRange, tfInvalidArgument,
		"every index is in [0, n) for the axis size n: a negative index is out of range (under bad_indices=error)", tfGather+"; TensorFlow API reference, tf.gather"),
	opRule(RuleGatherAxisNonZero, opGather, "", "", "a gather along an axis other than 0 (a negative axis counts from the end)", tfGather),
	opRule(RuleGatherInt32Indices, opGather, "", "", "int32 indices gather as int64 ones do (Tindices is int32 or int64)", tfGather),
	opRule(RuleGatherBatched, opGather, "", "", "batch_dims >= 1 gathers per batch entry", tfGather),
	opRule(RuleGatherZeroMode, opGather, "", "", "under bad_indices=zero an index out of range gives zeros", "TensorFlow API reference, tf.gather (on GPU)"),
	opRule(RuleGatherEmptyResult, opGather, "", "", "no index is checked when the result is empty", tfGather),
	opRule(RuleGatherNegativeIndex, opGather, "", "", "a negative index does not count from the end", "TensorFlow API reference, tf.gather"),

	// gather_nd.
	opRule(RuleGatherNDPolicy, opGatherND, InvalidSpec, "",
		"bad_indices is error (TF on CPU) or zero (TF on GPU)", "conform's case format (docs/case-format.md)"),
	opRule(RuleGatherNDIndexDType, opGatherND, BadInput, tfInvalidArgument+" (attr Tindices)",
		"indices have an integer dtype", "TensorFlow API reference, tf.gather_nd; GatherNd's op registration"),
	opRule(RuleGatherNDParamsScalar, opGatherND, InvalidSpec, tfInvalidArgument,
		"params has at least 1 dimension", tfGatherND),
	opRule(RuleGatherNDIndicesScalar, opGatherND, InvalidSpec, tfInvalidArgument,
		"indices have at least 1 dimension", tfGatherND),
	opRule(RuleGatherNDBatchNegative, opGatherND, InvalidSpec, tfInvalidArgument,
		"batch_dims is not negative", "TensorFlow tensorflow/core/kernels/gather_nd_op.cc, GatherNdOp"),
	opRule(RuleGatherNDBatchIndices, opGatherND, InvalidSpec, tfInvalidArgument,
		"batch_dims is less than the rank of indices", tfGatherND),
	opRule(RuleGatherNDBatchParams, opGatherND, InvalidSpec, tfInvalidArgument,
		"batch_dims is less than the rank of params", tfGatherND),
	opRule(RuleGatherNDBatchShape, opGatherND, InvalidSpec, tfInvalidArgument,
		"params and indices agree on the batch dimensions", tfGatherND),
	opRule(RuleGatherNDDepth, opGatherND, InvalidSpec, tfInvalidArgument,
		"the index depth indices.shape[-1] is at most rank(params) - batch_dims", tfGatherND),
	opRule(RuleGatherNDOverflow, opGatherND, InvalidSpec, tfInvalidArgument,
		"the result's size in bytes fits an int", tfGatherND),
	opRule(RuleGatherNDEmptyParams, opGatherND, OutOfRange, tfInvalidArgument,
		"rows cannot be gathered from params with no elements", tfGatherND),
	opRule(RuleGatherNDOutOfRange, opGatherND, OutOfRange, tfInvalidArgument,
		"every component of an index row is in [0, d) for its dimension (under bad_indices=error)", tfGatherND),
	opRule(RuleGatherNDDepth0, opGatherND, "", "", "an index depth of 0 gathers whole batch entries", tfGatherND),
	opRule(RuleGatherNDFullDepth, opGatherND, "", "", "an index depth of rank(params) - batch_dims gathers single elements", tfGatherND),
	opRule(RuleGatherNDBatched, opGatherND, "", "", "batch_dims >= 1 gathers per batch entry", tfGatherND),
	opRule(RuleGatherNDNarrow, opGatherND, "", "", "integer indices narrower than int64 (int8, int16, int32, uint8, uint16, uint32) index as their values", tfGatherND),
	opRule(RuleGatherNDZeroMode, opGatherND, "", "", "under bad_indices=zero an index row out of range gives zeros", "TensorFlow API reference, tf.gather_nd (on GPU)"),
	opRule(RuleGatherNDEmptyRows, opGatherND, "", "", "no rows give an empty result, whatever params holds", tfGatherND),
	opRule(RuleGatherNDNegative, opGatherND, "", "", "a negative index component does not count from the end", "TensorFlow API reference, tf.gather_nd"),

	// onnx_slice.
	opRule(RuleONNXSliceScalar, opONNXSlice, InvalidSpec, "ONNX Runtime: Cannot slice scalars",
		"data has at least 1 dimension", onnxSliceSpec),
	opRule(RuleONNXSliceEnds, opONNXSlice, InvalidSpec, "ONNX Runtime: Starts and ends shape mismatch",
		"starts and ends have the same length", onnxSliceSpec),
	opRule(RuleONNXSliceAxesLength, opONNXSlice, InvalidSpec, "ONNX Runtime: Starts and axes shape mismatch",
		"axes, when given, has the length of starts", onnxSliceSpec),
	opRule(RuleONNXSliceStepsLength, opONNXSlice, InvalidSpec, "ONNX Runtime: Starts and steps shape mismatch",
		"steps, when given, has the length of starts", onnxSliceSpec),
	opRule(RuleONNXSliceAxis, opONNXSlice, InvalidSpec, "ONNX Runtime: 'axes' has an axis outside of the tensor dimension count",
		"every axis is in [-r, r-1]", onnxSliceSpec),
	opRule(RuleONNXSliceRepeatedAxis, opONNXSlice, InvalidSpec, "ONNX Runtime: 'axes' has duplicates",
		"no axis is repeated", onnxSliceSpec),
	opRule(RuleONNXSliceZeroStep, opONNXSlice, InvalidSpec, "ONNX Runtime: 'step' value cannot be 0",
		"no step is zero", onnxSliceSpec),
	opRule(RuleONNXSliceAxes, opONNXSlice, "", "", "explicit axes say which dimension each entry slices", onnxSliceSpec),
	opRule(RuleONNXSliceNegativeAxis, opONNXSlice, "", "", "a negative axis counts from the end", onnxSliceSpec),
	opRule(RuleONNXSliceAxisNotSliced, opONNXSlice, "", "", "a dimension no entry names is taken whole", onnxSliceSpec),
	opRule(RuleONNXSliceNegativeStep, opONNXSlice, "", "", "a negative step walks the dimension backwards", onnxSliceSpec),
	opRule(RuleONNXSliceReverseStart, opONNXSlice, "", "", "with a negative step the start is clamped into [0, d-1] (not [-1, d-1]: a start below -d starts at position 0)", onnxSliceSpec),
	opRule(RuleONNXSliceNegativeBound, opONNXSlice, "", "", "a negative start or end gets d added once", onnxSliceSpec),
	opRule(RuleONNXSliceBoundClamped, opONNXSlice, "", "", "a start or end outside the dimension is clamped into it", onnxSliceSpec),
	opRule(RuleONNXSliceStepOver1, opONNXSlice, "", "", "a step greater than 1 or less than -1 skips positions", onnxSliceSpec),
	opRule(RuleONNXSliceEmptyRange, opONNXSlice, "", "", "a range that selects nothing gives a dimension of size 0", onnxSliceSpec),
	opRule(RuleONNXSliceHugeEnd, opONNXSlice, "", "", "an end of INT_MAX slices to the end going forward", onnxSliceSpec),
	opRule(RuleONNXSliceHugeNegStepEnd, opONNXSlice, "", "", "an end of INT_MAX with a negative step is clamped to d-1 and selects nothing", onnxSliceSpec),

	// onnx_gather.
	opRule(RuleONNXGatherIndexDType, opONNXGather, BadInput, "ONNX Runtime: Type Error: Type of input parameter (indices) is invalid",
		"indices are int32 or int64 (Tind)", onnxGatherSpec),
	opRule(RuleONNXGatherScalar, opONNXGather, InvalidSpec, "ONNX Runtime: data tensor must have rank >= 1",
		"data has at least 1 dimension", onnxGatherSpec),
	opRule(RuleONNXGatherAxis, opONNXGather, InvalidSpec, "ONNX Runtime: axis must be in [-r, r-1]",
		"the axis is in [-r, r-1]", onnxGatherSpec),
	opRule(RuleONNXGatherOutOfRange, opONNXGather, OutOfRange, "ONNX Runtime: indices element out of data bounds",
		"every index is in [-s, s-1] for the axis size s", onnxGatherSpec),
	opRule(RuleONNXGatherNegative, opONNXGather, "", "", "a negative index counts from the end, once", onnxGatherSpec),
	opRule(RuleONNXGatherAxisNon0, opONNXGather, "", "", "a gather along an axis other than 0 (a negative axis counts from the end)", onnxGatherSpec),
	opRule(RuleONNXGatherInt32, opONNXGather, "", "", "int32 indices gather as int64 ones do (type constraint Tind: int32, int64)", onnxGatherSpec),
	opRule(RuleONNXGatherEmpty, opONNXGather, "", "", "every index is checked, also when the result is empty", onnxGatherSpec),

	// onnx_gather_elements.
	opRule(RuleONNXElemIndexDType, opONNXGatherElements, BadInput, "ONNX Runtime: Type Error: Type of input parameter (indices) is invalid",
		"indices are int32 or int64 (Tind)", onnxGatherElemSpec),
	opRule(RuleONNXElemScalar, opONNXGatherElements, InvalidSpec, "ONNX Runtime: GatherElements op: Cannot operate on scalar input",
		"data has at least 1 dimension", onnxGatherElemSpec),
	opRule(RuleONNXElemRank, opONNXGatherElements, InvalidSpec, "ONNX Runtime: GatherElements op: Rank of input 'data' needs to be equal to rank of input 'indices'",
		"indices have the rank of data", onnxGatherElemSpec),
	opRule(RuleONNXElemAxis, opONNXGatherElements, InvalidSpec, "ONNX Runtime: axis must be in [-r, r-1]",
		"the axis is in [-r, r-1]", onnxGatherElemSpec),
	opRule(RuleONNXElemShape, opONNXGatherElements, InvalidSpec, "ONNX Runtime: GatherElements op: 'indices' shape should have values within bounds of 'data' shape",
		"off the axis, no dimension of indices exceeds data's (no broadcasting)", onnxGatherElemSpec),
	opRule(RuleONNXElemOutOfRange, opONNXGatherElements, OutOfRange, "ONNX Runtime: GatherElements op: Out of range value in index tensor",
		"every index is in [-s, s-1] for the axis size s", onnxGatherElemSpec),
	opRule(RuleONNXElemNegative, opONNXGatherElements, "", "", "a negative index counts from the end, once", onnxGatherElemSpec),
	opRule(RuleONNXElemSmaller, opONNXGatherElements, "", "", "off the axis, indices smaller than data read the leading part of data", onnxGatherElemSpec),
	opRule(RuleONNXElemAxisNon0, opONNXGatherElements, "", "", "a gather along an axis other than 0 (a negative axis counts from the end)", onnxGatherElemSpec),
	opRule(RuleONNXElemInt32, opONNXGatherElements, "", "", "int32 indices gather as int64 ones do (type constraint Tind: int32, int64)", onnxGatherElemSpec),

	// onnx_gather_nd.
	opRule(RuleONNXGatherNDIndexDType, opONNXGatherND, BadInput, "ONNX Runtime: Type Error: Type of input parameter (indices) is invalid",
		"indices are int64", onnxGatherNDSpec),
	opRule(RuleONNXGatherNDRank, opONNXGatherND, InvalidSpec, "ONNX Runtime: indices tensor must has rank larger than 0",
		"data and indices have at least 1 dimension", onnxGatherNDSpec),
	opRule(RuleONNXGatherNDBatchDims, opONNXGatherND, InvalidSpec, "",
		"batch_dims is in [0, min(rank(indices), rank(data)))", onnxGatherNDSpec),
	opRule(RuleONNXGatherNDBatchShape, opONNXGatherND, InvalidSpec, "ONNX Runtime: indices batch size is not divisible by input batch size",
		"data and indices agree on the batch dimensions", onnxGatherNDSpec),
	opRule(RuleONNXGatherNDDepth, opONNXGatherND, InvalidSpec, "ONNX Runtime: last dimension of indices must not be larger than rank of input tensor",
		"indices.shape[-1] is at most rank(data) - batch_dims", onnxGatherNDSpec),
	opRule(RuleONNXGatherNDOverflow, opONNXGatherND, InvalidSpec, "",
		"the result's size in bytes fits an int", onnxGatherNDSpec),
	opRule(RuleONNXGatherNDOutOfRange, opONNXGatherND, OutOfRange, "ONNX Runtime: invalid index found, index = ",
		"every component of an index row is in [-d, d-1] for its dimension", onnxGatherNDSpec),
	opRule(RuleONNXGatherNDNegative, opONNXGatherND, "", "", "a negative index component counts from the end, once", onnxGatherNDSpec),
	opRule(RuleONNXGatherNDBatched, opONNXGatherND, "", "", "batch_dims >= 1 gathers per batch entry", onnxGatherNDSpec),
	opRule(RuleONNXGatherNDDepth0, opONNXGatherND, "", "", "an index depth of 0 gathers whole batch entries", onnxGatherNDSpec),

	// Every op.
	{ID: RuleResultRank, Ops: allOps, Kind: InvalidSpec, RefError: "IndexError (NumPy): number of dimensions must be within [0, 32]",
		Statement: "a result has at most 32 dimensions (MaxRank), which every NumPy array and .npy file is bound by",
		Source:    numpyMapping + ", prepare_index; NumPy 1.24 reference, NPY_MAXDIMS"},
	{ID: RuleArrayTooBig, Ops: allOps, Kind: InvalidSpec, RefError: "ValueError (NumPy): array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.",
		Statement: "a result's size in bytes (counting only its dimensions that are not 0) fits an int",
		Source:    "NumPy 1.24 numpy/core/src/multiarray/ctors.c, PyArray_NewFromDescr_int"},
	{ID: RuleOutputLimit, Ops: allOps, Kind: InvalidSpec, RefError: conformOwn,
		Statement: "a result is at most the output limit in bytes (1 GiB unless set), refused before anything is allocated",
		Source:    "package engine, Rules.OutputLimit"},
	{ID: RuleInputRank, Ops: allOps, Kind: BadInput, RefError: "ValueError (NumPy)",
		Statement: "an input tensor has at most 32 dimensions", Source: "NumPy 1.24 reference, NPY_MAXDIMS"},
	{ID: RuleInputDType, Ops: allOps, Kind: BadInput, RefError: "TypeError (NumPy): data type not understood",
		Statement: "an input's dtype is one conform supports: bool, integers, floats, complex, fixed-width bytes and unicode strings", Source: "NumPy 1.24 reference, Data type objects (dtype): array-protocol type strings"},
	{ID: RuleInputTooBig, Ops: allOps, Kind: BadInput, RefError: "ValueError (NumPy): array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.",
		Statement: "an input's size in bytes fits an int", Source: "NumPy 1.24 numpy/core/src/multiarray/ctors.c, PyArray_NewFromDescr_int"},
	{ID: RuleInputDataLength, Ops: allOps, Kind: BadInput, RefError: "ValueError (NumPy)",
		Statement: "an input's data holds exactly the elements of its shape", Source: "NumPy 1.24 reference, The .npy format (numpy.lib.format)"},

	// The variants' own errors.
	{ID: RuleEmptyRangeRefused, Ops: []string{opGetItem, opStridedSlice, opSlice}, Kind: InvalidSpec, Variant: EmptyRangeRefused,
		Statement: "a result with a dimension of size 0 is refused", Source: "variant empty-range-refused"},
	{ID: RuleShrinkClampedEmpty, Ops: []string{opGetItem, opStridedSlice}, Kind: OutOfRange, Variant: ShrinkIndexClamped,
		Statement: "a clamped integer (shrink) index into a dimension of size 0 has no element, unless the result is empty", Source: "variant shrink-index-clamped"},
	{ID: RuleMaskBitsShortInput, Ops: []string{opStridedSlice}, Kind: OutOfRange, Variant: MaskBitsPastSpecApplied,
		Statement: "the input read as its leading dimensions has too few elements for a non-empty result", Source: "variant mask-bits-past-spec-applied (TFLite)"},
	{ID: RuleGatherFlatBoundsOut, Ops: []string{opGatherND, opONNXGatherND}, Kind: OutOfRange, Variant: GatherFlatBounds,
		Statement: "an index row's flattened offset is outside its batch entry", Source: "variant gather-flat-bounds"},
	{ID: RuleNegativeStepRefused, Ops: []string{opGetItem}, Kind: InvalidSpec, Variant: NegativeStepRefused,
		RefError:  "ValueError: step must be greater than zero",
		Statement: "a slice with a negative step is refused, in item order with the integers' bounds",
		Source:    pytorch113 + ": torch.Tensor.__getitem__ refuses negative steps (torch.arange(3)[::-1])"},
	{ID: RuleInt64IndicesOnly, Ops: []string{opGetItem, opTake, opTakeAlongAxis, opONNXGatherElements}, Kind: OutOfRange, Variant: Int64IndicesOnly,
		RefError:  "IndexError: tensors used as indices must be long, byte or bool tensors; RuntimeError: take(): Expected a long tensor for index",
		Statement: "integer index arrays are int64 (getitem: also uint8; take along an axis: also int32), checked before their values",
		Source:    pytorch113 + ": torch.Tensor.__getitem__, torch.take, torch.index_select, torch.take_along_dim and torch.gather refuse other index dtypes"},
	{ID: RuleNegativeIndexOut, Ops: []string{opTake, opTakeAlongAxis, opONNXGatherElements}, Kind: OutOfRange, Variant: NegativeIndicesRefused,
		RefError:  "IndexError: index out of range in self; RuntimeError: index -1 is out of bounds for dimension 0 with size 3",
		Statement: "a negative index is out of range (take: along an axis; torch.take on the flattened input counts from the end)",
		Source:    pytorch113 + ": torch.index_select, torch.take_along_dim and torch.gather refuse negative indices"},
	{ID: RuleBoolAsIntegerOut, Ops: []string{opGetItem}, Kind: OutOfRange, Variant: BoolAsInteger,
		RefError:  "IndexError: Index True is out of bounds for axis 0 with size 1",
		Statement: "a Python True/False taken as the integer 1/0 is out of bounds for its dimension",
		Source:    dask2022 + ": dask.array's __getitem__ reads a bool as an integer (x[True] on shape (1,))"},
	{ID: RuleBoolAsIntegerTooMany, Ops: []string{opGetItem}, Kind: OutOfRange, Variant: BoolAsInteger,
		RefError:  "IndexError: Too many indices for array",
		Statement: "Python True/False taken as integers use more dimensions than the input has",
		Source:    dask2022 + ": dask.array's __getitem__ reads a bool as an integer (x[0, True] on shape (2,))"},
	{ID: Rule0DIndexArrayRefused, Ops: []string{opGetItem, opTake}, Kind: OutOfRange, Variant: ZeroDIndexArrayRefused,
		RefError:  "AssertionError; IndexError: Boolean array with size 1 is not long enough for axis 0",
		Statement: "a 0-d index array is refused",
		Source:    dask2022 + ": x[np.array(1)], x[np.array(True)] and da.take(x, np.array(1), 0) fail"},
	{ID: RuleOneIndexArrayOnly, Ops: []string{opGetItem}, Kind: OutOfRange, Variant: OneIndexArrayOnly,
		RefError:  "NotImplementedError: Don't yet support nd fancy indexing",
		Statement: "at most one index array of rank >= 1 (integer or boolean) per subscript, checked before they broadcast",
		Source:    dask2022 + ": x[[0, 1], [0, 1]] and x[mask, [0, 1]] are refused"},
	{ID: RuleNDIndexArrayRefused, Ops: []string{opGetItem, opTake}, Kind: InvalidSpec, Variant: NDIndexArrayRefused,
		RefError:  "TypeError: '>' not supported between instances of 'list' and 'int'",
		Statement: "a non-empty integer index array has at most one dimension",
		Source:    dask2022 + ": x[np.array([[0, 1]])] and da.take(x, np.array([[0, 1]]), 0) fail"},
}

// getitem returns a rule of getitem.
func getitem(id RuleID, kind ErrorKind, ref, statement, source string) Rule {
	return opRule(id, opGetItem, kind, ref, statement, source)
}

// opRule returns a rule of one op.
func opRule(id RuleID, op string, kind ErrorKind, ref, statement, source string) Rule {
	return Rule{ID: id, Ops: []string{op}, Statement: statement, Source: source, Kind: kind, RefError: ref}
}

// ruleIndex maps every rule's ID to its position in RuleTable.
var ruleIndex = indexRules(RuleTable)

// indexRules maps each rule's ID to its position in rules. An ID that
// appears twice is a programming error: indexRules panics.
func indexRules(rules []Rule) map[RuleID]int {
	m := make(map[RuleID]int, len(rules))
	for i, r := range rules {
		if _, dup := m[r.ID]; dup {
			panic("engine: rule " + string(r.ID) + " appears twice in RuleTable")
		}
		m[r.ID] = i
	}
	return m
}

// RuleByID returns the rule of the given ID.
func RuleByID(id RuleID) (Rule, bool) {
	i, ok := ruleIndex[id]
	if !ok {
		return Rule{}, false
	}
	return RuleTable[i], true
}

// Errorf returns the *Error that rule id raises, of the rule's kind, with
// a formatted message. id must be an error rule of RuleTable: anything
// else is a programming error, and Errorf panics.
func (id RuleID) Errorf(format string, args ...any) *Error {
	i, ok := ruleIndex[id]
	if !ok || RuleTable[i].Kind == "" {
		panic(fmt.Sprintf("engine: %q is not an error rule of RuleTable", id))
	}
	return &Error{Kind: RuleTable[i].Kind, Message: fmt.Sprintf(format, args...), Rule: id}
}

// RefClass returns the Python exception class the reference raises for
// an error rule, as RefError names it first ("IndexError",
// "numpy.AxisError"), or "" if RefError names none (a TF status, an ONNX
// Runtime message, conform's own rule, an output rule).
func (r Rule) RefClass() string {
	name := r.RefError
	if i := strings.IndexAny(name, ":; ("); i >= 0 {
		name = name[:i]
	}
	if !strings.HasSuffix(name, "Error") {
		return ""
	}
	return name
}
