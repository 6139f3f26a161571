package neighbour

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

// editor collects the neighbours of one case.
type editor struct {
	c      *casefile.Case
	fields map[string]any // the case's op and spec fields, as written
	seen   map[string]bool
	out    []Neighbour
}

func newEditor(c *casefile.Case) *editor {
	e := &editor{c: c, fields: map[string]any{}, seen: map[string]bool{}}
	for _, k := range append([]string{"op"}, c.Def.Fields...) {
		if raw, ok := c.Fields[k]; ok {
			e.fields[k] = raw
		}
	}
	e.seen[key(c)] = true
	return e
}

// add adds the neighbour of the case with the fields in set changed (a
// nil value removes the field) and the inputs in inputs replaced (a nil
// tensor removes the input), if it is a valid case not seen before.
func (e *editor) add(edit string, set map[string]any, inputs map[string]*engine.Tensor) {
	fields := maps.Clone(e.fields)
	for k, v := range set {
		if v == nil {
			delete(fields, k)
		} else {
			fields[k] = v
		}
	}
	in := maps.Clone(e.c.Inputs)
	for k, t := range inputs {
		if t == nil {
			delete(in, k)
		} else {
			in[k] = t
		}
	}
	n := casefile.New(fields, in)
	if n.Err != nil {
		return
	}
	if k := key(n); !e.seen[k] {
		e.seen[k] = true
		e.out = append(e.out, Neighbour{Case: n, Edit: edit})
	}
}

// key identifies a case by its fields and inputs.
func key(c *casefile.Case) string {
	var b strings.Builder
	b.WriteString(c.String())
	names := slices.Sorted(maps.Keys(c.Inputs))
	for _, name := range names {
		t := c.Inputs[name]
		fmt.Fprintf(&b, ";%s:%v%v:", name, t.DType, t.Shape)
		b.Write(t.Bytes())
	}
	return b.String()
}

// field returns the integer list of a field, false if it is absent or
// not a list of integers.
func (e *editor) intList(name string) ([]int64, bool) {
	raw, ok := e.c.Fields[name]
	if !ok || len(bytes.TrimSpace(raw)) == 0 || bytes.TrimSpace(raw)[0] != '[' {
		return nil, false
	}
	var list []int64
	if json.Unmarshal(raw, &list) != nil {
		return nil, false
	}
	return list, true
}

// intField returns the integer value of a field, false if it is absent
// or not an integer.
func (e *editor) intField(name string) (int64, bool) {
	raw, ok := e.c.Fields[name]
	if !ok {
		return 0, false
	}
	var v int64
	if json.Unmarshal(raw, &v) != nil {
		return 0, false
	}
	return v, true
}

// data returns the name of the case's data input: its op's first input.
func (e *editor) data() string { return e.c.Def.Inputs[0] }

// indexInputs returns the names of the case's integer index inputs, in
// order: the op's inputs after the data input, and the arrays a getitem
// subscript names.
func (e *editor) indexInputs() []string {
	var names []string
	for name := range e.c.Inputs {
		if name != e.data() && isIndexDType(e.c.Inputs[name].DType) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// indexEdits adds the edits of the index inputs: each cast to int64, its
// negative indices made non-negative, every index made 0, a 0-d one
// reshaped to 1-D, an N-D one flattened to 1-D.
func (e *editor) indexEdits() {
	dims := e.indexedDims()
	for _, name := range e.indexInputs() {
		t := e.c.Inputs[name]
		values := ints(t)
		if t.DType != engine.Int64Type {
			e.add(fmt.Sprintf("%s %v → %v", name, t.DType, engine.Int64Type), nil,
				map[string]*engine.Tensor{name: fromInts(engine.Int64Type, t.Shape, values)})
		}
		if dim := dims(name, t); dim != nil && t.DType.Kind == engine.Int {
			changed := false
			pos := slices.Clone(values)
			for i, v := range pos {
				if d := dim(i); v < 0 && d > 0 && v >= -d {
					pos[i] = v + d
					changed = true
				}
			}
			if changed {
				e.add(fmt.Sprintf("%s: negative indices → non-negative (%s → %s)", name, list(values), list(pos)), nil,
					map[string]*engine.Tensor{name: fromInts(t.DType, t.Shape, pos)})
			}
		}
		if slices.ContainsFunc(values, func(v int64) bool { return v != 0 }) {
			e.add(fmt.Sprintf("%s: every index → 0 (%s → 0)", name, list(values)), nil,
				map[string]*engine.Tensor{name: fromInts(t.DType, t.Shape, make([]int64, len(values)))})
		}
		switch {
		case t.Rank() == 0:
			e.add(fmt.Sprintf("%s: 0-d → shape (1,)", name), nil,
				map[string]*engine.Tensor{name: fromInts(t.DType, []int{1}, values)})
		case t.Rank() > 1:
			e.add(fmt.Sprintf("%s: shape %v → (%d,)", name, shape(t.Shape), len(values)), nil,
				map[string]*engine.Tensor{name: fromInts(t.DType, []int{len(values)}, values)})
		}
	}
}

// indexedDims returns, for an index input of the case, the size of the
// dimension each of its elements indexes (by row-major position), or nil
// where the op's spec does not say (a getitem array's dimension is the
// subscript's business; see getItemEdits).
func (e *editor) indexedDims() func(name string, t *engine.Tensor) func(i int) int64 {
	x := e.c.Inputs[e.data()]
	axisDim := func(axis int, flatten bool) func(name string, t *engine.Tensor) func(int) int64 {
		return func(name string, t *engine.Tensor) func(int) int64 {
			if name != "indices" {
				return nil
			}
			d := int64(x.Len())
			if !flatten {
				if axis < 0 {
					axis += x.Rank()
				}
				if axis < 0 || axis >= x.Rank() {
					return nil
				}
				d = int64(x.Shape[axis])
			}
			return func(int) int64 { return d }
		}
	}
	// lastAxisDims: the last axis of indices addresses the dimensions of
	// the data input from batch on (gather_nd).
	lastAxisDims := func(batch int) func(name string, t *engine.Tensor) func(int) int64 {
		return func(name string, t *engine.Tensor) func(int) int64 {
			if name != "indices" || t.Rank() == 0 {
				return nil
			}
			k := t.Shape[t.Rank()-1]
			return func(i int) int64 {
				if a := batch + i%k; k > 0 && a < x.Rank() {
					return int64(x.Shape[a])
				}
				return 0
			}
		}
	}
	switch s := e.c.Spec.(type) {
	case engine.TakeSpec:
		return axisDim(s.Axis, s.Flatten)
	case engine.TakeAlongAxisSpec:
		return axisDim(s.Axis, s.Flatten)
	case engine.GatherSpec:
		return axisDim(s.Axis, false)
	case engine.ONNXGatherSpec:
		return axisDim(s.Axis, false)
	case engine.GatherNDSpec:
		return lastAxisDims(s.BatchDims)
	case engine.ONNXGatherNDSpec:
		return lastAxisDims(s.BatchDims)
	}
	return func(string, *engine.Tensor) func(int) int64 { return nil }
}

// list writes integers as a Python list.
func list(v []int64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprint(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// shape writes a shape as Python does: (), (3,), (2, 3).
func shape(s []int) string {
	if len(s) == 1 {
		return fmt.Sprintf("(%d,)", s[0])
	}
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = fmt.Sprint(d)
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
