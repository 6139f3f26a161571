package expr

import (
	"encoding/binary"
	"math"
	"math/big"
	"sort"

	"github.com/conformsuite/conform/engine"
	"github.com/go-python/gpython/ast"
)

// maxArrayDims is the deepest nesting of an array literal: NumPy 1.24
// refuses arrays of more than 32 dimensions (ValueError "maximum supported
// dimension for an ndarray is 32").
const maxArrayDims = engine.MaxRank

var maxUint64 = new(big.Int).SetUint64(math.MaxUint64)

// boolScalar returns a 0-d boolean array.
func boolScalar(b bool) *engine.Tensor {
	data := []byte{0}
	if b {
		data[0] = 1
	}
	return &engine.Tensor{DType: engine.BoolType, Shape: []int{}, Strides: []int{}, Data: data}
}

// arrayLiteral evaluates e, a list or a tuple that is item i of the index,
// the way np.asarray (NumPy 1.24) turns it into an index array:
//   - nested lists and tuples are dimensions and must be rectangular (a
//     ragged nesting is NumPy's ValueError "inhomogeneous shape"), at most
//     32 deep;
//   - the elements must be integers or booleans (as Parse evaluates them);
//     anything else (floats, None, strings, names, ...) makes NumPy's array
//     a float or object array, which is not a valid index;
//   - only booleans give a bool array;
//   - integers, booleans among them counting as 0 and 1, give int64 when
//     every integer fits in int64, and uint64 when every integer is in
//     (MaxInt64, MaxUint64]: NumPy casts such an index to intp without a
//     check, so the array holds the int64 of the same bits (2**64-1 is
//     -1). Integers of both ranges make a float64 array, integers outside
//     both an object array: both invalid;
//   - an empty sequence (no elements at all) is an empty int64 array,
//     which NumPy casts from its float64 default.
//
// The result is a C-contiguous little-endian int64 or bool tensor.
func arrayLiteral(i int, e ast.Expr) (*engine.Tensor, error) {
	// The shape is read along the first elements, then every sequence
	// is checked against it.
	var shape []int
	for node := e; ; {
		elts, ok := sequence(node)
		if !ok {
			break
		}
		if len(shape) == maxArrayDims {
			return nil, engine.RuleGetItemArrayTooDeep.Errorf("item %d is %s nested more than %d deep: NumPy's arrays have at most %d dimensions", i+1, describe(e), maxArrayDims, maxArrayDims)
		}
		shape = append(shape, len(elts))
		if len(elts) == 0 {
			break
		}
		node = elts[0]
	}
	var leaves []ast.Expr
	var walk func(node ast.Expr, depth int) bool
	walk = func(node ast.Expr, depth int) bool {
		elts, ok := sequence(node)
		if depth == len(shape) {
			if ok {
				return false
			}
			leaves = append(leaves, node)
			return true
		}
		if !ok || len(elts) != shape[depth] {
			return false
		}
		for _, el := range elts {
			if !walk(el, depth+1) {
				return false
			}
		}
		return true
	}
	if !walk(e, 0) {
		return nil, engine.RuleGetItemRaggedArray.Errorf("item %d is %s of an inhomogeneous shape (ragged nesting), not an array", i+1, describe(e))
	}

	values := make([]value, len(leaves))
	bools, small, large := 0, 0, 0
	for k, leaf := range leaves {
		v := eval(leaf)
		switch v.kind {
		case kindBool:
			bools++
		case kindInt:
			switch {
			case v.n.IsInt64():
				small++
			case v.n.Sign() > 0 && v.n.Cmp(maxUint64) <= 0:
				large++
			default:
				return nil, engine.RuleGetItemInvalidItem.Errorf("item %d: element %s of %s fits neither int64 nor uint64, which makes an object array: %s", i+1, shortInt(v.n), describe(e), msgInvalidIndex)
			}
		default:
			return nil, engine.RuleGetItemInvalidItem.Errorf("item %d: %s has an element that is %s, not an integer or a boolean: %s", i+1, describe(e), v.what, msgInvalidIndex)
		}
		values[k] = v
	}
	if small > 0 && large > 0 {
		return nil, engine.RuleGetItemInvalidItem.Errorf("item %d: %s mixes integers of int64 and of uint64 beyond int64, which makes a float64 array: %s", i+1, describe(e), msgInvalidIndex)
	}
	if len(values) > 0 && bools == len(values) {
		data := make([]byte, len(values))
		for k, v := range values {
			if v.n.Sign() != 0 {
				data[k] = 1
			}
		}
		return engine.FromBytes(engine.BoolType, shape, data)
	}
	data := make([]byte, 8*len(values))
	for k, v := range values {
		// Every value fits in int64 or uint64 here; a uint64 keeps its
		// bits.
		var u uint64
		if v.n.IsInt64() {
			u = uint64(v.n.Int64())
		} else {
			u = v.n.Uint64()
		}
		binary.LittleEndian.PutUint64(data[8*k:], u)
	}
	return engine.FromBytes(engine.Int64Type, shape, data)
}

// sequence returns the elements of a list or tuple expression.
func sequence(e ast.Expr) ([]ast.Expr, bool) {
	switch e := e.(type) {
	case *ast.List:
		return e.Elts, true
	case *ast.Tuple:
		return e.Elts, true
	}
	return nil, false
}

// Names returns the input names the items use (IndexArray items written
// as names), sorted and without duplicates.
func Names(items []engine.IndexItem) []string {
	seen := map[string]bool{}
	var names []string
	for _, it := range items {
		if it.Kind == engine.IndexArray && it.Name != "" && !seen[it.Name] {
			seen[it.Name] = true
			names = append(names, it.Name)
		}
	}
	sort.Strings(names)
	return names
}

// Bind returns a copy of items in which every IndexArray item written as a
// name has the input of that name as its Array; items itself when no item
// is a name (a basic index, the common case, is not copied). A name with
// no input in inputs is a bad_input error. Bind does not check that every
// input is used: Names lists the names the index uses. items is not
// modified.
func Bind(items []engine.IndexItem, inputs map[string]*engine.Tensor) ([]engine.IndexItem, error) {
	named := false
	for _, it := range items {
		named = named || (it.Kind == engine.IndexArray && it.Name != "")
	}
	if !named {
		return items, nil
	}
	out := append([]engine.IndexItem(nil), items...)
	for k, it := range out {
		if it.Kind != engine.IndexArray || it.Name == "" {
			continue
		}
		t, ok := inputs[it.Name]
		if !ok || t == nil {
			return nil, engine.RuleGetItemNameWithoutInput.Errorf("the index uses the name %q, but there is no input of that name", it.Name)
		}
		out[k].Array = t
	}
	return out, nil
}
