// Package casefile holds conform's one case type, Case: one op, its
// typed spec, its inputs and its fields as written. A case is parsed once
// into it, from a case file in the form `conform eval` takes (inputs are
// paths of .npy files relative to the case file) or the form of the
// conform/1 protocol (inputs are base64 .npy bytes) (Parse, Load), from a
// stored case's fields (FromFields) or from a generator's field values
// (New); it is written back as a conform/1 request from its fields as
// written (AppendRequest) and evaluated on the reference engine (Eval).
//
// It holds the op registry: each op is defined once, in op_<name>.go, by
// an OpDef (its inputs and spec fields, its typed spec, its evaluation on
// the engine, the method an implementation has to run it under
// conformtest, the Python that reproduces a
// case, the engine variants that apply to it and, once package gen is
// linked in, its case generator), listed in one ordered list in op.go.
// Everything that handles cases looks ops up here (Lookup, OpNames)
// rather than switching on their names.
package casefile

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/confine"
	"github.com/conformsuite/conform/internal/npy"
)

// Case is a case, parsed once: the op, its typed spec and its decoded
// inputs, with its fields as written (the form sent to an implementation,
// see AppendRequest).
//
// A case whose fields or inputs do not make a valid case of its op (an
// unknown op, a field of the wrong type or of another op, a missing
// input) is still a Case: Err says what is wrong, Spec is nil and Def is
// nil unless the op is known. Such a case is sent to implementations as
// written (a corpus holds cases an implementation must refuse), but it
// cannot be evaluated: Eval returns Err.
type Case struct {
	// Op is the value of the "op" field, or "" if it is not a string.
	Op string
	// Def is the definition of the op, nil for an unknown op.
	Def *OpDef
	// Spec is the op's typed spec, parsed from its fields: e.g. an
	// engine.StridedSliceSpec for strided_slice, an engine.TakeSpec for
	// take (see the op's definition, op_<name>.go). It is nil if Err is
	// set.
	Spec any
	// Inputs are the case's input tensors by name: all that the case
	// names, also when Err is set.
	Inputs map[string]*engine.Tensor
	// Err is the *engine.Error (of kind bad_input, or invalid_spec for a
	// value no op could take) that the case's fields or inputs do not make
	// a valid case, or nil.
	Err error

	// Fields holds the top-level fields of the case as written: the op
	// and spec fields and any other (metadata) field; for a case read by
	// Parse, "inputs" too.
	Fields map[string]json.RawMessage

	// wireErr is the error that a field given to New cannot be encoded
	// as JSON: such a case cannot be sent (AppendRequest).
	wireErr error
}

// InputLoader turns the string value of an inputs entry into a tensor.
type InputLoader func(name, value string) (*engine.Tensor, error)

// Base64Inputs is the InputLoader of the conform/1 protocol: each value is
// the base64 encoding of a .npy file.
func Base64Inputs(name, value string) (*engine.Tensor, error) {
	data, err := base64.StdEncoding.DecodeString(value)
	if err != nil {
		return nil, engine.Errorf(engine.BadInput, "input %q: invalid base64: %v", name, err)
	}
	t, err := npy.Decode(data)
	if err != nil {
		return nil, engine.Errorf(engine.BadInput, "input %q: %v", name, trimKind(err))
	}
	return t, nil
}

