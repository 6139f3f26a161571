package engine

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
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
	rules           Rules // the variants it runs under
}

// GatherND evaluates tf.gather_nd(params, indices, batch_dims) and returns
// a new C-contiguous tensor. Checks follow TF's order: integer index
// dtype, ranks, batch_dims, batch shapes, index depth; then, if any row is
// requested, a params tensor with no elements is out of range (TF's
// "requested more than 0 entries, but params is empty", on CPU and GPU
// alike), and each row is bounds-checked (0 <= i < dim; negative indices
// do not wrap). The variants NegativeGatherIndicesWrap and
// GatherFlatBounds replace the bounds check (see rowCursor.resolve).
func GatherND(params, indices *Tensor, batchDims int, policy BadIndexPolicy) (*Tensor, error) {
	return GatherNDUnder(params, indices, batchDims, policy, Rules{})
}

// GatherNDUnder is GatherND under the variants r (see Variant).
func GatherNDUnder(params, indices *Tensor, batchDims int, policy BadIndexPolicy, r Rules) (*Tensor, error) {
	g, err := newGatherND(params, indices, batchDims, policy, r.outputLimit())
	if err != nil {
		return nil, err
	}
	g.rules = r
	if t := r.Trace; t != nil {
		t.addIf(g.depth == 0, RuleGatherNDDepth0)
		t.addIf(g.depth > 0 && g.depth == params.Rank()-batchDims, RuleGatherNDFullDepth)
		t.addIf(batchDims > 0, RuleGatherNDBatched)
		t.addIf(policy == BadIndexZero, RuleGatherNDZeroMode)
		t.addIf(g.rows == 0, RuleGatherNDEmptyRows)
		t.traceNegative(indices, RuleGatherNDNegative)
		t.traceNarrow(indices, RuleGatherNDNarrow)
	}
	out, err := g.run(policy)
	if err != nil {
		return nil, err
	}
	return r.finish(out)
}

func newGatherND(params, indices *Tensor, batchDims int, policy BadIndexPolicy, limit int64) (*gatherND, error) {
	if policy != BadIndexError && policy != BadIndexZero {
		return nil, RuleGatherNDPolicy.Errorf("bad_indices must be %q or %q, got %q", BadIndexError, BadIndexZero, policy)
	}
	if !indices.DType.IsInteger() {
		return nil, RuleGatherNDIndexDType.Errorf("indices must be an integer tensor, got dtype %v", indices.DType)
	}
	pr, ir := params.Rank(), indices.Rank()
	if pr < 1 {
		return nil, RuleGatherNDParamsScalar.Errorf("params must be at least a vector, got shape %v", params.Shape)
	}
	if ir < 1 {
		return nil, RuleGatherNDIndicesScalar.Errorf("indices must be at least a vector, got shape %v", indices.Shape)
	}
	if batchDims < 0 {
		return nil, RuleGatherNDBatchNegative.Errorf("batch_dims must be non-negative, got %d", batchDims)
	}
	if batchDims >= ir {
		return nil, RuleGatherNDBatchIndices.Errorf("batch_dims = %d must be less than rank(indices) = %d", batchDims, ir)
	}
	if batchDims >= pr {
		return nil, RuleGatherNDBatchParams.Errorf("batch_dims = %d must be less than rank(params) = %d", batchDims, pr)
	}
	for i := 0; i < batchDims; i++ {
		if params.Shape[i] != indices.Shape[i] {
			return nil, RuleGatherNDBatchShape.Errorf("batch dimensions differ: params.shape[:%d] = %v, indices.shape[:%d] = %v", batchDims, params.Shape[:batchDims], batchDims, indices.Shape[:batchDims])
		}
	}
	depth := indices.Shape[ir-1]
	if depth > pr-batchDims {
		return nil, RuleGatherNDDepth.Errorf("index depth indices.shape[-1] = %d must be <= rank(params) - batch_dims = %d", depth, pr-batchDims)
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
		return nil, RuleGatherNDOverflow.Errorf("output shape %v is too large", g.outShape)
	}
	if err := checkOutputSize(g.outShape, params.DType.Size, limit); err != nil {
		return nil, err
	}
	if len(g.outShape) > MaxRank {
		return nil, RuleResultRank.Errorf("number of dimensions must be within [0, %d], gather_nd result would have %d", MaxRank, len(g.outShape))
	}
	return g, nil
}

func (g *gatherND) run(policy BadIndexPolicy) (*Tensor, error) {
	if g.rows == 0 {
		return Zeros(g.params.DType, g.outShape)
	}
	if g.params.Len() == 0 {
		return nil, RuleGatherNDEmptyParams.Errorf("requested %d rows, but params (shape %v) is empty", g.rows, g.params.Shape)
	}
	out, indices, bad := g.gather(policy)
	if bad >= 0 {
		return nil, g.badRow(indices, bad)
	}
	return out, nil
}

