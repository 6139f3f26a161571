package gen

import (
	"math/big"
	"regexp"
	"strings"
	"testing"

	"github.com/go-python/gpython/parser"
	"github.com/go-python/gpython/py"

	"github.com/conformsuite/conform/engine"
)

var (
	digitRun      = regexp.MustCompile(`-?\d+`)
	singleInt     = regexp.MustCompile(`^x\[[-+~]?(\d+|0x[0-9a-f]+),\]$`)
	boolItem      = regexp.MustCompile(`[\[,(]\s*(True|False)\s*[,)\]]`)
	floatLiteral  = regexp.MustCompile(`\d\.\d|\de\d|\dj`)
	otherSpelling = regexp.MustCompile(`~\d|0x[0-9a-f]`)
	maxInt64      = big.NewInt(1<<63 - 1)
	minInt64      = new(big.Int).Neg(new(big.Int).Lsh(big.NewInt(1), 63))
)

// hasItem reports whether the parsed index has an item for which pred
// holds, given the size of its dimension (-1 if it consumes none).
func hasItem(e evaluated, pred func(it engine.IndexItem, d int) bool) bool {
	p, ok := parseIndex(e.m)
	if !ok {
		return false
	}
	shape := input(e.m).Shape
	for i, it := range p.items {
		d := -1
		if p.dims[i] >= 0 {
			d = shape[p.dims[i]]
		}
		if pred(it, d) {
			return true
		}
	}
	return false
}

// beyondInt64Literal reports whether s holds an integer literal outside
// int64.
func beyondInt64Literal(s string) bool {
	for _, lit := range digitRun.FindAllString(s, -1) {
		n, ok := new(big.Int).SetString(lit, 10)
		if ok && (n.Cmp(maxInt64) > 0 || n.Cmp(minInt64) < 0) {
			return true
		}
	}
	return false
}

