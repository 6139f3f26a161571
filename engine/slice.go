package engine

// slicePlan normalises a tf.slice spec (begin and size, one entry per
// input dimension; size -1 means "to the end") into a Plan under the
// variants rules, following tensorflow/core/kernels/slice_op.cc: no
// negative begin, no clamping. Int32Arithmetic
// truncates begin and size to 32 bits first; ExtraEntriesIgnored drops
// the entries of each past the rank, ShortSliceSpecPadded pads each that
// is shorter with begin 0 and size -1; the checks then run on the result.
func slicePlan(shape []int, begin, size []int64, rules Rules) (*Plan, error) {
	rank := len(shape)
	rules.Trace.traceSliceBegin(begin)
	if rules.Has(Int32Arithmetic) {
		begin, size = truncateInt32(begin), truncateInt32(size)
	}
	if rules.Has(ExtraEntriesIgnored) {
		begin, size = begin[:min(len(begin), rank)], size[:min(len(size), rank)]
	}
	if rules.Has(ShortSliceSpecPadded) {
		begin, size = padSpec(begin, rank, 0), padSpec(size, rank, -1)
	}
	if len(begin) != rank || len(size) != rank {
		return nil, RuleSliceLengths.Errorf("expected begin and size to have %d entries (the input rank), got %d and %d", rank, len(begin), len(size))
	}
	plan := &Plan{Fixed: make([]int, rank), Axes: make([]PlanAxis, rank)}
	for i, d := range shape {
		dim := int64(d)
		b, s := begin[i], size[i]
		if s == -1 {
			rules.Trace.add(RuleSliceSizeToEnd)
			s = dim - b
		}
		if dim == 0 {
			if b != 0 || s != 0 {
				return nil, RuleSliceEmptyDim.Errorf("expected begin[%d] == 0 (got %d) and size[%d] == 0 (got %d) when input dimension %d is 0", i, begin[i], i, size[i], i)
			}
		} else {
			if b < 0 || b > dim {
				return nil, RuleSliceBegin.Errorf("expected begin[%d] in [0, %d], but got %d", i, dim, b)
			}
			if s < 0 || s > dim-b {
				return nil, RuleSliceSize.Errorf("expected size[%d] in [0, %d], but got %d", i, dim-b, size[i])
			}
		}
		rules.Trace.addIf(s == 0, RuleSliceEmptyResult)
		plan.Axes[i] = PlanAxis{Input: i, Start: int(b), Step: 1, Count: int(s)}
	}
	return plan, nil
}

// padSpec returns v padded to n entries with value, for the variant
// ShortSliceSpecPadded; v is returned as it is when it has n or more.
func padSpec(v []int64, n int, value int64) []int64 {
	if len(v) >= n {
		return v
	}
	out := make([]int64, n)
	copy(out, v)
	for i := len(v); i < n; i++ {
		out[i] = value
	}
	return out
}

// Slice evaluates tf.slice on x and returns a C-contiguous tensor, which
// may share memory with x (see Plan.Apply).
func Slice(x *Tensor, begin, size []int64) (*Tensor, error) {
	return SliceUnder(x, begin, size, Rules{})
}

// SliceUnder is Slice under the variants r (see Variant).
func SliceUnder(x *Tensor, begin, size []int64, r Rules) (*Tensor, error) {
	p, err := slicePlan(x.Shape, begin, size, r)
	if err != nil {
		return nil, err
	}
	out, err := p.applyLimited(x, r.outputLimit())
	if err != nil {
		return nil, err
	}
	return r.finish(out)
}
