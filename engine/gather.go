package engine

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"sync"
)

// This file holds the gather core that every gathering op runs on
// (gather_nd, onnx_gather_nd, take, take_along_axis, gather, onnx_gather,
// onnx_gather_elements), and the TF and ONNX front-ends of the one-axis
// gathers. An op validates its spec, then describes its output as a
// sequence of equal blocks, each a block of its source at an offset that
// a cursor computes from the index values: the cursor reads the indices
// (readIndices) and brings each into its axis (indexRule), and
// gatherBlocks copies the blocks (gatherSource.copyBlocks), in parallel
// ranges for large outputs. Offsets are row-major, as if the source were
// C-contiguous; a source that is another view (a .npy file in Fortran
// order) is read through its strides (gatherSource), never copied. Index
// tensors that are not C-contiguous are copied into C order (readIndices
// reads C order): at most as many bytes as the index tensor. Only the
// cursors differ between the ops:
//   - gather_nd: one block per index row (rowCursor);
//   - take, gather, onnx_gather: the output is [batch, outer, m, inner],
//     one block of inner elements per (batch, outer, index) (axisCursor);
//   - take_along_axis, onnx_gather_elements: one element per output
//     position, the index at the same position (elemCursor).

// indexRule says which values of an index name a position along an axis
// of n positions, and which position: the one place where the ops'
// bounds rules live.
type indexRule uint8

const (
	// indexNoNegatives: 0 <= i < n names position i (TF).
	indexNoNegatives indexRule = iota
	// indexNegativeWrap: -n <= i < n; a negative index gets n added once
	// (NumPy's raise mode and fancy indexing, ONNX, the variant
	// NegativeGatherIndicesWrap).
	indexNegativeWrap
	// indexModulo: every i names position i mod n, in [0, n) (NumPy's wrap
	// mode).
	indexModulo
	// indexClip: every i names the nearest position, i clamped into
	// [0, n-1] (NumPy's clip mode).
	indexClip
)

// position returns the position in [0, n) that the index i names under
// rule, or -1 if it names none. An axis of n = 0 positions has none under
// every rule. An unsigned index beyond int64, which readIndices reads as
// hugeIndex, names none under indexNoNegatives and indexNegativeWrap (the
// ops that use indexModulo and indexClip refuse uint64 indices).
func (rule indexRule) position(i int64, n int) int {
	m := int64(n)
	switch rule {
	case indexNegativeWrap:
		if i < 0 {
			i += m // m >= 0: cannot overflow
		}
	case indexModulo:
		if m == 0 {
			return -1
		}
		if i %= m; i < 0 {
			i += m
		}
		return int(i)
	case indexClip:
		if m == 0 {
			return -1
		}
		return int(min(max(i, 0), m-1))
	}
	if uint64(i) >= uint64(m) {
		return -1
	}
	return int(i)
}

// hugeIndex is the value readIndices gives an unsigned index beyond the
// int64 range: outside every axis under the rules that do not wrap modulo
// or clip.
const hugeIndex = math.MinInt64

// readIndices reads the len(dst) elements of the contiguous index tensor t
// that start at element first, as int64 values: integers of either byte
// order (unsigned ones beyond int64 as hugeIndex), bools as 0 and 1.
// Little-endian int64 and int32, the common index types, are read in a
// tight loop.
func readIndices(dst []int64, t *Tensor, first int) {
	switch t.DType {
	case Int64Type:
		b := t.Data[8*first : 8*(first+len(dst))]
		for k := range dst {
			dst[k] = int64(binary.LittleEndian.Uint64(b[8*k : 8*k+8 : 8*k+8]))
		}
	case Int32Type:
		b := t.Data[4*first : 4*(first+len(dst))]
		for k := range dst {
			dst[k] = int64(int32(binary.LittleEndian.Uint32(b[4*k : 4*k+4 : 4*k+4])))
		}
	default:
		for k := range dst {
			dst[k] = indexAt(t, first+k)
		}
	}
}

// indexAt returns element i of the contiguous index tensor t as
// readIndices reads it.
func indexAt(t *Tensor, i int) int64 {
	switch t.DType.Kind {
	case Bool:
		if t.Data[i] != 0 {
			return 1
		}
		return 0
	case Uint:
		if v := readInt(t, i); v >= 0 {
			return v
		}
		return hugeIndex
	}
	return readInt(t, i)
}

