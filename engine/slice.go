package engine

// SlicePlan normalises a tf.slice spec (begin and size, one entry per input
// dimension; size -1 means "to the end") into a Plan, following
// tensorflow/core/kernels/slice_op.cc: no negative begin, no clamping.
func SlicePlan(shape []int, begin, size []int64) (*Plan, error) {
	rank := len(shape)
	if len(begin) != rank || len(size) != rank {
		return nil, Errorf(InvalidSpec, "expected begin and size to have %d entries (the input rank), got %d and %d", rank, len(begin), len(size))
	}
	plan := &Plan{Fixed: make([]int, rank), Axes: make([]PlanAxis, rank)}
	for i, d := range shape {
		dim := int64(d)
		b, s := begin[i], size[i]
		if s == -1 {
			s = dim - b
		}
		if dim == 0 {
			if b != 0 || s != 0 {
				return nil, Errorf(OutOfRange, "expected begin[%d] == 0 (got %d) and size[%d] == 0 (got %d) when input dimension %d is 0", i, begin[i], i, size[i], i)
			}
		} else {
			if b < 0 || b > dim {
				return nil, Errorf(OutOfRange, "expected begin[%d] in [0, %d], but got %d", i, dim, b)
			}
			if s < 0 || s > dim-b {
				return nil, Errorf(OutOfRange, "expected size[%d] in [0, %d], but got %d", i, dim-b, size[i])
			}
		}
		plan.Axes[i] = PlanAxis{Input: i, Start: int(b), Step: 1, Count: int(s)}
	}
	return plan, nil
}

// Slice evaluates tf.slice on x and returns a C-contiguous tensor, which
// may share memory with x (see Plan.Apply).
func Slice(x *Tensor, begin, size []int64) (*Tensor, error) {
	p, err := SlicePlan(x.Shape, begin, size)
	if err != nil {
		return nil, err
	}
	return p.applyLimited(x)
}
