// Package engine is conform's reference implementation of tensor slicing
// and gathering: the semantics every implementation under test is
// compared with, exactly (dtype, shape and the raw bytes of every
// element, or the kind of error).
//
// Tensors (Tensor) are a dtype (DType: bool, integers, floats, complex,
// fixed-width byte and unicode strings, either byte order), a shape, byte
// strides, an offset and raw bytes. The ops are
//
//   - GetItem: NumPy 1.24 indexing, x[index], basic and advanced (integer
//     and boolean arrays), with the items of a parsed subscript (package
//     internal/expr parses one);
//   - Take and TakeAlongAxis: np.take and np.take_along_axis;
//   - StridedSlice: TF's StridedSlice, masks as TF bitmasks or OpenVINO
//     0/1 lists (Mask);
//   - Slice: tf.slice;
//   - Gather: tf.gather with axis and batch_dims;
//   - GatherND: tf.gather_nd with batch_dims, bad indices as an error (TF
//     on CPU) or zeros (TF on GPU);
//   - ONNXSlice, ONNXGather, ONNXGatherElements and ONNXGatherND: ONNX
//     Slice-13, Gather-13, GatherElements-13 and GatherND-13.
//
// A result larger than the output limit of the Rules it is evaluated
// under (Rules.OutputLimit, DefaultOutputLimit unless set) is refused
// with InvalidSpec before anything is allocated.
//
// Every slicing front-end normalises its spec into one Plan (per output
// axis an input axis, start, step and count, or a new axis), which is a
// strided view of the input; materialising it is one copy routine. A
// rejected case is an *Error of one of three kinds (InvalidSpec,
// OutOfRange, BadInput), checked in the reference implementations' order.
//
// Every rule of the reference semantics that can decide an answer is a row
// of RuleTable (an ID such as "getitem/negative-step", a statement, its
// source, and for an error rule the error kind and the reference's own
// error); every *Error the engine returns names the rule that raised it
// (Error.Rule, RuleOf), and an evaluation under Rules with a Trace records
// the rules that decided its output.
//
// Each rule lives in one function. Rule variants (Variant, Rules) are the
// named ways real implementations depart from the reference — an empty
// range refused, size-1 dimensions dropped, negative gather indices
// wrapped, ... — each applied by the function that owns the rule it
// replaces; the ...Under forms of the ops evaluate a case under a set of
// them, so a classifier can say which rule an implementation follows.
//
// The package does no I/O: package internal/npy reads and writes .npy
// files.
package engine
