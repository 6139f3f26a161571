package conformtest

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/conformsuite/conform/engine"
)

// This file holds the implementations the tests put under the harness:
// the reference engine behind every op's interface, and deliberately
// broken ones, each with one realistic bug.

// engineAdapter is the reference engine behind every op's interface.
type engineAdapter struct{}

func (engineAdapter) GetItem(x *engine.Tensor, _ string, items []engine.IndexItem) (*engine.Tensor, error) {
	return engine.GetItem(x, items)
}

func (engineAdapter) StridedSlice(x *engine.Tensor, spec engine.StridedSliceSpec) (*engine.Tensor, error) {
	return engine.StridedSlice(x, spec)
}

func (engineAdapter) Slice(x *engine.Tensor, begin, size []int64) (*engine.Tensor, error) {
	return engine.Slice(x, begin, size)
}

func (engineAdapter) GatherND(params, indices *engine.Tensor, batchDims int, policy engine.BadIndexPolicy) (*engine.Tensor, error) {
	return engine.GatherND(params, indices, batchDims, policy)
}

func (engineAdapter) ONNXSlice(data *engine.Tensor, starts, ends, axes, steps []int64) (*engine.Tensor, error) {
	return engine.ONNXSlice(data, engine.ONNXSliceSpec{Starts: starts, Ends: ends, Axes: axes, Steps: steps})
}

func (engineAdapter) ONNXGatherND(data, indices *engine.Tensor, batchDims int) (*engine.Tensor, error) {
	return engine.ONNXGatherND(data, indices, batchDims)
}

func (engineAdapter) Take(a, indices *engine.Tensor, spec engine.TakeSpec) (*engine.Tensor, error) {
	return engine.Take(a, indices, spec)
}

func (engineAdapter) TakeAlongAxis(arr, indices *engine.Tensor, spec engine.TakeAlongAxisSpec) (*engine.Tensor, error) {
	return engine.TakeAlongAxis(arr, indices, spec)
}

func (engineAdapter) Gather(params, indices *engine.Tensor, spec engine.GatherSpec) (*engine.Tensor, error) {
	return engine.Gather(params, indices, spec)
}

func (engineAdapter) ONNXGather(data, indices *engine.Tensor, spec engine.ONNXGatherSpec) (*engine.Tensor, error) {
	return engine.ONNXGather(data, indices, spec)
}

func (engineAdapter) ONNXGatherElements(data, indices *engine.Tensor, spec engine.ONNXGatherSpec) (*engine.Tensor, error) {
	return engine.ONNXGatherElements(data, indices, spec)
}

// sliceOnly implements Slicer only.
type sliceOnly struct{}

func (sliceOnly) Slice(x *engine.Tensor, begin, size []int64) (*engine.Tensor, error) {
	return engine.Slice(x, begin, size)
}

// viewSlicer is correct but returns zero-copy strided views (an offset
// and the input's strides) instead of contiguous tensors.
type viewSlicer struct{}

func (viewSlicer) StridedSlice(x *engine.Tensor, spec engine.StridedSliceSpec) (*engine.Tensor, error) {
	p, err := engine.StridedSlicePlan(x.Shape, spec)
	if err != nil {
		return nil, err
	}
	return p.View(x), nil
}

// shortSlicer takes a size of -1 as "to one before the end".
type shortSlicer struct{}

func (shortSlicer) Slice(x *engine.Tensor, begin, size []int64) (*engine.Tensor, error) {
	if len(begin) == x.Rank() && len(size) == x.Rank() {
		size = append([]int64(nil), size...)
		for i, s := range size {
			if s == -1 {
				size[i] = int64(x.Shape[i]) - begin[i] - 1
			}
		}
	}
	return engine.Slice(x, begin, size)
}

// shrinkStrideSlicer ignores shrink_axis_mask on an entry whose stride is
// greater than 1, keeping that axis as a range.
type shrinkStrideSlicer struct{}

func (shrinkStrideSlicer) StridedSlice(x *engine.Tensor, spec engine.StridedSliceSpec) (*engine.Tensor, error) {
	for i, s := range spec.Strides {
		if s > 1 && i < 64 {
			spec.ShrinkAxisMask.Bits &^= 1 << uint(i)
		}
	}
	return engine.StridedSlice(x, spec)
}

