package engine

// The typed specs of the ops whose engine functions take their fields as
// separate arguments. With StridedSliceSpec, ONNXSliceSpec, TakeSpec,
// TakeAlongAxisSpec, GatherSpec and ONNXGatherSpec (declared beside their
// kernels) they are every op's spec: a parsed case holds one of them.

// GetItemSpec is the spec of a getitem case: NumPy's x[index].
type GetItemSpec struct {
	// Index is the subscript as written, e.g. "x[1:, None, i]".
	Index string
	// Items is the parsed subscript, nil if it does not parse. The arrays
	// of items written as names are not bound here (Array is nil): a
	// parsed case binds them to its inputs.
	Items []IndexItem
	// ParseErr is why the subscript does not parse: the case's answer.
	ParseErr error
}

// SliceSpec is the spec of a slice case: tf.slice's begin and size.
type SliceSpec struct {
	Begin, Size []int64
}

// GatherNDSpec is the spec of a gather_nd case: tf.gather_nd's
// batch_dims and what an out-of-range index row does.
type GatherNDSpec struct {
	BatchDims  int
	BadIndices BadIndexPolicy
}

// ONNXGatherNDSpec is the spec of an onnx_gather_nd case.
type ONNXGatherNDSpec struct {
	BatchDims int
}
