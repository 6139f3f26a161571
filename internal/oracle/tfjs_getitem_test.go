package oracle

import (
	"math/rand"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/expr"
)

// getitemSeeds are subscripts that exercise the corners of the grammar
// internal/expr accepts (gpython's Python 3.4) and of its item rules.
var getitemSeeds = []string{
	"x[1, 2:4, None, ..., :-3:-1, :]", "x[()]", "x[ ( ) ]", "x[1,]", "x[...,]", "x[(...)]", "x[(None,)]",
	"x[(1, 2)]", "x[((1, 2))]", "x[(1, 2),]", "x[(),]", "x[1:2, (3, 4)]", "x[[0, 1]]", "x[[]]",
	"x[True]", "x[+True]", "x[-True]", "x[~True]", "x[not 1]", "x[not -1:]", "x[True:False:not 0]",
	"x[- not 1]", "x[~-+~1]", "x[-1.5]", "x[~1.5]", "x[-None]", "x[not None]", "x[1e5]", "x[.5]", "x[1.]",
	"x[1j]", "x[09j]", "x[0123]", "x[0123.5]", "x[00]", "x[0_0]", "x[1__0]", "x[0o17, 0O1, 0B1, 0X1f]",
	"x[0b12]", "x[0o8]", "x[0x]", "x[1e]", "x[1.real]", "x[1 .real]", "x[1..real]", "x[1if 1else 0]",
	"x[0or 1]", "x[0x1for 1]", "x[np.newaxis, numpy . newaxis, tf.\nnewaxis]", "x[(np).newaxis]",
	"x[pd.newaxis]", "x[np.newaxis.y]", "x[Ellipsis]", "x[-Ellipsis]", "x[1:...]", "x[...:1]", "x[....x]",
	"(x)[1]", "((x)[1])", "x[1][2]", "x.y[1]", "x[1],", "x[1]+1", "x [1]", "x\n[1]", "x[\n1\n]",
	"x[1:2:3:4]", "x[(1:2)]", "x[]", "x[,1]", "x[1,,2]", "x[:]", "x[::]", "x[:,]", "x[1:\n2]",
	"x[a if b else c]", "x[a if b]", "x[1 < 2 < 3]", "x[a not in b]", "x[a is not b]", "x[1 <> 2]",
	"x[1 @ 2]", "x[f(1, a=2)]", "x[f(*a)]", "x[f(a for a in b)]", "x[{}]", "x[{1: 2}]", "x[{1, 2,}]",
	"x[{**a}]", "x[2**-1]", "x[-2**2]", "x['a' 'b']", "x['a' b'b']", "x[rb'a', u'e']", "x[ur'g']",
	"x[f'a']", "x['\\x41']", "x['\\N{DASH}']", "x['a\nb']", "x['''a\nb''']", "x[b'\u00e9']",
	"x[lambda: 0]", "x[(yield)]", "x[[a for a in b]]", "x[x for x in y]", "x[(*a, 1)]", "x[await]",
	"x[\u00e9]", "\u00e9[1]", "x[1\u00a0]", "x[1\x00]", "x[1]#\x00", "x[\f1]", "x[\v1]", "x[1]\n\f\n",
	"x[1] # c", "# c\nx[1]", "# c\n  x[1]", "  x[1]", "\n\nx[1]", "x[1]\n  ", "x[1]\ny", "x[1]\\",
	"x[1,\\\n2]", "x[1, \\ \n2]", "x[1]\r\n", "x[\r1]",
	"x[9223372036854775807]", "x[-9223372036854775808]", "x[9223372036854775808]", "x[-9223372036854775809]",
	"x[-~9223372036854775807]", "x[0xffffffffffffffff]", "x[99999999999999999999, 1.5]",
	"x[1.5, 99999999999999999999]", "x[99999999999999999999, 1 2]", "x[99999999999999999999:1]",
	"x[-99999999999999999999:99999999999999999999:-99999999999999999999]",
	"x[99999999999999999999, lambda: 0]", "x[99999999999999999999, '\\x41']", "x[2147483647]",
	"x[-2147483648]", "x[2147483648:]", "x[::0]", "x[..., ...]",
}

// getitemFragments are spliced into the seeds to make more sources.
var getitemFragments = []string{
	"(", ")", "[", "]", "{", "}", ",", ":", "::", ".", "...", "-", "+", "~", "not ", " if ", " else ", " or ",
	" in ", " is ", " for ", "lambda: 0", "*", "**", "//", "@", "<", "==", "=", ";", "#", "\n", "\\\n", "\\",
	"\t", " ", "\f", "\r", "0", "1", "00", "01", "0x1f", "0b1", "1_0", "1.5", "1j", "1if", "1e",
	"99999999999999999999", "9223372036854775808", "~9223372036854775807", "None", "True", "Ellipsis",
	"np.newaxis", "tf.newaxis", "pd.newaxis", "x", "yield", "'a'", "b'c'", "rb'd'", "f'g'", "'''h'''",
	"'\\x41'", "\u00e9", "\u00a0", "\x00", "# c",
}