// gather gathers every row (g.rows > 0) into a new tensor, on the shared
// gather core (gatherBlocks, one block per row, resolved by rowCursor).
// It also returns the contiguous indices, and the first row outside
// params under BadIndexError, or -1 if there is none (the tensor is then
// complete); under BadIndexZero such rows are zeros.
func (g *gatherND) gather(policy BadIndexPolicy) (out, indices *Tensor, bad int) {
	src := newGatherSource(g.params, g.batchDims+g.depth)
	indices = g.indices.Contiguous()
	out = newResult(g.params.DType, g.outShape)
	cursorAt := func(first int) blockCursor { return g.newRowCursor(indices, first) }
	bad = gatherBlocks(out.Data, src, g.rows, g.depth*indices.DType.Size, cursorAt, policy == BadIndexError)
	return out, indices, bad
}

// badRow returns the error for index row r, which is outside params.
func (g *gatherND) badRow(indices *Tensor, r int) error {
	row := make([]int64, g.depth)
	readRow(row, indices, r)
	if g.rules.Has(GatherFlatBounds) {
		return RuleGatherFlatBoundsOut.Errorf("indices%s = %v does not index into param shape %v: its flattened offset is outside the batch entry (variant %s)", rowPosition(g.indices.Shape, r), row, g.params.Shape, GatherFlatBounds)
	}
	return RuleGatherNDOutOfRange.Errorf("indices%s = %v does not index into param shape %v", rowPosition(g.indices.Shape, r), row, g.params.Shape)
}

// rowCursor walks index rows in order and resolves each to the byte offset
// of its block in params, taken as C-contiguous (see gatherSource).
type rowCursor struct {
	indices      *Tensor
	row          []int64 // the components of the current row
	dims         []int   // the indexed params dimensions
	strides      []int   // and their strides in bytes
	batchBytes   int     // bytes of params per batch entry
	rowsPerBatch int
	r            int // the next row
	batchOffset  int // byte offset of the batch entry of row r
	batchEnd     int // first row of the next batch entry

	// The bounds rule of the variants (see resolve):
	wrap       bool // a negative component gets its dim added once
	clamp      bool // a component is clamped into its dim (XLA)
	flat       bool // only the row's offset is checked, against batchBytes
	unsigned   bool // the indices are unsigned (a negative read is beyond int64)
	blockBytes int  // bytes per block, for the flat check
}

// newRowCursor returns a cursor at row first.
func (g *gatherND) newRowCursor(indices *Tensor, first int) *rowCursor {
	c := &rowCursor{
		indices:      indices,
		row:          make([]int64, g.depth),
		dims:         g.params.Shape[g.batchDims : g.batchDims+g.depth],
		strides:      make([]int, g.depth),
		rowsPerBatch: g.rowsPerBatch,
		wrap:         g.rules.Has(NegativeGatherIndicesWrap),
		flat:         g.rules.Has(GatherFlatBounds),
		clamp:        g.rules.Has(GatherIndicesClamped),
		unsigned:     indices.DType.Kind == Uint,
		blockBytes:   g.block * g.params.DType.Size,
		r:            first,
	}
	s := c.blockBytes
	for j := g.depth - 1; j >= 0; j-- {
		c.strides[j] = s
		s *= c.dims[j]
	}
	c.batchBytes = s
	batch := first / g.rowsPerBatch
	c.batchOffset = batch * c.batchBytes
	c.batchEnd = (batch + 1) * g.rowsPerBatch
	return c
}

// next resolves the next row: it returns the byte offset in params of the
// block the row selects, or -1 if the row is outside params (an index
// below 0 or not below its dimension, or as resolve says under a variant).
func (c *rowCursor) next() int {
	if c.r == c.batchEnd {
		c.batchOffset += c.batchBytes
		c.batchEnd += c.rowsPerBatch
	}
	readRow(c.row, c.indices, c.r)
	c.r++
	if c.wrap || c.flat || c.clamp {
		if offset := c.resolve(); offset >= 0 {
			return c.batchOffset + offset
		}
		return -1
	}
	offset := c.batchOffset
	for j, i := range c.row {
		p := indexNoNegatives.position(i, c.dims[j])
		if p < 0 {
			return -1
		}
		offset += p * c.strides[j]
	}
	return offset
}

