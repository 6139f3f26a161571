package gen

import (
	"strconv"
	"strings"

	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
)

func init() {
	register(casefile.OpGetItem, GetItemCase())
}

// Key classes: a valid basic index (which may still be rejected for its
// values, e.g. an integer out of range, a zero step or too many indices),
// or one of the invalid forms.
const (
	keyValid       = iota
	keyTwoEllipses // two ... in one index
	keyBool        // True / False: boolean indexing, advanced
	keyList        // [0, 1]: integer array indexing, advanced
	keyFloat       // 1.5, 1.0:2
	keyOther       // a string, a bytes literal, a set
	keySyntax      // not Python
)

var keyClassWeights = []int{958, 8, 6, 7, 7, 4, 10}

// item is one item of a basic index before rendering.
type item struct {
	kind engine.IndexItemKind
	dim  int // size of the dimension a consuming item applies to
}

// Consuming-count categories: how many integers and slices the index has
// relative to the rank.
const (
	consumeAll     = iota // as many as dims: an ellipsis then covers no dims
	consumeFewer          // 1 .. rank-1 (0 for rank 1)
	consumeNone           // none
	consumeTooMany        // one or two more than dims: too many indices
)

var consumeWeights = []int{400, 535, 50, 15}

// drawConsumed draws the number of consuming items (integers and slices,
// or range and shrink entries) for a tensor of the given rank.
func drawConsumed(t *rapid.T, rank int) int {
	switch pick(t, "consumed", consumeWeights...) {
	case consumeAll:
		return rank
	case consumeFewer:
		if rank <= 1 {
			return 0
		}
		return rank - 1 - offset(t, "fewer by", 31)%(rank-1)
	case consumeTooMany:
		return rank + 1 + offset(t, "too many by", 1)
	}
	return 0
}

// newAxisCountWeights are the rates of 0, 1, 2-3 and 4-6 new axes (and,
// for getitem only, 26-34: on a high-rank input, a result of more than
// 32 dims).
var newAxisCountWeights = []int{620, 240, 110, 30, 4}

// drawNewAxes draws a number of new axes; many allows the 26-34 category.
func drawNewAxes(t *rapid.T, many bool) int {
	w := newAxisCountWeights
	if !many {
		w = w[:4]
	}
	switch pick(t, "new axes", w...) {
	case 1:
		return 1
	case 2:
		return 2 + offset(t, "new axes", 1)
	case 3:
		return 4 + offset(t, "new axes", 2)
	case 4:
		return 26 + offset(t, "many new axes", 8)
	}
	return 0
}

// intItemPerMille is the rate of integers among the consuming items; the
// rest are slices.
const intItemPerMille = 280

// intIndexWeights are the index categories of an integer item
// (front, back, d, -d-1, far, extreme).
var intIndexWeights = []int{600, 310, 33, 22, 20, 15}

// Subscript returns a generator of NumPy basic-indexing subscripts of the
// name x for a tensor of the given shape, as Python source: "x[1, 2:4,
// None, ..., :-3:-1, :]".
//
// Items are integers (mostly in range; sometimes d, -d-1, far out or an
// int64 extreme; rarely a literal beyond int64), slices with every part
// optional or written as None (bounds near 0, d and -d, reverse slices
// starting below -d, extremes and literals beyond int64; steps of either
// sign, extremes, rarely 0), new axes spelled None, np.newaxis,
// numpy.newaxis or tf.newaxis, and at most one ellipsis, often covering no
// dimension. Tuples are written plainly, with a trailing comma (x[1,],
// x[...,]) or in parentheses when no item is a slice; an empty tuple is
// x[()]. Spacing varies: compact, spaced, tabs and newlines inside the
// brackets. About one key in twenty-five is invalid on purpose: two
// ellipses, a boolean, a list (advanced indexing), a float, a string or
// a syntax error; and sometimes there are more integers and slices than
// dimensions.
func Subscript(shape []int) *rapid.Generator[string] {
	shape = append([]int(nil), shape...)
	return rapid.Custom(func(t *rapid.T) string { return drawSubscript(t, shape) })
}

