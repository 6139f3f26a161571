package cause

import (
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/conformsuite/conform/engine"
	"github.com/google/go-cmp/cmp"
)

// The rules of the synthetic spectra.
const (
	negStep  engine.RuleID = "getitem/negative-step"
	intArray engine.RuleID = "getitem/int-array"
	zeroD    engine.RuleID = "getitem/0d-int-array"
	empty    engine.RuleID = "getitem/empty-range"
	implicit engine.RuleID = "getitem/implicit-ellipsis"
	newAxis  engine.RuleID = "getitem/newaxis"
	takeNeg  engine.RuleID = "take/negative-index"
	mask     engine.RuleID = "getitem/bool-array"
	several  engine.RuleID = "getitem/several-index-arrays"
	narrow   engine.RuleID = "getitem/narrow-int-array"
	unsigned engine.RuleID = "getitem/unsigned-array"
	bcast    engine.RuleID = "getitem/index-arrays-broadcast"
)

// The symptoms of the synthetic spectra.
const (
	refused = "error/invalid_spec"
	values  = "values"
)

// spectra builds observations: groups of n cases of one op, each
// exercising rules, failing with symptom (passing if it is "").
type spectra struct {
	obs []Observation
}

func (s *spectra) add(n int, op, symptom string, rules ...engine.RuleID) *spectra {
	for range n {
		s.obs = append(s.obs, Observation{ID: fmt.Sprintf("c%d", len(s.obs)), Op: op, Rules: rules,
			Failed: symptom != "", Symptom: symptom})
	}
	return s
}

// expecting marks the last n observations as expecting an error of kind.
func (s *spectra) expecting(n int, kind engine.ErrorKind) *spectra {
	for i := len(s.obs) - n; i < len(s.obs); i++ {
		s.obs[i].Expected = kind
	}
	return s
}

// found is what a test compares of a Cause.
type found struct {
	Rule    engine.RuleID
	Group   string
	Cases   int
	Spectra Spectrum
}

func summarise(causes []Cause) []found {
	var out []found
	for _, c := range causes {
		out = append(out, found{c.Rule, c.Group(), len(c.Cases), c.Spectrum})
	}
	return out
}

