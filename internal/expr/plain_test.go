package expr

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// samePlainReading fails t if Parse, which reads plain subscripts itself,
// and gpython's reading of src disagree in any way: items, error kind or
// message. It reports whether src took the plain path.
func samePlainReading(t *testing.T, src string) bool {
	t.Helper()
	fast, fastErr := parse(src, true)
	slow, slowErr := parse(src, false)
	if diff := cmp.Diff(slow, fast); diff != "" {
		t.Fatalf("%q: the plain reading differs from gpython's (-gpython +plain):\n%s", src, diff)
	}
	if (fastErr == nil) != (slowErr == nil) || fastErr != nil && fastErr.Error() != slowErr.Error() {
		t.Fatalf("%q: the plain reading's error is %v, gpython's %v", src, fastErr, slowErr)
	}
	_, ok := plainSubscript(strings.TrimLeft(normalizeNewlines(src), " \t\n"))
	return ok
}

// TestPlainSubscript checks sources at the edges of the plain form: each
// must mean to plainSubscript what it means to gpython, and the plain
// ones must take the plain path.
func TestPlainSubscript(t *testing.T) {
	for _, tc := range []struct {
		src   string
		plain bool // plainSubscript reads it
		why   string
	}{
		{"x[1]", true, "one integer"},
		{"x[-1, 0]", true, "negative and zero integers"},
		{"x[1,]", true, "a trailing comma makes a tuple of one"},
		{"x[ 1 , 2 , ]", true, "spaces around items and commas"},
		{"x[:]", true, "an empty slice"},
		{"x[::]", true, "an empty slice with a step colon"},
		{"x[1:2:3, ::-1, :5, 2:]", true, "slices of every shape"},
		{"x[None:None:None]", true, "None slice parts"},
		{"x[None, np.newaxis, numpy.newaxis, tf.newaxis]", true, "new axes"},
		{"x[..., 1]", true, "an ellipsis"},
		{"x[..., ...]", true, "two ellipses: convert rejects it either way"},
		{"x[...:1]", true, "an ellipsis as a slice start: rejected either way"},
		{"x[::0]", true, "a zero step is kept for the engine"},
		{"x[9223372036854775807, -9223372036854775807]", true, "int64 extremes"},
		{"arr_2[1]", true, "another name"},
		{"x[1] ", true, "trailing spaces"},
		{"  x[1]", true, "leading spaces (Parse trims them)"},
		{"x[9223372036854775808]", true, "beyond int64: gpython's big integers"},
		{"x[-9223372036854775808]", true, "-2^63 is a negated big literal"},
		{"x[\t1 ,\n\t2\n]", true, "tabs and newlines inside the brackets"},
		{"x[-~+-1]", true, "a chain of unary operators"},
		{"x[(1, 2)]", true, "a parenthesised tuple is the whole index"},
		{"x[(1, 2),]", true, "a tuple as one item: an array-like index"},
		{"x[((1, 2),)]", true, "a tuple of a tuple"},
		{"x[(...,)]", true, "a tuple of one ellipsis"},
		{"x[(5):(-1):(~0)]", true, "parenthesised slice parts"},
		{"x[-(3), (None), (np.newaxis,)]", true, "parentheses around every kind of value"},
		{"x[~None]", true, "a unary operator on None: rejected either way"},
		{"x[-...]", true, "a unary operator on an ellipsis: rejected either way"},
		{"x[" + strings.Repeat("(", 16) + "1" + strings.Repeat(")", 16) + "]", true, "16 nested parentheses"},
		{"x[" + strings.Repeat("(", 17) + "1" + strings.Repeat(")", 17) + "]", false, "17 nested parentheses"},
		{"x[123456789012345678901234567890:-123456789012345678901234567890]", true, "big integers in a slice"},
		{"x[(1:2)]", false, "a slice in parentheses is a syntax error"},
		{"x[(1 2)]", false, "two values in parentheses"},
		{"x[(]", false, "an unclosed parenthesis"},
		{"x[-]", false, "a sign without a value"},
		{"x[1]\n", false, "a trailing newline"},
		{"x[1\f]", false, "a form feed"},
		{"x[1 \\\n]", false, "a line continuation"},
		{"x[-2**2]", false, "a power"},
		{"x[(1).real]", false, "an attribute of a parenthesised value"},
		{"x[01]", false, "a leading zero is a syntax error"},
		{"x[00]", false, "zeros are Python syntax the plain form does not take"},
		{"x[1_0]", false, "underscores in literals"},
		{"x[0x10]", false, "hexadecimal"},
		{"x[1.5]", false, "a float"},
		{"x[1e3]", false, "an exponent"},
		{"x[1j]", false, "a complex literal"},
		{"x[- 1]", true, "a space after the sign"},
		{"x[--1]", true, "two signs"},
		{"x[+1]", true, "unary plus"},
		{"x[~1]", true, "invert"},
		{"x[(1)]", true, "parentheses"},
		{"x[()]", true, "an empty tuple"},
		{"x[]", false, "no items: a syntax error"},
		{"x[,]", false, "a lone comma"},
		{"x[1,,2]", false, "an empty item"},
		{"x[1:2:3:4]", false, "four slice parts"},
		{"x[True]", true, "a boolean"},
		{"x[Ellipsis]", true, "the Ellipsis name"},
		{"x[np .newaxis]", false, "a space before the dot"},
		{"x[np.newaxisx]", false, "another attribute"},
		{"x[np.newaxis.y]", false, "an attribute of newaxis"},
		{"x[y]", true, "a name"},
		{"x[x, i_2, np, numpy, tf]", true, "names, the base and module names among them"},
		{"x[False, None, True]", true, "booleans"},
		{"x[[0, -1], [True, False,], []]", true, "lists"},
		{"x[[[0, 1], [2, 3]], [(0, 1)], ([1],)]", true, "nested lists and tuples"},
		{"x[[[0], [1, 2]]]", true, "a ragged list: rejected either way"},
		{"x[[0, None]]", true, "None in a list: rejected either way"},
		{"x[[1.5]]", false, "a float in a list"},
		{"x[[i for i in y]]", false, "a list comprehension"},
		{"x[[,]]", false, "a lone comma in a list"},
		{"x[[0 1]]", false, "two values in a list"},
		{"x[[0]", false, "an unclosed list"},
		{"x[i.j]", false, "an attribute of a name"},
		{"x[i(1)]", false, "a call of a name"},
		{"x[i[0]]", false, "a subscript of a name"},
		{"x[not 0]", false, "the keyword not"},
		{"x[lambda: 0]", false, "a lambda"},
		{"x[" + strings.Repeat("[", 16) + "1" + strings.Repeat("]", 16) + "]", true, "16 nested lists"},
		{"x[" + strings.Repeat("[", 17) + "1" + strings.Repeat("]", 17) + "]", false, "17 nested lists"},
		{"x[None(1)]", false, "a call"},
		{"x[1]\t", false, "a tab"},
		{"x[1,\n2]", true, "a newline in the brackets"},
		{"x[1] # c", false, "a comment"},
		{"x [1]", false, "a space before the bracket"},
		{"x[1][2]", false, "two subscripts"},
		{"None[1]", false, "a subscript of None"},
		{"if[1]", false, "a keyword"},
		{"xé[1]", false, "a non-ASCII name"},
		{"x[1", false, "no closing bracket"},
		{"x[1]]", false, "an extra bracket"},
	} {
		if got := samePlainReading(t, tc.src); got != tc.plain {
			t.Errorf("%q (%s): plain path %v, want %v", tc.src, tc.why, got, tc.plain)
		}
	}
}