// firstBadIndex returns the first element of the contiguous index tensor
// t that names no position of an axis of n under rule, or -1 if every
// element names one. Ops whose result is empty use it to check indices
// they do not gather with.
func firstBadIndex(t *Tensor, n int, rule indexRule) int {
	var vals [gatherBatch]int64
	count := t.Len()
	for first := 0; first < count; first += gatherBatch {
		v := vals[:min(gatherBatch, count-first)]
		readIndices(v, t, first)
		for k, i := range v {
			if rule.position(i, n) < 0 {
				return first + k
			}
		}
	}
	return -1
}

// blockCursor walks the blocks of a gather's output in order: fill
// resolves the next len(offsets) blocks to the byte offsets of their
// sources (-1 for a block whose index is outside its axis) and returns the
// position in offsets of the first such block, or -1 if there is none.
type blockCursor interface {
	fill(offsets []int) int
}

// gatherBatch is how many blocks a cursor resolves before they are
// copied: resolving reads the indices in order, and the copy loop that
// follows is then short enough for the processor to overlap the cache
// misses of many scattered reads.
const gatherBatch = 256

// gatherBlocks fills out, n blocks of src.blockBytes bytes, with blocks
// of src: block k is the block at the offset a cursor gives for it (cursorAt
// returns a cursor at block first), or zeros where the cursor finds the
// index outside. indexBytes is about how many bytes of indices a block
// reads. Large outputs are gathered in parallel ranges. With stop, each
// range stops at its first block outside, and gatherBlocks returns the
// first such block over all ranges (out is then incomplete); it returns
// -1 if every block was inside, or if stop is false.
func gatherBlocks(out []byte, src *gatherSource, n, indexBytes int, cursorAt func(first int) blockCursor, stop bool) int {
	size := src.blockBytes
	var mu sync.Mutex
	bad := -1
	// Each block reads its index and at least a cache line of the source,
	// and writes itself.
	traffic := n * (indexBytes + max(size, cacheLine) + size)
	parallelFor(n, len(out), traffic, func(lo, hi int) {
		c := cursorAt(lo)
		var offsets [gatherBatch]int
		for first := lo; first < hi; first += gatherBatch {
			m := min(gatherBatch, hi-first)
			if b := c.fill(offsets[:m]); b >= 0 && stop {
				mu.Lock()
				if bad < 0 || first+b < bad {
					bad = first + b
				}
				mu.Unlock()
				return
			}
			src.copyBlocks(out[first*size:(first+m)*size], offsets[:m])
		}
	})
	return bad
}

// newResult returns a new C-contiguous tensor of dtype dt and the given
// shape (owned by the caller), whose bytes the caller must all write. The
// shape's element count has been checked against overflow.
func newResult(dt DType, shape []int) *Tensor {
	out := &Tensor{
		DType:   dt,
		Shape:   shape,
		Strides: ContiguousStrides(shape, dt.Size),
		Data:    newBytes(NumElements(shape) * dt.Size),
	}
	own(out)
	return out
}

// checkResultShape refuses an output shape of more than MaxRank
// dimensions, or one that checkOutputSize refuses (invalid_spec); op
// names the op in the message.
func checkResultShape(op string, shape []int, itemSize int, limit int64) error {
	if len(shape) > MaxRank {
		return RuleResultRank.Errorf("number of dimensions must be within [0, %d], %s result would have %d", MaxRank, op, len(shape))
	}
	return checkOutputSize(shape, itemSize, limit)
}

// axisGather is a validated gather along one axis: take, gather and
// onnx_gather. The source, viewed as [batch, outer, n, inner], gives an
// output [batch, outer, m, inner]: block (b, o, j) of inner elements is
// source block (b, o, p), p the position that index b*m + j names.
type axisGather struct {
	src        *gatherSource // in blocks of inner elements
	indices    *Tensor       // contiguous, batch*m elements
	outShape   []int
	batch      int // batch entries (TF's batch_dims; 1 for the other ops)
	outer      int
	m          int // indices per batch entry
	n          int // size of the gathered axis
	blockBytes int // bytes per block, inner * element size
	rule       indexRule
	// flatBounds is the variant GatherFlatBounds: a non-negative index
	// is accepted when its block lies anywhere in the source, not only
	// within its axis (it may read another batch entry's or outer
	// position's data).
	flatBounds bool
}

// blocks returns the number of blocks of the output.
func (g *axisGather) blocks() int { return g.batch * g.outer * g.m }

// run gathers the output, which has at least one element. With stop, it
// returns the first index outside its axis (-1 if none) and no tensor if
// there is one; otherwise such blocks are zeros.
func (g *axisGather) run(stop bool) (*Tensor, int) {
	if g.outer > 1 && g.batch*g.m <= maxResolved && !g.flatBounds && !g.src.strided {
		return g.runResolved(stop)
	}
	out := newResult(g.src.dt, g.outShape)
	bad := gatherBlocks(out.Data, g.src, g.blocks(), g.indices.DType.Size, g.cursorAt, stop)
	if bad >= 0 {
		line, j := bad/g.m, bad%g.m
		return nil, line/g.outer*g.m + j
	}
	return out, -1
}