func drawSubscript(t *rapid.T, shape []int) string {
	class := pick(t, "key class", keyClassWeights...)
	items := drawItems(t, shape)
	texts := make([]string, len(items))
	hasSlice := false
	for i, it := range items {
		texts[i] = renderItem(t, it)
		hasSlice = hasSlice || it.kind == engine.IndexSlice
	}
	switch class {
	case keyTwoEllipses:
		hasEllipsis := false
		for _, it := range items {
			hasEllipsis = hasEllipsis || it.kind == engine.IndexEllipsis
		}
		texts = insertAt(t, texts, "...")
		if !hasEllipsis {
			texts = insertAt(t, texts, "...")
		}
	case keyBool:
		texts = insertAt(t, texts, []string{"True", "False"}[offset(t, "bool", 1)])
	case keyList:
		texts = insertAt(t, texts, []string{"[0]", "[0, 1]", "[]", "[[0]]", "[-1, 0]", "[True, False]"}[offset(t, "list", 5)])
	case keyFloat:
		f := []string{"1.5", "0.0", "-2.5", "1e3", "1.0:2", ":2.0", "::1.0", "1j"}[offset(t, "float", 7)]
		hasSlice = hasSlice || strings.Contains(f, ":")
		texts = insertAt(t, texts, f)
	case keyOther:
		texts = insertAt(t, texts, []string{"'a'", "b'a'", "{0}", "''"}[offset(t, "other", 3)])
	}
	src := renderKey(t, texts, hasSlice)
	if class == keySyntax {
		src = breakSyntax(t, src)
	}
	return src
}

// insertAt inserts s at a drawn position of texts.
func insertAt(t *rapid.T, texts []string, s string) []string {
	p := mod(offset(t, "insert at", 31), len(texts)+1)
	out := append([]string{}, texts[:p]...)
	out = append(out, s)
	return append(out, texts[p:]...)
}

// drawItems draws the skeleton of a basic index: the consuming items
// (integers and slices), an optional ellipsis and new axes, in order, and
// then the dimension each consuming item applies to.
func drawItems(t *rapid.T, shape []int) []item {
	consumed := drawConsumed(t, len(shape))
	items := make([]item, 0, consumed+8)
	for i := 0; i < consumed; i++ {
		k := engine.IndexSlice
		if chance(t, "integer item", intItemPerMille) {
			k = engine.IndexInt
		}
		items = append(items, item{kind: k})
	}
	if chance(t, "ellipsis", 350) {
		p := mod(offset(t, "ellipsis at", 31), len(items)+1)
		items = append(items[:p], append([]item{{kind: engine.IndexEllipsis}}, items[p:]...)...)
	}
	newAxes := drawNewAxes(t, true)
	for i := 0; i < newAxes; i++ {
		p := mod(offset(t, "new axis at", 31), len(items)+1)
		items = append(items[:p], append([]item{{kind: engine.IndexNewAxis}}, items[p:]...)...)
	}
	assignDims(items, shape)
	return items
}

// assignDims sets the dimension of each consuming item as NumPy lines
// them up: items before the ellipsis from the front, items after it from
// the back. Items with no dimension (too many indices) get size 3.
func assignDims(items []item, shape []int) {
	rank := len(shape)
	ell := len(items)
	for i, it := range items {
		if it.kind == engine.IndexEllipsis {
			ell = i
			break
		}
	}
	dim := func(k int) int {
		if k < 0 || k >= rank {
			return 3
		}
		return shape[k]
	}
	k := 0
	for i := 0; i < ell; i++ {
		if consumes(items[i].kind) {
			items[i].dim = dim(k)
			k++
		}
	}
	k = rank - 1
	for i := len(items) - 1; i > ell; i-- {
		if consumes(items[i].kind) {
			items[i].dim = dim(k)
			k--
		}
	}
}

func consumes(k engine.IndexItemKind) bool {
	return k == engine.IndexInt || k == engine.IndexSlice
}

// newAxisSpellings are the ways to write a new axis, with their rates.
var (
	newAxisSpellings = []string{"None", "np.newaxis", "tf.newaxis", "numpy.newaxis"}
	newAxisWeights   = []int{60, 20, 15, 5}
)

// renderItem writes one item as Python source.
func renderItem(t *rapid.T, it item) string {
	switch it.kind {
	case engine.IndexEllipsis:
		return "..."
	case engine.IndexNewAxis:
		return newAxisSpellings[pick(t, "new axis spelling", newAxisWeights...)]
	case engine.IndexInt:
		if chance(t, "int beyond int64", 12) {
			return beyondInt64(t)
		}
		return spellInt(t, drawIndex(t, "index", it.dim, intIndexWeights))
	}
	return renderSlice(t, it.dim)
}

// beyondInt64 returns a decimal literal outside the int64 range.
func beyondInt64(t *rapid.T) string {
	return []string{
		"9223372036854775808", "-9223372036854775809", "18446744073709551616",
		"-18446744073709551616", "123456789012345678901234567890", "-99999999999999999999999",
	}[offset(t, "beyond int64", 5)]
}

