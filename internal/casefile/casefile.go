// Package casefile reads conform case files: one op, its inputs and its
// spec, as JSON, in the form `conform eval` takes (inputs are paths of .npy
// files relative to the case file) or the form of the conform/1 protocol
// (inputs are base64 .npy bytes). It also evaluates a case on the
// reference engine.
package casefile

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/engine/expr"
	"github.com/conformsuite/conform/engine/npy"
	"github.com/conformsuite/conform/internal/confine"
)

// The ops a case can name.
const (
	OpGetItem      = "getitem"
	OpStridedSlice = "strided_slice"
	OpSlice        = "slice"
	OpGatherND     = "gather_nd"

	// ONNX semantics (opset 13).
	OpONNXSlice    = "onnx_slice"
	OpONNXGatherND = "onnx_gather_nd"
)

// Ops lists the ops in a stable order. The golden corpus is built from
// these.
var Ops = []string{OpGetItem, OpStridedSlice, OpSlice, OpGatherND}

// ONNXOps lists the ONNX ops (Slice-13 and GatherND-13) in a stable order.
// They are kept apart from Ops so that everything built from Ops (the
// golden corpus, corpora of a seed) stays as it is.
var ONNXOps = []string{OpONNXSlice, OpONNXGatherND}

// opInputs names the inputs each op takes.
var opInputs = map[string][]string{
	OpGetItem:      {"x"},
	OpStridedSlice: {"x"},
	OpSlice:        {"x"},
	OpGatherND:     {"params", "indices"},
	OpONNXSlice:    {"data"},
	OpONNXGatherND: {"data", "indices"},
}

// opFields lists the spec fields of each op; a field of another op in a
// case is an error, any other unknown field is metadata and ignored.
var opFields = map[string][]string{
	OpGetItem:      {"index"},
	OpStridedSlice: {"begin", "end", "strides", "begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"},
	OpSlice:        {"begin", "size"},
	OpGatherND:     {"batch_dims", "bad_indices"},
	OpONNXSlice:    {"starts", "ends", "axes", "steps"},
	OpONNXGatherND: {"batch_dims"},
}

// Case is a parsed case: the op, its decoded inputs and its spec.
type Case struct {
	Op     string
	Inputs map[string]*engine.Tensor

	// getitem
	Index string
	// strided_slice (Begin also for slice)
	Begin, End, Strides []int64
	BeginMask           engine.Mask
	EndMask             engine.Mask
	EllipsisMask        engine.Mask
	NewAxisMask         engine.Mask
	ShrinkAxisMask      engine.Mask
	// slice
	Size []int64
	// gather_nd (BatchDims also for onnx_gather_nd)
	BatchDims  int
	BadIndices engine.BadIndexPolicy
	// onnx_slice: Axes and Steps are nil when omitted
	Starts, Ends, Axes, Steps []int64

	// Fields holds every top-level field of the JSON object as written,
	// metadata included.
	Fields map[string]json.RawMessage
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
	if e, ok := err.(*engine.Error); ok {
		return e.Message
	}
	return err.Error()
}

// Load reads a case file and the .npy inputs it names. The case file may
// be anywhere; its inputs must be regular files inside its directory (see
// package confine), each within the input limit, as the case file itself.
func Load(path string) (*Case, error) {
	data, err := confine.ReadPath(path)
	if err != nil {
		return nil, engine.Errorf(engine.BadInput, "cannot read case file: %v", err)
	}
	fsys, err := confine.Dir(filepath.Dir(path))
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
	c := &Case{Fields: fields, BadIndices: engine.BadIndexError, Inputs: map[string]*engine.Tensor{}}
	if err := c.parseSpec(); err != nil {
		return nil, err
	}
	if err := c.loadInputs(load); err != nil {
		return nil, err
	}
	return c, nil
}

func bad(format string, args ...any) error {
	return engine.Errorf(engine.BadInput, format, args...)
}

