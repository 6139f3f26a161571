package casefile

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
)

// OpDef defines one op, once: the inputs and spec fields of its cases,
// how a case's fields become its typed spec, how the reference engine
// evaluates it, the method an implementation has to run it (conformtest),
// the rules of the semantics a case of it exercises (reports) and the
// Python code that reproduces a case (reports). Case parsing, the
// conformtest harness, `conform serve`, the reports and the generators all
// look ops up here; each op's definition is one file, op_<name>.go.
type OpDef struct {
	// Name is the op's name in case files, e.g. "take".
	Name string
	// Summary says in one line what the op is, e.g. "np.take(a, indices,
	// axis, mode) of NumPy".
	Summary string
	// Inputs are the names of the op's inputs. A getitem case has more:
	// one per name its subscript uses (see Case.Inputs).
	Inputs []string
	// Fields are the spec fields the op reads; a field of another op in a
	// case is an error, any other field is metadata.
	Fields []string
	// Types are the types of the fields: Types[i] is the type of
	// Fields[i].
	Types []FieldType
	// Method is the method an implementation has to run the op under
	// conformtest, as Go source.
	Method string
	// Family is the library whose semantics the op follows: "numpy",
	// "tf" or "onnx".
	Family string
	// Variants are the engine's rule variants (engine.Variants) that
	// apply to the op: the ways implementations of the op depart from its
	// reference rules. A classifier tries only these on a case of the op.
	Variants []engine.Variant

	generator *rapid.Generator[*Case] // set by package gen

	parse      func(c *Case) (any, error) // c.Fields to the typed spec
	names      func(spec any) []string    // extra inputs the spec names
	eval       func(c *Case, r engine.Rules) (*engine.Tensor, error)
	implements func(impl any) bool                             // whether impl has Method
	call       func(impl any, c *Case) (*engine.Tensor, error) // calls Method
	snippet    func(b *strings.Builder, c *Case)               // Python reproducing c
}

// registry holds every op by name; ordered holds them in OpNames order.
var (
	registry = map[string]*OpDef{}
	ordered  []*OpDef
)

// The ops, in the order in which they were added to conform: the order
// of OpNames, of the golden corpus and of every table of ops. A new op
// goes at the end (its op_<name>.go defines it).
func init() {
	for _, d := range []*OpDef{
		getItemOp,
		stridedSliceOp,
		sliceOp,
		gatherNDOp,
		onnxSliceOp,
		onnxGatherNDOp,
		takeOp,
		takeAlongAxisOp,
		gatherOp,
		onnxGatherOp,
		onnxGatherElementsOp,
	} {
		if _, dup := registry[d.Name]; dup {
			panic("casefile: op " + d.Name + " listed twice")
		}
		if len(d.Types) != len(d.Fields) {
			panic("casefile: op " + d.Name + " has not one type per field")
		}
		registry[d.Name] = d
		ordered = append(ordered, d)
	}
	specFields = allFields()
}

// specFields is allFields, computed once the ops are listed.
var specFields []string

// Lookup returns the definition of the op called name.
func Lookup(name string) (*OpDef, bool) {
	d, ok := registry[name]
	return d, ok
}

// OpNames lists every op in a stable order, the order in which they were
// added to conform. The golden corpus is built in this order.
func OpNames() []string {
	names := make([]string, len(ordered))
	for i, d := range ordered {
		names[i] = d.Name
	}
	return names
}

// Defs lists every op definition in OpNames order.
func Defs() []*OpDef { return slices.Clone(ordered) }

// FamilyOps lists the ops whose semantics follow family ("numpy", "tf"
// or "onnx"), in OpNames order.
func FamilyOps(family string) []string {
	var names []string
	for _, d := range ordered {
		if d.Family == family {
			names = append(names, d.Name)
		}
	}
	return names
}

// allFields lists the spec fields of every op, sorted: a field of this
// set that the case's op does not read is an error.
func allFields() []string {
	var all []string
	for _, d := range ordered {
		for _, f := range d.Fields {
			if !slices.Contains(all, f) {
				all = append(all, f)
			}
		}
	}
	sort.Strings(all)
	return all
}

// HasVariant reports whether the variant v applies to the op (see
// Variants).
func (d *OpDef) HasVariant(v engine.Variant) bool { return slices.Contains(d.Variants, v) }

// Generator returns the generator of random cases of the op. Package gen
// sets it (SetGenerator) when it is linked in; without gen it is nil.
func (d *OpDef) Generator() *rapid.Generator[*Case] { return d.generator }

// SetGenerator sets the op's case generator; package gen calls it for
// every op from init. It panics if the op has one already.
func (d *OpDef) SetGenerator(g *rapid.Generator[*Case]) {
	if d.generator != nil {
		panic("casefile: two generators of op " + d.Name)
	}
	d.generator = g
}

// Implements reports whether impl has the op's method (see Method).
func (d *OpDef) Implements(impl any) bool { return d.implements(impl) }

// Call runs the op's method of impl on the case. impl must implement it
// (see Implements). A case that is not valid returns its Err: the method
// is not called.
func (d *OpDef) Call(impl any, c *Case) (*engine.Tensor, error) {
	if c.Err != nil {
		return nil, c.Err
	}
	return d.call(impl, c)
}

// implements is the implements function of an op whose method is the
// interface I.
func implements[I any](impl any) bool {
	_, ok := impl.(I)
	return ok
}

// specOf returns the typed spec of a case of an op whose spec type is T.
// It panics if the case is of another op (a bug).
func specOf[T any](c *Case) T {
	s, ok := c.Spec.(T)
	if !ok {
		panic(fmt.Sprintf("casefile: a %s case has a spec of type %T", c.Op, c.Spec))
	}
	return s
}

// Reference names the operation of the library whose semantics the op
// follows, as its Summary begins: "tf.gather", "ONNX Gather-13",
// "np.take".
func (d *OpDef) Reference() string {
	name, _, _ := strings.Cut(d.Summary, "(")
	return strings.TrimSpace(name)
}

// familySemantics names the semantics of the op families that are not
// NumPy's.
var familySemantics = map[string]string{"tf": "TF semantics", "onnx": "ONNX semantics"}

// ExpectedFrom says what an expected answer of a case of op stands for,
// given its source as a case records it. A source that names an oracle
// and its version ("numpy 1.24.2": two words, the second a version) is
// said as ComputedBy says it: "tf.gather (TF semantics), computed with
// numpy 1.24.2". Any other source (a document, an unknown op) is returned
// as it is.
func ExpectedFrom(op, source string) string {
	name, version, two := strings.Cut(source, " ")
	if !two || name == "" || strings.Contains(version, " ") || version == "" || version[0] < '0' || version[0] > '9' {
		return source
	}
	return ComputedBy(op, source)
}

// ComputedBy names the reference answer of a case of op that the oracle
// (its name, or name and version) computed: for an op whose semantics
// are not NumPy's, the reference it stands for and the oracle, "tf.gather
// (TF semantics), computed with numpy"; for an op of NumPy's (or an
// unknown op), the oracle alone.
func ComputedBy(op, oracle string) string {
	d, ok := registry[op]
	if !ok || familySemantics[d.Family] == "" {
		return oracle
	}
	return fmt.Sprintf("%s (%s), computed with %s", d.Reference(), familySemantics[d.Family], oracle)
}
