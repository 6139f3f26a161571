package expr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// idx is an integer item.
func idx(k int64) engine.IndexItem {
	return engine.IndexItem{Kind: engine.IndexInt, Index: k}
}

// sl is a slice item; a nil part is omitted, an int or int64 part is set.
func sl(start, stop, step any) engine.IndexItem {
	it := engine.IndexItem{Kind: engine.IndexSlice}
	set := func(p any, v *int64, has *bool) {
		switch p := p.(type) {
		case nil:
		case int:
			*v, *has = int64(p), true
		case int64:
			*v, *has = p, true
		default:
			panic(fmt.Sprintf("bad slice part %T", p))
		}
	}
	set(start, &it.Start, &it.HasStart)
	set(stop, &it.Stop, &it.HasStop)
	set(step, &it.Step, &it.HasStep)
	return it
}

var (
	newAxis  = engine.IndexItem{Kind: engine.IndexNewAxis}
	ellipsis = engine.IndexItem{Kind: engine.IndexEllipsis}
)

// arr is an inline array item of dtype dt (int64 or bool) and the given
// shape (nil: 0-d) holding values.
func arr(dt engine.DType, shape []int, values ...int64) engine.IndexItem {
	if shape == nil {
		shape = []int{}
	}
	data := make([]byte, len(values)*dt.Size)
	for k, v := range values {
		if dt.Size == 8 {
			binary.LittleEndian.PutUint64(data[8*k:], uint64(v))
		} else {
			data[k] = byte(v)
		}
	}
	t, err := engine.FromBytes(dt, shape, data)
	if err != nil {
		panic(err)
	}
	return engine.IndexItem{Kind: engine.IndexArray, Array: t}
}

// named is an array item written as a name.
func named(name string) engine.IndexItem {
	return engine.IndexItem{Kind: engine.IndexArray, Name: name}
}

