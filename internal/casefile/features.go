package casefile

import "github.com/conformsuite/conform/engine"

// Feature is one rule of the semantics a case can exercise, as reports
// tag them.
type Feature struct {
	ID          string `json:"id"`
	Group       string `json:"group"` // what the rule is about: ops, ranges, masks, shapes, gather, errors, dtypes
	Description string `json:"description"`
}

// rangeFeatures and maskFeatures are the rules that several ops share:
// ranges (getitem, strided_slice, slice, onnx_slice) and masks or their
// subscript forms (getitem, strided_slice).
var (
	rangeFeatures = []Feature{
		{"negative-stride", "ranges", "a range with a negative stride"},
		{"negative-stride-begin-mask", "ranges", "begin_mask (an omitted start) with a negative stride: start at d-1"},
		{"end-sentinel", "ranges", "end_mask (an omitted stop) with a negative stride: run past position 0 (the -1 sentinel)"},
		{"negative-bounds", "ranges", "negative begin/end counted from the end"},
		{"out-of-range-clamp", "ranges", "a begin/end outside the dimension, clamped"},
		{"negative-start-below-d", "ranges", "a negative-stride start below -d (empty in TF/NumPy; ONNX clamps it to 0)"},
		{"stride-over-1", "ranges", "a stride greater than 1 or less than -1"},
		{"empty-range", "ranges", "a range that selects nothing"},
		{"huge-integers", "ranges", "bounds or indices beyond int64 or near its limits"},
	}
	maskFeatures = []Feature{
		{"ellipsis", "masks", "an explicit ellipsis"},
		{"ellipsis-zero-dims", "masks", "an ellipsis that covers zero dimensions"},
		{"implicit-ellipsis", "masks", "a spec shorter than the rank (an implicit trailing ellipsis)"},
		{"new-axis", "masks", "a new axis (None / new_axis_mask)"},
		{"new-axis-after-ellipsis", "masks", "a new axis after the ellipsis"},
		{"shrink", "masks", "an integer index / shrink axis"},
		{"shrink-negative-index", "masks", "a shrink axis with a negative index"},
	}
)

// FeatureCatalogue lists every rule an op's cases can be tagged with, in
// report order: the shared range and mask rules, then each op's own, in
// OpNames order. A rule several ops tag is listed once.
func FeatureCatalogue() []Feature {
	out := append(append([]Feature{}, rangeFeatures...), maskFeatures...)
	seen := map[string]bool{}
	for _, f := range out {
		seen[f.ID] = true
	}
	for _, d := range ordered {
		for _, f := range d.features {
			if !seen[f.ID] {
				seen[f.ID] = true
				out = append(out, f)
			}
		}
	}
	return out
}

// Tag calls add with the ID of every rule of its op the case exercises
// (see FeatureCatalogue); none for a case that is not valid.
func (c *Case) Tag(add func(id string)) {
	if c.Err == nil && c.Def.tag != nil {
		c.Def.tag(c, add)
	}
}

// tagRange tags one resolved range of a dimension of size d.
func tagRange(d, begin, end, stride int64, beginMasked, endMasked bool, add func(string)) {
	if stride < 0 {
		add("negative-stride")
		if beginMasked {
			add("negative-stride-begin-mask")
		}
		if endMasked {
			add("end-sentinel")
		}
		if !beginMasked && begin < -d {
			add("negative-start-below-d")
		}
	}
	if stride > 1 || stride < -1 {
		add("stride-over-1")
	}
	if (!beginMasked && begin < 0) || (!endMasked && end < 0) {
		add("negative-bounds")
	}
	if (!beginMasked && (begin < -d || begin > d)) || (!endMasked && (end < -d || end > d)) {
		add("out-of-range-clamp")
	}
	const big = int64(1) << 62
	if begin > big || begin < -big || end > big || end < -big || stride > big || stride < -big {
		add("huge-integers")
	}
}

// intValues returns the elements of an integer or boolean tensor as
// int64, in row-major order (unsigned values beyond int64 come back
// negative, which is out of range anyway).
func intValues(t *engine.Tensor) []int64 {
	b := t.Bytes()
	size := t.DType.Size
	out := make([]int64, 0, t.Len())
	for i := 0; i+size <= len(b); i += size {
		var u uint64
		for k := 0; k < size; k++ {
			shift := 8 * uint(k)
			if t.DType.BigEndian {
				shift = 8 * uint(size-1-k)
			}
			u |= uint64(b[i+k]) << shift
		}
		if t.DType.Kind == engine.Int {
			shift := 64 - 8*uint(size)
			out = append(out, int64(u<<shift)>>shift)
		} else {
			out = append(out, int64(u))
		}
	}
	return out
}
