package engine

import "fmt"

// NewAxis is the PlanAxis.Input of an output axis that does not come from
// the input (an inserted size-1 axis).
const NewAxis = -1

// PlanAxis describes one output axis of a Plan: either a strided range of
// an input axis (Input >= 0) or an inserted size-1 axis (Input == NewAxis).
type PlanAxis struct {
	Input int // input axis, or NewAxis
	Start int // first input position (meaningful only when Count > 0)
	Step  int // distance between consecutive positions, never 0
	Count int // number of positions (the output dimension)
}

// Plan is the canonical form every slicing front-end (getitem,
// strided_slice, slice) normalises its spec into. Applied to a tensor it
// is a zero-copy strided view; nothing after the plan knows which
// front-end built it.
type Plan struct {
	// Fixed holds, per input axis, the position taken by an axis that is
	// dropped from the output (an integer index or a shrink axis); it is
	// 0 for axes that appear in Axes.
	Fixed []int
	// Axes lists the output axes in order.
	Axes []PlanAxis
}

// smallRank is the largest rank whose view header, plan and dimensions
// are allocated in one piece: a slice is often taken of a small tensor,
// where the allocations, not the elements, are most of its time.
const smallRank = 6

// newView returns a tensor of rank n whose Shape and Strides are zeros
// (their capacities their lengths, so that neither grows into the other),
// allocated with them in one piece up to smallRank.
func newView(n int) *Tensor {
	var v *Tensor
	var dims []int
	if n <= smallRank {
		h := new(struct {
			t    Tensor
			dims [2 * smallRank]int
		})
		v, dims = &h.t, h.dims[:2*n]
	} else {
		v, dims = new(Tensor), make([]int, 2*n)
	}
	v.Shape, v.Strides = dims[:n:n], dims[n:2*n:2*n]
	return v
}

// newPlan returns an empty plan for an input of rank inputs and up to
// outputs output axes (Fixed zeros of length inputs, Axes empty),
// allocated in one piece up to smallRank.
func newPlan(inputs, outputs int) *Plan {
	if inputs <= smallRank && outputs <= smallRank+1 {
		h := new(struct {
			p     Plan
			fixed [smallRank]int
			axes  [smallRank + 1]PlanAxis
		})
		h.p.Fixed, h.p.Axes = h.fixed[:inputs:inputs], h.axes[:0:outputs]
		return &h.p
	}
	return &Plan{Fixed: make([]int, inputs), Axes: make([]PlanAxis, 0, outputs)}
}

// OutputShape returns the shape of the tensor the plan produces.
func (p *Plan) OutputShape() []int {
	shape := make([]int, len(p.Axes))
	for i, a := range p.Axes {
		shape[i] = a.Count
	}
	return shape
}

// View applies the plan to x and returns a zero-copy view. The plan must
// have been built for x's shape.
func (p *Plan) View(x *Tensor) *Tensor {
	v := newView(len(p.Axes))
	v.DType, v.Data = x.DType, x.Data
	for i, a := range p.Axes {
		v.Shape[i] = a.Count
	}
	empty := false
	offset := x.Offset
	for i, pos := range p.Fixed {
		offset += pos * x.Strides[i]
	}
	for i, a := range p.Axes {
		if a.Input == NewAxis {
			continue
		}
		if a.Count == 0 {
			empty = true
			continue
		}
		offset += a.Start * x.Strides[a.Input]
		if a.Count > 1 {
			// |Step| < Count*|Step| <= dimension size, so this cannot overflow.
			v.Strides[i] = a.Step * x.Strides[a.Input]
		}
	}
	if empty {
		// No element is addressed; keep the view self-consistent.
		v.Data = nil
		v.Strides = ContiguousStrides(v.Shape, x.DType.Size)
		return v
	}
	v.Offset = offset
	return v
}

// Apply returns the plan applied to x as a C-contiguous tensor. When the
// elements it selects are one block of x's memory in row-major order (a
// range of rows, say), the result shares that memory with x, as NumPy's
// np.ascontiguousarray(x[...]) does; otherwise it is a copy in a new
// allocation. Callers must not modify a result, nor its input while they
// use the result.
func (p *Plan) Apply(x *Tensor) *Tensor {
	v := p.View(x) // a new header, which becomes the result's
	v.makeContiguous()
	return v
}

// ApplyTo writes the plan applied to x, in row-major order, into dst and
// returns the result as a C-contiguous tensor over dst. dst must hold
// exactly the result (the product of OutputShape times x.DType.Size
// bytes), and must not overlap x.Data. Unlike Apply, ApplyTo always
// copies and allocates nothing for the elements, so that a caller can
// reuse one buffer across calls. The plan must have been built for x's
// shape. ApplyTo panics if dst has the wrong length.
func (p *Plan) ApplyTo(dst []byte, x *Tensor) *Tensor {
	v := p.View(x)
	n := v.Len() * x.DType.Size
	if len(dst) != n {
		panic(fmt.Sprintf("engine: Plan.ApplyTo: dst holds %d bytes, the result %d", len(dst), n))
	}
	if n > 0 {
		l := newLayout(v)
		l.copyTo(dst)
	}
	return &Tensor{DType: x.DType, Shape: v.Shape, Strides: ContiguousStrides(v.Shape, x.DType.Size), Data: dst}
}

// checkOutputRank rejects outputs of more than MaxRank axes, which no
// NumPy array (and no .npy file) can hold.
func checkOutputRank(rank int) error {
	if rank > MaxRank {
		return RuleResultRank.Errorf("number of dimensions must be within [0, %d], indexing result would have %d", MaxRank, rank)
	}
	return nil
}

// canonicalRange resolves one strided range over an axis of size d the way
// TF's StridedSlice and CPython's slice.indices both do: a masked begin
// (end) means the fullest range in the direction of the stride; otherwise
// a negative value gets d added once and is clamped into [0, d] for a
// positive stride or [-1, d-1] for a negative one, where -1 means "before
// position 0". stride must not be 0.
func canonicalRange(d, begin, end, stride int64, beginMasked, endMasked bool) (start, count int64) {
	lo, hi := int64(0), d
	if stride < 0 {
		lo, hi = -1, d-1
	}
	clamp := func(x int64) int64 {
		if x < 0 {
			x += d
		}
		if x < lo {
			return lo
		}
		if x > hi {
			return hi
		}
		return x
	}
	if beginMasked {
		if stride > 0 {
			begin = lo
		} else {
			begin = hi
		}
	} else {
		begin = clamp(begin)
	}
	if endMasked {
		if stride > 0 {
			end = hi
		} else {
			end = lo
		}
	} else {
		end = clamp(end)
	}
	length := end - begin
	if length == 0 || (length < 0) != (stride < 0) {
		return begin, 0
	}
	// Both length and stride have the same sign; |length| <= d+1, so the
	// quotient cannot overflow.
	count = length / stride
	if length%stride != 0 {
		count++
	}
	return begin, count
}