func repeatInt(v, n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// checkArrayItem fails t unless it, an IndexArray item of Parse(src), is
// a name with no array or an inline C-contiguous little-endian int64 or
// bool array without a name.
func checkArrayItem(t *testing.T, src string, it engine.IndexItem) {
	t.Helper()
	if it.Name != "" {
		if it.Array != nil {
			t.Fatalf("Parse(%q): the named item %q has an array", src, it.Name)
		}
		return
	}
	a := it.Array
	if a == nil || (a.DType != engine.Int64Type && a.DType != engine.BoolType) || !a.IsContiguous() || a.Rank() > engine.MaxRank {
		t.Fatalf("Parse(%q): inline array %+v is not a contiguous int64 or bool tensor", src, a)
	}
}

// items is shorthand for a list of index items.
func items(it ...engine.IndexItem) []engine.IndexItem { return it }

// tuple returns the source of an index with n items, each written as item.
func tuple(n int, item string) string {
	return "x[" + strings.TrimSuffix(strings.Repeat(item+", ", n), ", ") + "]"
}

const big70 = "1180591620717411303424" // 2**70

type parseCase struct {
	rule string
	src  string
	// want is the expected result when kind is "".
	want []engine.IndexItem
	kind engine.ErrorKind
	// refused says that Parse reads the subscript and kind is the kind
	// of its first refused item (engine.Refused): a literal NumPy refuses
	// is an item, so the subscript's names are still known.
	refused bool
	// pos, for syntax errors, is the position the message must name,
	// such as "column 5" or "line 2, column 3".
	pos string
}

var parseCases = []parseCase{
	// Every item kind.
	{rule: "a single integer is an IndexInt", src: "x[1]", want: items(idx(1))},
	{rule: "zero is a valid integer index", src: "x[0]", want: items(idx(0))},
	{rule: "a negative integer is unary minus on a literal", src: "x[-3]", want: items(idx(-3))},
	{rule: "the example of the brief maps item by item", src: "x[1, 2:4, None, ..., :-3:-1, :]",
		want: items(idx(1), sl(2, 4, nil), newAxis, ellipsis, sl(nil, -3, -1), sl(nil, nil, nil))},
	{rule: "None is a new axis", src: "x[None]", want: items(newAxis)},
	{rule: "the builtin name Ellipsis is the ellipsis", src: "x[Ellipsis, 1]", want: items(ellipsis, idx(1))},
	{rule: "Ellipsis twice is two ellipses", src: "x[Ellipsis, ...]", kind: engine.InvalidSpec, refused: true},
	{rule: "np.newaxis is a new axis", src: "x[np.newaxis]", want: items(newAxis)},
	{rule: "numpy.newaxis is a new axis", src: "x[numpy.newaxis]", want: items(newAxis)},
	{rule: "tf.newaxis is a new axis", src: "x[tf.newaxis, 0]", want: items(newAxis, idx(0))},
	{rule: "... alone is one ellipsis item", src: "x[...]", want: items(ellipsis)},
	{rule: "any identifier may be subscripted", src: "tensor_2[1]", want: items(idx(1))},

	// Digit groups (Python 3.6, PEP 515), as the Pythons NumPy 1.24 runs on read them.
	{rule: "underscores group the digits of a decimal", src: "x[1_000]", want: items(idx(1000))},
	{rule: "an underscore may follow a base prefix", src: "x[0x_f_f, 0b1_0, 0o_7]", want: items(idx(255), idx(2), idx(7))},
	{rule: "grouped zeros are zero", src: "x[0_0]", want: items(idx(0))},
	{rule: "slice parts may be grouped", src: "x[-1_0:2_0:1_0]", want: items(sl(-10, 20, 10))},
	{rule: "a grouped float is still a float NumPy refuses", src: "x[1_0.5_0]", kind: engine.InvalidSpec, refused: true},
	{rule: "a grouped exponent and an imaginary part are read too", src: "x[1e1_0, 1_0j]", kind: engine.InvalidSpec, refused: true},
	{rule: "a name that starts with an underscore is a name", src: "x[_1_0]", want: items(named("_1_0"))},
	{rule: "an underscore inside a string is the string's", src: "x[0, '1_0']", kind: engine.InvalidSpec, refused: true},

	// Slices.
	{rule: "a bare colon is a slice with no parts", src: "x[:]", want: items(sl(nil, nil, nil))},
	{rule: "a double colon is a slice with no parts", src: "x[::]", want: items(sl(nil, nil, nil))},
	{rule: "start only", src: "x[1:]", want: items(sl(1, nil, nil))},
	{rule: "stop only", src: "x[:5]", want: items(sl(nil, 5, nil))},
	{rule: "step only", src: "x[::2]", want: items(sl(nil, nil, 2))},
	{rule: "all three parts", src: "x[1:5:2]", want: items(sl(1, 5, 2))},
	{rule: "negative parts", src: "x[-1:-5:-2]", want: items(sl(-1, -5, -2))},
	{rule: "None parts are omitted parts", src: "x[None:None:None]", want: items(sl(nil, nil, nil))},
	{rule: "np.newaxis is None, so it is an omitted slice part", src: "x[np.newaxis:3]", want: items(sl(nil, 3, nil))},
	{rule: "a step of 0 is kept for the engine to reject", src: "x[::0]", want: items(sl(nil, nil, 0))},
	{rule: "bools have __index__, so they are 0 and 1 in slices", src: "x[True:False]", want: items(sl(1, 0, nil))},
	{rule: "a slice then an integer makes an ExtSlice", src: "x[1:2, 3]", want: items(sl(1, 2, nil), idx(3))},

	// Integer expressions.
	{rule: "double negation is positive", src: "x[--1]", want: items(idx(1))},
	{rule: "unary plus is the identity", src: "x[+2]", want: items(idx(2))},
	{rule: "mixed unary signs evaluate as Python would", src: "x[-+-+-4]", want: items(idx(-4))},
	{rule: "~k is -k-1", src: "x[~0]", want: items(idx(-1))},
	{rule: "~ and - combine as in Python", src: "x[-~5, ~-5]", want: items(idx(6), idx(4))},
	{rule: "parentheses around an integer do nothing", src: "x[-(-(3))]", want: items(idx(3))},
	{rule: "unary minus on a bool gives an int", src: "x[-True]", want: items(idx(-1))},
	{rule: "hex, octal and binary literals are integers", src: "x[0x10, 0o10, 0b10]", want: items(idx(16), idx(8), idx(2))},
	{rule: "unary ops work in slice parts", src: "x[~0:-(-2):--1]", want: items(sl(-1, 2, 1))},

	// Tuple forms.
	{rule: "x[()] is the empty tuple: no items", src: "x[()]", want: items()},
	{rule: "x[1,] is the same as x[1]", src: "x[1,]", want: items(idx(1))},
	{rule: "x[...,] is the same as x[...]", src: "x[...,]", want: items(ellipsis)},
	{rule: "a parenthesised tuple is the same as a bare one", src: "x[(1, 2)]", want: items(idx(1), idx(2))},
	{rule: "a parenthesised tuple with a trailing comma", src: "x[(None, -1,)]", want: items(newAxis, idx(-1))},
	{rule: "a trailing comma after a slice", src: "x[1:2,]", want: items(sl(1, 2, nil))},
	{rule: "64 items are allowed", src: tuple(64, "0"), want: make([]engine.IndexItem, 64)},

	// Big integers.
	{rule: "2**70 as an index can never be in bounds", src: "x[" + big70 + "]", kind: engine.OutOfRange, refused: true},
	{rule: "-2**70 as an index can never be in bounds", src: "x[0, -" + big70 + "]", kind: engine.OutOfRange, refused: true},
	{rule: "2**63 is just outside int64", src: "x[9223372036854775808]", kind: engine.OutOfRange, refused: true},
	{rule: "-2**63 is the smallest int64 and a valid index", src: "x[-9223372036854775808]", want: items(idx(math.MinInt64))},
	{rule: "2**63-1 is the largest int64 and a valid index", src: "x[9223372036854775807]", want: items(idx(math.MaxInt64))},
	{rule: "big slice bounds clamp to the int64 range", src: "x[-" + big70 + ":" + big70 + "]",
		want: items(sl(int64(math.MinInt64), int64(math.MaxInt64), nil))},
	{rule: "a big positive step clamps to MaxInt64", src: "x[::" + big70 + "]", want: items(sl(nil, nil, int64(math.MaxInt64)))},
	{rule: "a big negative step clamps to -MaxInt64", src: "x[::-" + big70 + "]", want: items(sl(nil, nil, int64(-math.MaxInt64)))},
	{rule: "a step of -2**63 clamps to -MaxInt64 like PySlice_Unpack", src: "x[::-9223372036854775808]", want: items(sl(nil, nil, int64(-math.MaxInt64)))},
	{rule: "a start of -2**63 is in range and kept", src: "x[-9223372036854775808:]", want: items(sl(int64(math.MinInt64), nil, nil))},
	{rule: "~ on a huge literal is exact", src: "x[~-" + big70 + ":]", want: items(sl(int64(math.MaxInt64), nil, nil))},

	// Ellipsis and item count.
	{rule: "two ellipses are invalid", src: "x[..., ...]", kind: engine.InvalidSpec, refused: true},
	{rule: "a second ellipsis is reported at its place: the earlier bad item wins", src: "x[1.5, ..., ...]", kind: engine.InvalidSpec, refused: true},
	{rule: "an item before a second ellipsis decides the error", src: "x[..., " + big70 + ", ...]", kind: engine.OutOfRange, refused: true},
	{rule: "a second ellipsis before an out-of-range index decides the error", src: "x[..., ..., " + big70 + "]", kind: engine.InvalidSpec, refused: true},
	{rule: "65 items are too many indices", src: tuple(65, "0"), kind: engine.InvalidSpec},
	{rule: "too many indices is checked before any item", src: tuple(65, big70), kind: engine.InvalidSpec},
	{rule: "65 items with slices (an ExtSlice) are too many", src: tuple(65, ":"), kind: engine.InvalidSpec},
	{rule: "65 new axes are too many indices too", src: tuple(65, "None"), kind: engine.InvalidSpec},

	// Advanced indexing: arrays written inline or as names.
	{rule: "True is a 0-d boolean array", src: "x[True]", want: items(arr(engine.BoolType, nil, 1))},
	{rule: "False is a 0-d boolean array", src: "x[False]", want: items(arr(engine.BoolType, nil, 0))},
	{rule: "a boolean among other items", src: "x[0, :, True]", want: items(idx(0), sl(nil, nil, nil), arr(engine.BoolType, nil, 1))},
	{rule: "'not' gives a bool, so it is a boolean array", src: "x[not 0]", want: items(arr(engine.BoolType, nil, 1))},
	{rule: "a list is an int64 array", src: "x[[1, 2]]", want: items(arr(engine.Int64Type, []int{2}, 1, 2))},
	{rule: "an empty list is an empty int64 array (NumPy casts it to intp)", src: "x[[]]", want: items(arr(engine.Int64Type, []int{0}))},
	{rule: "a list of booleans is a bool array", src: "x[[True, False]]", want: items(arr(engine.BoolType, []int{2}, 1, 0))},
	{rule: "booleans among integers count as 0 and 1 in an int array", src: "x[[True, 2, False]]", want: items(arr(engine.Int64Type, []int{3}, 1, 2, 0))},
	{rule: "a list next to a slice", src: "x[1:2, [0]]", want: items(sl(1, 2, nil), arr(engine.Int64Type, []int{1}, 0))},
	{rule: "nested lists are dimensions", src: "x[[[0, 1], [1, 0], [2, -1]]]", want: items(arr(engine.Int64Type, []int{3, 2}, 0, 1, 1, 0, 2, -1))},
	{rule: "nested empty lists give a 0 dimension", src: "x[[[], []]]", want: items(arr(engine.Int64Type, []int{2, 0}))},
	{rule: "a ragged nesting is NumPy's inhomogeneous-shape ValueError", src: "x[[[0, 1], [0]]]", kind: engine.InvalidSpec, refused: true},
	{rule: "a list next to an integer at the same level is ragged", src: "x[[[0], 1]]", kind: engine.InvalidSpec, refused: true},
	{rule: "an empty list next to a non-empty one is ragged", src: "x[[[], [0]]]", kind: engine.InvalidSpec, refused: true},
	{rule: "a nested tuple item is a sequence index", src: "x[(1, 2),]", want: items(arr(engine.Int64Type, []int{2}, 1, 2))},
	{rule: "a nested tuple next to a slice", src: "x[(1, 2), 3:]", want: items(arr(engine.Int64Type, []int{2}, 1, 2), sl(3, nil, nil))},
	{rule: "a tuple inside a list is a dimension", src: "x[[(0, 1), (1, 0)]]", want: items(arr(engine.Int64Type, []int{2, 2}, 0, 1, 1, 0))},
	{rule: "an empty tuple item is an empty int64 array", src: "x[(), 0]", want: items(arr(engine.Int64Type, []int{0}), idx(0))},
	{rule: "a parenthesised tuple is the whole index, not an array", src: "x[((0, 1))]", want: items(idx(0), idx(1))},
	{rule: "unary operators apply inside lists", src: "x[[-1, ~0, --2]]", want: items(arr(engine.Int64Type, []int{3}, -1, -1, 2))},
	{rule: "32 nested lists are allowed", src: "x[" + strings.Repeat("[", 32) + "0" + strings.Repeat("]", 32) + "]", want: items(arr(engine.Int64Type, repeatInt(1, 32), 0))},
	{rule: "33 nested lists exceed NumPy's 32 dimensions", src: "x[" + strings.Repeat("[", 33) + "0" + strings.Repeat("]", 33) + "]", kind: engine.InvalidSpec, refused: true},
	{rule: "a float in a list makes a float array", src: "x[[0, 1.5]]", kind: engine.InvalidSpec, refused: true},
	{rule: "None in a list makes an object array", src: "x[[0, None]]", kind: engine.InvalidSpec, refused: true},
	{rule: "a name in a list is not evaluated", src: "x[[i, 0]]", kind: engine.InvalidSpec},
	{rule: "integers beyond uint64 make an object array", src: "x[[" + big70 + "]]", kind: engine.InvalidSpec, refused: true},
	{rule: "integers below int64 make an object array", src: "x[[-" + big70 + "]]", kind: engine.InvalidSpec, refused: true},
	{rule: "a uint64 list keeps its bits: NumPy casts it to intp unchecked", src: "x[[18446744073709551615, 9223372036854775808]]", want: items(arr(engine.Int64Type, []int{2}, -1, math.MinInt64))},
	{rule: "booleans with uint64 integers still make uint64", src: "x[[True, 18446744073709551615]]", want: items(arr(engine.Int64Type, []int{2}, 1, -1))},
	{rule: "int64 and uint64-only integers together make a float64 array", src: "x[[0, 9223372036854775808]]", kind: engine.InvalidSpec, refused: true},
	{rule: "a list comprehension is not an index", src: "x[[i for i in y]]", kind: engine.InvalidSpec},
	{rule: "an earlier out-of-range index beats a later ragged list", src: "x[" + big70 + ", [[0], []]]", kind: engine.OutOfRange, refused: true},
	{rule: "an earlier ragged list beats a later out-of-range index", src: "x[[[0], []], " + big70 + "]", kind: engine.InvalidSpec, refused: true},
	{rule: "a name is an array input", src: "x[i]", want: items(named("i"))},
	{rule: "x itself may index x", src: "x[x]", want: items(named("x"))},
	{rule: "names mix with every other item", src: "x[i, 1:, None, ..., j, [0]]",
		want: items(named("i"), sl(1, nil, nil), newAxis, ellipsis, named("j"), arr(engine.Int64Type, []int{1}, 0))},
	{rule: "np alone is a name", src: "x[np]", want: items(named("np"))},
	{rule: "a unary operation on a name is not evaluated", src: "x[-i]", kind: engine.InvalidSpec},
	{rule: "a name is not a slice part", src: "x[i:]", kind: engine.InvalidSpec},

	// Other invalid items.
	{rule: "a float is not an index", src: "x[1.5]", kind: engine.InvalidSpec, refused: true},
	{rule: "a negative float is still a float", src: "x[-1.0]", kind: engine.InvalidSpec, refused: true},
	{rule: "a complex number is not an index", src: "x[1j]", kind: engine.InvalidSpec, refused: true},
	{rule: "a string is not an index", src: "x['a']", kind: engine.InvalidSpec, refused: true},
	{rule: "bytes are not an index", src: "x[b'a']", kind: engine.InvalidSpec, refused: true},
	{rule: "an attribute other than newaxis is not an index", src: "x[np.pi]", kind: engine.InvalidSpec},
	{rule: "newaxis of another module is not an index", src: "x[torch.newaxis]", kind: engine.InvalidSpec},
	{rule: "a nested attribute is not an index", src: "x[a.np.newaxis]", kind: engine.InvalidSpec},
	{rule: "a call is not an index", src: "x[len(y)]", kind: engine.InvalidSpec},
	{rule: "a binary operation is not evaluated", src: "x[1 + 1]", kind: engine.InvalidSpec},
	{rule: "a power is not evaluated", src: "x[2**70]", kind: engine.InvalidSpec},
	{rule: "a set is not an index", src: "x[{1}]", kind: engine.InvalidSpec},
	{rule: "a dict is not an index", src: "x[{1: 2}]", kind: engine.InvalidSpec},
	{rule: "a lambda is not an index", src: "x[lambda: 0]", kind: engine.InvalidSpec},
	{rule: "unary minus on None is a TypeError in Python", src: "x[-None]", kind: engine.InvalidSpec},
	{rule: "~ on a float is a TypeError in Python", src: "x[~1.0]", kind: engine.InvalidSpec},
	{rule: "a float slice start", src: "x[1.5:]", kind: engine.InvalidSpec, refused: true},
	{rule: "a string slice stop", src: "x[:'a']", kind: engine.InvalidSpec, refused: true},
	{rule: "an ellipsis is not a slice part", src: "x[...:2]", kind: engine.InvalidSpec, refused: true},
	{rule: "a list is not a slice part", src: "x[::[1]]", kind: engine.InvalidSpec, refused: true},
	{rule: "the first refused item is the invalid slice part (GetItem raises the later out-of-range index first, as NumPy)", src: "x[1.5:, " + big70 + "]", kind: engine.InvalidSpec, refused: true},

	// Not a single subscript of a name.
	{rule: "a bare name is not a subscript", src: "x", kind: engine.InvalidSpec},
	{rule: "a bare integer is not a subscript", src: "1", kind: engine.InvalidSpec},
	{rule: "a chained subscript is rejected", src: "x[1][2]", kind: engine.InvalidSpec},
	{rule: "a call result cannot be subscripted", src: "f(x)[1]", kind: engine.InvalidSpec},
	{rule: "an attribute base is rejected", src: "np.x[1]", kind: engine.InvalidSpec},
	{rule: "a None base is rejected", src: "None[1]", kind: engine.InvalidSpec},
	{rule: "a subscript inside an expression is rejected", src: "-x[1]", kind: engine.InvalidSpec},
	{rule: "a tuple of subscripts is rejected", src: "x[1], x[2]", kind: engine.InvalidSpec},

	// Syntax errors: the position is the start of the offending token.
	{rule: "a doubled comma points at the second comma", src: "x[1,,2]", kind: engine.InvalidSpec, pos: "column 5"},
	{rule: "an extra closing bracket points at it", src: "x[1]]", kind: engine.InvalidSpec, pos: "column 5"},
	{rule: "an unclosed bracket points past the end", src: "x[", kind: engine.InvalidSpec, pos: "column 3"},
	{rule: "an unclosed index points past the end", src: "x[1, 2", kind: engine.InvalidSpec, pos: "column 7"},
	{rule: "the empty source points at column 1", src: "", kind: engine.InvalidSpec, pos: "column 1"},
	{rule: "white space alone points at column 1", src: " \n ", kind: engine.InvalidSpec, pos: "column 1"},
	{rule: "an unclosed bracket points past its last character, not past trailing blanks", src: "x[1,  \n\n", kind: engine.InvalidSpec, pos: "column 5"},
	{rule: "a wrong closing bracket points at it", src: "x[1)", kind: engine.InvalidSpec, pos: "column 4"},
	{rule: "trailing junk points at its start", src: "x[1] yy", kind: engine.InvalidSpec, pos: "column 6"},
	{rule: "a fourth slice part points at the third colon", src: "x[1:2:3:4]", kind: engine.InvalidSpec, pos: "column 8"},
	{rule: "an unknown character points at it", src: "x[$]", kind: engine.InvalidSpec, pos: "column 3"},
	{rule: "an unknown character right after a token points at the character", src: "x[1?]", kind: engine.InvalidSpec, pos: "column 4"},
	{rule: "a semicolon points at it", src: "x[1;2]", kind: engine.InvalidSpec, pos: "column 4"},
	{rule: "a keyword points at its start", src: "x[1, yield]", kind: engine.InvalidSpec, pos: "column 6"},
	{rule: "a slice inside parentheses points at the colon", src: "x[(1:2)]", kind: engine.InvalidSpec, pos: "column 5"},
	{rule: "a leading-zero decimal points at the number", src: "x[0, 01]", kind: engine.InvalidSpec, pos: "column 6"},
	{rule: "an unterminated string points at its quote", src: "x[1, 'a]", kind: engine.InvalidSpec, pos: "column 6"},
	{rule: "an unterminated bytes literal points at its prefix", src: "x[b'a]", kind: engine.InvalidSpec, pos: "column 3"},
	{rule: "a tab counts as one column", src: "x[\t1,,]", kind: engine.InvalidSpec, pos: "column 6"},
	{rule: "columns count characters, not bytes", src: "x[é,,]", kind: engine.InvalidSpec, pos: "column 5"},
	{rule: "leading blanks count in the column", src: "   x[1,,]", kind: engine.InvalidSpec, pos: "column 8"},
	{rule: "an underscore Python does not take in a literal (two in a row) is a syntax error", src: "x[1__0]", kind: engine.InvalidSpec, pos: "column 4"},
	{rule: "a trailing underscore in a literal is a syntax error", src: "x[0, 1_]", kind: engine.InvalidSpec, pos: "column 7"},
	{rule: "a grouped decimal with a leading zero is a syntax error", src: "x[0_7]", kind: engine.InvalidSpec, pos: "column 4"},
	{rule: "digit groups keep the columns of what follows them", src: "x[1_000,,]", kind: engine.InvalidSpec, pos: "column 9"},
	{rule: "a star expression is not in the 3.4 subscript grammar", src: "x[*a]", kind: engine.InvalidSpec, pos: "column 3"},
	{rule: "async is a keyword since Python 3.7, not a name", src: "x[0, async]", kind: engine.InvalidSpec, pos: "column 6"},
	{rule: "await is a keyword since Python 3.7, also as the subscripted name", src: "await[0]", kind: engine.InvalidSpec, pos: "column 1"},
	{rule: "async in a list is Python's syntax error too", src: "x[[0,\n async]]", kind: engine.InvalidSpec, pos: "line 2, column 2"},
	{rule: "an error on a continuation line names the line", src: "x[1,\n2,,3]", kind: engine.InvalidSpec, pos: "line 2, column 3"},
	{rule: "a second expression line names its line", src: "x[1]\ny", kind: engine.InvalidSpec, pos: "line 2, column 1"},
	{rule: "CRLF ends a line like LF", src: "x[1]\r\ny", kind: engine.InvalidSpec, pos: "line 2, column 1"},
	{rule: "an indented second line points at its token", src: "x[1]\n  y", kind: engine.InvalidSpec, pos: "line 2, column 3"},
	{rule: "an operator at the end of a line points at the line end", src: "x[1] +\ny", kind: engine.InvalidSpec, pos: "line 1, column 7"},
	{rule: "an error after a backslash continuation names the line", src: "x[\\\n1,,]", kind: engine.InvalidSpec, pos: "line 2, column 3"},

	// White space and newlines.
	{rule: "spaces inside the brackets are ignored", src: "x[ 1 , 2 : 4 ]", want: items(idx(1), sl(2, 4, nil))},
	{rule: "a space before the bracket is allowed", src: "x [1]", want: items(idx(1))},
	{rule: "leading spaces and tabs are ignored like eval does", src: " \t x[1]", want: items(idx(1))},
	{rule: "leading blank lines are ignored", src: "\n\n  x[1]", want: items(idx(1))},
	{rule: "a trailing newline is allowed", src: "x[1]\n", want: items(idx(1))},
	{rule: "trailing blank lines and spaces are allowed", src: "x[1]  \n\n  \n", want: items(idx(1))},
	{rule: "newlines inside brackets are implicit line joining", src: "x[\n  1,\n  ::2,\n]", want: items(idx(1), sl(nil, nil, 2))},
	{rule: "CRLF and lone CR inside brackets are newlines", src: "x[1,\r\n2,\r3]", want: items(idx(1), idx(2), idx(3))},
	{rule: "a backslash continues a line", src: "x[1,\\\n 2]", want: items(idx(1), idx(2))},
	{rule: "a comment is ignored", src: "x[1]  # first row", want: items(idx(1))},
	{rule: "a comment inside brackets is ignored", src: "x[1,  # row\n 2]", want: items(idx(1), idx(2))},
}

func TestParse(t *testing.T) {
	opts := cmpopts.EquateEmpty()
	for _, tc := range parseCases {
		got, err := Parse(tc.src)
		if tc.refused {
			if err != nil {
				t.Errorf("%s: Parse(%q) error: %v; want the subscript read with a refused item", tc.rule, tc.src, err)
			} else if k := engine.KindOf(engine.Refused(got)); k != tc.kind {
				t.Errorf("%s: Parse(%q) first refused item has kind %q, want %s (%v)", tc.rule, tc.src, k, tc.kind, got)
			}
			continue
		}
		if tc.kind == "" {
			if err != nil {
				t.Errorf("%s: Parse(%q) error: %v", tc.rule, tc.src, err)
				continue
			}
			if diff := cmp.Diff(tc.want, got, opts); diff != "" {
				t.Errorf("%s: Parse(%q) items mismatch (-want +got):\n%s", tc.rule, tc.src, diff)
			}
			continue
		}
		var e *engine.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: Parse(%q) = %v, %v; want an *engine.Error of kind %s", tc.rule, tc.src, got, err, tc.kind)
			continue
		}
		if got != nil {
			t.Errorf("%s: Parse(%q) returned items with an error", tc.rule, tc.src)
		}
		if k := engine.KindOf(err); k != tc.kind {
			t.Errorf("%s: Parse(%q) error kind %s, want %s (%v)", tc.rule, tc.src, k, tc.kind, err)
		}
		if tc.pos != "" && !strings.Contains(e.Message, "syntax error at "+tc.pos+" ") {
			t.Errorf("%s: Parse(%q) error %q does not name %s", tc.rule, tc.src, e.Message, tc.pos)
		}
	}
}

