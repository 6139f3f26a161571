package gen

import (
	"slices"
	"strconv"
	"strings"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

// advancedPerMille is the rate of getitem cases with advanced indices
// (integer and boolean arrays); the others use basic indexing only.
const advancedPerMille = 400

// selfIndexPerMille is the rate of advanced cases indexing x by itself,
// x[x]: a boolean x (its own mask) or a 1-D integer x holding 0 .. n-1.
const selfIndexPerMille = 25

// Kinds of the items of an advanced index.
type advKind int

const (
	advSlice      advKind = iota // start:stop:step
	advInt                       // a Python integer (a 0-d array among arrays)
	advNewAxis                   // None, np.newaxis ...
	advEllipsis                  // ...
	advIntArray                  // an integer array: a named input or an inline list
	advBoolArray                 // a boolean array of rank >= 1: named or inline
	advBoolScalar                // True, False, or a named 0-d boolean array
	advFloatList                 // an inline list of floats: invalid_spec
)

// advArrayWeights are the rates of the kinds of advanced items: named
// integer array, inline integer list, named boolean array, inline boolean
// list, True/False (or a named 0-d boolean).
var advArrayWeights = []int{400, 250, 130, 60, 160}

// advCountWeights are the rates of 1, 2, 3 and 4 advanced items.
var advCountWeights = []int{550, 300, 120, 30}

// Faults of an advanced index (the plan is valid otherwise).
const (
	advFaultNone      = iota
	advFaultBroadcast // two integer arrays whose shapes do not broadcast
	advFaultBoolShape // a boolean array whose shape is not that of the dims it covers
	advFaultBounds    // an index out of bounds
	advFaultTooMany   // more indices than dims
	advFaultFloat     // a list of floats
)

var advFaultWeights = []int{800, 45, 40, 60, 30, 25}

// advIndexDTypes are the dtypes of named integer index arrays: every
// integer type, either byte order.
var advIndexDTypes = allIndexDTypes(250, 150, 90, 80, 0)

// advNames are the input names of named index arrays, in order of use.
var advNames = []string{"i", "j", "k", "m", "n", "idx", "sel", "mask"}

// advItem is one item of an advanced index before rendering.
type advItem struct {
	kind   advKind
	named  bool
	ndim   int   // dims of x it covers
	dims   []int // their sizes (3 for a dim beyond x)
	shape  []int // the array's shape (index arrays)
	values []int64
	dt     engine.DType
	name   string
	truth  bool // advBoolScalar: True or False
	zero   bool // an integer array on a dim of size 0 (must stay empty)
}

// drawAdvancedGetItem draws a getitem case with advanced indices: x of
// any dtype, rank 0 to 5 and at most 48 elements, and a subscript mixing
// one to four array items (named integer arrays of any integer dtype and
// byte order, inline integer lists, flat or nested, named or inline
// boolean arrays, True, False) with slices, integers, new axes and an
// ellipsis, the arrays next to each other about half the time and
// separated otherwise. Integer arrays broadcast together (shapes of rank
// 0 to 2, dims of 1 broadcasting, sometimes empty); a boolean array has
// the shape of the dims it covers. About one case in eight is invalid on
// purpose: shapes that do not broadcast, a boolean shape mismatch, an
// index out of bounds, too many indices or a float list. It returns the
// case and its planned fault.
//
// The steps below run in a fixed order, each drawing from t in turn: the
// order of the draws is what makes a seed give the same case every time.
func drawAdvancedGetItem(t *rapid.T) (*casefile.Case, int) {
	shape := drawDataShape(t, 0, 5)
	if chance(t, "x[x]", selfIndexPerMille) {
		return drawSelfIndex(t, shape), advFaultNone
	}
	x := tensorOf(t, drawDType, shape)
	fault := drawAdvFault(t, len(shape))
	capacity := len(shape)
	if fault == advFaultTooMany {
		capacity++
	}

	adv, used, haveBool := drawAdvArrays(t, fault, capacity)
	items := drawBasicItems(t, fault, capacity-used)
	items = placeAdvArrays(t, items, adv)
	items = insertExtraItems(t, items, fault)
	assignAdvDims(items, shape)
	markEmptyDims(items)

	b := drawBroadcastShape(t)
	fault, b = drawMasks(t, items, fault, b)
	b = makeRoomForEmpty(items, b, haveBool)
	drawIntArrayShapes(t, items, b)
	if fault == advFaultBroadcast {
		breakBroadcast(items)
	}
	keepFalseBroadcastable(items)

	drawAdvValues(t, items)
	if fault == advFaultBounds && !putOutOfBounds(t, items) {
		fault = advFaultNone
	}
	inputs := nameAdvInputs(t, items, x)
	return casefile.New(map[string]any{"op": casefile.OpGetItem, "index": renderAdvKey(t, items)}, inputs), fault
}

// drawAdvFault draws the fault of an advanced case on x of rank r,
// trading a fault x's rank cannot hold for one it can: shapes that do not
// broadcast need two dims (else an index out of bounds), a boolean shape
// mismatch one (else too many indices).
func drawAdvFault(t *rapid.T, r int) int {
	fault := pick(t, "advanced fault", advFaultWeights...)
	if fault == advFaultBroadcast && r < 2 {
		fault = advFaultBounds
	}
	if fault == advFaultBoolShape && r < 1 {
		fault = advFaultTooMany
	}
	return fault
}

// drawAdvArrays draws the advanced items (one to four; two at least for
// shapes that do not broadcast) and the dims each covers, at most capacity
// in all. It returns them, the dims they cover and whether one is a
// boolean array.
func drawAdvArrays(t *rapid.T, fault, capacity int) (adv []*advItem, used int, haveBool bool) {
	n := 1 + pick(t, "advanced count", advCountWeights...)
	if fault == advFaultBroadcast {
		n = max(n, 2)
	}
	for i := 0; i < n; i++ {
		it := drawAdvArray(t, fault, i, capacity-used, haveBool)
		haveBool = haveBool || it.kind == advBoolArray
		used += it.ndim
		adv = append(adv, it)
	}
	return adv, used, haveBool
}

// drawAdvArray draws advanced item i: its kind, whether it is named, and
// the dims it covers, at most room. The first two items are integer
// arrays for shapes that do not broadcast, the first a boolean array for
// a boolean shape mismatch; a second boolean array becomes an integer
// array, and an array with no room left becomes True or False.
func drawAdvArray(t *rapid.T, fault, i, room int, haveBool bool) *advItem {
	it := &advItem{}
	k := pick(t, "advanced kind", advArrayWeights...)
	switch {
	case fault == advFaultBroadcast && i < 2:
		k = offset(t, "inline", 1) // a named or inline integer array
	case fault == advFaultBoolShape && i == 0:
		k = 2 + offset(t, "inline", 1) // a named or inline boolean array
	}
	it.named = k == 0 || k == 2
	switch k {
	case 0, 1:
		it.kind = advIntArray
		it.ndim = 1
	case 2, 3:
		if haveBool {
			it.kind, it.ndim = advIntArray, 1
			break
		}
		it.kind = advBoolArray
		it.ndim = 1
		if chance(t, "2-d mask", 250) {
			it.ndim = 2
		}
		it.ndim = min(it.ndim, room)
	default:
		it.kind = advBoolScalar
	}
	if it.ndim == 0 || it.ndim > room {
		it.kind, it.ndim = advBoolScalar, 0
		it.named = chance(t, "named 0-d bool", 250)
	}
	if it.kind == advBoolScalar {
		it.truth = !chance(t, "False", 300)
	}
	return it
}

// drawBasicItems draws the basic consuming items (slices and integers):
// as many as the rest dims (half the time) or fewer; with too many
// indices, exactly as many, one more than x's dims are left.
func drawBasicItems(t *rapid.T, fault, rest int) []*advItem {
	n := rest
	if fault != advFaultTooMany && rest > 0 && bit.Draw(t, "fewer basic") {
		n = rest - 1 - offset(t, "fewer by", 7)%rest
	}
	items := make([]*advItem, 0, n+4)
	for i := 0; i < n; i++ {
		k := advSlice
		if chance(t, "integer item", 250) {
			k = advInt
		}
		items = append(items, &advItem{kind: k, ndim: 1})
	}
	return items
}

// placeAdvArrays puts the advanced items among the basic ones: next to
// each other at a drawn position half the time, each at its own drawn
// position otherwise.
func placeAdvArrays(t *rapid.T, items, adv []*advItem) []*advItem {
	if chance(t, "adjacent", 500) {
		p := mod(offset(t, "block at", 31), len(items)+1)
		return append(items[:p], append(append([]*advItem{}, adv...), items[p:]...)...)
	}
	for _, it := range adv {
		items = insertItem(t, items, it)
	}
	return items
}

// insertExtraItems inserts the items that cover no dim of x: a float
// list for that fault, sometimes an ellipsis, and zero to two new axes.
func insertExtraItems(t *rapid.T, items []*advItem, fault int) []*advItem {
	if fault == advFaultFloat {
		items = insertItem(t, items, &advItem{kind: advFloatList})
	}
	if chance(t, "ellipsis", 300) {
		items = insertItem(t, items, &advItem{kind: advEllipsis})
	}
	for i := pick(t, "new axes", 750, 200, 50); i > 0; i-- {
		items = insertItem(t, items, &advItem{kind: advNewAxis})
	}
	return items
}

// markEmptyDims turns an integer on a dim of size 0 (which no integer
// indexes) into a slice, and marks an integer array on a dim of size 0,
// which must stay empty.
func markEmptyDims(items []*advItem) {
	for _, it := range items {
		switch it.kind {
		case advInt:
			if it.dims[0] == 0 {
				it.kind = advSlice
			}
		case advIntArray:
			it.zero = it.dims[0] == 0
		}
	}
}

// drawBroadcastShape draws the shape the integer arrays broadcast to:
// rank 0 to 2, each dim 1, 2, 3 or (rarely) 0.
func drawBroadcastShape(t *rapid.T) []int {
	var b []int
	for i := pick(t, "broadcast rank", 300, 500, 200); i > 0; i-- {
		b = append(b, []int{1, 2 + offset(t, "broadcast dim", 1), 0}[pick(t, "broadcast dim kind", 120, 800, 80)])
	}
	return b
}

// drawMasks draws the shape and values of each boolean array and sets the
// last dim of the broadcast shape b to its number of true elements (b
// loses its first dim for more than four). It returns the fault (a
// boolean shape mismatch drawn as a dim of size 0 is no fault) and b.
func drawMasks(t *rapid.T, items []*advItem, fault int, b []int) (int, []int) {
	for _, it := range items {
		if it.kind != advBoolArray {
			continue
		}
		fault = drawMaskShape(t, it, fault)
		nnz := drawMaskValues(t, it)
		if nnz > 4 && len(b) > 1 {
			b = b[1:]
		}
		if len(b) == 0 {
			b = []int{nnz}
		} else {
			b[len(b)-1] = nnz
		}
	}
	return fault, b
}

// drawMaskShape sets the shape of a boolean array: that of the dims it
// covers, one dim off by one for a boolean shape mismatch. It returns the
// fault, none if the mismatch drew a dim of size 0.
func drawMaskShape(t *rapid.T, it *advItem, fault int) int {
	it.shape = append([]int{}, it.dims...)
	if fault == advFaultBoolShape {
		j := offset(t, "mismatch at", 1) % len(it.shape)
		if it.shape[j] > 0 && bit.Draw(t, "shorter") {
			it.shape[j]--
		} else {
			it.shape[j]++
		}
		if it.shape[j] == 0 {
			// NumPy 1.24 lets a boolean dimension of size 0
			// match a dimension of any size: valid.
			fault = advFaultNone
		}
	}
	if !it.named && slices.Contains(it.shape, 0) {
		it.named = true // an empty list would be an integer index
	}
	return fault
}

// drawMaskValues fills a boolean array (at random, all true or all false)
// and returns its number of true elements.
func drawMaskValues(t *rapid.T, it *advItem) int {
	it.dt = engine.BoolType
	it.values = make([]int64, engine.NumElements(it.shape))
	all := pick(t, "mask fill", 700, 150, 150)
	nnz := 0
	for c := range it.values {
		switch all {
		case 0:
			it.values[c] = int64(offset(t, "mask", 1))
		case 1:
			it.values[c] = 1
		}
		nnz += int(it.values[c])
	}
	return nnz
}

// makeRoomForEmpty gives the broadcast shape b a dim of size 0 when an
// integer array on an empty dim must stay empty: a new first dim when b
// is a scalar or only a mask's count, its first dim otherwise.
func makeRoomForEmpty(items []*advItem, b []int, haveBool bool) []int {
	for _, it := range items {
		if it.kind == advIntArray && it.zero && !slices.Contains(b, 0) {
			if len(b) == 0 || (haveBool && len(b) == 1) {
				b = append([]int{0}, b...)
			} else {
				b[0] = 0
			}
		}
	}
	return b
}

// drawIntArrayShapes draws the shape of each integer array: b itself on
// an empty dim, else a trailing part of b with dims of 1 here and there
// (rank 0 to 2 named, at least 1 inline).
func drawIntArrayShapes(t *rapid.T, items []*advItem, b []int) {
	for _, it := range items {
		if it.kind != advIntArray {
			continue
		}
		switch {
		case it.zero:
			it.shape = append([]int{}, b...)
		case it.named:
			rank := offset(t, "array rank", 2) % (len(b) + 1)
			it.shape = broadcastable(t, b[len(b)-rank:])
		default:
			rank := 1 + offset(t, "list rank", 1)%max(len(b), 1)
			if len(b) == 0 {
				it.shape = []int{1}
			} else {
				it.shape = broadcastable(t, b[len(b)-rank:])
			}
		}
		if !it.named && len(it.shape) == 2 && it.shape[0] == 0 {
			it.named = true // [] can only be written with a 0 last
		}
	}
}

// breakBroadcast gives the first two integer arrays last dims of 2 and 3,
// which do not broadcast.
func breakBroadcast(items []*advItem) {
	var arrays []*advItem
	for _, it := range items {
		if it.kind == advIntArray {
			arrays = append(arrays, it)
		}
	}
	if len(arrays) < 2 {
		return
	}
	for j, it := range arrays[:2] {
		if len(it.shape) == 0 {
			it.shape = []int{0}
		}
		it.shape[len(it.shape)-1] = 2 + j
		it.zero = false
	}
}

// keepFalseBroadcastable turns False into True when the other arrays
// broadcast to a last dim over 1: False is an empty array, which must
// broadcast with them.
func keepFalseBroadcastable(items []*advItem) {
	var nonScalars []*advItem
	for _, it := range items {
		if it.kind != advBoolScalar {
			nonScalars = append(nonScalars, it)
		}
	}
	if bshape, ok := broadcastAll(nonScalars); ok && len(bshape) > 0 && bshape[len(bshape)-1] > 1 {
		for _, it := range items {
			if it.kind == advBoolScalar && !it.truth {
				it.truth = true
			}
		}
	}
}

// drawAdvValues draws the values of the integers and integer arrays, in
// bounds of the dim each indexes, and the dtype of each integer array
// (int64 inline, any integer dtype named).
func drawAdvValues(t *rapid.T, items []*advItem) {
	for _, it := range items {
		switch it.kind {
		case advInt:
			it.values = []int64{drawInRange(t, it.dims[0], true)}
		case advIntArray:
			it.dt = engine.Int64Type
			if it.named {
				it.dt = drawWeightedDType(t, advIndexDTypes)
			}
			it.values = make([]int64, engine.NumElements(it.shape))
			for c := range it.values {
				if d := it.dims[0]; d > 0 {
					it.values[c] = drawInRange(t, d, it.dt.Kind == engine.Int)
				}
			}
		}
	}
}

// putOutOfBounds puts one drawn element of one drawn integer or integer
// array out of the bounds of its dim. It reports false, changing nothing,
// when there is no index to put out of bounds or the arrays broadcast to
// nothing (NumPy checks no index then).
func putOutOfBounds(t *rapid.T, items []*advItem) bool {
	var cands []*advItem
	for _, it := range items {
		if (it.kind == advIntArray || it.kind == advInt) && len(it.values) > 0 {
			cands = append(cands, it)
		}
	}
	if bshape, _ := broadcastAll(items); len(cands) == 0 || engine.NumElements(bshape) == 0 {
		return false
	}
	it := cands[offset(t, "bad item", 7)%len(cands)]
	c := offset(t, "bad element", 15) % len(it.values)
	dt := it.dt
	if it.kind == advInt {
		dt = engine.Int64Type
	}
	it.values[c] = drawOutOfRange(t, it.dims[0], dt, dt.Kind != engine.Uint)
	return true
}

// nameAdvInputs names the named arrays in order of appearance and returns
// the case's inputs: x and one tensor per name. A named integer array
// sometimes reuses an earlier one that fits (x[i, i]).
func nameAdvInputs(t *rapid.T, items []*advItem, x *engine.Tensor) map[string]*engine.Tensor {
	inputs := map[string]*engine.Tensor{"x": x}
	var namedInts []*advItem
	for _, it := range items {
		if !it.named || (it.kind != advIntArray && it.kind != advBoolArray && it.kind != advBoolScalar) {
			continue
		}
		if it.kind == advIntArray && len(namedInts) > 0 && chance(t, "reuse name", 80) {
			e := namedInts[offset(t, "reuse", 3)%len(namedInts)]
			if slices.Equal(e.shape, it.shape) && !anyOutside(e.dt, e.values, -int64(it.dims[0]), int64(it.dims[0])) {
				it.name, it.dt, it.values = e.name, e.dt, e.values
				continue
			}
		}
		it.name = advNames[len(inputs)-1]
		switch it.kind {
		case advBoolScalar:
			v := int64(0)
			if it.truth {
				v = 1
			}
			inputs[it.name] = newTensor(engine.BoolType, nil, []byte{byte(v)})
		default:
			inputs[it.name] = newTensor(it.dt, it.shape, encodeIndices(it.dt, it.values))
		}
		if it.kind == advIntArray {
			namedInts = append(namedInts, it)
		}
	}
	return inputs
}

// renderAdvKey writes the subscript of items as Python source.
func renderAdvKey(t *rapid.T, items []*advItem) string {
	texts := make([]string, len(items))
	hasSlice := false
	for i, it := range items {
		texts[i] = renderAdvItem(t, it)
		hasSlice = hasSlice || it.kind == advSlice
	}
	return renderKey(t, texts, hasSlice)
}

// drawSelfIndex draws x[x]: a boolean x of the given shape (its own mask)
// or a 1-D integer x holding 0 .. n-1 (a permutation index).
func drawSelfIndex(t *rapid.T, shape []int) *casefile.Case {
	var x *engine.Tensor
	if bit.Draw(t, "boolean self") {
		x = tensorOf(t, boolDType, shape)
	} else {
		dt := drawWeightedDType(t, advIndexDTypes)
		n := engine.NumElements(shape)
		values := make([]int64, n)
		for i := range values {
			values[i] = int64(i)
		}
		x = newTensor(dt, []int{n}, encodeIndices(dt, values))
	}
	return casefile.New(map[string]any{"op": casefile.OpGetItem, "index": "x[x]"}, map[string]*engine.Tensor{"x": x})
}

// insertItem inserts it at a drawn position of items.
func insertItem(t *rapid.T, items []*advItem, it *advItem) []*advItem {
	p := mod(offset(t, "insert at", 31), len(items)+1)
	return append(items[:p], append([]*advItem{it}, items[p:]...)...)
}

// assignAdvDims sets the dims each item covers, as NumPy lines them up:
// items before the ellipsis from the front, items after it from the back.
// A dim beyond x (too many indices) has size 3.
func assignAdvDims(items []*advItem, shape []int) {
	r := len(shape)
	size := func(k int) int {
		if k < 0 || k >= r {
			return 3
		}
		return shape[k]
	}
	ell := len(items)
	for i, it := range items {
		if it.kind == advEllipsis {
			ell = i
			break
		}
	}
	for _, it := range items {
		if it.kind == advSlice || it.kind == advInt || it.kind == advFloatList {
			it.ndim = 1
		}
	}
	k := 0
	for _, it := range items[:ell] {
		it.dims = nil
		for j := 0; j < it.ndim; j++ {
			it.dims = append(it.dims, size(k))
			k++
		}
	}
	k = r - 1
	for i := len(items) - 1; i > ell; i-- {
		it := items[i]
		it.dims = make([]int, it.ndim)
		for j := it.ndim - 1; j >= 0; j-- {
			it.dims[j] = size(k)
			k--
		}
	}
}

// broadcastable returns a shape that broadcasts to b: each dim b's or,
// sometimes, 1.
func broadcastable(t *rapid.T, b []int) []int {
	out := append([]int{}, b...)
	for i := range out {
		if chance(t, "broadcast one", 250) {
			out[i] = 1
		}
	}
	return out
}

// broadcastAll returns the broadcast shape of the integer arrays and the
// boolean arrays' and scalars' nonzero() of items, or false if they do not
// broadcast.
func broadcastAll(items []*advItem) ([]int, bool) {
	var out []int
	for _, it := range items {
		var s []int
		switch it.kind {
		case advIntArray:
			s = it.shape
		case advBoolArray:
			nnz := 0
			for _, v := range it.values {
				nnz += int(v)
			}
			s = []int{nnz}
		case advBoolScalar:
			s = []int{0}
			if it.truth {
				s[0] = 1
			}
		default:
			continue
		}
		for len(out) < len(s) {
			out = append([]int{1}, out...)
		}
		off := len(out) - len(s)
		for i, d := range s {
			switch o := out[off+i]; {
			case o == d || d == 1:
			case o == 1:
				out[off+i] = d
			default:
				return nil, false
			}
		}
	}
	return out, true
}

// floatLists are inline float lists (invalid_spec).
var floatLists = []string{"[0.5]", "[1.0, 2.0]", "[[0.0]]", "[1.5, 0]", "[-1.0]"}

// renderAdvItem writes one item as Python source.
func renderAdvItem(t *rapid.T, it *advItem) string {
	switch it.kind {
	case advSlice:
		return renderSlice(t, it.dims[0])
	case advInt:
		return spellInt(t, it.values[0])
	case advNewAxis:
		return newAxisSpellings[pick(t, "new axis spelling", newAxisWeights...)]
	case advEllipsis:
		return "..."
	case advFloatList:
		return floatLists[offset(t, "float list", len(floatLists)-1)]
	case advBoolScalar:
		if it.named {
			return it.name
		}
		if it.truth {
			return "True"
		}
		return "False"
	}
	if it.named {
		return it.name
	}
	var b strings.Builder
	writeList(&b, it.shape, it.values, it.kind == advBoolArray)
	return b.String()
}

// writeList writes values of the given shape as a nested Python list of
// integers or booleans.
func writeList(b *strings.Builder, shape []int, values []int64, boolean bool) {
	b.WriteByte('[')
	if len(shape) == 1 {
		for i, v := range values[:shape[0]] {
			if i > 0 {
				b.WriteString(", ")
			}
			switch {
			case boolean && v != 0:
				b.WriteString("True")
			case boolean:
				b.WriteString("False")
			default:
				b.WriteString(strconv.FormatInt(v, 10))
			}
		}
	} else {
		n := engine.NumElements(shape[1:])
		for i := 0; i < shape[0]; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			writeList(b, shape[1:], values[i*n:], boolean)
		}
	}
	b.WriteByte(']')
}
