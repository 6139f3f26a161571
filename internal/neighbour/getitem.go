package neighbour

import (
	"fmt"
	"slices"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

// getItemEdits adds the edits of a getitem subscript, item by item: each
// item dropped; a slice's step sign flipped, a zero step made 1, each
// given part omitted, a negative bound made non-negative; an item
// replaced by ":"; a 0-d index array replaced by the Python integer it
// holds; True/False replaced by np.array(True/False) and by 1/0; a
// negative integer (or index in an array) made non-negative; an ellipsis
// replaced by the ":"s it stands for. Each neighbour's subscript is
// written back as text (render). A subscript that does not parse, or
// holds an item NumPy refuses whatever the input, has none.
func (e *editor) getItemEdits() {
	s, ok := e.c.Spec.(engine.GetItemSpec)
	if !ok {
		return
	}
	if s.ParseErr != nil || engine.Refused(s.Items) != nil {
		e.textEdits(s.Index)
		return
	}
	items := s.Items
	bound := e.c.IndexItems()
	x := e.c.Inputs["x"]
	dims := itemDims(bound, x.Rank())
	// dimOf is the size of the dimension of x item i addresses first,
	// or 0 if it addresses none.
	dimOf := func(i int) int64 {
		if d := dims[i]; d >= 0 && d < x.Rank() {
			return int64(x.Shape[d])
		}
		return 0
	}
	with := func(i int, repl ...engine.IndexItem) []engine.IndexItem {
		return slices.Concat(items[:i], repl, items[i+1:])
	}
	for i, it := range items {
		text := renderItem(it)
		e.addIndex(fmt.Sprintf("item %d (%s) dropped", i+1, text), slices.Delete(slices.Clone(items), i, i+1), nil)
		switch it.Kind {
		case engine.IndexSlice:
			if it.HasStep && it.Step != 0 {
				r := it
				r.Step = -it.Step
				e.addIndex(fmt.Sprintf("step %d → %d", it.Step, r.Step), with(i, r), nil)
			}
			if it.HasStep && it.Step == 0 {
				r := it
				r.Step = 1
				e.addIndex("step 0 → 1", with(i, r), nil)
			}
			parts := []struct {
				name string
				has  *bool
				v    *int64
			}{{"start", &it.HasStart, &it.Start}, {"stop", &it.HasStop, &it.Stop}, {"step", &it.HasStep, &it.Step}}
			for k, p := range parts {
				if !*p.has {
					continue
				}
				r := it
				rp := []*bool{&r.HasStart, &r.HasStop, &r.HasStep}[k]
				*rp = false
				e.addIndex(fmt.Sprintf("%s %d omitted (%s → %s)", p.name, *p.v, text, renderItem(r)), with(i, r), nil)
				if d := dimOf(i); k < 2 && *p.v < 0 && *p.v+d >= 0 {
					r := it
					*[]*int64{&r.Start, &r.Stop}[k] += d
					e.addIndex(fmt.Sprintf("%s %d → %d", p.name, *p.v, *p.v+d), with(i, r), nil)
				}
			}
		case engine.IndexInt:
			if d := dimOf(i); it.Index < 0 && it.Index+d >= 0 {
				r := it
				r.Index += d
				e.addIndex(fmt.Sprintf("index %d → %d", it.Index, r.Index), with(i, r), nil)
			}
		case engine.IndexEllipsis:
			covered := x.Rank() - consumedDims(bound)
			if covered >= 0 {
				colons := make([]engine.IndexItem, covered)
				for k := range colons {
					colons[k] = engine.IndexItem{Kind: engine.IndexSlice}
				}
				e.addIndex(fmt.Sprintf("... → %d ':'", covered), with(i, colons...), nil)
			}
		case engine.IndexArray:
			e.arrayItemEdits(i, it, bound[i].Array, dimOf(i), with)
		}
		if it.Kind != engine.IndexSlice || it.HasStart || it.HasStop || it.HasStep {
			e.addIndex(fmt.Sprintf("item %d (%s) → :", i+1, text), with(i, engine.IndexItem{Kind: engine.IndexSlice}), nil)
		}
	}
	// The same edits at every item at once, for a subscript where the
	// feature occurs more than once.
	e.allItems(items, "every negative step flipped", func(i int, it engine.IndexItem) (engine.IndexItem, bool) {
		it.Step = -it.Step
		return it, it.Kind == engine.IndexSlice && it.HasStep && it.Step > 0
	})
	e.allItems(items, "every negative index made non-negative", func(i int, it engine.IndexItem) (engine.IndexItem, bool) {
		d := dimOf(i)
		it.Index += d
		return it, it.Kind == engine.IndexInt && it.Index < d && it.Index >= 0
	})
	e.allItems(items, "every 0-d index array and True/False → the integer it holds", func(i int, it engine.IndexItem) (engine.IndexItem, bool) {
		a := bound[i].Array
		if it.Kind != engine.IndexArray || a == nil || a.Rank() != 0 || (it.Name != "" && a.DType.Kind == engine.Bool) {
			return it, false
		}
		return engine.IndexItem{Kind: engine.IndexInt, Index: ints(a)[0]}, true
	})
}

// allItems adds the neighbour with f applied to every item it applies
// to, when it applies to more than one.
func (e *editor) allItems(items []engine.IndexItem, what string, f func(i int, it engine.IndexItem) (engine.IndexItem, bool)) {
	out := slices.Clone(items)
	n := 0
	for i, it := range items {
		if r, ok := f(i, it); ok {
			out[i] = r
			n++
		}
	}
	if n > 1 {
		e.addIndex(what, out, nil)
	}
}

// textEdits adds the edits of a subscript that cannot be written back
// from its items (it does not parse, or holds an item NumPy refuses,
// which keeps no source): each item of its text (split at the commas
// outside brackets and quotes) dropped and replaced by ":".
func (e *editor) textEdits(index string) {
	open, end := strings.IndexByte(index, '['), strings.LastIndexByte(index, ']')
	if open < 0 || end < open {
		return
	}
	parts := splitItems(index[open+1 : end])
	if len(parts) == 1 {
		if p := parts[0]; strings.HasPrefix(p, "(") && strings.HasSuffix(p, ")") {
			if inner := splitItems(p[1 : len(p)-1]); len(inner) > 1 {
				parts = inner
			}
		}
	}
	for i, p := range parts {
		dropped := slices.Delete(slices.Clone(parts), i, i+1)
		e.add(fmt.Sprintf("item %d (%s) dropped", i+1, p), map[string]any{"index": index[:open+1] + strings.Join(dropped, ", ") + "]"}, e.unused(dropped))
		if p != ":" {
			colon := slices.Clone(parts)
			colon[i] = ":"
			e.add(fmt.Sprintf("item %d (%s) → :", i+1, p), map[string]any{"index": index[:open+1] + strings.Join(colon, ", ") + "]"}, e.unused(colon))
		}
	}
}

// unused returns the removal (nil tensors) of the inputs of the case,
// other than x, that no text of parts names.
func (e *editor) unused(parts []string) map[string]*engine.Tensor {
	out := map[string]*engine.Tensor{}
	for name := range e.c.Inputs {
		if name == "x" {
			continue
		}
		named := false
		for _, p := range parts {
			named = named || containsName(p, name)
		}
		if !named {
			out[name] = nil
		}
	}
	return out
}

// containsName reports whether name occurs in text as a whole
// identifier.
func containsName(text, name string) bool {
	ident := func(b byte) bool {
		return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
	}
	for i := 0; ; {
		k := strings.Index(text[i:], name)
		if k < 0 {
			return false
		}
		k += i
		if (k == 0 || !ident(text[k-1])) && (k+len(name) == len(text) || !ident(text[k+len(name)])) {
			return true
		}
		i = k + 1
	}
}

// splitItems splits the text inside a subscript's brackets at the commas
// outside brackets, parentheses, braces and quotes, each part trimmed; a
// trailing comma makes no empty part.
func splitItems(src string) []string {
	var parts []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		case c == ',' && depth == 0:
			parts = append(parts, strings.TrimSpace(src[start:i]))
			start = i + 1
		}
	}
	if last := strings.TrimSpace(src[start:]); last != "" || len(parts) == 0 {
		parts = append(parts, last)
	}
	return parts
}

