package neighbour

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/gen"
)

// tensor returns a tensor of dtype dt and shape holding values.
func tensor(dt engine.DType, shape []int, values ...int64) *engine.Tensor {
	return fromInts(dt, shape, values)
}

// getItem returns the getitem case x[index] over x = arange(n) of int64
// (shape (n,)), with the named index inputs.
func getItem(index string, n int, inputs map[string]*engine.Tensor) *casefile.Case {
	in := map[string]*engine.Tensor{"x": arange(engine.Int64Type, []int{n})}
	for k, t := range inputs {
		in[k] = t
	}
	return casefile.New(map[string]any{"op": "getitem", "index": index}, in)
}

// take returns take(a, indices, axis=0) over a float32 a of shape (3,).
func take(indices *engine.Tensor) *casefile.Case {
	return casefile.New(map[string]any{"op": "take", "axis": 0}, map[string]*engine.Tensor{
		"a": arange(engine.Float32Type, []int{3}), "indices": indices})
}

// stridedSlice returns strided_slice over x = arange(4) of int32.
func stridedSlice(begin, end, strides []int64) *casefile.Case {
	return casefile.New(map[string]any{"op": "strided_slice", "begin": begin, "end": end, "strides": strides},
		map[string]*engine.Tensor{"x": arange(engine.Int32Type, []int{4})})
}

// TestOfEveryOp checks, on generated cases of every op, that each
// neighbour is a valid case of the same op, one edit away (an edit text,
// a case that differs from the original), and that Of is deterministic.
func TestOfEveryOp(t *testing.T) {
	for _, op := range casefile.OpNames() {
		t.Run(op, func(t *testing.T) {
			withNeighbours := 0
			for _, c := range gen.Corpus(1, map[string]int{op: 60}) {
				ns := Of(c)
				if c.Err != nil {
					if len(ns) != 0 {
						t.Errorf("%s: a case that is not valid has neighbours", c.Describe())
					}
					continue
				}
				if len(ns) > 0 {
					withNeighbours++
				}
				for _, n := range ns {
					switch {
					case n.Case.Err != nil:
						t.Errorf("%s → %s: not a valid case: %v", c.Describe(), n.Edit, n.Case.Err)
					case n.Case.Op != op:
						t.Errorf("%s → %s: op %q", c.Describe(), n.Edit, n.Case.Op)
					case n.Edit == "" || strings.Contains(n.Edit, "\n"):
						t.Errorf("%s: edit %q is not one line", c.Describe(), n.Edit)
					case key(n.Case) == key(c):
						t.Errorf("%s → %s: the neighbour is the case itself", c.Describe(), n.Edit)
					}
				}
				again := Of(c)
				if len(again) != len(ns) {
					t.Fatalf("%s: %d neighbours, then %d", c.Describe(), len(ns), len(again))
				}
				for i := range ns {
					if ns[i].Edit != again[i].Edit || key(ns[i].Case) != key(again[i].Case) {
						t.Fatalf("%s: neighbour %d is %s, then %s", c.Describe(), i, ns[i].Edit, again[i].Edit)
					}
				}
			}
			if withNeighbours == 0 {
				t.Errorf("no generated case of %s has a neighbour", op)
			}
		})
	}
}

