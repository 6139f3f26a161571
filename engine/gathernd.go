package engine

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
)

// BadIndexPolicy says what gather_nd does with an index row that points
// outside params.
type BadIndexPolicy string

// The two behaviours of TF's gather_nd.
const (
	BadIndexError BadIndexPolicy = "error" // TF on CPU: reject the whole op
	BadIndexZero  BadIndexPolicy = "zero"  // TF on GPU: write zeros for that row
)

// gatherND is a validated gather_nd: the output shape and how each
// index row maps to a block of params.
type gatherND struct {
	params, indices *Tensor
	batchDims       int
	depth           int // index depth k = indices.shape[-1]
	rows            int // number of index rows, prod(indices.shape[:-1])
	rowsPerBatch    int // prod(indices.shape[batchDims:-1])
	block           int // elements per gathered block, prod(params.shape[batchDims+k:])
	outShape        []int
}

// GatherND evaluates tf.gather_nd(params, indices, batch_dims) and returns
// a new C-contiguous tensor. Checks follow TF's order: integer index
// dtype, ranks, batch_dims, batch shapes, index depth; then, if any row is
// requested, a params tensor with no elements is out of range (TF's
// "requested more than 0 entries, but params is empty", on CPU and GPU
// alike), and each row is bounds-checked (0 <= i < dim; negative indices
// do not wrap).
func GatherND(params, indices *Tensor, batchDims int, policy BadIndexPolicy) (*Tensor, error) {
	g, err := newGatherND(params, indices, batchDims, policy)
	if err != nil {
		return nil, err
	}
	return g.run(policy)
}

func newGatherND(params, indices *Tensor, batchDims int, policy BadIndexPolicy) (*gatherND, error) {
	if policy != BadIndexError && policy != BadIndexZero {
		return nil, Errorf(InvalidSpec, "bad_indices must be %q or %q, got %q", BadIndexError, BadIndexZero, policy)
	}
	if !indices.DType.IsInteger() {
		return nil, Errorf(BadInput, "indices must be an integer tensor, got dtype %v", indices.DType)
	}
	pr, ir := params.Rank(), indices.Rank()
	if pr < 1 {
		return nil, Errorf(InvalidSpec, "params must be at least a vector, got shape %v", params.Shape)
	}
	if ir < 1 {
		return nil, Errorf(InvalidSpec, "indices must be at least a vector, got shape %v", indices.Shape)
	}
	if batchDims < 0 {
		return nil, Errorf(InvalidSpec, "batch_dims must be non-negative, got %d", batchDims)
	}
	if batchDims >= ir {
		return nil, Errorf(InvalidSpec, "batch_dims = %d must be less than rank(indices) = %d", batchDims, ir)
	}
	if batchDims >= pr {
		return nil, Errorf(InvalidSpec, "batch_dims = %d must be less than rank(params) = %d", batchDims, pr)
	}
	for i := 0; i < batchDims; i++ {
		if params.Shape[i] != indices.Shape[i] {
			return nil, Errorf(InvalidSpec, "batch dimensions differ: params.shape[:%d] = %v, indices.shape[:%d] = %v", batchDims, params.Shape[:batchDims], batchDims, indices.Shape[:batchDims])
		}
	}
	depth := indices.Shape[ir-1]
	if depth > pr-batchDims {
		return nil, Errorf(InvalidSpec, "index depth indices.shape[-1] = %d must be <= rank(params) - batch_dims = %d", depth, pr-batchDims)
	}
	g := &gatherND{
		params:       params,
		indices:      indices,
		batchDims:    batchDims,
		depth:        depth,
		rows:         NumElements(indices.Shape[:ir-1]),
		rowsPerBatch: NumElements(indices.Shape[batchDims : ir-1]),
		block:        NumElements(params.Shape[batchDims+depth:]),
	}
	g.outShape = append(append([]int{}, indices.Shape[:ir-1]...), params.Shape[batchDims+depth:]...)
	n := NumElements(g.outShape)
	if n < 0 || n > math.MaxInt/params.DType.Size {
		return nil, Errorf(InvalidSpec, "output shape %v is too large", g.outShape)
	}
	if len(g.outShape) > MaxRank {
		return nil, Errorf(InvalidSpec, "number of dimensions must be within [0, %d], gather_nd result would have %d", MaxRank, len(g.outShape))
	}
	return g, nil
}

func (g *gatherND) run(policy BadIndexPolicy) (*Tensor, error) {
	out, err := Zeros(g.params.DType, g.outShape)
	if err != nil {
		return nil, err
	}
	if g.rows == 0 {
		return out, nil
	}
	if g.params.Len() == 0 {
		return nil, Errorf(OutOfRange, "requested %d rows, but params (shape %v) is empty", g.rows, g.params.Shape)
	}
	params := g.params.Contiguous()
	indices := g.indices.Contiguous()
	size := params.DType.Size
	blockBytes := g.block * size
	// Element strides of the indexed params dimensions.
	dims := params.Shape[g.batchDims : g.batchDims+g.depth]
	strides := make([]int, g.depth)
	s := g.block
	for j := g.depth - 1; j >= 0; j-- {
		strides[j] = s
		s *= dims[j]
	}
	batchElems := s // elements of params per batch entry
	row := make([]int64, g.depth)
	for r := 0; r < g.rows; r++ {
		offset := (r / g.rowsPerBatch) * batchElems
		ok := true
		for j := range row {
			row[j] = readInt(indices, r*g.depth+j)
			if row[j] < 0 || row[j] >= int64(dims[j]) {
				ok = false
			}
			offset += int(row[j]) * strides[j]
		}
		if !ok {
			if policy == BadIndexError {
				return nil, Errorf(OutOfRange, "indices%s = %v does not index into param shape %v", rowPosition(g.indices.Shape, r), row, g.params.Shape)
			}
			continue // the block stays zero
		}
		copy(out.Data[r*blockBytes:(r+1)*blockBytes], params.Data[offset*size:offset*size+blockBytes])
	}
	return out, nil
}

// readInt returns element i (row-major) of a contiguous integer tensor.
// Unsigned values beyond the int64 range come back as -1, which no bounds
// check accepts.
func readInt(t *Tensor, i int) int64 {
	size := t.DType.Size
	b := t.Data[i*size : (i+1)*size]
	var order binary.ByteOrder = binary.LittleEndian
	if t.DType.BigEndian {
		order = binary.BigEndian
	}
	var u uint64
	switch size {
	case 1:
		u = uint64(b[0])
	case 2:
		u = uint64(order.Uint16(b))
	case 4:
		u = uint64(order.Uint32(b))
	case 8:
		u = order.Uint64(b)
	}
	if t.DType.Kind == Uint {
		if u > math.MaxInt64 {
			return -1
		}
		return int64(u)
	}
	shift := 64 - 8*uint(size)
	return int64(u<<shift) >> shift
}

// rowPosition formats the position of row r in indices.shape[:-1], e.g.
// "[1,0,:]".
func rowPosition(shape []int, r int) string {
	outer := shape[:len(shape)-1]
	pos := make([]string, len(outer)+1)
	for i := len(outer) - 1; i >= 0; i-- {
		pos[i] = fmt.Sprint(r % outer[i])
		r /= outer[i]
	}
	pos[len(outer)] = ":"
	return "[" + strings.Join(pos, ",") + "]"
}