// arrayItemEdits adds the edits of the array item it (item i, its array
// a, over a dimension of size d): a 0-d integer array replaced by the
// Python integer it holds; a Python True/False by np.array(True/False)
// and by 1/0; negative indices made non-negative.
func (e *editor) arrayItemEdits(i int, it engine.IndexItem, a *engine.Tensor, d int64, with func(int, ...engine.IndexItem) []engine.IndexItem) {
	if a == nil {
		return
	}
	values := ints(a)
	if a.Rank() == 0 && a.DType.IsInteger() {
		e.addIndex(fmt.Sprintf("0-d array %s → %d", renderItem(it), values[0]), with(i, engine.IndexItem{Kind: engine.IndexInt, Index: values[0]}), map[string]*engine.Tensor{it.Name: nil})
	}
	if a.Rank() == 0 && a.DType.Kind == engine.Bool && it.Name == "" {
		name := e.freshName()
		e.addIndex(fmt.Sprintf("%s → np.array(%s)", renderItem(it), renderItem(it)), with(i, engine.IndexItem{Kind: engine.IndexArray, Name: name}),
			map[string]*engine.Tensor{name: a})
		e.addIndex(fmt.Sprintf("%s → %d", renderItem(it), values[0]), with(i, engine.IndexItem{Kind: engine.IndexInt, Index: values[0]}), nil)
	}
	if a.DType.Kind != engine.Int || d <= 0 {
		return
	}
	pos := slices.Clone(values)
	changed := false
	for k, v := range pos {
		if v < 0 && v+d >= 0 {
			pos[k] += d
			changed = true
		}
	}
	if !changed {
		return
	}
	edit := fmt.Sprintf("%s: negative indices → non-negative (%s → %s)", renderItem(it), list(values), list(pos))
	t := fromInts(a.DType, a.Shape, pos)
	if it.Name != "" {
		e.add(edit, nil, map[string]*engine.Tensor{it.Name: t})
		return
	}
	e.addIndex(edit, with(i, engine.IndexItem{Kind: engine.IndexArray, Array: t}), nil)
}

