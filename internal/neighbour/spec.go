package neighbour

import (
	"fmt"
	"slices"

	"github.com/conformsuite/conform/engine"
)

// specEdits adds the edits of the case's spec fields: a getitem
// subscript's items (getItemEdits); the strides, masks and bounds of the
// slicing ops (rangeEdits); a negative axis or batch_dims made
// non-negative; an optional enum field (mode, bad_indices) back to its
// default.
func (e *editor) specEdits() {
	if isGetItem(e.c) {
		e.getItemEdits()
	}
	e.rangeEdits()
	x := e.c.Inputs[e.data()]
	for _, f := range []struct {
		name string
		rank func() int
	}{
		{"axis", func() int { return x.Rank() }},
		{"batch_dims", func() int {
			if t, ok := e.c.Inputs["indices"]; ok {
				return t.Rank()
			}
			return 0
		}},
	} {
		if v, ok := e.intField(f.name); ok && v < 0 && v+int64(f.rank()) >= 0 {
			e.add(fmt.Sprintf("%s %d → %d", f.name, v, v+int64(f.rank())), map[string]any{f.name: v + int64(f.rank())}, nil)
		}
	}
	for _, name := range []string{"mode", "bad_indices"} {
		if _, ok := e.c.Fields[name]; ok && slices.Contains(e.c.Def.Fields, name) {
			e.add(fmt.Sprintf("%s %s → default", name, e.c.Fields[name]), map[string]any{name: nil}, nil)
		}
	}
}

// rangeEdits adds the edits of the range fields of the slicing ops
// (strided_slice's begin, end, strides and masks; slice's begin and size;
// onnx_slice's starts, ends, axes and steps): each nonzero stride's sign
// flipped, a zero stride made 1, each set mask bit cleared, a negative
// bound made non-negative over the dimension it addresses (0 if it
// reaches past its start), a size -1
// made the explicit size, a negative axis non-negative.
func (e *editor) rangeEdits() {
	x := e.c.Inputs[e.data()]
	strides := map[string]bool{"strides": true, "steps": true}
	for _, name := range e.c.Def.Fields {
		if !strides[name] {
			continue
		}
		v, ok := e.intList(name)
		if !ok {
			continue
		}
		for i, s := range v {
			w := slices.Clone(v)
			if s == 0 {
				w[i] = 1
			} else {
				w[i] = -s
			}
			e.add(fmt.Sprintf("%s[%d] %d → %d", name, i, s, w[i]), map[string]any{name: w}, nil)
		}
		e.addAll(name, v, "negative strides flipped", func(i int, s int64) (int64, bool) { return -s, s < 0 })
		e.addAll(name, v, "zero strides → 1", func(i int, s int64) (int64, bool) { return 1, s == 0 })
	}
	// dimOf is the size of the input dimension entry i of the range
	// fields addresses, or -1 if none.
	dimOf := func(i int) int { return -1 }
	switch s := e.c.Spec.(type) {
	case engine.StridedSliceSpec:
		for _, name := range []string{"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"} {
			m, ok := maskBits(s, name)
			for bit := 0; ok && bit < 64; bit++ {
				if m&(1<<bit) != 0 {
					e.add(fmt.Sprintf("%s bit %d cleared", name, bit), map[string]any{name: engine.Mask{Bits: m &^ (1 << bit)}.Int()}, nil)
				}
			}
		}
		if entries, err := engine.StridedSliceEntryDims(x.Shape, s); err == nil {
			dimOf = func(i int) int {
				if i < len(entries) && entries[i] >= 0 {
					return x.Shape[entries[i]]
				}
				return -1
			}
		}
	case engine.SliceSpec:
		dimOf = func(i int) int {
			if i < x.Rank() {
				return x.Shape[i]
			}
			return -1
		}
		explicit := func(i int, n int64) (int64, bool) {
			d := dimOf(i)
			if n != -1 || i >= len(s.Begin) || d < 0 || s.Begin[i] > int64(d) {
				return n, false
			}
			return int64(d) - s.Begin[i], true
		}
		for i, n := range s.Size {
			if m, ok := explicit(i, n); ok {
				w := slices.Clone(s.Size)
				w[i] = m
				e.add(fmt.Sprintf("size[%d] -1 → %d", i, w[i]), map[string]any{"size": w}, nil)
			}
		}
		e.addAll("size", s.Size, "every size -1 made explicit", explicit)
	case engine.ONNXSliceSpec:
		dimOf = func(i int) int {
			a := int64(i)
			if i < len(s.Axes) {
				a = s.Axes[i]
			}
			if a < 0 {
				a += int64(x.Rank())
			}
			if a >= 0 && a < int64(x.Rank()) {
				return x.Shape[a]
			}
			return -1
		}
		for i, a := range s.Axes {
			if a < 0 && a+int64(x.Rank()) >= 0 {
				w := slices.Clone(s.Axes)
				w[i] += int64(x.Rank())
				e.add(fmt.Sprintf("axes[%d] %d → %d", i, a, w[i]), map[string]any{"axes": w}, nil)
			}
		}
	default:
		return
	}
	for _, name := range []string{"begin", "end", "starts", "ends"} {
		if !slices.Contains(e.c.Def.Fields, name) {
			continue
		}
		v, ok := e.intList(name)
		// A negative bound counts from the end where it wraps into the
		// dimension, and is 0 where it does not (tf.slice refuses any).
		nonNegative := func(i int, b int64) (int64, bool) {
			d := int64(dimOf(i))
			switch {
			case b >= 0 || d < 0:
				return b, false
			case b+d >= 0:
				return b + d, true
			}
			return 0, true
		}
		for i := 0; ok && i < len(v); i++ {
			if b, ok := nonNegative(i, v[i]); ok {
				w := slices.Clone(v)
				w[i] = b
				e.add(fmt.Sprintf("%s[%d] %d → %d", name, i, v[i], w[i]), map[string]any{name: w}, nil)
			}
		}
		e.addAll(name, v, "negative bounds made non-negative", nonNegative)
	}
}