// maxResolved is the most indices runResolved resolves ahead (8 bytes
// each).
const maxResolved = 1 << 20

// runResolved is run for indices that each name a block of outer > 1
// lines of a source that is not strided (take or gather along an inner
// axis): it reads each index and brings it into its axis once, as the
// byte offset of its block within a line, not once per line; then copies
// the blocks of each line from those offsets, with no cursor.
func (g *axisGather) runResolved(stop bool) (*Tensor, int) {
	resolved := make([]int, g.batch*g.m)
	bad := -1
	var vals [gatherBatch]int64
	for first := 0; first < len(resolved); first += gatherBatch {
		v := vals[:min(gatherBatch, len(resolved)-first)]
		readIndices(v, g.indices, first)
		for q, i := range v {
			p := g.rule.position(i, g.n)
			if p < 0 {
				resolved[first+q] = -1 // a block of zeros
				if bad < 0 {
					bad = first + q
				}
				continue
			}
			resolved[first+q] = p * g.blockBytes
		}
	}
	if bad >= 0 && stop {
		// The first block outside is in line 0 of the first batch entry
		// with an index outside: that of its first index outside.
		return nil, bad
	}
	out := newResult(g.src.dt, g.outShape)
	size, lineBytes, n := g.blockBytes, g.n*g.blockBytes, g.blocks()
	traffic := n * (8 + max(size, cacheLine) + size)
	parallelFor(n, len(out.Data), traffic, func(lo, hi int) {
		for first := lo; first < hi; {
			line := first / g.m
			last := min(hi, (line+1)*g.m)
			idx := line/g.outer*g.m + first - line*g.m // b*m + j
			copyBlocks(out.Data[first*size:last*size], g.src.data[line*lineBytes:(line+1)*lineBytes], resolved[idx:idx+last-first], size)
			first = last
		}
	})
	return out, -1
}

// axisCursor is the blockCursor of an axisGather.
type axisCursor struct {
	g    *axisGather
	j, o int // position of the next block along m and outer
	idx  int // its index element, b*m + j
	base int // byte offset of source block (b, o, 0)
	vals [gatherBatch]int64
}

func (g *axisGather) cursorAt(first int) blockCursor {
	line := first / g.m
	return &axisCursor{
		g:    g,
		j:    first % g.m,
		o:    line % g.outer,
		idx:  line/g.outer*g.m + first%g.m,
		base: line * g.n * g.blockBytes,
	}
}

func (c *axisCursor) fill(offsets []int) int {
	g := c.g
	bad := -1
	for k := 0; k < len(offsets); {
		run := min(len(offsets)-k, g.m-c.j)
		vals, offs := c.vals[:run], offsets[k:k+run]
		readIndices(vals, g.indices, c.idx)
		for q, v := range vals {
			off := -1
			if p := g.rule.position(v, g.n); p >= 0 {
				off = c.base + p*g.blockBytes
			} else if g.flatBounds && v >= 0 && g.blockBytes > 0 && v <= int64((g.src.bytes-c.base)/g.blockBytes-1) {
				off = c.base + int(v)*g.blockBytes
			}
			if off < 0 {
				offs[q] = -1
				if bad < 0 {
					bad = k + q
				}
				continue
			}
			offs[q] = off
		}
		k += run
		c.j += run
		c.idx += run
		if c.j == g.m {
			// The next outer position: the same indices again, or the
			// next batch entry's.
			c.j = 0
			c.base += g.n * g.blockBytes
			if c.o++; c.o == g.outer {
				c.o = 0
			} else {
				c.idx -= g.m
			}
		}
	}
	return bad
}

// elemGather is a validated gather of single elements: take_along_axis
// and onnx_gather_elements. Output element at position (p_0, ..., p_r-1)
// is the source element at the same position with p_axis replaced by the
// position its index names; the index is at the same position of the
// indices, which may be broadcast (stride 0) and so may the source.
type elemGather struct {
	src        *gatherSource // in blocks of one element
	indices    *Tensor       // contiguous
	outShape   []int         // rank >= 1
	srcStrides []int         // bytes per output dimension; 0 along the axis and where broadcast
	idxStrides []int         // index elements per output dimension; 0 where broadcast
	axisStride int           // bytes of the source's axis
	n          int           // size of the source's axis
	rule       indexRule
}

