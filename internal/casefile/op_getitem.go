package casefile

import (
	"fmt"
	"slices"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/expr"
	"github.com/conformsuite/conform/internal/pysrc"
)

// GetItemer is the method conformtest calls for getitem: x[index] with
// its parsed items. It is not called for a subscript that does not parse
// or that holds a literal NumPy refuses (an engine.IndexInvalid item or a
// slice with an Err): those cases are answered by the engine, so the items
// hold only integers, slices, new axes, ellipses and arrays.
type GetItemer interface {
	GetItem(x *engine.Tensor, index string, items []engine.IndexItem) (*engine.Tensor, error)
}

// OpGetItem is the name of the getitem op.
const OpGetItem = "getitem"

// getItemOp defines the getitem op.
var getItemOp = &OpDef{
	Name:     OpGetItem,
	Summary:  "NumPy's x[index] (np.asarray of it): basic and advanced indexing",
	Inputs:   []string{"x"},
	Fields:   []string{"index"},
	Types:    []FieldType{required(stringType)},
	Method:   "GetItem(x *engine.Tensor, index string, items []engine.IndexItem) (*engine.Tensor, error)",
	Family:   "numpy",
	Variants: []engine.Variant{engine.InputByteOrder, engine.ExtraEntriesIgnored, engine.EllipsisCoversOneDim, engine.ShrinkIndexClamped, engine.NegativeStepRefused, engine.Int64IndicesOnly, engine.BoolAsInteger, engine.ZeroDIndexArrayRefused, engine.OneIndexArrayOnly, engine.NDIndexArrayRefused, engine.IntegersBesideArraysBasic, engine.EmptyRangeRefused, engine.DropSize1Dims},
	parse: func(c *Case) (any, error) {
		raw, ok := c.Fields["index"]
		if !ok {
			return nil, bad(`getitem case has no "index" field`)
		}
		var s engine.GetItemSpec
		if unmarshalString(raw, &s.Index) != nil {
			return nil, bad(`"index" must be a string such as "x[1:3, ...]"`)
		}
		s.Items, s.ParseErr = expr.Parse(s.Index)
		return s, nil
	},
	names: func(spec any) []string {
		return expr.Names(spec.(engine.GetItemSpec).Items)
	},
	eval: func(c *Case, r engine.Rules) (*engine.Tensor, error) {
		s := specOf[engine.GetItemSpec](c)
		if s.ParseErr != nil {
			return nil, s.ParseErr
		}
		return engine.GetItemUnder(c.Inputs["x"], c.IndexItems(), r)
	},
	implements: implements[GetItemer],
	call: func(impl any, c *Case) (*engine.Tensor, error) {
		s := specOf[engine.GetItemSpec](c)
		if s.ParseErr != nil {
			return nil, s.ParseErr
		}
		if engine.Refused(s.Items) != nil {
			// A literal NumPy refuses (x[[1.0], i], x[1.5:]): the
			// answer is NumPy's, as for a subscript that does not
			// parse; implementations only see valid items.
			return engine.GetItem(c.Inputs["x"], c.IndexItems())
		}
		return impl.(GetItemer).GetItem(c.Inputs["x"], s.Index, c.IndexItems())
	},
	features: append(append([]Feature{
		{"subscript-forms", "masks", "subscript forms: x[()], x[1,], x[...,], parenthesised tuples, np/tf.newaxis"},
	}, advancedFeatures...), indexFeatures...),
	tag:     tagGetItem,
	snippet: getItemSnippet,
}

// IndexItems returns the parsed subscript of a getitem case with every
// array written as a name bound to the case's input of that name; nil if
// the subscript does not parse.
func (c *Case) IndexItems() []engine.IndexItem {
	items, err := expr.Bind(specOf[engine.GetItemSpec](c).Items, c.Inputs)
	if err != nil {
		return nil // a name without input: Parse refuses such a case
	}
	return items
}

func tagGetItem(c *Case, add func(string)) {
	s := specOf[engine.GetItemSpec](c)
	src := strings.ReplaceAll(s.Index, " ", "")
	if strings.Contains(src, "[()]") || strings.HasSuffix(src, ",]") || strings.Contains(src, "[(") || strings.Contains(src, "newaxis") {
		add("subscript-forms")
	}
	if err := s.ParseErr; err != nil || engine.Refused(s.Items) != nil {
		if err == nil {
			err = engine.Refused(s.Items)
		}
		if engine.KindOf(err) == engine.OutOfRange {
			add("huge-integers")
		}
		return
	}
	items := c.IndexItems()
	x := c.Inputs["x"]
	tagAdvanced(x, items, add)
	consumed, ellipsisAt := 0, -1
	for i, it := range items {
		switch it.Kind {
		case engine.IndexInt, engine.IndexSlice:
			consumed++
		case engine.IndexArray:
			consumed += arrayDims(it)
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
		case engine.IndexArray:
			axis += arrayDims(it)
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
				tagRange(d, it.Start, it.Stop, step, !it.HasStart, !it.HasStop, add)
			}
			axis++
		}
	}
}