func TestFind(t *testing.T) {
	tests := []struct {
		rule string
		obs  *spectra
		want []found
	}{
		{
			"a single planted cause: every case with a negative step is refused, no other case fails",
			new(spectra).
				add(50, "getitem", refused, negStep, implicit).
				add(20, "getitem", "", empty, implicit).
				add(200, "getitem", "", implicit),
			[]found{{negStep, "getitem/" + refused, 50, Spectrum{With: 50, FailWith: 50, Without: 220}}},
		},
		{
			"two causes of one op with one symptom and different rules are separate causes",
			new(spectra).
				add(40, "getitem", refused, negStep, implicit).
				add(15, "getitem", refused, zeroD, intArray).
				add(60, "getitem", "", intArray).
				add(200, "getitem", "", implicit),
			[]found{
				{negStep, "getitem/" + refused, 40, Spectrum{With: 40, FailWith: 40, Without: 275, FailWithout: 15}},
				{zeroD, "getitem/" + refused, 15, Spectrum{With: 15, FailWith: 15, Without: 300, FailWithout: 40}},
			},
		},
		{
			"a cause whose case also exercises the other cause's rule goes to the rule that explains more of the rest",
			new(spectra).
				add(40, "getitem", refused, negStep).
				add(5, "getitem", refused, negStep, zeroD).
				add(10, "getitem", refused, zeroD).
				add(200, "getitem", "", implicit),
			[]found{
				{negStep, "getitem/" + refused, 45, Spectrum{With: 45, FailWith: 45, Without: 210, FailWithout: 10}},
				{zeroD, "getitem/" + refused, 10, Spectrum{With: 15, FailWith: 15, Without: 240, FailWithout: 40}},
			},
		},
		{
			"a failure moves from a broad rule to a markedly more reliable one it exercises: two index arrays always fail, masks only beside another array or with two dimensions",
			new(spectra).
				add(30, "getitem", refused, mask, several, intArray).
				add(40, "getitem", refused, mask).
				add(30, "getitem", "", mask).
				add(10, "getitem", refused, several, intArray).
				add(100, "getitem", "", intArray).
				add(200, "getitem", "", implicit),
			[]found{
				{mask, "getitem/" + refused, 40, Spectrum{With: 100, FailWith: 70, Without: 310, FailWithout: 10}},
				{several, "getitem/" + refused, 40, Spectrum{With: 40, FailWith: 40, Without: 370, FailWithout: 40}},
			},
		},
		{
			"a failure stays with its rule when a more reliable rule it exercises is a part of it: arrays that broadcast are several arrays, and several arrays fail as often without broadcasting",
			new(spectra).
				add(20, "getitem", refused, several, bcast).
				add(60, "getitem", refused, several).
				add(10, "getitem", "", several).
				add(200, "getitem", "", implicit),
			[]found{
				{several, "getitem/" + refused, 80, Spectrum{With: 90, FailWith: 80, Without: 200}},
			},
		},
		{
			"a part of a rule whose other cases fail the same way is not a cause of its own: arrays that broadcast are several arrays, all refused",
			new(spectra).
				add(40, "getitem", refused, several, bcast).
				add(20, "getitem", refused, several, zeroD).
				add(40, "getitem", refused, zeroD).
				add(3, "getitem", "", several).
				add(200, "getitem", "", implicit),
			[]found{
				{zeroD, "getitem/" + refused, 60, Spectrum{With: 60, FailWith: 60, Without: 243, FailWithout: 40}},
				{several, "getitem/" + refused, 40, Spectrum{With: 63, FailWith: 60, Without: 240, FailWithout: 40}},
			},
		},
		{
			"of two rules every failure of a symptom exercises alike, the one fewer cases exercise is chosen: a uint8 array is narrow and unsigned",
			new(spectra).
				add(20, "getitem", refused, narrow).
				add(10, "getitem", values, narrow, unsigned).
				add(200, "getitem", "", implicit),
			[]found{
				{narrow, "getitem/" + refused, 20, Spectrum{With: 30, FailWith: 20, Without: 200}},
				{unsigned, "getitem/" + values, 10, Spectrum{With: 10, FailWith: 10, Without: 220}},
			},
		},
		{
			"a passing case that expects the error a refusal answers is no evidence against the refused rule: narrow arrays are refused, unsigned ones too, and the narrow arrays that pass expect that error anyway",
			new(spectra).
				add(30, "getitem", refused, narrow).
				add(10, "getitem", refused, narrow, unsigned).
				add(200, "getitem", "", narrow).expecting(200, engine.InvalidSpec).
				add(1, "getitem", "", unsigned).
				add(200, "getitem", "", implicit),
			[]found{
				{narrow, "getitem/" + refused, 40, Spectrum{With: 240, FailWith: 40, Without: 201}},
			},
		},
		{
			"a rule exercised by many passing cases still wins when the failures concentrate on it",
			new(spectra).
				add(60, "getitem", values, newAxis).
				add(90, "getitem", "", newAxis).
				add(1000, "getitem", "", implicit),
			[]found{{newAxis, "getitem/" + values, 60, Spectrum{With: 150, FailWith: 60, Without: 1000}}},
		},
		{
			"a few failures among a rule's many passing cases are noise: they stay unexplained, by symptom",
			new(spectra).
				add(50, "getitem", refused, negStep).
				add(2, "getitem", values, newAxis).
				add(1, "getitem", values, implicit).
				add(80, "getitem", "", newAxis).
				add(1000, "getitem", "", implicit),
			[]found{
				{negStep, "getitem/" + refused, 50, Spectrum{With: 50, FailWith: 50, Without: 1083, FailWithout: 0}},
				{"", "getitem/" + values, 3, Spectrum{}},
			},
		},
		{
			"a rule every case of the op exercises explains nothing, though every failure exercises it",
			new(spectra).
				add(30, "getitem", values, implicit).
				add(70, "getitem", "", implicit),
			[]found{{"", "getitem/" + values, 30, Spectrum{}}},
		},
		{
			"between a ubiquitous rule and a specific one that both cover the failures the specific one wins",
			new(spectra).
				add(30, "getitem", values, implicit, newAxis).
				add(5, "getitem", "", implicit, newAxis).
				add(300, "getitem", "", implicit),
			[]found{{newAxis, "getitem/" + values, 30, Spectrum{With: 35, FailWith: 30, Without: 300}}},
		},
		{
			"one failure is no group: a rule must explain at least two",
			new(spectra).
				add(1, "getitem", refused, negStep).
				add(100, "getitem", "", implicit),
			[]found{{"", "getitem/" + refused, 1, Spectrum{}}},
		},
		{
			"a rule found for two symptoms is one cause with both, and a rule counts only its op's cases",
			new(spectra).
				add(20, "getitem", refused, negStep).
				add(8, "getitem", values, negStep, newAxis).
				add(90, "getitem", "", implicit).
				add(10, "getitem", "", newAxis).
				add(30, "take", values, takeNeg).
				add(100, "take", ""),
			[]found{
				{takeNeg, "take/" + values, 30, Spectrum{With: 30, FailWith: 30, Without: 100}},
				{negStep, "getitem/" + refused, 28, Spectrum{With: 28, FailWith: 28, Without: 100}},
			},
		},
		{
			"a failure that exercises no rule stays unexplained",
			new(spectra).
				add(3, "take", values).
				add(10, "take", "", takeNeg),
			[]found{{"", "take/" + values, 3, Spectrum{}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			got := summarise(Find(tt.obs.obs))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: causes (-want +got):\n%s", tt.rule, diff)
			}
		})
	}
}