// newElemGather returns the elemGather of source src, whose elements in
// row-major order are taken as an array of the given shape, and indices
// idx (shape and idx both of rank len(outShape)) along axis. Outside the
// axis, a dimension of either is broadcast where it is 1, and is otherwise
// at least the output's (only its first positions are read).
func newElemGather(src *Tensor, shape []int, idx *Tensor, outShape []int, axis int, rule indexRule) *elemGather {
	idx = idx.Contiguous()
	r := len(outShape)
	g := &elemGather{
		src:        newGatherSource(src, src.Rank()),
		indices:    idx,
		outShape:   outShape,
		srcStrides: make([]int, r),
		idxStrides: make([]int, r),
		n:          shape[axis],
		rule:       rule,
	}
	s, e := src.DType.Size, 1
	for d := r - 1; d >= 0; d-- {
		if d == axis {
			g.axisStride = s
		} else if shape[d] != 1 {
			g.srcStrides[d] = s
		}
		if idx.Shape[d] != 1 {
			g.idxStrides[d] = e
		}
		s *= shape[d]
		e *= idx.Shape[d]
	}
	return g
}

// run gathers the output, which has at least one element, or returns the
// first output position whose index is outside the axis.
func (g *elemGather) run() (*Tensor, int) {
	out := newResult(g.src.dt, g.outShape)
	n := NumElements(g.outShape)
	bad := gatherBlocks(out.Data, g.src, n, g.indices.DType.Size, g.cursorAt, true)
	if bad >= 0 {
		return nil, bad
	}
	return out, -1
}

// indexOf returns the index element of output element k.
func (g *elemGather) indexOf(k int) int {
	e := 0
	for d := len(g.outShape) - 1; d >= 0; d-- {
		e += k % g.outShape[d] * g.idxStrides[d]
		k /= g.outShape[d]
	}
	return e
}

// elemCursor is the blockCursor of an elemGather. It walks the output in
// lines along the last dimension.
type elemCursor struct {
	g        *elemGather
	pos      []int // position over outShape[:r-1]
	j        int   // position along the last dimension
	src, idx int   // source byte offset and index element of the line start
	vals     [gatherBatch]int64
}

func (g *elemGather) cursorAt(first int) blockCursor {
	r := len(g.outShape)
	c := &elemCursor{g: g, pos: make([]int, r-1), j: first % g.outShape[r-1]}
	line := first / g.outShape[r-1]
	for d := r - 2; d >= 0; d-- {
		c.pos[d] = line % g.outShape[d]
		line /= g.outShape[d]
		c.src += c.pos[d] * g.srcStrides[d]
		c.idx += c.pos[d] * g.idxStrides[d]
	}
	return c
}

func (c *elemCursor) fill(offsets []int) int {
	g := c.g
	last := len(g.outShape) - 1
	length, srcStride, idxStride := g.outShape[last], g.srcStrides[last], g.idxStrides[last]
	bad := -1
	for k := 0; k < len(offsets); {
		run := min(len(offsets)-k, length-c.j)
		vals, offs := c.vals[:run], offsets[k:k+run]
		if idxStride != 0 {
			readIndices(vals, g.indices, c.idx+c.j)
		} else {
			readIndices(vals[:1], g.indices, c.idx)
			for q := 1; q < run; q++ {
				vals[q] = vals[0]
			}
		}
		src := c.src + c.j*srcStride
		for q, v := range vals {
			p := g.rule.position(v, g.n)
			if p < 0 {
				offs[q] = -1
				if bad < 0 {
					bad = k + q
				}
				continue
			}
			offs[q] = src + q*srcStride + p*g.axisStride
		}
		k += run
		if c.j += run; c.j == length {
			c.j = 0
			for d := last - 1; d >= 0; d-- {
				c.pos[d]++
				c.src += g.srcStrides[d]
				c.idx += g.idxStrides[d]
				if c.pos[d] < g.outShape[d] {
					break
				}
				c.src -= c.pos[d] * g.srcStrides[d]
				c.idx -= c.pos[d] * g.idxStrides[d]
				c.pos[d] = 0
			}
		}
	}
	return bad
}

// indexPosition formats the position of element e of a tensor of the
// given shape, e.g. "[1,0]".
func indexPosition(shape []int, e int) string {
	pos := make([]string, len(shape))
	for d := len(shape) - 1; d >= 0; d-- {
		pos[d] = fmt.Sprint(e % max(shape[d], 1))
		e /= max(shape[d], 1)
	}
	return "[" + strings.Join(pos, ",") + "]"
}