// addAll adds the neighbour whose integer list field name holds v with
// the edit f made at every entry it applies to, when it applies to more
// than one (one is a neighbour of its own already): a case with several
// negative strides keeps the rule after any one is flipped.
func (e *editor) addAll(name string, v []int64, what string, f func(i int, x int64) (int64, bool)) {
	w := slices.Clone(v)
	n := 0
	for i, x := range v {
		if y, ok := f(i, x); ok {
			w[i] = y
			n++
		}
	}
	if n > 1 {
		e.add(fmt.Sprintf("%s: %s (%s → %s)", name, what, list(v), list(w)), map[string]any{name: w}, nil)
	}
}

// maskBits returns the bits of a strided_slice mask field, false if it
// has none set.
func maskBits(s engine.StridedSliceSpec, name string) (uint64, bool) {
	m := map[string]engine.Mask{"begin_mask": s.BeginMask, "end_mask": s.EndMask, "ellipsis_mask": s.EllipsisMask,
		"new_axis_mask": s.NewAxisMask, "shrink_axis_mask": s.ShrinkAxisMask}[name]
	return m.Bits, m.Bits != 0
}

// dataEdits adds the edits of the data input (the op's first input):
// each empty dimension grown to 1, each dimension longer than 1 shrunk
// by one (its last element dropped), the input cast to float64 and to
// int64 (values 0, 1, 2, ...: the engine's answer moves with them; an
// empty dimension grown holds zeros).
func (e *editor) dataEdits() {
	name := e.data()
	x := e.c.Inputs[name]
	for i, d := range x.Shape {
		if d == 0 {
			s := slices.Clone(x.Shape)
			s[i] = 1
			t, err := engine.Zeros(x.DType, s)
			if err != nil {
				continue
			}
			e.add(fmt.Sprintf("%s: dimension %d of size 0 → 1, shape %s → %s", name, i, shape(x.Shape), shape(s)), nil,
				map[string]*engine.Tensor{name: t})
		}
	}
	for i, d := range x.Shape {
		if d > 1 {
			s := slices.Clone(x.Shape)
			s[i] = d - 1
			t, err := engine.Slice(x, make([]int64, len(s)), int64s(s))
			if err != nil {
				continue
			}
			e.add(fmt.Sprintf("%s: shape %s → %s", name, shape(x.Shape), shape(s)), nil,
				map[string]*engine.Tensor{name: t.Contiguous()})
		}
	}
	for _, dt := range []engine.DType{engine.Float64Type, engine.Int64Type} {
		if x.DType != dt && x.Len() >= 0 && x.Len() <= maxCastElements {
			e.add(fmt.Sprintf("%s: %v → %v", name, x.DType, dt), nil, map[string]*engine.Tensor{name: arange(dt, x.Shape)})
		}
	}
}

// int64s converts a shape to int64s.
func int64s(s []int) []int64 {
	out := make([]int64, len(s))
	for i, d := range s {
		out[i] = int64(d)
	}
	return out
}

// maxCastElements bounds the data inputs dataEdits casts: a neighbour is
// a small case.
const maxCastElements = 1 << 16