func (c *Case) parseSpec() error {
	raw, ok := c.Fields["op"]
	if !ok {
		return bad(`case has no "op" field`)
	}
	if err := unmarshalString(raw, &c.Op); err != nil {
		return bad(`"op" must be a string`)
	}
	own, ok := opFields[c.Op]
	if !ok {
		return bad("unknown op %q (want one of %s)", c.Op, strings.Join(append(append([]string{}, Ops...), ONNXOps...), ", "))
	}
	// The fields of the ONNX ops are foreign only to the ONNX ops, so
	// that cases of the other ops are read exactly as before (and as the
	// NumPy and TF.js oracles read them).
	others := Ops
	if contains(ONNXOps, c.Op) {
		others = append(append([]string{}, Ops...), ONNXOps...)
	}
	for _, op := range others {
		if op == c.Op {
			continue
		}
		for _, f := range opFields[op] {
			if _, present := c.Fields[f]; present && !contains(own, f) {
				return bad("field %q does not apply to op %s", f, c.Op)
			}
		}
	}
	var err error
	switch c.Op {
	case OpGetItem:
		raw, ok := c.Fields["index"]
		if !ok {
			return bad(`getitem case has no "index" field`)
		}
		if unmarshalString(raw, &c.Index) != nil {
			return bad(`"index" must be a string such as "x[1:3, ...]"`)
		}
	case OpStridedSlice:
		if c.Begin, err = c.ints("begin", true); err != nil {
			return err
		}
		if c.End, err = c.ints("end", true); err != nil {
			return err
		}
		if c.Strides, err = c.ints("strides", false); err != nil {
			return err
		}
		for _, m := range []struct {
			name string
			dst  *engine.Mask
		}{
			{"begin_mask", &c.BeginMask}, {"end_mask", &c.EndMask}, {"ellipsis_mask", &c.EllipsisMask},
			{"new_axis_mask", &c.NewAxisMask}, {"shrink_axis_mask", &c.ShrinkAxisMask},
		} {
			if *m.dst, err = c.mask(m.name); err != nil {
				return err
			}
		}
	case OpSlice:
		if c.Begin, err = c.ints("begin", true); err != nil {
			return err
		}
		if c.Size, err = c.ints("size", true); err != nil {
			return err
		}
	case OpGatherND, OpONNXGatherND:
		if raw, ok := c.Fields["batch_dims"]; ok {
			v, err := parseInt(raw)
			if err != nil {
				return bad(`"batch_dims" must be an integer: %v`, err)
			}
			if v < math.MinInt32 || v > math.MaxInt32 {
				return engine.Errorf(engine.InvalidSpec, "batch_dims %d is out of range", v)
			}
			c.BatchDims = int(v)
		}
		if raw, ok := c.Fields["bad_indices"]; ok {
			var s string
			if json.Unmarshal(raw, &s) != nil || (s != string(engine.BadIndexError) && s != string(engine.BadIndexZero)) {
				return bad(`"bad_indices" must be "error" or "zero"`)
			}
			c.BadIndices = engine.BadIndexPolicy(s)
		}
	case OpONNXSlice:
		if c.Starts, err = c.ints("starts", true); err != nil {
			return err
		}
		if c.Ends, err = c.ints("ends", true); err != nil {
			return err
		}
		if c.Axes, err = c.ints("axes", false); err != nil {
			return err
		}
		if c.Steps, err = c.ints("steps", false); err != nil {
			return err
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// unmarshalString is json.Unmarshal into a string, without the decoder
// for the common case of a string of printable ASCII with no escapes.
func unmarshalString(raw []byte, dst *string) error {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		plain := true
		for _, c := range raw[1 : len(raw)-1] {
			if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
				plain = false
				break
			}
		}
		if plain {
			*dst = string(raw[1 : len(raw)-1])
			return nil
		}
	}
	return json.Unmarshal(raw, dst)
}

// parseInt parses a JSON number that must be an integer within int64:
// an optional minus sign and decimal digits, as JSON writes integers (1.0
// and 1e3 are not integers here).
func parseInt(raw json.RawMessage) (int64, error) {
	lit := bytes.TrimSpace(raw)
	digits := bytes.TrimPrefix(lit, []byte("-"))
	if len(digits) == 0 {
		return 0, fmt.Errorf("not a number: %s", truncate(raw))
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			if c == '.' || c == 'e' || c == 'E' {
				return 0, fmt.Errorf("%s is not an integer within int64", truncate(raw))
			}
			return 0, fmt.Errorf("not a number: %s", truncate(raw))
		}
	}
	if len(digits) > 1 && digits[0] == '0' {
		return 0, fmt.Errorf("not a number: %s", truncate(raw))
	}
	v, err := strconv.ParseInt(string(lit), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s is not an integer within int64", truncate(raw))
	}
	return v, nil
}

// intList parses the common form of an integer list, "[1, -2, 3]", without
// the JSON decoder. It reports false for anything else, which the caller
// then parses (and diagnoses) the general way.
func intList(raw []byte) ([]int64, bool) {
	s := bytes.TrimSpace(raw)
	if len(s) < 2 || s[0] != '[' || s[len(s)-1] != ']' {
		return nil, false
	}
	s = bytes.TrimSpace(s[1 : len(s)-1])
	out := []int64{}
	for len(s) > 0 {
		i := 0
		if s[0] == '-' {
			i = 1
		}
		j := i
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == i || (j-i > 1 && s[i] == '0') {
			return nil, false
		}
		v, err := strconv.ParseInt(string(s[:j]), 10, 64)
		if err != nil {
			return nil, false
		}
		out = append(out, v)
		s = bytes.TrimSpace(s[j:])
		if len(s) == 0 {
			break
		}
		if s[0] != ',' {
			return nil, false
		}
		s = bytes.TrimSpace(s[1:])
		if len(s) == 0 {
			return nil, false // a trailing comma is not JSON
		}
	}
	return out, true
}

