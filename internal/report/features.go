// Package report builds spec compliance reports: every case is tagged
// with the rules of the semantics it exercises (derived from its spec and
// inputs), every implementation runs every case, and the report is a
// matrix of rules by implementations, each cell passed/total with the
// smallest failing case as a copy-pasteable NumPy/TF snippet.
package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/engine/expr"
	"github.com/conformsuite/conform/internal/casefile"
)

// Feature is one rule of the semantics a case can exercise.
type Feature struct {
	ID          string `json:"id"`
	Group       string `json:"group"` // what the rule is about: ops, ranges, masks, shapes, gather, errors, dtypes
	Description string `json:"description"`
}

// features lists every rule in report order.
var features = []Feature{
	{"rank-0", "shapes", "a rank-0 (scalar) input"},
	{"zero-size", "shapes", "an input with a zero-size dimension"},
	{"rank-over-8", "shapes", "an input of more than 8 dimensions (beyond TF's kernels)"},
	{"negative-stride", "ranges", "a range with a negative stride"},
	{"negative-stride-begin-mask", "ranges", "begin_mask (an omitted start) with a negative stride: start at d-1"},
	{"end-sentinel", "ranges", "end_mask (an omitted stop) with a negative stride: run past position 0 (the -1 sentinel)"},
	{"negative-bounds", "ranges", "negative begin/end counted from the end"},
	{"out-of-range-clamp", "ranges", "a begin/end outside the dimension, clamped"},
	{"negative-start-below-d", "ranges", "a negative-stride start below -d (empty in TF/NumPy; ONNX clamps it to 0)"},
	{"stride-over-1", "ranges", "a stride greater than 1 or less than -1"},
	{"empty-range", "ranges", "a range that selects nothing"},
	{"ellipsis", "masks", "an explicit ellipsis"},
	{"ellipsis-zero-dims", "masks", "an ellipsis that covers zero dimensions"},
	{"implicit-ellipsis", "masks", "a spec shorter than the rank (an implicit trailing ellipsis)"},
	{"new-axis", "masks", "a new axis (None / new_axis_mask)"},
	{"new-axis-after-ellipsis", "masks", "a new axis after the ellipsis"},
	{"shrink", "masks", "an integer index / shrink axis"},
	{"shrink-negative-index", "masks", "a shrink axis with a negative index"},
	{"shrink-stride-over-1", "masks", "a shrink axis with stride 2 or more (accepted by TF)"},
	{"conflicting-mask-bits", "masks", "several mask bits on one spec position (ellipsis > new axis > shrink)"},
	{"mask-bits-beyond-spec", "masks", "mask bits at positions beyond the spec length (ignored)"},
	{"openvino-list-masks", "masks", "masks as OpenVINO 0/1 lists"},
	{"subscript-forms", "masks", "subscript forms: x[()], x[1,], x[...,], parenthesised tuples, np/tf.newaxis"},
	{"huge-integers", "ranges", "bounds or indices beyond int64 or near its limits"},
	{"gather-depth-0", "gather", "gather_nd with index depth 0 (whole slices)"},
	{"gather-full-depth", "gather", "gather_nd with index depth == rank (scalars)"},
	{"gather-batch-dims", "gather", "gather_nd with batch_dims >= 1"},
	{"gather-bad-row", "gather", "gather_nd with an out-of-range index row"},
	{"gather-negative-index", "gather", "gather_nd with a negative index (no wrap in TF)"},
	{"gather-empty-rows", "gather", "gather_nd selecting no rows"},
	{"gather-empty-params", "gather", "gather_nd on params with no elements"},
	{"gather-zero-mode", "gather", "gather_nd with bad_indices=zero (TF GPU behaviour)"},
	{"gather-index-dtype", "gather", "gather_nd indices of a dtype other than int32/int64"},
	{"onnx-axes", "onnx", "ONNX Slice with explicit axes (negative axes count from the end)"},
	{"onnx-negative-step-start-clamp", "onnx", "ONNX Slice with a negative step: the start clamps into [0, d-1], not [-1, d-1]"},
	{"onnx-negative-index-wrap", "onnx", "ONNX GatherND: negative indices wrap once"},
	{"error:invalid_spec", "errors", "a case rejected as invalid_spec"},
	{"error:out_of_range", "errors", "a case rejected as out_of_range"},
	{"error:bad_input", "errors", "a case rejected as bad_input"},
}

// dtypeFeature names the rule of a data dtype, e.g. "dtype:f2".
func dtypeFeature(dt engine.DType) Feature {
	name := fmt.Sprintf("%c%d", dt.Kind, dt.Size)
	switch dt.Kind {
	case engine.Bytes:
		name = "S"
	case engine.Unicode:
		name = "U"
	case engine.Bool:
		name = "bool"
	}
	return Feature{"dtype:" + name, "dtypes", "data of dtype " + name}
}

