// Package expr parses a NumPy indexing subscript written as Python
// source, such as "x[1, 2:4, None, ..., :-3:-1, i, [0, 2]]", into the
// engine.IndexItem list the engine evaluates.
//
// Parsing uses the Python 3.4 grammar of github.com/go-python/gpython; this
// package then checks the syntax tree against the rules of NumPy's
// indexing; like the Pythons NumPy 1.24 runs on, it reads digit groups
// (1_000, Python 3.6) and refuses async and await, keywords since 3.7. Every rejected input yields an *engine.Error: invalid_spec for
// anything that is not a valid index, and out_of_range for an integer index
// that does not fit in int64 (it can never be in bounds).
package expr

import (
	"fmt"
	"math"
	"math/big"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/go-python/gpython/ast"
	"github.com/go-python/gpython/parser"
	"github.com/go-python/gpython/py"
)

// MaxSourceBytes is the longest source, in bytes, that Parse accepts; it
// bounds the time and memory one call can take.
const MaxSourceBytes = 64 << 10

// maxItems is the largest number of items an index tuple may have: NumPy
// 1.24 rejects more than 2*NPY_MAXDIMS = 64 with "too many indices for
// array" before looking at any item.
const maxItems = 64

const (
	msgInvalidIndex = "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis (`None`) and integer or boolean arrays are valid indices"
	msgSliceIndex   = "slice indices must be integers or None or have an __index__ method"
)

var (
	minInt64 = big.NewInt(math.MinInt64)
	maxInt64 = big.NewInt(math.MaxInt64)
	negMax   = big.NewInt(-math.MaxInt64)
)

// Parse parses src, a single subscript of a plain name such as
// "x[1, 2:4, None, ..., :-3:-1, :]", into the items of the index.
//
// The items may be integers (any Python integer expression made of a literal
// and unary -, + or ~), slices a:b:c whose parts are such integers or None,
// None, np.newaxis, numpy.newaxis, tf.newaxis, the ellipsis, and arrays
// (advanced indices, IndexArray items):
//   - a name other than None, True, False and Ellipsis ("i" in x[i], "x"
//     included) is an array input, an item with Name set and a nil Array
//     the caller binds (see Bind);
//   - True and False (and `not` on an integer) are 0-d boolean arrays;
//   - a list, or a tuple that is an item of the index (x[(0, 1), 2]),
//     is an array as np.asarray makes it (see arrayLiteral): nested lists
//     and tuples must be rectangular, at most 32 deep; booleans only give
//     a bool array, integers (booleans among them count as 0 and 1) an
//     int64 one; an empty sequence is an empty int64 array.
//
// A tuple is flattened into its items: x[()] has no items, x[1,] is the
// same as x[1] and x[(0, 1)] the same as x[0, 1]. Slice bounds beyond int64
// are clamped the way CPython's PySlice_Unpack clamps them; a step of 0 is
// kept for the engine to reject.
//
// Leading white space and blank lines, newlines inside the brackets and
// comments are allowed, as in Python source. Sources longer than 64 KiB are
// rejected.
//
// Every Python literal is read as what it is, so that the names of the
// subscript are known whatever else it holds. A literal NumPy refuses as an
// index becomes an item that carries NumPy's error (engine.IndexItem.Err),
// which the engine raises where NumPy's checks reach it:
//   - an IndexInvalid item for a float, a complex number, a string or
//     bytes, a list or tuple NumPy makes no integer or boolean array of
//     (floats, complex numbers, strings, None or the ellipsis among its
//     elements, a ragged nesting, more than 32 levels, integers of both
//     int64 and uint64 beyond int64, integers beyond uint64), a second
//     ellipsis (all invalid_spec) and an integer index outside int64
//     (out_of_range: conform's decision, it can never be in bounds);
//   - a slice bound that is such a literal (x[1.5:], x[:'a']) sets the
//     slice's Err (invalid_spec).
//
// Parse itself returns an *engine.Error, always invalid_spec, for what is
// not a subscript conform reads: syntax errors, more than 64 items (as
// NumPy, before any item), and expressions conform does not evaluate
// (names inside lists or slice bounds, operators other than unary -, +, ~
// and not, calls, comprehensions, unary operations Python refuses such as
// -'a' or ~1.5, ...); the leftmost such item decides. Such a subscript
// names no inputs.
func Parse(src string) (items []engine.IndexItem, err error) {
	return parse(src, true)
}