// addIndex adds the neighbour whose subscript is items (written back as
// text), with the inputs in inputs replaced; inputs the new subscript no
// longer names are dropped.
func (e *editor) addIndex(edit string, items []engine.IndexItem, inputs map[string]*engine.Tensor) {
	in := map[string]*engine.Tensor{}
	for k, t := range inputs {
		in[k] = t
	}
	used := map[string]bool{"x": true}
	for _, it := range items {
		if it.Kind == engine.IndexArray && it.Name != "" {
			used[it.Name] = true
		}
	}
	for name := range e.c.Inputs {
		if !used[name] {
			in[name] = nil
		}
	}
	for name, t := range in {
		if t != nil && !used[name] {
			in[name] = nil
		}
	}
	e.add(edit, map[string]any{"index": "x[" + render(items) + "]"}, in)
}

// freshName returns an input name the case does not use.
func (e *editor) freshName() string {
	for k := 0; ; k++ {
		name := fmt.Sprintf("b%d", k)
		if _, ok := e.c.Inputs[name]; !ok {
			return name
		}
	}
}

// itemDims returns, for each item of a bound subscript over an input of
// rank dims, the first dimension it addresses (-1 for a new axis, and
// for an ellipsis the first it covers).
func itemDims(items []engine.IndexItem, rank int) []int {
	out := make([]int, len(items))
	covered := rank - consumedDims(items)
	d := 0
	for i, it := range items {
		out[i] = d
		switch it.Kind {
		case engine.IndexInt, engine.IndexSlice:
			d++
		case engine.IndexArray:
			d += arrayDims(it)
		case engine.IndexEllipsis:
			d += max(covered, 0)
		case engine.IndexNewAxis:
			out[i] = -1
		}
	}
	return out
}

// consumedDims counts the dimensions the items other than an ellipsis
// address.
func consumedDims(items []engine.IndexItem) int {
	n := 0
	for _, it := range items {
		switch it.Kind {
		case engine.IndexInt, engine.IndexSlice:
			n++
		case engine.IndexArray:
			n += arrayDims(it)
		}
	}
	return n
}

// arrayDims returns how many dimensions an array item addresses: a
// boolean array as many as it has, an integer array one.
func arrayDims(it engine.IndexItem) int {
	if it.Array != nil && it.Array.DType.Kind == engine.Bool {
		return it.Array.Rank()
	}
	return 1
}

// render writes items as the inside of a subscript, as the parser reads
// them back: x[render(items)].
func render(items []engine.IndexItem) string {
	if len(items) == 0 {
		return "()"
	}
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = renderItem(it)
	}
	s := strings.Join(parts, ", ")
	if len(items) == 1 && items[0].Kind == engine.IndexArray && items[0].Name == "" && items[0].Array.Rank() > 0 {
		s += "," // a lone list is an index array, as it was parsed
	}
	return s
}

// renderItem writes one parsed item: an integer, a slice, None, ..., an
// input name, an inline array as a (nested) list or True/False.
func renderItem(it engine.IndexItem) string {
	switch it.Kind {
	case engine.IndexInt:
		return fmt.Sprint(it.Index)
	case engine.IndexSlice:
		part := func(has bool, v int64) string {
			if !has {
				return ""
			}
			return fmt.Sprint(v)
		}
		s := part(it.HasStart, it.Start) + ":" + part(it.HasStop, it.Stop)
		if it.HasStep {
			s += ":" + fmt.Sprint(it.Step)
		}
		return s
	case engine.IndexNewAxis:
		return "None"
	case engine.IndexEllipsis:
		return "..."
	case engine.IndexArray:
		if it.Name != "" {
			return it.Name
		}
		if it.Array != nil {
			return literal(it.Array)
		}
	}
	return "?"
}

// literal writes an inline index array as Python: a nested list of
// integers or of True/False; a 0-d one as its element.
func literal(a *engine.Tensor) string {
	values := ints(a)
	elem := func(v int64) string {
		if a.DType.Kind == engine.Bool {
			if v != 0 {
				return "True"
			}
			return "False"
		}
		return fmt.Sprint(v)
	}
	var b strings.Builder
	var walk func(dim, off, stride int)
	walk = func(dim, off, stride int) {
		if dim == a.Rank() {
			b.WriteString(elem(values[off]))
			return
		}
		n := a.Shape[dim]
		inner := stride / max(n, 1)
		b.WriteByte('[')
		for k := 0; k < n; k++ {
			if k > 0 {
				b.WriteString(", ")
			}
			walk(dim+1, off+k*inner, inner)
		}
		b.WriteByte(']')
	}
	walk(0, 0, max(len(values), 1))
	return b.String()
}

// isGetItem reports whether c is a getitem case.
func isGetItem(c *casefile.Case) bool { return c.Op == casefile.OpGetItem }