// Features lists the rules a case exercises. expectKind is the expected
// error kind ("" for an output).
func Features(m casefile.Memory, expectKind engine.ErrorKind) []Feature {
	tags := map[string]bool{}
	add := func(id string) { tags[id] = true }
	var data *engine.Tensor
	for _, name := range []string{"x", "params", "data"} {
		if t, ok := m.Inputs[name]; ok {
			data = t
			break
		}
	}
	var extra []Feature
	if data != nil {
		extra = append(extra, dtypeFeature(data.DType))
		if data.DType.BigEndian {
			extra = append(extra, Feature{"dtype:big-endian", "dtypes", "big-endian data"})
		}
		if data.Rank() == 0 {
			add("rank-0")
		}
		if data.Len() == 0 {
			add("zero-size")
		}
		if data.Rank() > 8 {
			add("rank-over-8")
		}
	}
	if expectKind != "" {
		add("error:" + string(expectKind))
	}
	if c, err := m.Case(); err == nil {
		switch c.Op {
		case casefile.OpGetItem:
			getItemFeatures(c, add)
		case casefile.OpStridedSlice:
			stridedSliceFeatures(c, add)
		case casefile.OpSlice:
			if x := c.Inputs["x"]; x != nil {
				for i := range c.Size {
					if i < x.Rank() && c.Size[i] == 0 {
						add("empty-range")
					}
				}
			}
		case casefile.OpGatherND:
			gatherFeatures(c, add)
		case casefile.OpONNXSlice:
			onnxSliceFeatures(c, add)
		case casefile.OpONNXGatherND:
			add("onnx-negative-index-wrap")
			if c.BatchDims > 0 {
				add("gather-batch-dims")
			}
		}
	} else {
		for _, v := range m.Spec {
			if l, ok := v.([]any); ok && len(l) > 0 {
				add("openvino-list-masks")
			}
		}
	}
	var out []Feature
	for _, f := range features {
		if tags[f.ID] {
			out = append(out, f)
		}
	}
	return append(out, extra...)
}