// TestParsePathological checks inputs built to exhaust the stack, memory or
// time of a naive parser.
func TestParsePathological(t *testing.T) {
	const n = 30000
	cases := []struct {
		rule string
		src  string
		want []engine.IndexItem // nil: any *engine.Error of kind
		kind engine.ErrorKind
	}{
		{rule: "source over the length limit is rejected", src: "x[" + strings.Repeat("0", MaxSourceBytes) + "]", kind: engine.InvalidSpec},
		{rule: "deeply parenthesised integer", src: "x[" + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + "]", want: items(idx(1))},
		{rule: "unbalanced deep parentheses", src: "x[" + strings.Repeat("(", 2*n), kind: engine.InvalidSpec},
		{rule: "deeply nested lists", src: "x[" + strings.Repeat("[", n) + strings.Repeat("]", n) + "]", kind: engine.InvalidSpec},
		{rule: "a long chain of unary minus on a huge literal", src: "x[" + strings.Repeat("-", 2*n) + big70 + ":]", want: items(sl(int64(math.MaxInt64), nil, nil))},
		{rule: "a long chain of mixed unary ops", src: "x[" + strings.Repeat("-~", n) + "1]", want: items(idx(n + 1))},
		{rule: "a long chain of not is a boolean", src: "x[" + strings.Repeat("not ", n/2) + "1]", want: items(arr(engine.BoolType, nil, 1))},
		{rule: "a long chain of binary operations", src: "x[" + strings.Repeat("1+", n) + "1]", kind: engine.InvalidSpec},
		{rule: "a long chain of powers", src: "x[" + strings.Repeat("2**", n/2) + "1]", kind: engine.InvalidSpec},
		{rule: "a long attribute chain", src: "x[" + strings.Repeat("a.", n) + "b]", kind: engine.InvalidSpec},
		{rule: "a long chain of subscripts", src: "x" + strings.Repeat("[1]", n/2), kind: engine.InvalidSpec},
		{rule: "deeply nested calls", src: "x[" + strings.Repeat("f(", n/2) + strings.Repeat(")", n/2) + "]", kind: engine.InvalidSpec},
		{rule: "a huge integer literal", src: "x[" + strings.Repeat("9", MaxSourceBytes-3) + "]", kind: engine.OutOfRange},
		{rule: "a huge tuple", src: tuple(n/2, "1"), kind: engine.InvalidSpec},
	}
	for _, tc := range cases {
		got, err := Parse(tc.src)
		if tc.kind == "" {
			if err != nil {
				t.Errorf("%s: error: %v", tc.rule, err)
			} else if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: items mismatch (-want +got):\n%s", tc.rule, diff)
			}
			continue
		}
		if err == nil {
			err = engine.Refused(got) // a literal NumPy refuses is an item
		}
		if k := engine.KindOf(err); k != tc.kind {
			t.Errorf("%s: error kind %q, want %s (%.200v)", tc.rule, k, tc.kind, err)
		}
		if e := err.Error(); len(e) > 1000 {
			t.Errorf("%s: error message is %d bytes long", tc.rule, len(e))
		}
	}
}