// TestOfEdits checks that the edits a maintainer expects are among a
// case's neighbours, each with its subscript or inputs as written.
func TestOfEdits(t *testing.T) {
	for _, tc := range []struct {
		why  string
		c    *casefile.Case
		want string // Describe of a neighbour
	}{
		{"a slice step's sign is flipped", getItem("x[::-1]", 3, nil), "getitem x[::1]; x: <i8 (3,)"},
		{"a slice step is omitted", getItem("x[1::2]", 3, nil), "getitem x[1:]; x: <i8 (3,)"},
		{"an item is dropped", getItem("x[..., 1]", 3, nil), "getitem x[1]; x: <i8 (3,)"},
		{"an item becomes ':'", getItem("x[1]", 3, nil), "getitem x[:]; x: <i8 (3,)"},
		{"a negative integer is made non-negative", getItem("x[-1]", 3, nil), "getitem x[2]; x: <i8 (3,)"},
		{"a negative slice bound is made non-negative", getItem("x[-2:]", 3, nil), "getitem x[1:]; x: <i8 (3,)"},
		{"a 0-d index array becomes the Python integer it holds", getItem("x[i]", 3, map[string]*engine.Tensor{"i": tensor(engine.Int32Type, nil, 1)}), "getitem x[1]; x: <i8 (3,)"},
		{"True becomes np.array(True)", getItem("x[True]", 3, nil), "getitem x[b0]; b0: |b1 (), x: <i8 (3,)"},
		{"True becomes 1", getItem("x[True, 0]", 3, nil), "getitem x[1, 0]; x: <i8 (3,)"},
		{"an ellipsis becomes the ':'s it stands for", getItem("x[...]", 3, nil), "getitem x[:]; x: <i8 (3,)"},
		{"a new axis is dropped", getItem("x[None, 0]", 3, nil), "getitem x[0]; x: <i8 (3,)"},
		{"an index array is cast to int64", getItem("x[i]", 3, map[string]*engine.Tensor{"i": tensor(engine.Int8Type, []int{1}, 1)}), "getitem x[i]; i: <i8 (1,), x: <i8 (3,); values i = [1]"},
		{"negative indices in an index array are made non-negative", getItem("x[[-1, 0]]", 3, nil), "getitem x[[2, 0],]; x: <i8 (3,)"},
		{"every negative step is flipped at once", getItem("x[::-1, ::-1]", 3, nil), ""},
		{"a subscript NumPy refuses has its items dropped as text", getItem("x[1.5, 0]", 3, nil), "getitem x[0]; x: <i8 (3,)"},
		{"take's indices are cast to int64", take(tensor(engine.Int32Type, []int{2}, 1, -1)), "take axis=0; a: <f4 (3,), indices: <i8 (2,); values indices = [1, -1]"},
		{"take's negative indices are made non-negative", take(tensor(engine.Int32Type, []int{2}, 1, -1)), "take axis=0; a: <f4 (3,), indices: <i4 (2,); values indices = [1, 2]"},
		{"every index becomes 0", take(tensor(engine.Int32Type, []int{2}, 1, -1)), "take axis=0; a: <f4 (3,), indices: <i4 (2,); values indices = [0, 0]"},
		{"a 0-d indices is reshaped to 1-D", take(tensor(engine.Int64Type, nil, 1)), "take axis=0; a: <f4 (3,), indices: <i8 (1,); values indices = [1]"},
		{"a 2-D indices is flattened", take(tensor(engine.Int64Type, []int{1, 2}, 0, 1)), "take axis=0; a: <f4 (3,), indices: <i8 (2,); values indices = [0, 1]"},
		{"a zero stride becomes 1", stridedSlice([]int64{0}, []int64{2}, []int64{0}), "strided_slice begin=[0] end=[2] strides=[1]; x: <i4 (4,)"},
		{"a stride's sign is flipped", stridedSlice([]int64{0}, []int64{2}, []int64{1}), "strided_slice begin=[0] end=[2] strides=[-1]; x: <i4 (4,)"},
		{"a negative bound is made non-negative", stridedSlice([]int64{-3}, []int64{4}, []int64{1}), "strided_slice begin=[1] end=[4] strides=[1]; x: <i4 (4,)"},
		{"a negative bound past the start becomes 0", stridedSlice([]int64{-7}, []int64{4}, []int64{1}), "strided_slice begin=[0] end=[4] strides=[1]; x: <i4 (4,)"},
		{"an empty dimension of the data input grows to 1", getItem("x[:]", 0, nil), "getitem x[:]; x: <i8 (1,)"},
		{"the data input shrinks", getItem("x[:]", 3, nil), "getitem x[:]; x: <i8 (2,)"},
		{"the data input is cast to float64", getItem("x[:]", 3, nil), "getitem x[:]; x: <f8 (3,)"},
	} {
		if tc.c.Err != nil {
			t.Fatalf("%s: %v", tc.why, tc.c.Err)
		}
		var got []string
		for _, n := range Of(tc.c) {
			got = append(got, Describe(n.Case))
		}
		if tc.want == "" {
			ok := false
			for _, n := range Of(tc.c) {
				ok = ok || Describe(n.Case) == "getitem x[::1, ::1]; x: <i8 (3,)"
			}
			if !ok {
				t.Errorf("%s: no neighbour x[::1, ::1] among %q", tc.why, got)
			}
			continue
		}
		if !slices.Contains(got, tc.want) {
			t.Errorf("%s: no neighbour %q among\n%s", tc.why, tc.want, strings.Join(got, "\n"))
		}
	}
}

// TestWithout checks that every neighbour Without returns leaves the
// rule out, as the engine's trace and error rule say, for cases that
// exercise it, and that there is such a neighbour.
func TestWithout(t *testing.T) {
	for _, tc := range []struct {
		why  string
		rule engine.RuleID
		c    *casefile.Case
	}{
		{"a negative step", engine.RuleGetItemNegativeStep, getItem("x[::-1]", 3, nil)},
		{"a 0-d index array", engine.RuleGetItem0DIntArray, getItem("x[i]", 3, map[string]*engine.Tensor{"i": tensor(engine.Int64Type, nil, 1)})},
		{"a narrow integer index dtype", engine.RuleGetItemNarrowArray, getItem("x[i]", 3, map[string]*engine.Tensor{"i": tensor(engine.Int16Type, []int{2}, 0, 1)})},
		{"a negative index in take", engine.RuleTakeNegativeIndex, take(tensor(engine.Int64Type, []int{2}, 0, -1))},
		{"a zero stride (an error rule)", engine.RuleStridedZeroStride, stridedSlice([]int64{0}, []int64{2}, []int64{0})},
		{"a non-empty take from an empty axis (an error rule)", engine.RuleTakeEmptyAxis, casefile.New(map[string]any{"op": "take", "axis": 0},
			map[string]*engine.Tensor{"a": arange(engine.Float32Type, []int{0}), "indices": tensor(engine.Int64Type, []int{1}, 0)})},
	} {
		if !slices.Contains(Rules(tc.c, nil), tc.rule) {
			t.Errorf("%s: the case does not exercise %s (rules %v)", tc.why, tc.rule, Rules(tc.c, nil))
			continue
		}
		ns := Without(tc.c, tc.rule)
		if len(ns) == 0 {
			t.Errorf("%s: no neighbour without %s", tc.why, tc.rule)
		}
		for _, n := range ns {
			if slices.Contains(Rules(n.Case, nil), tc.rule) {
				t.Errorf("%s: neighbour %s (%s) exercises %s", tc.why, Describe(n.Case), n.Edit, tc.rule)
			}
		}
	}
}