// TestTFJSGetItemParse checks that the TF.js oracle parses getitem
// subscripts as internal/expr does: where expr.Parse rejects a source the
// oracle gives the same error kind (several ellipses excepted: the oracle
// leaves those to TF.js); where expr.Parse reads a literal NumPy refuses
// as an item, the oracle answers the first such item's error kind, as
// TF's Python does (it checks every item before its kernel runs); and
// where it accepts one the oracle reports no parse error. The oracle may
// skip a source only where expr.Parse rejects it or holds a refused item.
func TestTFJSGetItemParse(t *testing.T) {
	requireOracle(t, "CONFORM_REQUIRE_TFJS", haveTFJS(), "the node packages are not installed (run `conform setup`) or node is not installed")
	c := startOracle(t, "tfjs")

	srcs := append([]string{}, getitemSeeds...)
	r := rand.New(rand.NewSource(oracleSeed()))
	for i := 0; i < 4*oracleCases(); i++ {
		s := getitemSeeds[r.Intn(len(getitemSeeds))]
		for k := 1 + r.Intn(3); k > 0; k-- {
			p := r.Intn(len(s) + 1)
			switch q := p + r.Intn(3); {
			case r.Intn(2) == 0:
				s = s[:p] + getitemFragments[r.Intn(len(getitemFragments))] + s[p:]
			case q <= len(s):
				s = s[:p] + s[q:]
			}
		}
		srcs = append(srcs, s)
	}

	g := gen{r: rand.New(rand.NewSource(1))}
	x := g.tensor(mustDType("<i8"), []int{3, 3, 3, 3})
	results := doAll(c, len(srcs), 16, func(i int) map[string]any {
		m := casefile.New(map[string]any{"op": "getitem", "index": srcs[i]}, map[string]*engine.Tensor{"x": x})
		return m.Request(0)
	})

	// Messages of the oracle's own parser (TF.js's messages never start so).
	parseMsg := regexp.MustCompile(`^(syntax error|index |item \d+|too many indices)`)
	bad := 0
	for i, src := range srcs {
		got := results[i]
		items, perr := expr.Parse(src)
		refused := engine.Refused(items) // a literal NumPy refuses, read as an item
		var why string
		switch {
		case got.Crash != "":
			why = "crash: " + got.Crash
		case perr == nil && slices.ContainsFunc(expr.Names(items), func(n string) bool { return n != "x" }):
			// A name with no input: the case is bad_input.
			if got.ErrKind != engine.BadInput {
				why = "a subscript name without input must be bad_input"
			}
		case refused != nil && strings.Contains(refused.Error(), "single ellipsis"):
			// TF.js decides; any answer goes.
		case refused != nil && got.Skip != "":
			// An index array before the refused item (the oracle runs
			// none), or a huge integer after two ellipses.
			if got.ReasonCode != "advanced-index" && got.ReasonCode != "parser-ambiguous" {
				why = "engine: refused item " + refused.Error() + "; skipped: " + got.Skip
			}
		case refused != nil && got.ErrKind != engine.KindOf(refused):
			// TF's Python checks every item before its kernel runs: the
			// first refused item is the answer.
			why = "engine: refused item " + refused.Error()
		case refused != nil:
			// The oracle answers the first refused item's kind.
		case perr != nil && strings.Contains(perr.Error(), "single ellipsis"):
			// TF.js decides; any answer goes.
		case perr != nil && got.Skip != "":
			// Only the parser's own doubts may skip a rejected source:
			// nesting too deep for it, or a fault after a huge integer
			// whose kind it cannot tell.
			if got.ReasonCode != "parser-limit" && got.ReasonCode != "parser-ambiguous" {
				why = "engine: " + perr.Error() + "; skipped: " + got.Skip
			}
		case perr != nil && got.ErrKind != engine.KindOf(perr):
			why = "engine: " + perr.Error()
		case perr == nil && got.ErrKind != "" && parseMsg.MatchString(got.ErrMessage):
			why = "engine parses it"
		case perr == nil && got.Skip != "" && got.ReasonCode == "parser-ambiguous":
			why = "engine parses it; skipped: " + got.Skip
		}
		if why != "" {
			if bad++; bad <= 30 {
				t.Errorf("getitem %q: oracle %+v; %s", src, got, why)
			}
		}
	}
	t.Logf("%d subscripts, %d parsed differently", len(srcs), bad)
}
