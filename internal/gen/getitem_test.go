package gen

import (
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/go-python/gpython/parser"
	"github.com/go-python/gpython/py"
	"pgregory.net/rapid"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/expr"
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
		{"a boolean key among basic items (advanced indexing)", func(e evaluated) bool { return boolItem.MatchString(index(e.m)) && e.ok() }},
		{"a list key among basic items (advanced indexing)", func(e evaluated) bool {
			s := index(e.m)
			return strings.Contains(s[2:], "[") && e.ok()
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

// subscriptName matches a Python name in a subscript (not after a dot,
// not inside a number such as 0x1f).
var subscriptName = regexp.MustCompile(`(?:^|[^\w.])([A-Za-z_]\w*)`)

// stringLiteral matches a Python string or bytes literal in a subscript.
var stringLiteral = regexp.MustCompile(`b?'[^']*'`)

// namesIn returns the input names a subscript uses: its Python names
// outside string literals but None, True, False and the module names np,
// numpy and tf.
func namesIn(src string) map[string]bool {
	out := map[string]bool{}
	for _, m := range subscriptName.FindAllStringSubmatch(stringLiteral.ReplaceAllString(src, "''"), -1) {
		switch m[1] {
		case "None", "True", "False", "np", "numpy", "tf":
		default:
			out[m[1]] = true
		}
	}
	return out
}

// TestGetItemInputs checks that every getitem case has the inputs its
// subscript names, x and one per other name, and no other; that named
// index arrays are integer or boolean; and that advanced cases stay small.
func TestGetItemInputs(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		m := GetItemCase().Draw(t, "case")
		names := namesIn(index(m))
		names["x"] = true
		if len(names) != len(m.Inputs) {
			t.Fatalf("%v: names %v", m.Describe(), names)
		}
		for name, x := range m.Inputs {
			if !names[name] {
				t.Fatalf("%v: input %s is not named", m.Describe(), name)
			}
			if name == "x" {
				continue
			}
			if !x.DType.IsInteger() && x.DType.Kind != engine.Bool {
				t.Fatalf("%v: index array %s of dtype %v", m.Describe(), name, x.DType)
			}
			if n := x.Len(); n > smallDataBudget*smallDataBudget {
				t.Fatalf("%v: index array %s has %d elements", m.Describe(), name, n)
			}
		}
	})
}

// advancedCases is a pool of advanced getitem cases with their planned
// fault, evaluated on the engine.
var advancedCases = sync.OnceValue(func() []advancedCase {
	g := rapid.Custom(func(t *rapid.T) advancedCase {
		m, fault := drawAdvancedGetItem(t)
		return advancedCase{evaluate(m), fault}
	})
	out := make([]advancedCase, draws)
	for i := range out {
		out[i] = g.Example(i)
	}
	return out
})

type advancedCase struct {
	evaluated
	fault int
}

// TestGetItemAdvancedShare checks that about two getitem cases in five use
// advanced indices, and that about one advanced case in six is drawn
// invalid on purpose.
func TestGetItemAdvancedShare(t *testing.T) {
	advanced := 0
	for i := 0; i < draws; i++ {
		m := GetItemCase().Example(i)
		if len(m.Inputs) > 1 || strings.Contains(index(m)[2:], "[") || boolItem.MatchString(index(m)) || index(m) == "x[x]" {
			advanced++
		}
	}
	if f := float64(advanced) / draws; f < 0.33 || f > 0.50 {
		t.Errorf("%.1f%% of getitem cases use advanced indices, want 33%% to 50%%", 100*f)
	}
	faults := map[int]int{}
	for _, c := range advancedCases() {
		faults[c.fault]++
	}
	t.Logf("planned faults of %d advanced cases: %v", draws, faults)
	if f := float64(draws-faults[advFaultNone]) / draws; f < 0.10 || f > 0.25 {
		t.Errorf("%.1f%% of advanced cases are drawn invalid, want 10%% to 25%%", 100*f)
	}
	for k := advFaultBroadcast; k <= advFaultFloat; k++ {
		if faults[k] == 0 {
			t.Errorf("no advanced case is drawn with fault %d", k)
		}
	}
}

// arrayItems parses a subscript and returns its items and the positions
// of its IndexArray items.
func arrayItems(m *casefile.Case) ([]engine.IndexItem, []int) {
	items, err := expr.Parse(index(m))
	if err != nil {
		return nil, nil
	}
	var at []int
	for i, it := range items {
		if it.Kind == engine.IndexArray {
			at = append(at, i)
		}
	}
	return items, at
}

// namedDType returns the dtypes of the named index arrays of a case.
func namedDTypes(m *casefile.Case) []engine.DType {
	var out []engine.DType
	for name, x := range m.Inputs {
		if name != "x" {
			out = append(out, x.DType)
		}
	}
	return out
}

// TestGetItemAdvancedCoverage checks that advanced getitem cases reach
// every rule of NumPy's advanced indexing, valid and invalid.
func TestGetItemAdvancedCoverage(t *testing.T) {
	var cases []evaluated
	for _, c := range advancedCases() {
		cases = append(cases, c.evaluated)
	}
	named := func(e evaluated, pred func(engine.DType, *engine.Tensor) bool) bool {
		for name, x := range e.m.Inputs {
			if name != "x" && pred(x.DType, x) {
				return true
			}
		}
		return false
	}
	// between reports whether two arrays are separated by a slice, an
	// ellipsis or a new axis (pred true) or adjacent (pred false).
	between := func(e evaluated, separated bool) bool {
		items, at := arrayItems(e.m)
		if len(at) < 2 {
			return false
		}
		for k := at[0] + 1; k < at[len(at)-1]; k++ {
			if kind := items[k].Kind; kind != engine.IndexArray && kind != engine.IndexInt {
				return separated
			}
		}
		return !separated
	}
	rows := []findRow{
		{"a named array used twice (x[i, i])", func(e evaluated) bool {
			return e.ok() && strings.Count(index(e.m), "i") > 1 && regexp.MustCompile(`\bi\b.*\bi\b`).MatchString(index(e.m))
		}},
		{"x[x] (x indexes itself)", func(e evaluated) bool { return index(e.m) == "x[x]" && e.ok() }},
		{"a boolean named array (a mask)", func(e evaluated) bool {
			return e.ok() && named(e, func(dt engine.DType, x *engine.Tensor) bool { return dt.Kind == engine.Bool && x.Rank() >= 1 })
		}},
		{"a 2-D boolean mask over two dims", func(e evaluated) bool {
			return e.ok() && named(e, func(dt engine.DType, x *engine.Tensor) bool { return dt.Kind == engine.Bool && x.Rank() == 2 })
		}},
		{"a named 0-d boolean (a new dim of 1 or 0)", func(e evaluated) bool {
			return e.ok() && named(e, func(dt engine.DType, x *engine.Tensor) bool { return dt.Kind == engine.Bool && x.Rank() == 0 })
		}},
		{"a named 0-d integer array among arrays (an integer)", func(e evaluated) bool {
			_, at := arrayItems(e.m)
			return e.ok() && len(at) >= 2 && named(e, func(dt engine.DType, x *engine.Tensor) bool { return dt.IsInteger() && x.Rank() == 0 })
		}},
		{"a named 2-D integer array", func(e evaluated) bool {
			return e.ok() && named(e, func(dt engine.DType, x *engine.Tensor) bool { return dt.IsInteger() && x.Rank() == 2 })
		}},
		{"an empty named integer array", func(e evaluated) bool {
			return e.ok() && named(e, func(dt engine.DType, x *engine.Tensor) bool { return dt.IsInteger() && x.Len() == 0 })
		}},
		{"an inline flat integer list", func(e evaluated) bool {
			return e.ok() && regexp.MustCompile(`\[-?\d+(, -?\d+)*\]`).MatchString(index(e.m)[1:])
		}},
		{"an inline nested integer list", func(e evaluated) bool {
			return e.ok() && strings.Contains(index(e.m), "[[") && !strings.Contains(index(e.m), "[[]")
		}},
		{"an inline boolean list", func(e evaluated) bool { return e.ok() && regexp.MustCompile(`\[(True|False)`).MatchString(index(e.m)) }},
		{"an empty list [] (an integer index)", func(e evaluated) bool { return e.ok() && strings.Contains(index(e.m), "[]") }},
		{"True", func(e evaluated) bool {
			return e.ok() && boolItem.MatchString(index(e.m)) && strings.Contains(index(e.m), "True")
		}},
		{"False (an empty dim)", func(e evaluated) bool {
			return e.ok() && boolItem.MatchString(index(e.m)) && strings.Contains(index(e.m), "False") && e.out.Len() == 0
		}},
		{"True or False on a 0-d x", func(e evaluated) bool { return e.ok() && input(e.m).Rank() == 0 && boolItem.MatchString(index(e.m)) }},
		{"arrays of different shapes that broadcast", func(e evaluated) bool {
			if !e.ok() {
				return false
			}
			var shapes [][]int
			for name, x := range e.m.Inputs {
				if name != "x" && x.DType.IsInteger() {
					shapes = append(shapes, x.Shape)
				}
			}
			return len(shapes) >= 2 && !slices.Equal(shapes[0], shapes[1])
		}},
		{"adjacent arrays after a slice (their dims in place)", func(e evaluated) bool {
			items, at := arrayItems(e.m)
			return e.ok() && between(e, false) && at[0] > 0 && items[0].Kind == engine.IndexSlice
		}},
		{"arrays separated by a slice, ellipsis or new axis (their dims first)", func(e evaluated) bool { return e.ok() && between(e, true) }},
		{"an array after an ellipsis", func(e evaluated) bool {
			items, at := arrayItems(e.m)
			return e.ok() && len(at) > 0 && at[len(at)-1] > 0 && func() bool {
				for _, it := range items[:at[len(at)-1]] {
					if it.Kind == engine.IndexEllipsis {
						return true
					}
				}
				return false
			}()
		}},
		{"an array and a new axis", func(e evaluated) bool {
			items, at := arrayItems(e.m)
			if !e.ok() || len(at) == 0 {
				return false
			}
			for _, it := range items {
				if it.Kind == engine.IndexNewAxis {
					return true
				}
			}
			return false
		}},
		{"a negative index in an array", func(e evaluated) bool {
			return e.ok() && (regexp.MustCompile(`\[-\d|, -\d`).MatchString(index(e.m)) ||
				named(e, func(dt engine.DType, x *engine.Tensor) bool { return anyNegative(x) }))
		}},
		{"a uint64 named array", func(e evaluated) bool {
			return e.ok() && named(e, func(dt engine.DType, x *engine.Tensor) bool { return dt.Kind == engine.Uint && dt.Size == 8 })
		}},
		{"a big-endian named array", func(e evaluated) bool {
			return e.ok() && named(e, func(dt engine.DType, x *engine.Tensor) bool { return dt.BigEndian })
		}},
		{"an empty named boolean array (NumPy 1.24 lets a 0 match any dim)", func(e evaluated) bool {
			return e.ok() && named(e, func(dt engine.DType, x *engine.Tensor) bool { return dt.Kind == engine.Bool && x.Len() == 0 })
		}},
		{"arrays that do not broadcast (invalid_spec)", func(e evaluated) bool {
			return e.kind() == engine.InvalidSpec && strings.Count(index(e.m), "[") >= 1 && len(e.m.Inputs)+strings.Count(index(e.m), "[")-1 >= 2 &&
				strings.Contains(e.err.Error(), "broadcast")
		}},
		{"a boolean array whose shape does not match (invalid_spec)", func(e evaluated) bool {
			return e.kind() == engine.InvalidSpec && strings.Contains(e.err.Error(), "boolean")
		}},
		{"an array index out of bounds (out_of_range)", func(e evaluated) bool {
			_, at := arrayItems(e.m)
			return e.kind() == engine.OutOfRange && len(at) > 0
		}},
		{"too many indices with arrays (invalid_spec)", func(e evaluated) bool {
			_, at := arrayItems(e.m)
			return e.kind() == engine.InvalidSpec && len(at) > 0 && strings.Contains(e.err.Error(), "too many")
		}},
		{"a float list (invalid_spec)", func(e evaluated) bool {
			return floatLiteral.MatchString(index(e.m)) && e.kind() == engine.InvalidSpec
		}},
	}
	for _, dt := range []engine.DType{engine.Int8Type, engine.Int16Type, engine.Int32Type, engine.Int64Type, engine.Uint8Type, engine.Uint16Type, engine.Uint32Type, engine.Uint64Type} {
		dt := dt
		rows = append(rows, findRow{fmt.Sprintf("a named %v array", dt), func(e evaluated) bool {
			for _, got := range namedDTypes(e.m) {
				got.BigEndian = false
				if got == dt && e.ok() {
					return true
				}
			}
			return false
		}})
	}
	requireAll(t, cases, rows)
}
