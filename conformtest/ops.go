package conformtest

import "github.com/conformsuite/conform/internal/casefile"

// The interfaces of the ops, one per op, in the order of the ops
// (casefile.OpNames). Each is an alias of the interface the op's
// definition declares (casefile.OpDef.Method); an implementation has the
// methods of the ops it runs, and cases of the others are skipped.

// GetItemer is implemented by an implementation of NumPy basic indexing,
// x[index]. index is the case's subscript as written, e.g.
// "x[1, 2:4, None, ..., :-3:-1, :]", and items is the same subscript
// parsed by conform (internal/expr): an implementation may use either.
// Subscripts that conform cannot parse never reach the implementation.
//
// The result is what np.asarray(x[index]) returns. For an index of one
// integer per dimension and nothing else (x[1, 2], or x[()] on a 0-d
// tensor) NumPy returns a scalar, so the expected result is a 0-d tensor
// of native (little-endian) byte order, and for S and U the string
// without its trailing NULs in a dtype exactly as wide (at least 1), as
// engine.GetItem returns it; every other index keeps x's dtype.
type GetItemer = casefile.GetItemer

// StridedSlicer is implemented by an implementation of TF's StridedSlice.
// The masks of spec are bitmasks whether the case wrote them as TF
// integers or OpenVINO 0/1 lists. When the case omits strides,
// spec.Strides holds ones, one per entry of spec.Begin.
type StridedSlicer = casefile.StridedSlicer

// Slicer is implemented by an implementation of tf.slice: begin and
// size have (if the case is valid) one entry per dimension of x, and a
// size of -1 means "to the end of the dimension".
type Slicer = casefile.Slicer

// GatherNDer is implemented by an implementation of tf.gather_nd with
// batch_dims. indices may have any integer dtype; policy says what an
// out-of-range index row does: engine.BadIndexError rejects the case
// (out_of_range, as TF on CPU), engine.BadIndexZero writes zeros for that
// row (as TF on GPU).
type GatherNDer = casefile.GatherNDer

// ONNXSlicer implements ONNX Slice-13 (the onnx_slice op): axes and steps
// are nil when the case omits them.
type ONNXSlicer = casefile.ONNXSlicer

// ONNXGatherNDer implements ONNX GatherND-13 (the onnx_gather_nd op):
// negative indices wrap once.
type ONNXGatherNDer = casefile.ONNXGatherNDer

// Taker is implemented by an implementation of np.take (the take op):
// spec.Flatten is axis=None (the input flattened), spec.Mode raise, wrap
// or clip.
type Taker = casefile.Taker

// TakeAlongAxiser is implemented by an implementation of
// np.take_along_axis (the take_along_axis op): spec.Flatten is axis=None.
type TakeAlongAxiser = casefile.TakeAlongAxiser

// Gatherer is implemented by an implementation of tf.gather (the gather
// op) with axis and batch_dims; spec.BadIndices says what an out-of-range
// index does, as for GatherNDer.
type Gatherer = casefile.Gatherer

// ONNXGatherer implements ONNX Gather-13 (the onnx_gather op): int32 or
// int64 indices, negative ones wrapped once.
type ONNXGatherer = casefile.ONNXGatherer

// ONNXGatherElementser implements ONNX GatherElements-13 (the
// onnx_gather_elements op): int32 or int64 indices, negative ones wrapped
// once.
type ONNXGatherElementser = casefile.ONNXGatherElementser
