package engine

// GetItemPlan normalises a NumPy basic index (NumPy 1.24 semantics) over an
// input of the given shape into a Plan. Checks run in NumPy's order: at
// most one ellipsis, not more integers and slices than dimensions, at most
// MaxRank output dimensions, then each item in order (integer bounds, zero
// slice step).
func GetItemPlan(shape []int, items []IndexItem) (*Plan, error) {
	rank := len(shape)
	consumed, newAxes, ellipses := 0, 0, 0
	for _, it := range items {
		switch it.Kind {
		case IndexInt, IndexSlice:
			consumed++
		case IndexNewAxis:
			newAxes++
		case IndexEllipsis:
			ellipses++
		default:
			return nil, Errorf(InvalidSpec, "unknown index item kind %d", it.Kind)
		}
	}
	if ellipses > 1 {
		return nil, Errorf(InvalidSpec, "an index can only have a single ellipsis ('...')")
	}
	if consumed > rank {
		return nil, Errorf(InvalidSpec, "too many indices for array: array is %d-dimensional, but %d were indexed", rank, consumed)
	}
	ints := 0
	for _, it := range items {
		if it.Kind == IndexInt {
			ints++
		}
	}
	if err := checkOutputRank(rank - ints + newAxes); err != nil {
		return nil, err
	}

	plan := &Plan{Fixed: make([]int, rank), Axes: make([]PlanAxis, 0, rank-ints+newAxes)}
	axis := 0
	full := func(n int) {
		for ; n > 0; n-- {
			plan.Axes = append(plan.Axes, PlanAxis{Input: axis, Step: 1, Count: shape[axis]})
			axis++
		}
	}
	for _, it := range items {
		switch it.Kind {
		case IndexEllipsis:
			full(rank - consumed)
		case IndexNewAxis:
			plan.Axes = append(plan.Axes, PlanAxis{Input: NewAxis, Step: 1, Count: 1})
		case IndexInt:
			size := int64(shape[axis])
			pos := it.Index
			if pos < 0 {
				pos += size
			}
			if pos < 0 || pos >= size {
				return nil, Errorf(OutOfRange, "index %d is out of bounds for axis %d with size %d", it.Index, axis, size)
			}
			plan.Fixed[axis] = int(pos)
			axis++
		case IndexSlice:
			step := int64(1)
			if it.HasStep {
				step = it.Step
			}
			if step == 0 {
				return nil, Errorf(InvalidSpec, "slice step cannot be zero (axis %d)", axis)
			}
			start, count := canonicalRange(int64(shape[axis]), it.Start, it.Stop, step, !it.HasStart, !it.HasStop)
			plan.Axes = append(plan.Axes, PlanAxis{Input: axis, Start: int(start), Step: int(step), Count: int(count)})
			axis++
		}
	}
	full(rank - axis)
	return plan, nil
}

// GetItem evaluates x[items] with NumPy basic-indexing semantics and
// returns a C-contiguous tensor. The result may share memory with x: when
// its elements are one block of x's memory, it is a view of that block,
// as np.ascontiguousarray(x[items]) is (see Plan.Apply).
func GetItem(x *Tensor, items []IndexItem) (*Tensor, error) {
	p, err := GetItemPlan(x.Shape, items)
	if err != nil {
		return nil, err
	}
	return p.applyLimited(x)
}