// trimKind drops the "kind: " prefix of an engine error so that messages
// that wrap it name the kind once.
func trimKind(err error) string {
	var e *engine.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// Load reads a case file and the .npy inputs it names. The case file may
// be anywhere; its inputs must be regular files inside its directory (see
// package confine), each of at most inputLimit bytes (0 or less:
// confine.DefaultLimit), as the case file itself.
func Load(path string, inputLimit int64) (*Case, error) {
	data, err := confine.ReadPath(path, inputLimit)
	if err != nil {
		return nil, engine.Errorf(engine.BadInput, "cannot read case file: %v", err)
	}
	fsys, err := confine.Dir(filepath.Dir(path), inputLimit)
	if err != nil {
		return nil, engine.Errorf(engine.BadInput, "cannot open the case's directory: %v", err)
	}
	return Parse(data, FSInputs(fsys, "."))
}

// MaxCaseBytes bounds the size of a case JSON document given to Parse
// (a protocol request carries its inputs, so it can be large).
const MaxCaseBytes = 1 << 30

// Parse parses a case JSON document, loading inputs with load. Every error
// is an *engine.Error: a malformed document or input is bad_input.
func Parse(data []byte, load InputLoader) (*Case, error) {
	if len(data) > MaxCaseBytes {
		return nil, bad("case is larger than %d bytes", MaxCaseBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var fields map[string]json.RawMessage
	if err := dec.Decode(&fields); err != nil {
		return nil, bad("case is not a JSON object: %v", err)
	}
	if fields == nil {
		return nil, bad("case is not a JSON object")
	}
	if _, err := dec.Token(); err == nil {
		return nil, bad("unexpected data after the case object")
	}
	c := &Case{Fields: fields, Inputs: map[string]*engine.Tensor{}}
	if err := c.parseSpec(); err != nil {
		return nil, err
	}
	if err := c.loadInputs(load); err != nil {
		return nil, err
	}
	return c, nil
}

// New returns the case of the given fields (keys as in a case file, e.g.
// "op", "begin", "begin_mask"; values any encoding/json encodes: a
// generator's strings, integers and integer lists) and inputs, as a
// generator builds it: each field is encoded to JSON once, which is the
// form the case is written and sent in, and the case is parsed once from
// it. An "inputs" field is ignored. A case that is not valid carries the
// reason in Err (see Case). New takes inputs over: the caller must not
// change the map afterwards.
func New(fields map[string]any, inputs map[string]*engine.Tensor) *Case {
	// The fields are encoded into one buffer, each a slice of it (a slice
	// of an earlier array if the buffer grows: its bytes stay as they are).
	raw := make(map[string]json.RawMessage, len(fields))
	buf := make([]byte, 0, 256) // room for the fields of most generated cases
	var wireErr error
	for k, v := range fields {
		if k == "inputs" {
			continue
		}
		start := len(buf)
		data, err := appendJSON(buf, v)
		if err != nil {
			if wireErr == nil {
				wireErr = fmt.Errorf("case field %q: %v", k, err)
			}
			continue
		}
		buf = data
		raw[k] = buf[start:len(buf):len(buf)]
	}
	c := parsed(raw, inputs)
	if wireErr != nil {
		c.Spec, c.wireErr = nil, wireErr
		c.Err = bad("case spec is not JSON: %v", wireErr)
	}
	return c
}

// FromFields returns the case of the given fields, each a JSON value as
// written (no "inputs" or metadata field: those are not part of the
// case; a value that is not compact JSON is compacted), and inputs. It
// parses the fields once into the op's typed spec; a case that is not
// valid carries the reason in Err (see Case). FromFields takes both maps
// over.
func FromFields(fields map[string]json.RawMessage, inputs map[string]*engine.Tensor) *Case {
	for k, raw := range fields {
		if !isCompact(raw) {
			var buf bytes.Buffer
			if json.Compact(&buf, raw) == nil {
				fields[k] = buf.Bytes()
			}
		}
	}
	return parsed(fields, inputs)
}

// parsed returns the case of compact fields and inputs, parsed.
func parsed(fields map[string]json.RawMessage, inputs map[string]*engine.Tensor) *Case {
	if inputs == nil {
		inputs = map[string]*engine.Tensor{}
	}
	c := &Case{Fields: fields, Inputs: inputs}
	if err := c.parseSpec(); err != nil {
		c.Spec, c.Err = nil, err
		return c
	}
	if err := c.checkInputs(); err != nil {
		c.Spec, c.Err = nil, err
	}
	return c
}

// plainOpName returns what is between the quotes of raw if raw is a
// JSON string written with no escape, nil otherwise: the name of a
// registered op as a case writes it.
func plainOpName(raw []byte) []byte {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
		return nil
	}
	return raw[1 : len(raw)-1]
}

// isCompact reports whether raw has no white space, where json.Compact
// would find some to take out (a string's spaces make it answer false:
// Compact then keeps them).
func isCompact(raw []byte) bool {
	return bytes.IndexAny(raw, " \t\r\n") < 0
}

// WithInputs returns a copy of the case with the inputs of inputs
// replaced (or added), its fields and spec kept: what a shrinker tries
// in place of a case. The input names are checked again.
func (c *Case) WithInputs(inputs map[string]*engine.Tensor) *Case {
	out := *c
	out.Inputs = make(map[string]*engine.Tensor, len(c.Inputs)+len(inputs))
	for k, v := range c.Inputs {
		out.Inputs[k] = v
	}
	for k, v := range inputs {
		out.Inputs[k] = v
	}
	if c.Err == nil {
		if err := out.checkInputs(); err != nil {
			out.Spec, out.Err = nil, err
		}
	}
	return &out
}

// checkInputs checks the names of the case's inputs against its op.
func (c *Case) checkInputs() error {
	names := make([]string, 0, len(c.Inputs))
	for name := range c.Inputs {
		names = append(names, name)
	}
	return c.setInputs(names, func(name string) (*engine.Tensor, error) {
		return c.Inputs[name], nil
	})
}

func bad(format string, args ...any) error {
	return engine.Errorf(engine.BadInput, format, args...)
}

func (c *Case) parseSpec() error {
	raw, ok := c.Fields["op"]
	if !ok {
		return bad(`case has no "op" field`)
	}
	d, ok := registry[string(plainOpName(raw))] // no copy: a map index
	if ok {
		c.Op = d.Name // the registry's string: no copy of the name per case
	} else if err := unmarshalString(raw, &c.Op); err != nil {
		return bad(`"op" must be a string`)
	} else {
		d, ok = registry[c.Op]
	}
	if !ok {
		return bad("unknown op %q (want one of %s)", c.Op, strings.Join(OpNames(), ", "))
	}
	c.Def = d
	for _, f := range specFields {
		if _, present := c.Fields[f]; present && !slices.Contains(d.Fields, f) {
			return bad("field %q does not apply to op %s", f, c.Op)
		}
	}
	spec, err := d.parse(c)
	if err != nil {
		return err
	}
	c.Spec = spec
	return nil
}

func (c *Case) loadInputs(load InputLoader) error {
	raw, ok := c.Fields["inputs"]
	if !ok {
		return bad(`case has no "inputs" field`)
	}
	var inputs map[string]json.RawMessage
	if err := json.Unmarshal(raw, &inputs); err != nil || inputs == nil {
		return bad(`"inputs" must be an object mapping input names to .npy files`)
	}
	names := make([]string, 0, len(inputs))
	for name := range inputs {
		names = append(names, name)
	}
	return c.setInputs(names, func(name string) (*engine.Tensor, error) {
		var value string
		if json.Unmarshal(inputs[name], &value) != nil {
			return nil, bad("input %q must be a string", name)
		}
		return load(name, value)
	})
}

// setInputs checks the input names of the case against its op and loads
// each input the op takes with load.
func (c *Case) setInputs(names []string, load func(name string) (*engine.Tensor, error)) error {
	want := c.Def.Inputs
	if c.Def.names != nil {
		want = append(slices.Clone(want), c.Def.names(c.Spec)...)
	}
	sort.Strings(names)
	for _, name := range names {
		if !slices.Contains(want, name) {
			return bad("op %s has no input %q (it takes %s)", c.Op, name, strings.Join(want, ", "))
		}
	}
	for _, name := range want {
		if !slices.Contains(names, name) {
			return bad("op %s needs input %q", c.Op, name)
		}
		t, err := load(name)
		if err != nil {
			return err
		}
		c.Inputs[name] = t
	}
	return nil
}

// Eval evaluates the case on the reference engine. The result is
// C-contiguous; every error is an *engine.Error. A case that is not valid
// returns its Err.
func (c *Case) Eval() (*engine.Tensor, error) { return c.EvalUnder(engine.Rules{}) }

// EvalUnder evaluates the case on the reference engine under the variants
// r (see engine.Variant). A case that is not valid returns its Err.
func (c *Case) EvalUnder(r engine.Rules) (*engine.Tensor, error) {
	if c.Err != nil {
		return nil, c.Err
	}
	return c.Def.eval(c, r)
}

// VariantChanges reports whether the engine answers the case otherwise
// under the variant v than under the reference rules: another error kind,
// an error for an output or the reverse, or an output of another dtype,
// shape or element bytes. It is how a classifier asks whether the rule a
// variant replaces matters for a case, instead of re-deriving the rule. A
// panic under either rule set counts as no change.
func (c *Case) VariantChanges(v engine.Variant) bool {
	return c.Def.HasVariant(v) && c.engineChanges(v)
}

// engineChanges is VariantChanges for any variant, declared by the op or
// not.
func (c *Case) engineChanges(v engine.Variant) bool {
	ref, refErr, ok := c.EvalSafely(engine.Rules{})
	if !ok {
		return false
	}
	under, underErr, ok := c.EvalSafely(engine.Rules{}.With(v))
	if !ok {
		return false
	}
	switch {
	case refErr != nil || underErr != nil:
		return engine.KindOf(refErr) != engine.KindOf(underErr)
	case ref.DType != under.DType || !slices.Equal(ref.Shape, under.Shape):
		return true
	}
	return !bytes.Equal(ref.Bytes(), under.Bytes())
}

// EvalSafely is EvalUnder with a panic of the engine (a bug) reported as
// ok == false instead of raised.
func (c *Case) EvalSafely(r engine.Rules) (out *engine.Tensor, err error, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			out, err, ok = nil, nil, false
		}
	}()
	out, err = c.EvalUnder(r)
	return out, err, true
}

// FSInputs returns an InputLoader that reads .npy files from fsys, by
// slash-separated paths relative to dir. A path must stay inside dir (see
// confine.CheckPath) and name a regular file within the input limit.
func FSInputs(fsys fs.FS, dir string) InputLoader {
	return func(name, value string) (*engine.Tensor, error) {
		if err := confine.CheckPath(value); err != nil {
			return nil, engine.Errorf(engine.BadInput, "input %q: %v", name, err)
		}
		t, err := confine.ReadNPY(fsys, path.Join(dir, value))
		if err != nil {
			return nil, engine.Errorf(engine.BadInput, "input %q: %v", name, trimKind(err))
		}
		return t, nil
	}
}
