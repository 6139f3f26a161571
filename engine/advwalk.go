package engine

// The walk over the broadcast grid of several index arrays (advanced
// getitem with more than one mask or with an integer array): for each grid
// position, in row-major order, the byte offset in x of the element it
// selects (before the offsets of the basic items).
//
// The offset at a grid position is the sum of one term per source: an
// integer array's value there (made non-negative) times the stride of the
// dimension of x it indexes, or a mask's true element's offset. A source
// depends only on the grid dimensions it is not broadcast along, so the
// walk keeps, per grid dimension d, the sum of the terms of the sources
// whose innermost such dimension comes before d, and when the counter of
// dimension d moves it reads again only the sources whose innermost
// dimension is d and moves the read positions only of the sources that
// are not broadcast along d. Grid dimensions of size 1 are dropped and
// adjacent ones that every source walks alike are merged first, so that
// every counter moves through at least two positions. Integer arrays that
// span the same grid dimensions are summed into one table of offsets
// beforehand (within walkTablesMax), and masks of up to maskTableMax true
// elements are tabulated.
//
// The work is then at most a few steps per output element plus per index
// element, whatever the number of index arrays: reading source j costs
// the product of the grid dimensions up to its innermost one, which for
// arrays that all span different dimensions adds up to at most twice the
// grid (each dimension has at least two positions). What remains is one
// read per output element for each table of a distinct set of grid
// dimensions that includes the innermost one.

// walkTablesMax bounds the tables of byte offsets a walk builds for its
// groups of arrays, in elements: 32 MiB in all.
const walkTablesMax = 1 << 22

// maskTableMax is the largest mask, in true elements, whose offsets a walk
// tabulates (512 KiB): a larger one is walked in place, its walk
// restarted every maskTableMax or more elements.
const maskTableMax = 1 << 16

// walkSource is one term of the grid offset.
type walkSource struct {
	arr     *arraySource // an integer array read in place, or
	table   []int        // a table of byte offsets in x, or
	mask    *advEntry    // a mask walked in place,
	maskXs  []int        // with the strides in x of its dimensions
	strides []int        // per walk dimension: bytes (arr), elements (table, mask)
	level   int          // the innermost walk dimension with a nonzero stride, or -1
}

// walkPlan is the immutable part of the walk, shared by the goroutines
// that gather parts of the result.
type walkPlan struct {
	dims    []int // the walk dimensions (at least one)
	srcs    []walkSource
	atLevel [][]int // per walk dimension, the sources whose level it is
	moving  [][]int // per walk dimension, the sources with a nonzero stride along it
	consts  []int   // the sources of level -1
}

// rawSource is a source before the walk dimensions are chosen: its
// strides are per grid dimension.
type rawSource struct {
	walkSource
	gridStrides []int
}

// newWalkPlan plans the walk of grid over the integer arrays arrays and
// the masks masks (with the strides in x of their dimensions), after
// their bounds are checked. steps counts the work of building tables.
func newWalkPlan(grid []int, arrays []arraySource, masks []*advEntry, maskXs [][]int, steps *int) *walkPlan {
	var raw []rawSource
	for i := range arrays {
		raw = append(raw, rawSource{walkSource: walkSource{arr: &arrays[i]}, gridStrides: arrays[i].strides})
	}
	for i, m := range masks {
		// The nonzero() arrays have the shape (count,), aligned with the
		// last grid dimension: one element apart along it.
		s := broadcastStrides([]int{m.count}, []int{1}, grid)
		if m.count <= maskTableMax {
			raw = append(raw, rawSource{walkSource: walkSource{table: maskOffsets(m, maskXs[i], steps)}, gridStrides: s})
		} else {
			raw = append(raw, rawSource{walkSource: walkSource{mask: m, maskXs: maskXs[i]}, gridStrides: s})
		}
	}
	// The walk dimensions: no dimension of size 1, and adjacent ones
	// merged where every source steps across them as across one.
	var keep []int
	for d, n := range grid {
		if n != 1 {
			keep = append(keep, d)
		}
	}
	var dims []int
	strides := make([][]int, len(raw)) // per source, per walk dimension
	for k, d := range keep {
		merge := k > 0
		if merge {
			for _, r := range raw {
				if r.gridStrides[keep[k-1]] != r.gridStrides[d]*grid[d] {
					merge = false
					break
				}
			}
		}
		if merge {
			// The previous walk dimension now also covers d: its
			// size grows and its strides become d's.
			last := len(dims) - 1
			dims[last] *= grid[d]
			for j, r := range raw {
				strides[j][last] = r.gridStrides[d]
			}
			continue
		}
		dims = append(dims, grid[d])
		for j, r := range raw {
			strides[j] = append(strides[j], r.gridStrides[d])
		}
	}
	if len(dims) == 0 {
		dims = []int{1}
		for j := range raw {
			strides[j] = []int{0}
		}
	}
	w := &walkPlan{dims: dims, atLevel: make([][]int, len(dims)), moving: make([][]int, len(dims))}
	for j := range raw {
		s := raw[j].walkSource
		s.strides = strides[j]
		s.level = -1
		for d, st := range s.strides {
			if st != 0 {
				s.level = d
			}
		}
		w.srcs = append(w.srcs, s)
	}
	w.groupArrays(steps)
	for j, s := range w.srcs {
		if s.level < 0 {
			w.consts = append(w.consts, j)
			continue
		}
		w.atLevel[s.level] = append(w.atLevel[s.level], j)
		for d, st := range s.strides {
			if st != 0 {
				w.moving[d] = append(w.moving[d], j)
			}
		}
	}
	return w
}