// parse is Parse; plain says whether the common plain form may skip
// gpython's parser (see plainSubscript).
func parse(src string, plain bool) (items []engine.IndexItem, err error) {
	defer func() {
		if r := recover(); r != nil {
			items = nil
			err = engine.RuleGetItemSyntax.Errorf("cannot parse index %s: internal parser error: %v", quoteSrc(src), r)
		}
	}()
	if len(src) > MaxSourceBytes {
		return nil, engine.RuleGetItemSyntax.Errorf("index source is %d bytes long, more than the limit of %d", len(src), MaxSourceBytes)
	}
	norm := normalizeNewlines(src)
	// Like Python's eval, ignore leading white space (and, more leniently,
	// leading blank lines) rather than treating it as an indent.
	text := strings.TrimLeft(norm, " \t\n")
	skipped := len(norm) - len(text)
	text = joinDigitGroups(text) // positions unchanged

	if plain {
		if slicer, ok := plainSubscript(text); ok {
			return convert(slicer)
		}
	}
	tree, perr := parser.ParseString(text, py.EvalMode)
	if perr != nil {
		return nil, syntaxError(src, norm, text, skipped, perr)
	}
	if err := newKeyword(src, norm, text, skipped, tree); err != nil {
		return nil, err
	}
	expr, ok := tree.(*ast.Expression)
	if !ok {
		return nil, engine.RuleGetItemSyntax.Errorf("index %s is not an expression", quoteSrc(src))
	}
	sub, ok := expr.Body.(*ast.Subscript)
	if !ok {
		return nil, engine.RuleGetItemSyntax.Errorf("index %s must be a single subscript of a name, like x[1, 2:4]", quoteSrc(src))
	}
	if _, ok := sub.Value.(*ast.Name); !ok {
		return nil, engine.RuleGetItemSyntax.Errorf("index %s must subscript a plain name, like x[1, 2:4], not %s", quoteSrc(src), describe(sub.Value))
	}
	return convert(sub.Slice)
}

// convert turns the slice of the subscript into index items.
func convert(s ast.Slicer) ([]engine.IndexItem, error) {
	// Normalise the three forms gpython produces into one list of dims:
	// ExtSlice when any item is a slice, Index(Tuple) for a tuple of plain
	// items (parenthesised or not), and Index or Slice for a single item.
	var dims []ast.Slicer
	switch s := s.(type) {
	case *ast.ExtSlice:
		dims = s.Dims
	case *ast.Index:
		if t, ok := s.Value.(*ast.Tuple); ok {
			dims = make([]ast.Slicer, len(t.Elts))
			for i, e := range t.Elts {
				dims[i] = &ast.Index{Value: e}
			}
		} else {
			dims = []ast.Slicer{s}
		}
	case *ast.Slice:
		dims = []ast.Slicer{s}
	default:
		return nil, engine.RuleGetItemSyntax.Errorf("unsupported subscript %T", s)
	}
	if len(dims) > maxItems {
		return nil, engine.RuleGetItemTooManyItems.Errorf("too many indices for array: %d items, at most %d are allowed", len(dims), maxItems)
	}
	items := make([]engine.IndexItem, 0, len(dims))
	ellipsis := false
	for i, d := range dims {
		var item engine.IndexItem
		var err error
		switch d := d.(type) {
		case *ast.Slice:
			item, err = convertSlice(i, d)
		case *ast.Index:
			item, err = convertItem(i, d.Value)
		default:
			err = engine.RuleGetItemSyntax.Errorf("item %d: unsupported subscript %T", i+1, d)
		}
		if err != nil {
			return nil, err
		}
		if item.Kind == engine.IndexEllipsis {
			if ellipsis {
				// NumPy's IndexError, raised when its pass over the
				// items reaches this one.
				item = refused(engine.RuleGetItemTwoEllipses.Errorf("item %d: an index can only have a single ellipsis ('...')", i+1))
			}
			ellipsis = true
		}
		items = append(items, item)
	}
	return items, nil
}