// GatherSpec is the spec of tf.gather: the axis of params to gather along
// (negative counts from the end), the number of leading batch dimensions
// (negative counts from rank(indices)), and what an index outside the
// axis does (see BadIndexPolicy).
type GatherSpec struct {
	Axis, BatchDims int
	BadIndices      BadIndexPolicy
}

// Gather evaluates tf.gather(params, indices, axis, batch_dims) and
// returns a new C-contiguous tensor of shape params.shape[:axis] +
// indices.shape[batch_dims:] + params.shape[axis+1:]: for each batch
// entry b, the slices of params[b] along the axis that the indices of
// indices[b] name.
//
// Checks, in TF's order (GatherV2):
//  1. bad_indices must be "error" or "zero": invalid_spec;
//  2. indices must be int32 or int64, either byte order (every other
//     dtype: bad_input, as gather_nd's non-integer indices; see
//     TFGatherIndexDType);
//  3. params must have rank r >= 1: invalid_spec;
//  4. axis in [-r, r), a negative one counting from r: invalid_spec;
//  5. batch_dims in [-q, q] for indices of rank q, a negative one counting
//     from q; then batch_dims <= axis, and params.shape[:batch_dims] ==
//     indices.shape[:batch_dims]: invalid_spec;
//  6. the result has at most MaxRank dimensions and fits the output
//     limit: invalid_spec.
//
// An empty result is returned without looking at the index values (TF
// returns before its kernel runs). Otherwise each index must be in
// [0, params.shape[axis]): negative indices do not wrap. An index outside
// is out_of_range under BadIndexError (TF on CPU) and gives a slice of
// zeros under BadIndexZero (TF on GPU). GatherV2 has no "params is empty"
// check (that is GatherNd's): on an empty gathered axis every index is
// outside, so the result is out_of_range or all zeros by the policy. Under the variant NegativeGatherIndicesWrap a negative
// index in [-n, -1] counts from the end of the axis.
func Gather(params, indices *Tensor, spec GatherSpec) (*Tensor, error) {
	return GatherUnder(params, indices, spec, Rules{})
}

// TFGatherIndexDType reports whether tf.gather takes indices of dtype dt:
// TF's GatherV2 registers its Tindices attribute as {int32, int64} (the
// tf.gather API reference: "indices: The index Tensor. Must be one of the
// following types: int32, int64"), so int8, int16, every unsigned dtype,
// bool and the rest are refused before the kernel runs. Either byte order
// is taken (TF has none; a .npy file does).
func TFGatherIndexDType(dt DType) bool {
	return dt.Kind == Int && (dt.Size == 4 || dt.Size == 8)
}

// GatherUnder is Gather under the variants r (see Variant).
func GatherUnder(params, indices *Tensor, spec GatherSpec, r Rules) (*Tensor, error) {
	policy := spec.BadIndices
	if policy != BadIndexError && policy != BadIndexZero {
		return nil, RuleGatherPolicy.Errorf("bad_indices must be %q or %q, got %q", BadIndexError, BadIndexZero, policy)
	}
	if !TFGatherIndexDType(indices.DType) {
		return nil, RuleGatherIndexDType.Errorf("GatherV2's Tindices is int32 or int64, got indices of dtype %v", indices.DType)
	}
	pr, q := params.Rank(), indices.Rank()
	if pr < 1 {
		return nil, RuleGatherParamsScalar.Errorf("params must be at least 1 dimensional, got shape %v", params.Shape)
	}
	axis := spec.Axis
	if axis < -pr || axis >= pr {
		return nil, RuleGatherAxis.Errorf("expected axis in the range [%d, %d), but got %d", -pr, pr, axis)
	}
	if axis < 0 {
		axis += pr
	}
	bd := spec.BatchDims
	if bd < -q || bd > q {
		return nil, RuleGatherBatchDims.Errorf("expected batch_dims in the range [%d, %d], but got %d", -q, q, bd)
	}
	if bd < 0 {
		bd += q
	}
	if bd > axis {
		return nil, RuleGatherBatchAxis.Errorf("batch_dims (%d) must be less than or equal to axis (%d)", bd, axis)
	}
	for i := 0; i < bd; i++ {
		if params.Shape[i] != indices.Shape[i] {
			return nil, RuleGatherBatchShape.Errorf("params.shape[%d]: %d should be equal to indices.shape[%d]: %d", i, params.Shape[i], i, indices.Shape[i])
		}
	}
	outShape := append(append(append([]int{}, params.Shape[:axis]...), indices.Shape[bd:]...), params.Shape[axis+1:]...)
	if err := checkResultShape("gather", outShape, params.DType.Size, r.outputLimit()); err != nil {
		return nil, err
	}
	if t := r.Trace; t != nil {
		t.addIf(axis != 0, RuleGatherAxisNonZero)
		t.traceNarrow(indices, RuleGatherInt32Indices)
		t.addIf(bd > 0, RuleGatherBatched)
		t.addIf(policy == BadIndexZero, RuleGatherZeroMode)
		if NumElements(outShape) == 0 {
			t.addIf(indices.Len() > 0, RuleGatherEmptyResult)
		} else {
			t.traceNegative(indices, RuleGatherNegativeIndex)
		}
	}
	if NumElements(outShape) == 0 {
		return r.finish(newResult(params.DType, outShape))
	}
	rule := indexNoNegatives
	switch {
	case r.Has(NegativeGatherIndicesWrap):
		rule = indexNegativeWrap
	case r.Has(GatherIndicesClamped):
		rule = indexClip
	}
	g := &axisGather{
		src:        newGatherSource(params, axis+1),
		indices:    indices.Contiguous(),
		outShape:   outShape,
		batch:      NumElements(params.Shape[:bd]),
		outer:      NumElements(params.Shape[bd:axis]),
		m:          NumElements(indices.Shape[bd:]),
		n:          params.Shape[axis],
		blockBytes: NumElements(params.Shape[axis+1:]) * params.DType.Size,
		rule:       rule,
		flatBounds: r.Has(GatherFlatBounds),
	}
	out, bad := g.run(policy == BadIndexError)
	if bad >= 0 {
		return nil, RuleGatherOutOfRange.Errorf("indices%s = %d is not in [0, %d)", indexPosition(indices.Shape, bad), readInt(g.indices, bad), g.n)
	}
	return r.finish(out)
}