// wrappingGatherer wraps negative gather indices Python-style (-1 is the
// last row) instead of rejecting or zeroing them.
type wrappingGatherer struct{}

func (wrappingGatherer) GatherND(params, indices *engine.Tensor, batchDims int, policy engine.BadIndexPolicy) (*engine.Tensor, error) {
	dt := indices.DType
	if dt.Kind != engine.Int || indices.Rank() == 0 || batchDims < 0 {
		return engine.GatherND(params, indices, batchDims, policy)
	}
	depth := indices.Shape[indices.Rank()-1]
	if depth == 0 {
		return engine.GatherND(params, indices, batchDims, policy)
	}
	var order binary.ByteOrder = binary.LittleEndian
	if dt.BigEndian {
		order = binary.BigEndian
	}
	data := append([]byte(nil), indices.Bytes()...)
	for i := 0; i < len(data)/dt.Size; i++ {
		axis := batchDims + i%depth
		if axis >= params.Rank() {
			continue
		}
		b := data[i*dt.Size : (i+1)*dt.Size]
		if v := readInt(order, b); v < 0 && v >= -int64(params.Shape[axis]) {
			writeInt(order, b, v+int64(params.Shape[axis]))
		}
	}
	wrapped, err := engine.FromBytes(dt, indices.Shape, data)
	if err != nil {
		return nil, err
	}
	return engine.GatherND(params, wrapped, batchDims, policy)
}

func readInt(order binary.ByteOrder, b []byte) int64 {
	switch len(b) {
	case 1:
		return int64(int8(b[0]))
	case 2:
		return int64(int16(order.Uint16(b)))
	case 4:
		return int64(int32(order.Uint32(b)))
	}
	return int64(order.Uint64(b))
}

func writeInt(order binary.ByteOrder, b []byte, v int64) {
	switch len(b) {
	case 1:
		b[0] = byte(v)
	case 2:
		order.PutUint16(b, uint16(v))
	case 4:
		order.PutUint32(b, uint32(v))
	default:
		order.PutUint64(b, uint64(v))
	}
}

// nativeOrderGetItemer converts big-endian results to little-endian (the
// values are right, the byte order is not the input's), as NumPy does
// for scalars.
type nativeOrderGetItemer struct{}

func (nativeOrderGetItemer) GetItem(x *engine.Tensor, _ string, items []engine.IndexItem) (*engine.Tensor, error) {
	out, err := engine.GetItem(x, items)
	if err != nil || !out.DType.BigEndian {
		return out, err
	}
	unit := out.DType.Size
	switch out.DType.Kind {
	case engine.Complex:
		unit /= 2
	case engine.Unicode:
		unit = 4
	}
	data := append([]byte(nil), out.Bytes()...)
	for i := 0; i+unit <= len(data); i += unit {
		for a, b := i, i+unit-1; a < b; a, b = a+1, b-1 {
			data[a], data[b] = data[b], data[a]
		}
	}
	dt := out.DType
	dt.BigEndian = false
	return engine.FromBytes(dt, out.Shape, data)
}

// kindlessSlicer rejects cases with plain errors that carry no kind.
type kindlessSlicer struct{}

func (kindlessSlicer) Slice(x *engine.Tensor, begin, size []int64) (*engine.Tensor, error) {
	out, err := engine.Slice(x, begin, size)
	if err != nil {
		return nil, errors.New("slice: " + err.Error())
	}
	return out, nil
}

// panickySlicer divides by the first dimension to get a row's bytes, and
// so panics on inputs whose first dimension is 0.
type panickySlicer struct{}

func (panickySlicer) Slice(x *engine.Tensor, begin, size []int64) (*engine.Tensor, error) {
	if x.Rank() > 0 {
		if rowBytes := len(x.Data) / x.Shape[0]; rowBytes < 0 {
			return nil, errors.New("unreachable")
		}
	}
	return engine.Slice(x, begin, size)
}

// float64Only supports float64 inputs only and skips the others with
// errors.ErrUnsupported.
type float64Only struct{}

func (float64Only) Slice(x *engine.Tensor, begin, size []int64) (*engine.Tensor, error) {
	if x.DType != engine.Float64Type {
		return nil, fmt.Errorf("dtype %v: %w", x.DType, errors.ErrUnsupported)
	}
	return engine.Slice(x, begin, size)
}