// convertItem converts one non-slice item of the index.
func convertItem(i int, e ast.Expr) (engine.IndexItem, error) {
	switch e := e.(type) {
	case *ast.Ellipsis:
		return engine.IndexItem{Kind: engine.IndexEllipsis}, nil
	case *ast.Name:
		if e.Id == "Ellipsis" { // the builtin name of ...
			return engine.IndexItem{Kind: engine.IndexEllipsis}, nil
		}
		return engine.IndexItem{Kind: engine.IndexArray, Name: string(e.Id)}, nil
	case *ast.Tuple, *ast.List:
		if !isLiteral(e) {
			return engine.IndexItem{}, engine.RuleGetItemNotLiteral.Errorf("item %d is %s holding %s: conform evaluates no expressions", i+1, describe(e), nonLiteral(e))
		}
		a, err := arrayLiteral(i, e)
		if err != nil {
			return refused(err), nil
		}
		return engine.IndexItem{Kind: engine.IndexArray, Array: a}, nil
	}
	v := eval(e)
	switch v.kind {
	case kindNone:
		return engine.IndexItem{Kind: engine.IndexNewAxis}, nil
	case kindBool:
		// A 0-d boolean array: True adds a dimension of size 1, False
		// one of size 0.
		return engine.IndexItem{Kind: engine.IndexArray, Array: boolScalar(v.n.Sign() != 0)}, nil
	case kindInt:
		if !v.n.IsInt64() {
			return refused(engine.RuleGetItemIndexBeyondInt64.Errorf("item %d: index %s does not fit in int64 and is out of bounds for any axis", i+1, shortInt(v.n))), nil
		}
		return engine.IndexItem{Kind: engine.IndexInt, Index: v.n.Int64()}, nil
	}
	err := engine.RuleGetItemInvalidItem.Errorf("item %d is %s: %s", i+1, v.what, msgInvalidIndex)
	if v.literal {
		return refused(err), nil
	}
	return engine.IndexItem{}, err
}

// refused is the IndexInvalid item of a literal NumPy refuses with err.
func refused(err error) engine.IndexItem {
	return engine.IndexItem{Kind: engine.IndexInvalid, Err: err}
}

// isLiteral reports whether e is a Python literal as Parse reads one:
// what eval reads as an integer, a boolean, None, a float or a complex
// number, a string or bytes, the ellipsis (or its name), or a list or
// tuple of literals, nested to any depth. Such an item is read as what it
// is, valid index or not; anything else (a name inside a list, an
// operator, a call, ...) is an expression conform does not evaluate.
func isLiteral(e ast.Expr) bool {
	return nonLiteral(e) == ""
}

// nonLiteral describes the first part of e that is not a literal (see
// isLiteral), or returns "" when e is one. It does not recurse, so deep
// nestings are safe.
func nonLiteral(e ast.Expr) string {
	stack := []ast.Expr{e}
	for len(stack) > 0 {
		e := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if elts, ok := sequence(e); ok {
			stack = append(stack, elts...)
			continue
		}
		if v := eval(e); v.kind == kindOther && !v.literal {
			return v.what
		}
	}
	return ""
}