// ONNXGatherSpec is the spec of ONNX's Gather-13 and GatherElements-13:
// the axis of data to gather along, negative counting from the end.
type ONNXGatherSpec struct {
	Axis int
}

// onnxGatherIndices checks the index dtype of the ONNX gathers: int32 or
// int64 in either byte order, the specification's Tind (bad_input, raised
// by rule, otherwise; GatherND takes int64 only).
func onnxGatherIndices(op string, rule RuleID, indices *Tensor) error {
	if indices.DType.Kind != Int || (indices.DType.Size != 4 && indices.DType.Size != 8) {
		return rule.Errorf("ONNX %s takes int32 or int64 indices, got dtype %v", op, indices.DType)
	}
	return nil
}

// onnxAxis checks an ONNX axis attribute against rank r (in [-r, r-1],
// else invalid_spec, raised by rule) and returns it normalised.
func onnxAxis(axis, r int, rule RuleID) (int, error) {
	if axis < -r || axis >= r {
		return 0, rule.Errorf("axis %d is outside [-%d, %d] for data of rank %d", axis, r, r-1, r)
	}
	if axis < 0 {
		axis += r
	}
	return axis, nil
}

// onnxBadIndex returns the error for index element e of indices, outside
// an axis of n, raised by rule.
func onnxBadIndex(indices *Tensor, e, n int, rule RuleID) error {
	return rule.Errorf("indices%s = %d is outside [-%d, %d]", indexPosition(indices.Shape, e), readInt(indices.Contiguous(), e), n, n-1)
}

// ONNXGather evaluates ONNX's Gather-13 and returns a new C-contiguous
// tensor of shape data.shape[:axis] + indices.shape +
// data.shape[axis+1:]: the slices of data along the axis that the indices
// name.
//
// Checks, in order:
//   - indices must be int32 or int64, either byte order (Gather-13's
//     Tind; GatherND takes int64 only): otherwise bad_input;
//   - r = rank(data) >= 1 and axis in [-r, r-1] (a negative one counting
//     from r): invalid_spec;
//   - the result has at most MaxRank dimensions and fits the output
//     limit: invalid_spec;
//   - every index is in [-s, s-1] for s = data.shape[axis], a negative one
//     getting s added once: otherwise out_of_range. Every index is
//     checked, also when the result is empty (as onnx_gather_nd; ONNX
//     Runtime skips the check then).
func ONNXGather(data, indices *Tensor, spec ONNXGatherSpec) (*Tensor, error) {
	return ONNXGatherUnder(data, indices, spec, Rules{})
}