// TestParseConcurrent checks that parsing is safe for concurrent use (run
// with -race).
func TestParseConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, tc := range parseCases[:40] {
				got, err := Parse(tc.src)
				if tc.refused {
					err = engine.Refused(got)
				}
				if engine.KindOf(err) != tc.kind {
					t.Errorf("%s: concurrent Parse(%q) error %v", tc.rule, tc.src, err)
				} else if tc.kind == "" && !cmp.Equal(tc.want, got, cmpopts.EquateEmpty()) {
					t.Errorf("%s: concurrent Parse(%q) = %v", tc.rule, tc.src, got)
				}
			}
		}()
	}
	wg.Wait()
}

// FuzzParse checks that Parse never panics and returns either items or an
// *engine.Error of a valid kind, never both, and that its plain reading
// agrees with gpython's.
func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		if len(tc.src) < 1000 {
			f.Add(tc.src)
		}
	}
	f.Add("x[((((((1))))))]")
	f.Add("x[-~-~+" + big70 + ":" + big70 + ":-" + big70 + "]")
	f.Add("x['''a\nb")
	f.Add("x[1]\\")
	f.Add("x[\"\\N{bad}\"]")
	f.Add("x[1, -2:, ::-1, None, ...]")
	f.Add("x[np.newaxis, 9223372036854775807:]")
	f.Add("x[i, [[0, 1], [True, -2]], (0, 1), False, [], [(), ()]]")
	f.Add("x[[18446744073709551615, True], [[0], [1, 2]], [0, 1.5]]")
	f.Fuzz(func(t *testing.T, src string) {
		samePlainReading(t, src)
		got, err := Parse(src)
		if err == nil {
			for _, it := range got {
				if it.Kind < engine.IndexInt || it.Kind > engine.IndexInvalid {
					t.Fatalf("Parse(%q) returned an item of kind %d", src, it.Kind)
				}
				if (it.Kind == engine.IndexInvalid) != (it.Err != nil) && it.Kind != engine.IndexSlice {
					t.Fatalf("Parse(%q) returned item %+v: only IndexInvalid items and slices carry an error", src, it)
				}
				if it.Err != nil && !engine.KindOf(it.Err).Valid() {
					t.Fatalf("Parse(%q) returned item %+v whose error has no valid kind", src, it)
				}
				if it.Kind == engine.IndexArray {
					checkArrayItem(t, src, it)
				}
			}
			if len(got) > maxItems {
				t.Fatalf("Parse(%q) returned %d items", src, len(got))
			}
			return
		}
		var e *engine.Error
		if !errors.As(err, &e) {
			t.Fatalf("Parse(%q) error %T is not an *engine.Error: %v", src, err, err)
		}
		if !e.Kind.Valid() {
			t.Fatalf("Parse(%q) error kind %q is not valid", src, e.Kind)
		}
		if got != nil {
			t.Fatalf("Parse(%q) returned items and an error", src)
		}
		if strings.Contains(e.Message, "internal parser error") {
			t.Fatalf("Parse(%q) hit a parser panic: %v", src, err)
		}
	})
}