// TestWithoutClosestFirst checks that Without puts the neighbours that
// change fewer other rules first: flipping x[::-1]'s step changes less
// than emptying x.
func TestWithoutClosestFirst(t *testing.T) {
	c := getItem("x[2::-1]", 3, nil)
	ns := Without(c, engine.RuleGetItemNegativeStep)
	base := set(Rules(c, nil))
	prev := -1
	for _, n := range ns {
		d := 0
		rules := set(Rules(n.Case, nil))
		for r := range rules {
			if !base[r] {
				d++
			}
		}
		for r := range base {
			if r != engine.RuleGetItemNegativeStep && !rules[r] {
				d++
			}
		}
		if d < prev {
			t.Fatalf("%s (%d rules changed) after a neighbour with %d", n.Edit, d, prev)
		}
		prev = d
	}
}

// ruleJudge is a Judge of an implementation that fails (with symptom
// "error/invalid_spec") exactly the cases that exercise rule.
func ruleJudge(rule engine.RuleID, judged *int) Judge {
	return func(ctx context.Context, c *casefile.Case) (string, bool, bool) {
		*judged++
		if slices.Contains(Rules(c, nil), rule) {
			return "error/invalid_spec", true, true
		}
		return "", false, true
	}
}

// TestConfirm checks that a failure that follows a rule is confirmed by
// it, and not by another rule the same case exercises, nor under another
// symptom.
func TestConfirm(t *testing.T) {
	// x[i, ::-1] over x of shape (2, 3) with i a 0-d array: a negative
	// step and a 0-d index array.
	c := casefile.New(map[string]any{"op": "getitem", "index": "x[i, ::-1]"}, map[string]*engine.Tensor{
		"x": arange(engine.Int64Type, []int{2, 3}), "i": tensor(engine.Int64Type, nil, 1)})
	for _, tc := range []struct {
		why       string
		bug, rule engine.RuleID
		symptom   string
		confirmed bool
	}{
		{"the bug's own rule is confirmed", engine.RuleGetItemNegativeStep, engine.RuleGetItemNegativeStep, "error/invalid_spec", true},
		{"another bug's rule is confirmed", engine.RuleGetItem0DIntArray, engine.RuleGetItem0DIntArray, "error/invalid_spec", true},
		{"a rule the failure does not follow is not confirmed", engine.RuleGetItemNegativeStep, engine.RuleGetItem0DIntArray, "error/invalid_spec", false},
		{"a failure with another symptom is not confirmed", engine.RuleGetItemNegativeStep, engine.RuleGetItemNegativeStep, "values", false},
	} {
		judged := 0
		conf, ok := Confirm(context.Background(), ruleJudge(tc.bug, &judged), c, tc.rule, tc.symptom)
		if ok != tc.confirmed {
			t.Errorf("%s: confirmed %v, want %v (%+v)", tc.why, ok, tc.confirmed, conf)
			continue
		}
		if judged > MaxTries+1 {
			t.Errorf("%s: %d cases judged, more than %d", tc.why, judged, MaxTries+1)
		}
		if ok && slices.Contains(Rules(conf.Passing.Case, nil), tc.rule) {
			t.Errorf("%s: the passing neighbour %s exercises %s", tc.why, Describe(conf.Passing.Case), tc.rule)
		}
	}
}

// TestDescribe checks a case's one-line description: the subscript as
// parsed, and the values of small index inputs.
func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		why  string
		c    *casefile.Case
		want string
	}{
		{"the subscript is written as parsed", getItem("x[ 0 ,\n ::-1 ]", 3, nil), "getitem x[0, ::-1]; x: <i8 (3,)"},
		{"a small index input's values are shown", take(tensor(engine.Int32Type, []int{2}, 1, -1)), "take axis=0; a: <f4 (3,), indices: <i4 (2,); values indices = [1, -1]"},
		{"a 0-d index input's value is shown", getItem("x[i]", 3, map[string]*engine.Tensor{"i": tensor(engine.Int64Type, nil, 2)}), "getitem x[i]; i: <i8 (), x: <i8 (3,); values i = 2"},
	} {
		if got := Describe(tc.c); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.why, got, tc.want)
		}
	}
}