// ONNXGatherUnder is ONNXGather under the variants r (see Variant).
func ONNXGatherUnder(data, indices *Tensor, spec ONNXGatherSpec, r Rules) (*Tensor, error) {
	if err := onnxGatherIndices("Gather", RuleONNXGatherIndexDType, indices); err != nil {
		return nil, err
	}
	rank := data.Rank()
	if rank < 1 {
		return nil, RuleONNXGatherScalar.Errorf("data must have rank >= 1, got shape %v", data.Shape)
	}
	axis, err := onnxAxis(spec.Axis, rank, RuleONNXGatherAxis)
	if err != nil {
		return nil, err
	}
	outShape := append(append(append([]int{}, data.Shape[:axis]...), indices.Shape...), data.Shape[axis+1:]...)
	if err := checkResultShape("Gather", outShape, data.DType.Size, r.outputLimit()); err != nil {
		return nil, err
	}
	if t := r.Trace; t != nil {
		t.addIf(axis != 0, RuleONNXGatherAxisNon0)
		t.traceNarrow(indices, RuleONNXGatherInt32)
		t.addIf(NumElements(outShape) == 0 && indices.Len() > 0, RuleONNXGatherEmpty)
		t.traceNegative(indices, RuleONNXGatherNegative)
	}
	n := data.Shape[axis]
	if NumElements(outShape) == 0 {
		if bad := firstBadIndex(indices.Contiguous(), n, indexNegativeWrap); bad >= 0 {
			return nil, onnxBadIndex(indices, bad, n, RuleONNXGatherOutOfRange)
		}
		return r.finish(newResult(data.DType, outShape))
	}
	g := &axisGather{
		src:        newGatherSource(data, axis+1),
		indices:    indices.Contiguous(),
		outShape:   outShape,
		batch:      1,
		outer:      NumElements(data.Shape[:axis]),
		m:          indices.Len(),
		n:          n,
		blockBytes: NumElements(data.Shape[axis+1:]) * data.DType.Size,
		rule:       indexNegativeWrap,
	}
	out, bad := g.run(true)
	if bad >= 0 {
		return nil, onnxBadIndex(indices, bad, n, RuleONNXGatherOutOfRange)
	}
	return r.finish(out)
}

// ONNXGatherElements evaluates ONNX's GatherElements-13 and returns a new
// C-contiguous tensor of indices' shape: out[p] = data[p with p[axis]
// replaced by indices[p]].
//
// Checks, in order:
//   - indices must be int32 or int64, either byte order (as ONNXGather): otherwise
//     bad_input;
//   - r = rank(data) >= 1, rank(indices) == r, axis in [-r, r-1] (a
//     negative one counting from r), and indices.shape[d] <= data.shape[d]
//     for every d != axis (no broadcasting): invalid_spec;
//   - the result fits the output limit: invalid_spec;
//   - every index is in [-s, s-1] for s = data.shape[axis], a negative one
//     getting s added once: otherwise out_of_range.
func ONNXGatherElements(data, indices *Tensor, spec ONNXGatherSpec) (*Tensor, error) {
	return ONNXGatherElementsUnder(data, indices, spec, Rules{})
}

// ONNXGatherElementsUnder is ONNXGatherElements under the variants r (see
// Variant).
func ONNXGatherElementsUnder(data, indices *Tensor, spec ONNXGatherSpec, r Rules) (*Tensor, error) {
	if err := onnxGatherIndices("GatherElements", RuleONNXElemIndexDType, indices); err != nil {
		return nil, err
	}
	if r.Has(Int64IndicesOnly) && indices.DType.Size != 8 {
		return nil, RuleInt64IndicesOnly.Errorf("indices of dtype %v: only int64 is taken (variant %s)", indices.DType, Int64IndicesOnly)
	}
	rank := data.Rank()
	if rank < 1 {
		return nil, RuleONNXElemScalar.Errorf("data must have rank >= 1, got shape %v", data.Shape)
	}
	if indices.Rank() != rank {
		return nil, RuleONNXElemRank.Errorf("indices must have the rank of data (%d), got shape %v", rank, indices.Shape)
	}
	axis, err := onnxAxis(spec.Axis, rank, RuleONNXElemAxis)
	if err != nil {
		return nil, err
	}
	for d := range rank {
		if d != axis && indices.Shape[d] > data.Shape[d] {
			return nil, RuleONNXElemShape.Errorf("indices.shape[%d] = %d exceeds data.shape[%d] = %d", d, indices.Shape[d], d, data.Shape[d])
		}
	}
	outShape := append([]int{}, indices.Shape...)
	if err := checkResultShape("GatherElements", outShape, data.DType.Size, r.outputLimit()); err != nil {
		return nil, err
	}
	if t := r.Trace; t != nil {
		t.addIf(axis != 0, RuleONNXElemAxisNon0)
		t.traceNarrow(indices, RuleONNXElemInt32)
		for d := range rank {
			t.addIf(d != axis && indices.Shape[d] < data.Shape[d], RuleONNXElemSmaller)
		}
		t.traceNegative(indices, RuleONNXElemNegative)
	}
	if NumElements(outShape) == 0 {
		return r.finish(newResult(data.DType, outShape))
	}
	rule := indexNegativeWrap
	if r.Has(NegativeIndicesRefused) {
		rule = indexNoNegatives
	}
	g := newElemGather(data, data.Shape, indices, outShape, axis, rule)
	out, bad := g.run()
	if bad >= 0 {
		if index := readInt(g.indices, g.indexOf(bad)); rule == indexNoNegatives && index < 0 && index >= -int64(g.n) {
			return nil, RuleNegativeIndexOut.Errorf("indices element %d is negative: out of bounds for axis %d with size %d (variant %s)", index, axis, g.n, NegativeIndicesRefused)
		}
		return nil, onnxBadIndex(indices, bad, g.n, RuleONNXElemOutOfRange)
	}
	return r.finish(out)
}