// getItemSnippet writes x[index] rebuilt from the parsed items, never the
// subscript as the case writes it: a subscript that does not parse, or
// holds an item NumPy refuses (a float, a string, ...), appears only as a
// string literal, and is not evaluated.
func getItemSnippet(b *strings.Builder, c *Case) {
	s := specOf[engine.GetItemSpec](c)
	if s.ParseErr != nil {
		fmt.Fprintf(b, "index = %s  # the subscript as the case writes it, not run here\n", pysrc.String(s.Index))
		fmt.Fprintf(b, "%s\n", pysrc.Comment(fmt.Sprintf("it does not parse: %v", s.ParseErr)))
		return
	}
	if err := engine.Refused(s.Items); err != nil {
		fmt.Fprintf(b, "index = %s  # the subscript as the case writes it, not run here\n", pysrc.String(s.Index))
		fmt.Fprintf(b, "%s\n", pysrc.Comment(fmt.Sprintf("it holds an item NumPy refuses: %v", err)))
		return
	}
	fmt.Fprintf(b, "x[%s]  # NumPy\n", pyIndex(s.Items, "None"))
	fmt.Fprintf(b, "tf.constant(x)[%s]  # TensorFlow\n", pyIndex(s.Items, "tf.newaxis"))
}

// pyIndex writes parsed index items as a Python subscript (without the
// brackets), with newAxis for a new axis. Arrays written as names are
// written as the snippet's expression for that input (pysrc.Input),
// inline arrays as NumPy code (pysrc.Array).
func pyIndex(items []engine.IndexItem, newAxis string) string {
	bound := func(has bool, v int64) string {
		if !has {
			return ""
		}
		return fmt.Sprint(v)
	}
	parts := make([]string, len(items))
	for i, it := range items {
		switch it.Kind {
		case engine.IndexInt:
			parts[i] = fmt.Sprint(it.Index)
		case engine.IndexSlice:
			parts[i] = bound(it.HasStart, it.Start) + ":" + bound(it.HasStop, it.Stop)
			if it.HasStep {
				parts[i] += ":" + fmt.Sprint(it.Step)
			}
		case engine.IndexNewAxis:
			parts[i] = newAxis
		case engine.IndexEllipsis:
			parts[i] = "..."
		case engine.IndexArray:
			if it.Name != "" {
				parts[i] = pysrc.Input(it.Name)
			} else {
				parts[i] = pysrc.Array(it.Array)
			}
		}
	}
	if len(parts) == 0 {
		return "()"
	}
	return strings.Join(parts, ", ")
}

// advancedFeatures are the rules of NumPy's advanced indexing (getitem).
var advancedFeatures = []Feature{
	{"advanced-int-array", "advanced", "an integer array index (inline list or input)"},
	{"advanced-bool-array", "advanced", "a boolean array index (its nonzero() positions)"},
	{"advanced-bool-scalar", "advanced", "a 0-d boolean index (True adds a dimension of 1, False one of 0)"},
	{"advanced-broadcast", "advanced", "index arrays of different shapes, broadcast together"},
	{"advanced-with-scalar", "advanced", "an integer scalar among index arrays (a 0-d index array)"},
	{"advanced-adjacent", "advanced", "adjacent advanced indices among basic ones: their dimensions stay in place"},
	{"advanced-separated", "advanced", "advanced indices separated by a slice, ellipsis or new axis: their dimensions go first"},
}

// arrayDims returns how many dimensions of x an array index addresses: a
// boolean array as many as it has, an integer array one.
func arrayDims(it engine.IndexItem) int {
	if it.Array != nil && it.Array.DType.Kind == engine.Bool {
		return it.Array.Rank()
	}
	return 1
}

// tagAdvanced tags the advanced-indexing rules of a parsed subscript whose
// arrays are bound (Case.IndexItems) over x.
func tagAdvanced(x *engine.Tensor, items []engine.IndexItem, add func(string)) {
	first, last, arrays, ints := -1, -1, 0, 0
	var shapes [][]int
	consumed := 0
	for i, it := range items {
		switch it.Kind {
		case engine.IndexInt, engine.IndexSlice:
			consumed++
		case engine.IndexArray:
			consumed += arrayDims(it)
		}
		if it.Kind == engine.IndexArray || it.Kind == engine.IndexInt {
			if first < 0 {
				first = i
			}
			last = i
		}
		if it.Kind == engine.IndexInt {
			ints++
		}
		if it.Kind == engine.IndexArray {
			arrays++
		}
	}
	if arrays == 0 {
		return
	}
	if ints > 0 {
		add("advanced-with-scalar")
	}
	basic := false
	for i, it := range items {
		if it.Kind == engine.IndexSlice || it.Kind == engine.IndexEllipsis || it.Kind == engine.IndexNewAxis {
			basic = true
			if i > first && i < last {
				add("advanced-separated")
			}
		}
	}
	if basic && !slices.ContainsFunc(items[first:last+1], func(it engine.IndexItem) bool {
		return it.Kind == engine.IndexSlice || it.Kind == engine.IndexEllipsis || it.Kind == engine.IndexNewAxis
	}) {
		add("advanced-adjacent")
	}
	axis := 0
	for _, it := range items {
		switch it.Kind {
		case engine.IndexInt, engine.IndexSlice:
			axis++
		case engine.IndexEllipsis:
			axis += max(x.Rank()-consumed, 0)
		case engine.IndexArray:
			a := it.Array
			if a == nil {
				continue
			}
			switch {
			case a.DType.Kind == engine.Bool && a.Rank() == 0:
				add("advanced-bool-scalar")
			case a.DType.Kind == engine.Bool:
				add("advanced-bool-array")
				if a.Len() > 0 && !slices.ContainsFunc(a.Bytes(), func(b byte) bool { return b != 0 }) {
					add("empty-selection")
				}
				axis += a.Rank()
				continue
			default:
				add("advanced-int-array")
				shapes = append(shapes, a.Shape)
			}
			d := -1
			if axis < x.Rank() {
				d = x.Shape[axis]
			}
			tagIndices(a, d, add)
			axis++
		}
	}
	for _, s := range shapes[min(1, len(shapes)):] {
		if !slices.Equal(s, shapes[0]) {
			add("advanced-broadcast")
		}
	}
}