// spellInt writes an integer, mostly in decimal, sometimes as +k, ~k
// (~k == -k-1), (k) or in hex.
func spellInt(t *rapid.T, v int64) string {
	switch pick(t, "int spelling", 940, 15, 15, 15, 15) {
	case 1:
		if v >= 0 {
			return "+" + strconv.FormatInt(v, 10)
		}
	case 2:
		if v > -1<<62 && v < 1<<62 {
			return "~" + strconv.FormatInt(-v-1, 10)
		}
	case 3:
		return "(" + strconv.FormatInt(v, 10) + ")"
	case 4:
		if v >= 0 {
			return "0x" + strconv.FormatInt(v, 16)
		}
	}
	return strconv.FormatInt(v, 10)
}

// Slice part forms.
const (
	partOmitted = iota
	partNone    // written as None
	partValue
)

var (
	boundPartWeights = []int{38, 7, 55}
	stepPartWeights  = []int{45, 5, 50}
)

// renderSlice writes a slice start:stop:step for a dimension of size d.
func renderSlice(t *rapid.T, d int) string {
	part := func(label string, weights []int, value func() string) string {
		switch pick(t, label, weights...) {
		case partNone:
			return "None"
		case partValue:
			return value()
		}
		return ""
	}
	bound := func(label string) func() string {
		return func() string {
			switch pick(t, label, 970, 20, 10) {
			case 1:
				return beyondInt64(t)
			case 2:
				return []string{"True", "False"}[offset(t, label, 1)]
			}
			return spellInt(t, drawBound(t, label, d))
		}
	}
	start := part("start", boundPartWeights, bound("start"))
	stop := part("stop", boundPartWeights, bound("stop"))
	stepForm := pick(t, "step", stepPartWeights...)
	switch stepForm {
	case partNone:
		return start + ":" + stop + ":None"
	case partValue:
		return start + ":" + stop + ":" + spellInt(t, drawStride(t, "step"))
	}
	if chance(t, "empty step", 150) {
		return start + ":" + stop + ":"
	}
	return start + ":" + stop
}

// Tuple forms.
const (
	tuplePlain    = iota // x[a, b]
	tupleTrailing        // x[a, b,]
	tupleParens          // x[(a, b)] (only without slices)
)

var tupleWeights = []int{70, 15, 15}

// Spacing styles.
var spacingWeights = []int{70, 15, 15}

// renderKey writes the subscript x[...] of the rendered items.
func renderKey(t *rapid.T, texts []string, hasSlice bool) string {
	sep, open, close := ", ", "", ""
	switch pick(t, "spacing", spacingWeights...) {
	case 1:
		sep = ","
	case 2:
		spaces := []string{"  ", " \t", "\n ", " "}
		sep = spaces[offset(t, "space", 3)] + "," + spaces[offset(t, "space", 3)]
		open, close = spaces[offset(t, "space", 3)], spaces[offset(t, "space", 3)]
	}
	if len(texts) == 0 {
		if chance(t, "spaced empty tuple", 100) {
			return "x[ ( ) ]"
		}
		return "x[()]"
	}
	body := strings.Join(texts, sep)
	switch pick(t, "tuple form", tupleWeights...) {
	case tupleTrailing:
		body += ","
	case tupleParens:
		if !hasSlice {
			if len(texts) == 1 {
				body += ","
			}
			body = "(" + body + ")"
		}
	}
	return "x[" + open + body + close + "]"
}

// breakSyntax turns a subscript into one that is not valid Python.
func breakSyntax(t *rapid.T, src string) string {
	switch offset(t, "syntax error", 7) {
	case 0:
		return strings.TrimSuffix(src, "]")
	case 1:
		return "x[]"
	case 2:
		return strings.Replace(src, "[", "[,", 1)
	case 3:
		return "x[1:2:3:4]"
	case 4:
		return "x[(1:2)]"
	case 5:
		return strings.Replace(src, "[", "[(", 1)
	case 6:
		return "x[1 2]"
	}
	return strings.TrimSuffix(src, "]") + " -]"
}

// GetItemCase returns a generator of getitem cases. About three cases in
// five use basic indexing: a tensor of any dtype with a shape of rank 0 to
// 32 (mostly up to 8) and a Subscript for it. The others use advanced
// indexing (see drawAdvancedGetItem): a small tensor and a subscript with
// integer and boolean arrays, named (each name an input of the case) or
// written inline, among basic items.
func GetItemCase() *rapid.Generator[*casefile.Case] {
	return rapid.Custom(func(t *rapid.T) *casefile.Case {
		if chance(t, "advanced", advancedPerMille) {
			m, _ := drawAdvancedGetItem(t)
			return m
		}
		shape := drawShape(t, 0, engine.MaxRank, MaxElements)
		x := tensorOf(t, drawDType, shape)
		return casefile.New(map[string]any{"op": casefile.OpGetItem, "index": drawSubscript(t, shape)}, map[string]*engine.Tensor{"x": x})
	})
}