// gatherSource is the source tensor of a gather as the gather core reads
// it, in blocks: a block is the elements of the source's last dimensions
// (from a split dimension on) at one position of the dimensions before
// them. The cursors give the byte offset of a block as if the source were
// C-contiguous (its row-major byte offset); copyBlocks finds the block in
// the source's memory. A source whose elements are one block of memory in
// row-major order (a C-contiguous tensor) is read directly. Any other
// view, such as a .npy file in Fortran order, is read through its
// strides, not copied.
type gatherSource struct {
	dt         DType
	bytes      int    // bytes of its elements: every row-major offset is below it
	blockBytes int    // bytes of a block
	data       []byte // its elements in row-major order, or (strided) the view's memory
	strided    bool   // the elements are not data in row-major order

	// For a strided source:
	offset        int    // byte offset in data of its first element
	dims, strides []int  // the dimensions that place a block (of length > 1, merged where they continue each other) and their byte strides
	block         layout // the elements of one block, from the block's first element
}

// newGatherSource returns the source t read in blocks of its dimensions
// t.Shape[split:].
func newGatherSource(t *Tensor, split int) *gatherSource {
	size := t.DType.Size
	n := t.Len() * size
	s := &gatherSource{dt: t.DType, bytes: n, blockBytes: NumElements(t.Shape[split:]) * size}
	switch {
	case n == 0:
		s.data = []byte{}
		return s
	case t.isBlock():
		s.data = t.Data[t.Offset : t.Offset+n : t.Offset+n]
		return s
	}
	s.data, s.offset, s.strided = t.Data, t.Offset, true
	s.dims, s.strides = mergeAxes(t.Shape[:split], t.Strides[:split])
	s.block = newLayout(&Tensor{DType: t.DType, Shape: t.Shape[split:], Strides: t.Strides[split:]})
	return s
}

// copyBlocks copies the blocks at the given row-major byte offsets into
// dst, one after the other; an offset of -1 gives a block of zeros.
// Offsets of a strided source are rewritten in place into offsets of its
// memory.
func (s *gatherSource) copyBlocks(dst []byte, offsets []int) {
	if !s.strided {
		copyBlocks(dst, s.data, offsets, s.blockBytes)
		return
	}
	if s.blockBytes == 0 {
		return
	}
	for k, o := range offsets {
		if o < 0 {
			continue
		}
		b, p := o/s.blockBytes, s.offset
		for d := len(s.dims) - 1; d >= 0; d-- {
			p += b % s.dims[d] * s.strides[d]
			b /= s.dims[d]
		}
		offsets[k] = p
	}
	if len(s.block.shape) == 0 {
		// Each block is one run of memory, a single element among them.
		copyBlocks(dst, s.data, offsets, s.blockBytes)
		return
	}
	var idx [MaxRank]int
	for k, o := range offsets {
		d := dst[k*s.blockBytes : (k+1)*s.blockBytes]
		if o < 0 {
			clear(d)
			continue
		}
		s.copyBlock(d, o, idx[:len(s.block.shape)-1])
	}
}

// copyBlock copies the block of a strided source whose first element is
// at byte off of its memory into dst; idx is scratch space of one int per
// axis of the block's layout but the last.
func (s *gatherSource) copyBlock(dst []byte, off int, idx []int) {
	l := &s.block
	inner := len(l.shape) - 1
	line := l.shape[inner] * l.block
	clear(idx)
	for len(dst) > 0 {
		copyLine(dst[:line], s.data, off, l.strides[inner], l.block)
		dst = dst[line:]
		// Advance the odometer over the outer axes.
		for a := inner - 1; a >= 0; a-- {
			idx[a]++
			off += l.strides[a]
			if idx[a] < l.shape[a] {
				break
			}
			off -= idx[a] * l.strides[a]
			idx[a] = 0
		}
	}
}