// groupArrays replaces the integer arrays that span the same walk
// dimensions, two or more, by one table of the sum of their terms.
func (w *walkPlan) groupArrays(steps *int) {
	budget := walkTablesMax
	var out []walkSource
	done := make([]bool, len(w.srcs))
	for i, s := range w.srcs {
		if done[i] {
			continue
		}
		if s.arr == nil || s.level < 0 {
			out = append(out, s)
			continue
		}
		group := []int{i}
		for j := i + 1; j < len(w.srcs); j++ {
			if t := w.srcs[j]; t.arr != nil && sameSpan(s.strides, t.strides) {
				group = append(group, j)
			}
		}
		size := 1
		for d, st := range s.strides {
			if st != 0 {
				size *= w.dims[d]
			}
		}
		if len(group) < 2 || size > budget {
			out = append(out, s)
			continue
		}
		budget -= size
		// The table is C-contiguous over the spanned dimensions.
		table := make([]int, size)
		tstrides := make([]int, len(s.strides))
		n := 1
		for d := len(s.strides) - 1; d >= 0; d-- {
			if s.strides[d] != 0 {
				tstrides[d] = n
				n *= w.dims[d]
			}
		}
		var span []int // the spanned dimensions' sizes
		for d, st := range s.strides {
			if st != 0 {
				span = append(span, w.dims[d])
			}
		}
		for _, j := range group {
			done[j] = true
			a := w.srcs[j].arr
			var astr []int
			for _, st := range w.srcs[j].strides {
				if st != 0 {
					astr = append(astr, st)
				}
			}
			addTerms(table, span, a, astr)
			*steps += size
		}
		out = append(out, walkSource{table: table, strides: tstrides, level: s.level})
	}
	w.srcs = out
}

// sameSpan reports whether two sources are broadcast along the same walk
// dimensions.
func sameSpan(a, b []int) bool {
	for d := range a {
		if (a[d] == 0) != (b[d] == 0) {
			return false
		}
	}
	return true
}

// addTerms adds the terms of the array a, walked over the dimensions span
// with the byte strides strides, to the C-contiguous table.
func addTerms(table []int, span []int, a *arraySource, strides []int) {
	var vals [advBatch]int64
	inner := len(span) - 1
	n, st := span[inner], strides[inner]
	idx := make([]int, len(span))
	pos := a.off0
	dim, xs := int64(a.dim), a.xStride
	for k := 0; k < len(table); k += n {
		for j := 0; j < n; j += advBatch {
			m := min(advBatch, n-j)
			readInts(vals[:m], a.data, pos+j*st, st, a.dt)
			for t, v := range vals[:m] {
				if v < 0 {
					v += dim
				}
				table[k+j+t] += int(v) * xs
			}
		}
		for d := inner - 1; d >= 0; d-- {
			idx[d]++
			pos += strides[d]
			if idx[d] < span[d] {
				break
			}
			pos -= idx[d] * strides[d]
			idx[d] = 0
		}
	}
}

// maskOffsets returns the byte offsets in x, relative to the mask's first
// dimension, of the true elements of the mask m.
func maskOffsets(m *advEntry, xStrides []int, steps *int) []int {
	offs := make([]int, m.count)
	if m.count > 0 {
		w := newMaskWalker(m, xStrides)
		w.seek(0)
		w.fill(offs)
	}
	*steps += m.count
	return offs
}