// resolve is the bounds rule of the variants, for c.row: it returns the
// byte offset of the row's block within its batch entry, or -1 if the row
// is outside params. This is the one place the variants change:
//   - NegativeGatherIndicesWrap (c.wrap): a negative component gets the
//     size of its axis added once, as in ONNX GatherND, so -dim..-1 name
//     the axis' positions from the end; ONNX's reference rule is this
//     one (see onnxGatherND);
//   - GatherFlatBounds (c.flat): the components are not checked one by
//     one; the row is outside only if its flattened offset,
//     sum(i[j] * stride[j]) computed exactly, fails 0 <= offset and
//     offset + block <= batch entry, TFLite's check (TF.js's is the same
//     for blocks that are not empty): a negative or too-large component
//     is accepted when the sum lands inside the batch entry. (TFLite
//     also refuses any negative component, which this variant does not
//     model; TF.js does not.) A block with no elements has offset 0 on
//     every row, which is always inside.
//   - GatherIndicesClamped (c.clamp): each component is clamped into
//     [0, dim-1], as XLA's Gather clamps its start indices (an unsigned
//     index beyond int64 to dim-1); a row is outside only where a dim is
//     0.
//
// With wrap and flat, components wrap first and the sum is checked. An
// unsigned index beyond int64 (read as -1) is outside under either.
func (c *rowCursor) resolve() int {
	if c.clamp && !c.wrap && !c.flat {
		offset := 0
		for j, i := range c.row {
			if i < 0 && c.unsigned {
				i = math.MaxInt64 // beyond int64 (see readInt)
			}
			p := indexClip.position(i, c.dims[j])
			if p < 0 {
				return -1
			}
			offset += p * c.strides[j]
		}
		return offset
	}
	if !c.flat {
		offset := 0
		for j, i := range c.row {
			if i < 0 && c.unsigned {
				return -1 // beyond int64 (see readInt)
			}
			p := indexNegativeWrap.position(i, c.dims[j])
			if p < 0 {
				return -1
			}
			offset += p * c.strides[j]
		}
		return offset
	}
	var sum int64
	for j, i := range c.row {
		if i < 0 {
			if c.unsigned {
				return -1
			}
			if c.wrap {
				i += int64(c.dims[j])
			}
		}
		s := int64(c.strides[j])
		p := i * s
		if i != 0 && p/i != s {
			return flatOffsetBig(c.row, c.dims, c.strides, c.wrap, c.batchBytes-c.blockBytes)
		}
		next := sum + p
		if (sum > 0 && p > 0 && next < 0) || (sum < 0 && p < 0 && next >= 0) {
			return flatOffsetBig(c.row, c.dims, c.strides, c.wrap, c.batchBytes-c.blockBytes)
		}
		sum = next
	}
	if sum < 0 || sum > int64(c.batchBytes-c.blockBytes) {
		return -1
	}
	return int(sum)
}

// flatOffsetBig is resolve's flattened offset of row when int64 arithmetic
// overflows: the exact sum, or -1 if it is not in [0, last].
func flatOffsetBig(row []int64, dims, strides []int, wrap bool, last int) int {
	sum, p := new(big.Int), new(big.Int)
	for j, i := range row {
		p.SetInt64(i)
		if i < 0 && wrap {
			p.Add(p, big.NewInt(int64(dims[j])))
		}
		sum.Add(sum, p.Mul(p, big.NewInt(int64(strides[j]))))
	}
	if sum.Sign() < 0 || sum.Cmp(big.NewInt(int64(last))) > 0 {
		return -1
	}
	return int(sum.Int64())
}

// fill resolves the next len(offsets) rows into offsets, as next does,
// and returns the position in offsets of the first row outside params, or
// -1 if there is none.
func (c *rowCursor) fill(offsets []int) int {
	bad := -1
	if c.indices.DType != Int64Type || c.wrap || c.flat || c.clamp {
		for k := range offsets {
			offsets[k] = c.next()
			if offsets[k] < 0 && bad < 0 {
				bad = k
			}
		}
		return bad
	}
	// Little-endian int64 indices, the common case: read them in place.
	if len(c.row) == 2 {
		if c.r == c.batchEnd {
			c.batchOffset += c.batchBytes
			c.batchEnd += c.rowsPerBatch
		}
		if c.r+len(offsets) <= c.batchEnd {
			return c.fillPairs(offsets)
		}
	}
	return c.fillInt64(offsets)
}

// fillInt64 is fill for little-endian int64 indices under TF's bounds
// rule (no variant), read in place.
func (c *rowCursor) fillInt64(offsets []int) int {
	bad := -1
	depth := len(c.row)
	b := c.indices.Data[c.r*depth*8 : (c.r+len(offsets))*depth*8]
	for k := range offsets {
		if c.r == c.batchEnd {
			c.batchOffset += c.batchBytes
			c.batchEnd += c.rowsPerBatch
		}
		c.r++
		offset := c.batchOffset
		row := b[k*depth*8 : (k+1)*depth*8]
		for j, dim := range c.dims {
			p := indexNoNegatives.position(int64(binary.LittleEndian.Uint64(row[8*j:])), dim)
			if p < 0 {
				offset = -1
				break
			}
			offset += p * c.strides[j]
		}
		offsets[k] = offset
		if offset < 0 && bad < 0 {
			bad = k
		}
	}
	return bad
}

