package casefile

import (
	"fmt"
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