// TestParseKeepsNames checks that a literal NumPy refuses is read as an
// item, so the names of the subscript are still known (NumPy 1.24 raises
// its error whatever other names the subscript holds), while an
// expression conform does not evaluate still makes the subscript
// unreadable.
func TestParseKeepsNames(t *testing.T) {
	cases := []struct {
		rule  string
		src   string
		names []string // nil: Parse refuses the subscript
		kind  engine.ErrorKind
	}{
		{"a float list before a name is refused, the name kept", "x[[1.0], i]", []string{"i"}, engine.InvalidSpec},
		{"a float list after a name is refused, the name kept", "x[i, [0.5]]", []string{"i"}, engine.InvalidSpec},
		{"a float list is refused", "x[[1.0, 2.0]]", []string{}, engine.InvalidSpec},
		{"a string list is refused", `x[["a"], j]`, []string{"j"}, engine.InvalidSpec},
		{"a bytes list is refused", `x[[b"a"], j]`, []string{"j"}, engine.InvalidSpec},
		{"a complex list is refused", "x[[1j], i, j]", []string{"i", "j"}, engine.InvalidSpec},
		{"a mixed list of numbers and strings is refused", `x[i, [1, "a", 2.5]]`, []string{"i"}, engine.InvalidSpec},
		{"an ellipsis in a list makes an object array", "x[[...], i]", []string{"i"}, engine.InvalidSpec},
		{"a ragged list is refused, the name kept", "x[i, [[0], [1, 2]]]", []string{"i"}, engine.InvalidSpec},
		{"a float item is refused, the name kept", "x[i, 1.5]", []string{"i"}, engine.InvalidSpec},
		{"a string item is refused, the name kept", "x['a', i]", []string{"i"}, engine.InvalidSpec},
		{"a float slice bound is kept with the slice", "x[1.5:2, i]", []string{"i"}, engine.InvalidSpec},
		{"a list slice bound is a literal too", "x[i, :[1]]", []string{"i"}, engine.InvalidSpec},
		{"a second ellipsis is refused where it stands", "x[..., i, ...]", []string{"i"}, engine.InvalidSpec},
		{"an integer beyond int64 is refused, the name kept", "x[i, " + big70 + "]", []string{"i"}, engine.OutOfRange},
		{"a name inside a list is an expression conform does not evaluate", "x[[i, 1.0], j]", nil, engine.InvalidSpec},
		{"an operator is an expression conform does not evaluate", "x[[1.0], 1 + i]", nil, engine.InvalidSpec},
		{"a unary minus on a string is Python's TypeError", "x[-'a', i]", nil, engine.InvalidSpec},
		{"a name as a slice bound is not evaluated", "x[1.5:i]", nil, engine.InvalidSpec},
	}
	for _, tc := range cases {
		items, err := Parse(tc.src)
		if tc.names == nil {
			if engine.KindOf(err) != tc.kind {
				t.Errorf("%s: Parse(%q) = %v, %v; want an error of kind %s", tc.rule, tc.src, items, err, tc.kind)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: Parse(%q) error %v; want the subscript read", tc.rule, tc.src, err)
			continue
		}
		if diff := cmp.Diff(tc.names, Names(items), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s: Names(Parse(%q)) mismatch (-want +got):\n%s", tc.rule, tc.src, diff)
		}
		if k := engine.KindOf(engine.Refused(items)); k != tc.kind {
			t.Errorf("%s: Parse(%q) first refused item has kind %q, want %s", tc.rule, tc.src, k, tc.kind)
		}
	}
}