// fillPairs is fillInt64 for rows of two components, all in the batch
// entry of row c.r (c.r < c.batchEnd): one loop without the per-component
// loop, slices and calls of fillInt64, for gather_nd of single elements
// of a matrix (the gather-scalars row of engine/kernels_bench_test.go),
// where resolving the rows took about as long as the scattered reads.
func (c *rowCursor) fillPairs(offsets []int) int {
	base := c.batchOffset
	d0, d1 := uint64(c.dims[0]), uint64(c.dims[1])
	s0, s1 := c.strides[0], c.strides[1]
	b := c.indices.Data[c.r*16 : (c.r+len(offsets))*16]
	bad := -1
	for k := range offsets {
		i0 := binary.LittleEndian.Uint64(b[16*k : 16*k+8 : 16*k+8])
		i1 := binary.LittleEndian.Uint64(b[16*k+8 : 16*k+16 : 16*k+16])
		if i0 >= d0 || i1 >= d1 { // a negative component, as uint64, too
			offsets[k] = -1
			if bad < 0 {
				bad = k
			}
			continue
		}
		offsets[k] = base + int(i0)*s0 + int(i1)*s1
	}
	c.r += len(offsets)
	return bad
}

// copyBlocks copies the blocks of size bytes at the given offsets of src
// into dst, one after the other; an offset of -1 gives a block of zeros.
// Blocks of 1, 2, 4, 8 and 16 bytes (single elements) are moved as
// integers.
func copyBlocks(dst, src []byte, offsets []int, size int) {
	switch size {
	case 1:
		for k, o := range offsets {
			if o >= 0 {
				dst[k] = src[o]
			} else {
				dst[k] = 0
			}
		}
	case 2:
		for k, o := range offsets {
			if o >= 0 {
				binary.LittleEndian.PutUint16(dst[2*k:2*k+2:2*k+2], binary.LittleEndian.Uint16(src[o:o+2:o+2]))
			} else {
				binary.LittleEndian.PutUint16(dst[2*k:2*k+2:2*k+2], 0)
			}
		}
	case 4:
		// Two elements per 8-byte store while both are inside.
		k := 0
		for ; k+2 <= len(offsets); k += 2 {
			o0, o1 := offsets[k], offsets[k+1]
			if o0 < 0 || o1 < 0 {
				break
			}
			v := uint64(binary.LittleEndian.Uint32(src[o0:o0+4:o0+4])) | uint64(binary.LittleEndian.Uint32(src[o1:o1+4:o1+4]))<<32
			binary.LittleEndian.PutUint64(dst[4*k:4*k+8:4*k+8], v)
		}
		// The rest, one at a time, from the first pair with one outside.
		for ; k < len(offsets); k++ {
			if o := offsets[k]; o >= 0 {
				binary.LittleEndian.PutUint32(dst[4*k:4*k+4:4*k+4], binary.LittleEndian.Uint32(src[o:o+4:o+4]))
			} else {
				binary.LittleEndian.PutUint32(dst[4*k:4*k+4:4*k+4], 0)
			}
		}
	case 8:
		for k, o := range offsets {
			if o >= 0 {
				binary.LittleEndian.PutUint64(dst[8*k:8*k+8:8*k+8], binary.LittleEndian.Uint64(src[o:o+8:o+8]))
			} else {
				binary.LittleEndian.PutUint64(dst[8*k:8*k+8:8*k+8], 0)
			}
		}
	case 16:
		for k, o := range offsets {
			if o >= 0 {
				d, s := dst[16*k:16*k+16:16*k+16], src[o:o+16:o+16]
				binary.LittleEndian.PutUint64(d[:8], binary.LittleEndian.Uint64(s[:8]))
				binary.LittleEndian.PutUint64(d[8:], binary.LittleEndian.Uint64(s[8:]))
			} else {
				clear(dst[16*k : 16*k+16])
			}
		}
	default:
		for k, o := range offsets {
			if o >= 0 {
				copy(dst[k*size:(k+1)*size], src[o:o+size])
			} else {
				clear(dst[k*size : (k+1)*size])
			}
		}
	}
}

// readRow reads index row r of the contiguous integer tensor t, whose
// last dimension is len(row), into row (see readInt).
func readRow(row []int64, t *Tensor, r int) {
	if t.DType == Int64Type {
		// The common case: little-endian int64.
		b := t.Data[r*len(row)*8 : (r+1)*len(row)*8]
		for j := range row {
			row[j] = int64(binary.LittleEndian.Uint64(b[8*j:]))
		}
		return
	}
	for j := range row {
		row[j] = readInt(t, r*len(row)+j)
	}
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