// TestFindEveryFailureOnce checks that every failing observation is in
// exactly one cause and no passing one is in any.
func TestFindEveryFailureOnce(t *testing.T) {
	rules := []engine.RuleID{negStep, intArray, zeroD, empty, implicit, newAxis}
	symptoms := []string{"", "", "", refused, values}
	rng := rand.New(rand.NewSource(1))
	var obs []Observation
	for i := range 2000 {
		var rs []engine.RuleID
		for _, r := range rules {
			if rng.Intn(3) == 0 {
				rs = append(rs, r)
			}
		}
		sym := symptoms[rng.Intn(len(symptoms))]
		obs = append(obs, Observation{ID: fmt.Sprint(i), Op: []string{"getitem", "take"}[rng.Intn(2)], Rules: rs, Failed: sym != "", Symptom: sym})
	}
	seen := map[string]int{}
	for _, c := range Find(obs) {
		for _, id := range c.Cases {
			seen[id]++
		}
	}
	for _, o := range obs {
		want := 0
		if o.Failed {
			want = 1
		}
		if seen[o.ID] != want {
			t.Errorf("case %s (failed %v) is in %d causes, want %d", o.ID, o.Failed, seen[o.ID], want)
		}
	}
}

// TestFindDeterministic checks that the causes do not depend on the
// order of each observation's rules, nor on repeats among them.
func TestFindDeterministic(t *testing.T) {
	a := new(spectra).
		add(10, "getitem", refused, negStep, zeroD).
		add(10, "getitem", refused, zeroD, negStep).
		add(50, "getitem", "", implicit).obs
	b := new(spectra).
		add(10, "getitem", refused, zeroD, negStep, zeroD).
		add(10, "getitem", refused, negStep, zeroD).
		add(50, "getitem", "", implicit).obs
	// negStep and zeroD tie on every count: the rule ID decides.
	want := []found{{zeroD, "getitem/" + refused, 20, Spectrum{With: 20, FailWith: 20, Without: 50}}}
	for i, obs := range [][]Observation{a, b} {
		for range 20 {
			if diff := cmp.Diff(want, summarise(Find(obs))); diff != "" {
				t.Fatalf("observations %d: causes (-want +got):\n%s", i, diff)
			}
		}
	}
}

func TestSuspicious(t *testing.T) {
	tests := []struct {
		rule           string
		ef, ep, nf, np int
		want           bool
	}{
		{"failures that all exercise the rule, no passing case does", 10, 0, 0, 100, true},
		{"one failure is not enough", 1, 0, 0, 100, false},
		{"a rule every case exercises explains nothing", 10, 90, 0, 0, false},
		{"failing no more often with the rule than without is not a cause", 10, 90, 10, 90, false},
		{"failing twice as often with the rule, over many cases, is a cause", 200, 600, 100, 900, true},
		{"failing twice as often over few cases may be chance", 4, 12, 2, 18, false},
		{"rare failures among many passing cases are noise", 2, 80, 1, 1000, false},
		{"failures that all exercise a rule whose cases mostly pass are no chance", 53, 320, 0, 1234, true},
		{"two failures of a rule few cases exercise are no chance", 2, 0, 1, 1000, true},
		{"of ten cases, the four exercising the rule all fail: a small corpus's clear cause", 4, 0, 0, 6, true},
	}
	for _, tt := range tests {
		if got := Suspicious(tt.ef, tt.ep, tt.nf, tt.np); got != tt.want {
			t.Errorf("%s: Suspicious(%d, %d, %d, %d) = %v, want %v", tt.rule, tt.ef, tt.ep, tt.nf, tt.np, got, tt.want)
		}
	}
}

func TestChance(t *testing.T) {
	tests := []struct {
		rule           string
		ef, ep, nf, np int
		want           float64
	}{
		{"one case of two fails, drawn alone: half a chance", 1, 0, 0, 1, 0.5},
		{"both failures of four cases drawn in two: 1 in 6", 2, 0, 0, 2, 1.0 / 6},
		{"at least one of two failures among two of four cases drawn: 5 in 6", 1, 1, 1, 1, 5.0 / 6},
		{"no failure needed: certain", 0, 3, 2, 5, 1},
	}
	for _, tt := range tests {
		if got := Chance(tt.ef, tt.ep, tt.nf, tt.np); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("%s: Chance(%d, %d, %d, %d) = %v, want %v", tt.rule, tt.ef, tt.ep, tt.nf, tt.np, got, tt.want)
		}
	}
}

func TestCauseString(t *testing.T) {
	tests := []struct {
		rule string
		c    Cause
		want string
	}{
		{"a cause names its rule, its group and its spectrum, thousands separated",
			Cause{Rule: negStep, Op: "getitem", Symptom: refused, Cases: make([]string, 194),
				Spectrum: Spectrum{With: 218, FailWith: 194, Without: 2100, FailWithout: 4}},
			"getitem/negative-step — getitem/error/invalid_spec: 194 failing cases; 194 of 218 cases exercising the rule fail so, 4 of 2,100 without"},
		{"failures no rule explains say so",
			Cause{Op: "take", Symptom: values, Cases: make([]string, 1)},
			"take/values: 1 failing case that no rule explains"},
	}
	for _, tt := range tests {
		if got := tt.c.String(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.rule, got, tt.want)
		}
	}
}