// convertSlice converts a start:stop:step item, clamping the parts to the
// ranges CPython's PySlice_Unpack clamps them to.
func convertSlice(i int, s *ast.Slice) (engine.IndexItem, error) {
	item := engine.IndexItem{Kind: engine.IndexSlice}
	parts := []struct {
		e    ast.Expr
		name string
		lo   *big.Int // values below lo clamp to lo; above MaxInt64 to it
		val  *int64
		has  *bool
	}{
		{s.Lower, "start", minInt64, &item.Start, &item.HasStart},
		{s.Upper, "stop", minInt64, &item.Stop, &item.HasStop},
		{s.Step, "step", negMax, &item.Step, &item.HasStep},
	}
	for _, p := range parts {
		if p.e == nil {
			continue
		}
		v := eval(p.e)
		switch v.kind {
		case kindNone:
			continue
		case kindInt, kindBool: // bool has __index__: True:3 is 1:3
			*p.has = true
			switch {
			case v.n.Cmp(p.lo) < 0:
				*p.val = p.lo.Int64()
			case v.n.Cmp(maxInt64) > 0:
				*p.val = math.MaxInt64
			default:
				*p.val = v.n.Int64()
			}
			continue
		}
		if _, ok := sequence(p.e); ok && !isLiteral(p.e) || !ok && !v.literal {
			return engine.IndexItem{}, engine.RuleGetItemNotLiteral.Errorf("item %d: slice %s is %s: conform evaluates no expressions", i+1, p.name, v.what)
		}
		// A literal that is not an integer (a float, a string, a list,
		// ...): NumPy's TypeError when it reads the slice, kept with
		// the item.
		if item.Err == nil {
			item.Err = engine.RuleGetItemSliceBoundNotInteger.Errorf("item %d: slice %s is %s: %s", i+1, p.name, v.what, msgSliceIndex)
		}
	}
	return item, nil
}

// valueKind is the Python type class of an evaluated item.
type valueKind int

const (
	kindOther valueKind = iota // anything that is not a valid index
	kindInt
	kindBool
	kindNone
)

// value is an evaluated item expression.
type value struct {
	kind valueKind
	n    *big.Int // the value of an int, 0 or 1 for a bool
	what string   // description of the value, for messages
	// number is set for a float or complex literal, which unary - and +
	// keep a (still invalid) number.
	number bool
	// literal is set for a value of kindOther that is a Python literal
	// (a float or complex number, a string, bytes, the ellipsis): a
	// value NumPy refuses as an index, not an expression.
	literal bool
}

// eval evaluates e the way Python would for the expressions an index may
// contain: an int literal, True, False, None or np.newaxis under any chain of
// unary -, +, ~ and not. Everything else is returned as kindOther with a
// description. It never recurses, so deep chains are safe.
func eval(e ast.Expr) value {
	var ops []ast.UnaryOpNumber
	for {
		u, ok := e.(*ast.UnaryOp)
		if !ok {
			break
		}
		ops = append(ops, u.Op)
		e = u.Operand
	}
	v := leaf(e)
	// The pending arithmetic is value = sign*n + add; it is applied only
	// when needed so that a long chain of signs on a huge literal stays
	// linear.
	sign, add := int64(1), int64(0)
	materialize := func() {
		if sign == 1 && add == 0 {
			return
		}
		n := new(big.Int).Set(v.n)
		if sign < 0 {
			n.Neg(n)
		}
		n.Add(n, big.NewInt(add))
		v.n, sign, add = n, 1, 0
	}
	for i := len(ops) - 1; i >= 0; i-- {
		op := ops[i]
		if op == ast.Not {
			if v.kind != kindInt && v.kind != kindBool {
				return value{kind: kindOther, what: "a 'not' expression"}
			}
			materialize()
			v = boolValue(v.n.Sign() == 0)
			continue
		}
		if v.kind != kindInt && v.kind != kindBool {
			if v.number && op != ast.Invert {
				continue // -1.5 is still a float
			}
			return value{kind: kindOther, what: "a unary operation on " + v.what}
		}
		v.kind = kindInt // unary arithmetic on a bool gives an int
		switch op {
		case ast.USub:
			sign, add = -sign, -add
		case ast.Invert:
			sign, add = -sign, -add-1
		case ast.UAdd:
		default:
			return value{kind: kindOther, what: "an unknown unary operation"}
		}
	}
	if v.kind == kindInt || v.kind == kindBool {
		materialize()
	}
	return v
}

func boolValue(b bool) value {
	if b {
		return value{kind: kindBool, n: big.NewInt(1)}
	}
	return value{kind: kindBool, n: big.NewInt(0)}
}