// TestGetItemFindAny checks that getitem cases reach every edge class of
// NumPy basic indexing, valid and invalid.
func TestGetItemFindAny(t *testing.T) {
	requireAll(t, pool()["getitem"], []findRow{
		{"rank 0 input", func(e evaluated) bool { return input(e.m).Rank() == 0 && e.ok() }},
		{"rank >= 9 input", func(e evaluated) bool { return input(e.m).Rank() >= 9 && e.ok() }},
		{"a zero dimension sliced", func(e evaluated) bool { return contains(input(e.m).Shape, 0) && e.ok() }},
		{"x[()]", func(e evaluated) bool { return compact(index(e.m)) == "x[()]" }},
		{"x[()] on a rank-0 input", func(e evaluated) bool { return compact(index(e.m)) == "x[()]" && input(e.m).Rank() == 0 }},
		{"x[1,]: one integer with a trailing comma", func(e evaluated) bool { return singleInt.MatchString(compact(index(e.m))) }},
		{"x[...,]", func(e evaluated) bool { return compact(index(e.m)) == "x[...,]" }},
		{"x[...]", func(e evaluated) bool { return compact(index(e.m)) == "x[...]" }},
		{"a parenthesised tuple", func(e evaluated) bool {
			s := compact(index(e.m))
			return strings.HasPrefix(s, "x[(") && strings.HasSuffix(s, ")]") && strings.Contains(s, ",") && e.ok()
		}},
		{"white space inside the brackets (newline or tab)", func(e evaluated) bool { return strings.ContainsAny(index(e.m), "\n\t") && e.ok() }},
		{"an ellipsis covering zero dimensions", func(e evaluated) bool {
			p, ok := parseIndex(e.m)
			return ok && e.ok() && p.ellipsis >= 0 && p.consumed == input(e.m).Rank() && p.consumed > 0
		}},
		{"a new axis after the ellipsis", func(e evaluated) bool {
			p, ok := parseIndex(e.m)
			if !ok || p.ellipsis < 0 || !e.ok() {
				return false
			}
			for _, it := range p.items[p.ellipsis:] {
				if it.Kind == engine.IndexNewAxis {
					return true
				}
			}
			return false
		}},
		{"np.newaxis", func(e evaluated) bool { return strings.Contains(index(e.m), "np.newaxis") && e.ok() }},
		{"numpy.newaxis", func(e evaluated) bool { return strings.Contains(index(e.m), "numpy.newaxis") && e.ok() }},
		{"tf.newaxis", func(e evaluated) bool { return strings.Contains(index(e.m), "tf.newaxis") && e.ok() }},
		{"None as a new axis", func(e evaluated) bool {
			return hasItem(e, func(it engine.IndexItem, d int) bool { return it.Kind == engine.IndexNewAxis }) && strings.Contains(index(e.m), "None")
		}},
		{"None written as a slice part", func(e evaluated) bool { return strings.Contains(index(e.m), ":None") && e.ok() }},
		{"a slice with every part omitted", func(e evaluated) bool {
			return hasItem(e, func(it engine.IndexItem, d int) bool {
				return it.Kind == engine.IndexSlice && !it.HasStart && !it.HasStop && !it.HasStep
			})
		}},
		{"a slice with every part given", func(e evaluated) bool {
			return hasItem(e, func(it engine.IndexItem, d int) bool {
				return it.Kind == engine.IndexSlice && it.HasStart && it.HasStop && it.HasStep
			})
		}},
		{"a reverse slice starting below -d", func(e evaluated) bool {
			return e.ok() && hasItem(e, func(it engine.IndexItem, d int) bool {
				return it.Kind == engine.IndexSlice && d > 0 && it.HasStart && it.Start < -int64(d) && it.HasStep && it.Step < 0
			})
		}},
		{"a reverse slice with a stop beyond d", func(e evaluated) bool {
			return e.ok() && hasItem(e, func(it engine.IndexItem, d int) bool {
				return it.Kind == engine.IndexSlice && d > 0 && it.HasStop && it.Stop > int64(d) && it.HasStep && it.Step < 0
			})
		}},
		{"a negative in-range integer", func(e evaluated) bool {
			return e.ok() && hasItem(e, func(it engine.IndexItem, d int) bool { return it.Kind == engine.IndexInt && it.Index < 0 })
		}},
		{"an integer == d (out of range)", func(e evaluated) bool {
			return e.kind() == engine.OutOfRange && hasItem(e, func(it engine.IndexItem, d int) bool {
				return it.Kind == engine.IndexInt && d > 0 && it.Index == int64(d)
			})
		}},
		{"an integer == -d-1 (out of range)", func(e evaluated) bool {
			return e.kind() == engine.OutOfRange && hasItem(e, func(it engine.IndexItem, d int) bool { return it.Kind == engine.IndexInt && it.Index == -int64(d)-1 })
		}},
		{"an integer on a zero dimension", func(e evaluated) bool {
			return hasItem(e, func(it engine.IndexItem, d int) bool { return it.Kind == engine.IndexInt && d == 0 })
		}},
		{"a huge integer literal (beyond int64)", func(e evaluated) bool { return beyondInt64Literal(index(e.m)) }},
		{"a slice bound beyond int64 (valid, clamped)", func(e evaluated) bool { return beyondInt64Literal(index(e.m)) && e.ok() }},
		{"a slice step of int64's extreme", func(e evaluated) bool {
			return e.ok() && hasItem(e, func(it engine.IndexItem, d int) bool {
				return it.Kind == engine.IndexSlice && it.HasStep && it.Step == -1<<63+1
			})
		}},
		{"a boolean slice bound", func(e evaluated) bool {
			return e.ok() && regexp.MustCompile(`:(True|False)|(True|False):`).MatchString(index(e.m))
		}},
		{"an integer spelled in hex or with ~", func(e evaluated) bool { return e.ok() && otherSpelling.MatchString(index(e.m)) }},
		{"zero step (invalid_spec)", func(e evaluated) bool {
			return e.kind() == engine.InvalidSpec && hasItem(e, func(it engine.IndexItem, d int) bool {
				return it.Kind == engine.IndexSlice && it.HasStep && it.Step == 0
			})
		}},
		{"two ellipses (invalid_spec)", func(e evaluated) bool { return strings.Count(index(e.m), "...") >= 2 && e.kind() == engine.InvalidSpec }},
		{"too many indices (invalid_spec)", func(e evaluated) bool {
			p, ok := parseIndex(e.m)
			return ok && p.consumed > input(e.m).Rank() && e.kind() == engine.InvalidSpec
		}},
		{"a boolean key: advanced indexing (invalid_spec)", func(e evaluated) bool { return boolItem.MatchString(index(e.m)) && e.kind() == engine.InvalidSpec }},
		{"a list key: advanced indexing (invalid_spec)", func(e evaluated) bool {
			s := index(e.m)
			return strings.Contains(s[2:], "[") && e.kind() == engine.InvalidSpec
		}},
		{"a float key (invalid_spec)", func(e evaluated) bool { return floatLiteral.MatchString(index(e.m)) && e.kind() == engine.InvalidSpec }},
		{"a string key (invalid_spec)", func(e evaluated) bool { return strings.Contains(index(e.m), "'") && e.kind() == engine.InvalidSpec }},
		{"a syntax error (invalid_spec)", func(e evaluated) bool {
			_, err := parser.ParseString(strings.TrimLeft(index(e.m), " \t\n"), py.EvalMode)
			return err != nil && e.kind() == engine.InvalidSpec
		}},
		{"an out-of-range error", func(e evaluated) bool { return e.kind() == engine.OutOfRange }},
		{"an invalid_spec error", func(e evaluated) bool { return e.kind() == engine.InvalidSpec }},
		{"a result of more than 32 dims (invalid_spec)", func(e evaluated) bool {
			p, ok := parseIndex(e.m)
			if !ok || p.consumed > input(e.m).Rank() {
				return false
			}
			out := input(e.m).Rank()
			for _, it := range p.items {
				switch it.Kind {
				case engine.IndexInt:
					out--
				case engine.IndexNewAxis:
					out++
				}
			}
			return out > engine.MaxRank && e.kind() == engine.InvalidSpec
		}},
	})
}
