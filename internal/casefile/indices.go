package casefile

import "github.com/conformsuite/conform/engine"

// indexFeatures are the rules of index tensors that the gather family
// and advanced indexing share.
var indexFeatures = []Feature{
	{"index-negative", "indices", "a negative index (counts from the end in NumPy and ONNX; out of range in TF)"},
	{"index-out-of-range", "indices", "an index outside [-d, d): an error, or wrapped or clipped by take's mode, or zeros under bad_indices=zero"},
	{"empty-selection", "indices", "an index tensor with no elements"},
	{"index-dtype", "indices", "indices of a dtype other than int32/int64"},
	{"bool-indices", "indices", "indices of dtype bool"},
}

// tagIndices tags the values of an index tensor that addresses a
// dimension of size d (d < 0: unknown, only sign and emptiness are
// tagged).
func tagIndices(idx *engine.Tensor, d int, add func(string)) {
	if idx == nil {
		return
	}
	if idx.Len() == 0 {
		add("empty-selection")
	}
	switch {
	case idx.DType.Kind == engine.Bool:
		add("bool-indices")
		return
	case !idx.DType.IsInteger():
		return
	case idx.DType != engine.Int32Type && idx.DType != engine.Int64Type:
		add("index-dtype")
	}
	for _, v := range intValues(idx) {
		if v < 0 {
			add("index-negative")
		}
		if d >= 0 && (v < -int64(d) || v >= int64(d)) {
			add("index-out-of-range")
		}
	}
}

// axisSize returns the size of dimension axis of t (negative axes count
// from the end), or -1 if t has no such dimension.
func axisSize(t *engine.Tensor, axis int) int {
	if t == nil {
		return -1
	}
	if axis < 0 {
		axis += t.Rank()
	}
	if axis < 0 || axis >= t.Rank() {
		return -1
	}
	return t.Shape[axis]
}