func truncate(raw []byte) string {
	if len(raw) > 40 {
		return string(raw[:40]) + "..."
	}
	return string(raw)
}

// ints reads a field that must be a list of int64 integers.
func (c *Case) ints(name string, required bool) ([]int64, error) {
	raw, ok := c.Fields[name]
	if !ok {
		if required {
			return nil, bad("%s case has no %q field", c.Op, name)
		}
		return nil, nil
	}
	if out, ok := intList(raw); ok {
		return out, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil || list == nil {
		return nil, bad("%q must be a list of integers", name)
	}
	out := make([]int64, len(list))
	for i, r := range list {
		v, err := parseInt(r)
		if err != nil {
			return nil, bad("%s[%d]: %v", name, i, err)
		}
		out[i] = v
	}
	return out, nil
}

// mask reads a mask field: an integer bitmask (TF) or a 0/1 list
// (OpenVINO). An absent mask is 0.
func (c *Case) mask(name string) (engine.Mask, error) {
	raw, ok := c.Fields[name]
	if !ok {
		return engine.Mask{}, nil
	}
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '[' {
		list, err := c.ints(name, true)
		if err != nil {
			return engine.Mask{}, err
		}
		m, err := engine.MaskFromList(list)
		if err != nil {
			return engine.Mask{}, engine.Errorf(engine.InvalidSpec, "%s: %v", name, trimKind(err))
		}
		return m, nil
	}
	v, err := parseInt(raw)
	if err != nil {
		return engine.Mask{}, bad("%q must be an integer bitmask or a list of 0/1: %v", name, err)
	}
	return engine.MaskFromInt(v), nil
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
	want := opInputs[c.Op]
	sort.Strings(names)
	for _, name := range names {
		if !contains(want, name) {
			return bad("op %s has no input %q (it takes %s)", c.Op, name, strings.Join(want, ", "))
		}
	}
	for _, name := range want {
		if !contains(names, name) {
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

// Spec returns the strided_slice spec of the case.
func (c *Case) Spec() engine.StridedSliceSpec {
	return engine.StridedSliceSpec{
		Begin: c.Begin, End: c.End, Strides: c.Strides,
		BeginMask: c.BeginMask, EndMask: c.EndMask, EllipsisMask: c.EllipsisMask,
		NewAxisMask: c.NewAxisMask, ShrinkAxisMask: c.ShrinkAxisMask,
	}
}

// Eval evaluates the case on the reference engine. The result is
// C-contiguous; every error is an *engine.Error.
func (c *Case) Eval() (*engine.Tensor, error) { return c.EvalUnder(0) }

// EvalUnder evaluates the case on the reference engine under the variants
// r (see engine.Variant).
func (c *Case) EvalUnder(r engine.Rules) (*engine.Tensor, error) {
	switch c.Op {
	case OpGetItem:
		items, err := expr.Parse(c.Index)
		if err != nil {
			return nil, err
		}
		return engine.GetItemUnder(c.Inputs["x"], items, r)
	case OpStridedSlice:
		return engine.StridedSliceUnder(c.Inputs["x"], c.Spec(), r)
	case OpSlice:
		return engine.SliceUnder(c.Inputs["x"], c.Begin, c.Size, r)
	case OpGatherND:
		return engine.GatherNDUnder(c.Inputs["params"], c.Inputs["indices"], c.BatchDims, c.BadIndices, r)
	case OpONNXSlice:
		return engine.ONNXSliceUnder(c.Inputs["data"], engine.ONNXSliceSpec{Starts: c.Starts, Ends: c.Ends, Axes: c.Axes, Steps: c.Steps}, r)
	case OpONNXGatherND:
		return engine.ONNXGatherNDUnder(c.Inputs["data"], c.Inputs["indices"], c.BatchDims, r)
	}
	return nil, bad("unknown op %q", c.Op)
}

// VariantChanges reports whether the engine answers the case otherwise
// under the variant v than under the reference rules: another error kind,
// an error for an output or the reverse, or an output of another dtype,
// shape or element bytes. It is how a classifier asks whether the rule a
// variant replaces matters for a case, instead of re-deriving the rule. A
// panic under either rule set counts as no change.
func (c *Case) VariantChanges(v engine.Variant) bool {
	if !v.AppliesTo(c.Op) {
		return false
	}
	ref, refErr, ok := c.EvalSafely(0)
	if !ok {
		return false
	}
	under, underErr, ok := c.EvalSafely(engine.Rules(0).With(v))
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

// LoadFS reads a case file and its inputs from fsys.
func LoadFS(fsys fs.FS, name string) (*Case, error) {
	data, err := confine.ReadFile(fsys, name)
	if err != nil {
		return nil, engine.Errorf(engine.BadInput, "cannot read case file: %v", err)
	}
	return Parse(data, FSInputs(fsys, path.Dir(name)))
}