// rangeFeatures tags one resolved range of a dimension of size d.
func rangeFeatures(d, begin, end, stride int64, beginMasked, endMasked bool, add func(string)) {
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

func getItemFeatures(c *casefile.Case, add func(string)) {
	src := strings.ReplaceAll(c.Index, " ", "")
	if strings.Contains(src, "[()]") || strings.HasSuffix(src, ",]") || strings.Contains(src, "[(") || strings.Contains(src, "newaxis") {
		add("subscript-forms")
	}
	items, err := expr.Parse(c.Index)
	if err != nil {
		if engine.KindOf(err) == engine.OutOfRange {
			add("huge-integers")
		}
		return
	}
	x := c.Inputs["x"]
	consumed, ellipsisAt := 0, -1
	for i, it := range items {
		switch it.Kind {
		case engine.IndexInt, engine.IndexSlice:
			consumed++
		case engine.IndexEllipsis:
			ellipsisAt = i
		}
	}
	if ellipsisAt >= 0 {
		add("ellipsis")
		if consumed == x.Rank() {
			add("ellipsis-zero-dims")
		}
	} else if consumed < x.Rank() {
		add("implicit-ellipsis")
	}
	axis := 0
	for i, it := range items {
		switch it.Kind {
		case engine.IndexNewAxis:
			add("new-axis")
			if ellipsisAt >= 0 && i > ellipsisAt {
				add("new-axis-after-ellipsis")
			}
		case engine.IndexEllipsis:
			axis += max(x.Rank()-consumed, 0)
		case engine.IndexInt:
			add("shrink")
			if it.Index < 0 {
				add("shrink-negative-index")
			}
			if it.Index > 1<<62 || it.Index < -(1<<62) {
				add("huge-integers")
			}
			axis++
		case engine.IndexSlice:
			d := int64(0)
			if axis < x.Rank() {
				d = int64(x.Shape[axis])
			}
			step := int64(1)
			if it.HasStep {
				step = it.Step
			}
			if step != 0 {
				rangeFeatures(d, it.Start, it.Stop, step, !it.HasStart, !it.HasStop, add)
			}
			axis++
		}
	}
}

func stridedSliceFeatures(c *casefile.Case, add func(string)) {
	for _, name := range []string{"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"} {
		if raw, ok := c.Fields[name]; ok && len(raw) > 0 && raw[0] == '[' {
			add("openvino-list-masks")
		}
	}
	n := len(c.Begin)
	masks := []engine.Mask{c.BeginMask, c.EndMask, c.EllipsisMask, c.NewAxisMask, c.ShrinkAxisMask}
	for _, m := range masks {
		if m.Bits>>uint(min(n, 63)) != 0 || m.Extra > 0 {
			add("mask-bits-beyond-spec")
		}
	}
	for i := 0; i < n && i < 64; i++ {
		special := 0
		for _, m := range []engine.Mask{c.EllipsisMask, c.NewAxisMask, c.ShrinkAxisMask} {
			if m.Has(i) {
				special++
			}
		}
		if special > 1 {
			add("conflicting-mask-bits")
		}
	}
	x := c.Inputs["x"]
	_, err := engine.StridedSlicePlan(x.Shape, c.Spec())
	sizes := entrySizes(x, c)
	ellipsisAt := -1
	for i := 0; i < n; i++ {
		if c.EllipsisMask.Has(i) {
			ellipsisAt = i
			add("ellipsis")
		}
	}
	strides := c.Strides
	for i := 0; i < n; i++ {
		if c.EllipsisMask.Has(i) {
			continue
		}
		if c.NewAxisMask.Has(i) {
			add("new-axis")
			if ellipsisAt >= 0 && i > ellipsisAt {
				add("new-axis-after-ellipsis")
			}
			continue
		}
		s := int64(1)
		if strides != nil && i < len(strides) {
			s = strides[i]
		}
		if c.ShrinkAxisMask.Has(i) {
			add("shrink")
			if i < len(c.Begin) && c.Begin[i] < 0 {
				add("shrink-negative-index")
			}
			if s > 1 {
				add("shrink-stride-over-1")
			}
			continue
		}
		if s != 0 && i < len(c.End) {
			rangeFeatures(sizes[i], c.Begin[i], c.End[i], s, c.BeginMask.Has(i), c.EndMask.Has(i), add)
		}
	}
	if err == nil && ellipsisAt < 0 && n < x.Rank() {
		add("implicit-ellipsis")
	}
	if err == nil && ellipsisAt >= 0 {
		consumed := 0
		for i := 0; i < n; i++ {
			if !c.EllipsisMask.Has(i) && !c.NewAxisMask.Has(i) {
				consumed++
			}
		}
		if consumed == x.Rank() {
			add("ellipsis-zero-dims")
		}
	}
}

// entrySizes returns the size of the input dimension each spec entry
// addresses, as the engine expands the spec (engine.StridedSliceEntryDims);
// 0 for an entry that addresses none, and all 0 if the spec does not
// expand.
func entrySizes(x *engine.Tensor, c *casefile.Case) []int64 {
	sizes := make([]int64, len(c.Begin))
	dims, err := engine.StridedSliceEntryDims(x.Shape, c.Spec())
	if err != nil {
		return sizes
	}
	for i, d := range dims {
		if d >= 0 {
			sizes[i] = int64(x.Shape[d])
		}
	}
	return sizes
}

func gatherFeatures(c *casefile.Case, add func(string)) {
	p, idx := c.Inputs["params"], c.Inputs["indices"]
	if c.BatchDims > 0 {
		add("gather-batch-dims")
	}
	if c.BadIndices == engine.BadIndexZero {
		add("gather-zero-mode")
	}
	if idx.DType != engine.Int32Type && idx.DType != engine.Int64Type {
		add("gather-index-dtype")
	}
	if p.Len() == 0 {
		add("gather-empty-params")
	}
	if idx.Rank() == 0 {
		return
	}
	depth := idx.Shape[idx.Rank()-1]
	if depth == 0 {
		add("gather-depth-0")
	}
	if depth > 0 && depth == p.Rank()-c.BatchDims {
		add("gather-full-depth")
	}
	if engine.NumElements(idx.Shape[:idx.Rank()-1]) == 0 {
		add("gather-empty-rows")
	}
	if !idx.DType.IsInteger() || depth == 0 {
		return
	}
	values := intValues(idx)
	for i, v := range values {
		dim := c.BatchDims + i%depth
		if v < 0 {
			add("gather-negative-index")
		}
		if dim >= 0 && dim < p.Rank() && (v < 0 || v >= int64(p.Shape[dim])) {
			add("gather-bad-row")
		}
	}
}

// FeatureIDs returns the IDs of features, sorted.
func FeatureIDs(fs []Feature) []string {
	ids := make([]string, len(fs))
	for i, f := range fs {
		ids[i] = f.ID
	}
	sort.Strings(ids)
	return ids
}

// intValues returns the elements of an integer tensor as int64 (unsigned
// values beyond int64 come back negative, which is out of range anyway).
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

func onnxSliceFeatures(c *casefile.Case, add func(string)) {
	data := c.Inputs["data"]
	if c.Axes != nil {
		add("onnx-axes")
	}
	for i := range c.Starts {
		if i >= len(c.Ends) {
			break
		}
		step := int64(1)
		if i < len(c.Steps) {
			step = c.Steps[i]
		}
		axis := int64(i)
		if i < len(c.Axes) {
			axis = c.Axes[i]
			if axis < 0 {
				axis += int64(data.Rank())
			}
		}
		d := int64(0)
		if axis >= 0 && axis < int64(data.Rank()) {
			d = int64(data.Shape[axis])
		}
		if step < 0 {
			add("onnx-negative-step-start-clamp")
		}
		if step != 0 {
			rangeFeatures(d, c.Starts[i], c.Ends[i], step, false, false, add)
		}
	}
}