// leaf evaluates an expression that is not a unary operation.
func leaf(e ast.Expr) value {
	switch e := e.(type) {
	case *ast.Num:
		switch n := e.N.(type) {
		case py.Int:
			return value{kind: kindInt, n: big.NewInt(int64(n))}
		case *py.BigInt:
			return value{kind: kindInt, n: new(big.Int).Set((*big.Int)(n))}
		case py.Float:
			return value{kind: kindOther, what: "a float", number: true, literal: true}
		case py.Complex:
			return value{kind: kindOther, what: "a complex number", number: true, literal: true}
		}
	case *ast.Str, *ast.Bytes, *ast.Ellipsis:
		return value{kind: kindOther, what: describe(e), literal: true}
	case *ast.Name:
		if e.Id == "Ellipsis" {
			return value{kind: kindOther, what: "an ellipsis", literal: true}
		}
	case *ast.NameConstant:
		switch e.Value {
		case py.None:
			return value{kind: kindNone, what: "None"}
		case py.True:
			return boolValue(true)
		case py.False:
			return boolValue(false)
		}
	case *ast.Attribute:
		if isNewAxis(e) {
			return value{kind: kindNone, what: "newaxis"}
		}
	}
	return value{kind: kindOther, what: describe(e)}
}

// isNewAxis reports whether e is np.newaxis, numpy.newaxis or tf.newaxis.
func isNewAxis(e *ast.Attribute) bool {
	base, ok := e.Value.(*ast.Name)
	if !ok || e.Attr != "newaxis" {
		return false
	}
	switch base.Id {
	case "np", "numpy", "tf":
		return true
	}
	return false
}

// describe names the kind of an expression for error messages.
func describe(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Num:
		switch e.N.(type) {
		case py.Float:
			return "a float"
		case py.Complex:
			return "a complex number"
		}
		return "a number"
	case *ast.Str:
		return "a string"
	case *ast.Bytes:
		return "a bytes literal"
	case *ast.Name:
		return fmt.Sprintf("the name '%s'", cutRunes(string(e.Id), 40))
	case *ast.NameConstant:
		return "a constant"
	case *ast.Attribute:
		if base, ok := e.Value.(*ast.Name); ok {
			return fmt.Sprintf("the attribute %s.%s", cutRunes(string(base.Id), 40), cutRunes(string(e.Attr), 40))
		}
		return "an attribute"
	case *ast.Ellipsis:
		return "an ellipsis"
	case *ast.Tuple:
		return "a tuple"
	case *ast.List:
		return "a list"
	case *ast.ListComp:
		return "a list comprehension"
	case *ast.Set, *ast.SetComp:
		return "a set"
	case *ast.Dict, *ast.DictComp:
		return "a dict"
	case *ast.Call:
		return "a call"
	case *ast.Subscript:
		return "a subscript"
	case *ast.BinOp, *ast.BoolOp, *ast.Compare, *ast.UnaryOp:
		return "an operator expression"
	case *ast.Lambda:
		return "a lambda"
	case *ast.IfExp:
		return "a conditional expression"
	case *ast.GeneratorExp:
		return "a generator expression"
	case *ast.Yield, *ast.YieldFrom:
		return "a yield expression"
	case *ast.Starred:
		return "a starred expression"
	}
	return "an unsupported expression"
}

// shortInt formats n, eliding the middle of very long numbers.
func shortInt(n *big.Int) string {
	s := n.String()
	if len(s) <= 40 {
		return s
	}
	return fmt.Sprintf("%s...%s (%d digits)", s[:15], s[len(s)-10:], len(strings.TrimPrefix(s, "-")))
}

// quoteSrc quotes the source for a message, cutting it if it is long.
func quoteSrc(src string) string {
	const max = 120
	if len(src) <= max {
		return fmt.Sprintf("%q", src)
	}
	return fmt.Sprintf("%q... (%d bytes)", cutRunes(src, max), len(src))
}

// cutRunes returns the longest prefix of s of at most n bytes that does not
// end inside a UTF-8 sequence.
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