// levelWalker is a walk in progress over a walkPlan.
type levelWalker struct {
	*walkPlan
	idx     []int // the position in the walk dimensions
	pos     []int // per source, its read position (bytes or elements)
	partial []int // partial[d]: the sum of the terms of the sources of level < d
	masks   []*maskWalker
	starts  []maskWalker // per mask source, its walker at the first true element
	vals    [advBatch]int64
	tmp     [advBatch]int
	steps   int
}

func newLevelWalker(p *walkPlan) *levelWalker {
	w := &levelWalker{walkPlan: p, idx: make([]int, len(p.dims)), pos: make([]int, len(p.srcs)), partial: make([]int, len(p.dims)),
		masks: make([]*maskWalker, len(p.srcs)), starts: make([]maskWalker, len(p.srcs))}
	for j, s := range p.srcs {
		if s.mask != nil {
			m := newMaskWalker(s.mask, s.maskXs)
			m.seek(0)
			w.masks[j] = m
			w.starts[j] = *m
			w.starts[j].idx = append([]int(nil), m.idx...)
		}
	}
	return w
}

// term returns the term of source j at its read position.
func (w *levelWalker) term(j int) int {
	w.steps++
	s := &w.srcs[j]
	if s.table != nil {
		return s.table[w.pos[j]]
	}
	a := s.arr
	var v [1]int64
	readInts(v[:], a.data, w.pos[j], 0, a.dt)
	if v[0] < 0 {
		v[0] += int64(a.dim)
	}
	return int(v[0]) * a.xStride
}

// settle recomputes the partial sums after the counter of walk dimension
// d moved (and those after it went back to 0): the sums of the levels
// from d on.
func (w *levelWalker) settle(d int) {
	for e := max(d, 0); e < len(w.dims)-1; e++ {
		sum := w.partial[e]
		for _, j := range w.atLevel[e] {
			sum += w.term(j)
		}
		w.partial[e+1] = sum
	}
}

func (w *levelWalker) seek(g int) {
	for d := len(w.dims) - 1; d >= 0; d-- {
		w.idx[d] = g % w.dims[d]
		g /= w.dims[d]
	}
	for j, s := range w.srcs {
		w.pos[j] = 0
		if s.arr != nil {
			w.pos[j] = s.arr.off0
		}
		for d, i := range w.idx {
			w.pos[j] += i * s.strides[d]
		}
		w.steps += len(w.idx)
		if m := w.masks[j]; m != nil {
			m.seek(w.pos[j])
		}
	}
	w.partial[0] = 0
	for _, j := range w.consts {
		w.partial[0] += w.term(j)
	}
	w.settle(0)
}

func (w *levelWalker) fill(offs []int) {
	last := len(w.dims) - 1
	for k := 0; k < len(offs); {
		n := min(len(offs)-k, w.dims[last]-w.idx[last])
		seg := offs[k : k+n]
		for t := range seg {
			seg[t] = w.partial[last]
		}
		for _, j := range w.atLevel[last] {
			s := &w.srcs[j]
			st := s.strides[last]
			w.steps += n
			switch {
			case s.table != nil:
				p := w.pos[j]
				for t := range seg {
					seg[t] += s.table[p]
					p += st
				}
			case s.mask != nil:
				tmp := w.tmp[:n]
				w.masks[j].fill(tmp)
				for t, o := range tmp {
					seg[t] += o
				}
			default:
				a := s.arr
				vals := w.vals[:n]
				readInts(vals, a.data, w.pos[j], st, a.dt)
				dim, xs := int64(a.dim), a.xStride
				for t, v := range vals {
					if v < 0 {
						v += dim
					}
					seg[t] += int(v) * xs
				}
			}
			w.pos[j] += n * st
		}
		k += n
		w.idx[last] += n
		if w.idx[last] < w.dims[last] {
			continue
		}
		// Carry into the outer walk dimensions.
		d := last
		for ; d >= 0; d-- {
			if d < last {
				w.idx[d]++
				for _, j := range w.moving[d] {
					w.pos[j] += w.srcs[j].strides[d]
				}
				w.steps += len(w.moving[d])
				if w.idx[d] < w.dims[d] {
					break
				}
			}
			for _, j := range w.moving[d] {
				w.pos[j] -= w.idx[d] * w.srcs[j].strides[d]
				if m := w.masks[j]; m != nil {
					// A mask moves only along the last dimension.
					idx := m.idx
					*m = w.starts[j]
					m.idx = idx
					copy(m.idx, w.starts[j].idx)
				}
			}
			w.steps += len(w.moving[d])
			w.idx[d] = 0
		}
		w.settle(d)
	}
}
