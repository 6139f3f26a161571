package check

import (
	"io/fs"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/cause"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/signature"
)

// Observe returns the observations package cause reads for results, the
// results of a run of the corpus under fsys (in any order): one per case
// whose answer was compared on an op where some case failed — a pass, or
// a failure with a signature. Each such case is evaluated once more on
// the engine, with a trace, for the rules it exercised (see
// engine.Trace), and the rule of its error if the engine answers one (see
// engine.RuleOf), including the error of a case whose fields do not make
// a valid case. Skipped cases, known failures and failures that are not
// the implementation's answer (a case or input that cannot be read, an
// unexpected pass) are not observed, and nothing is evaluated when no
// case failed.
func Observe(fsys fs.FS, results []Result) ([]cause.Observation, error) {
	obs, _, err := observe(fsys, results)
	return obs, err
}

// variantTally counts, over the observed cases of one op on which the
// engine answers otherwise under one variant (casefile.Case.
// VariantChanges): the failures whose signature names the variant, and
// the cases the implementation passed.
type variantTally struct{ named, passed int }

// observe is Observe, and also tallies, for each variant some failure's
// signature names, the cases of its op that the variant changes (see
// variantTally).
func observe(fsys fs.FS, results []Result) ([]cause.Observation, map[opVariant]*variantTally, error) {
	failingOps := map[string]bool{}
	tallies := map[opVariant]*variantTally{}
	for _, r := range results {
		if r.Status == Fail && !r.Signature.IsZero() {
			failingOps[r.Signature.Op] = true
			if v, ok := engine.VariantByName(r.Signature.Variant); ok {
				tallies[opVariant{r.Signature.Op, v}] = &variantTally{}
			}
		}
	}
	if len(failingOps) == 0 {
		return nil, nil, nil // the gate's common case: nothing to pay
	}
	byID := make(map[string]Result, len(results))
	for _, r := range results {
		byID[r.ID] = r
	}
	entries, err := corpus.Entries(fsys)
	if err != nil {
		return nil, nil, err
	}
	fsys = corpus.Open(fsys)
	var obs []cause.Observation
	trace := new(engine.Trace)
	for _, e := range entries {
		r, ok := byID[e.ID]
		if !ok || e.Err != nil {
			continue
		}
		failed := r.Status == Fail && !r.Signature.IsZero()
		if !failed && r.Status != Pass {
			continue
		}
		op := e.Op()
		if failed {
			op = r.Signature.Op
		}
		if !failingOps[op] {
			continue
		}
		c, rules, expected, ok := exercised(fsys, e, trace)
		if !ok {
			continue
		}
		for key, t := range tallies {
			if key.op != op || c.Err != nil || !c.VariantChanges(key.variant) {
				continue
			}
			switch {
			case !failed:
				t.passed++
			case r.Signature.Variant == key.variant.String():
				t.named++
			}
		}
		o := cause.Observation{ID: r.ID, Op: op, Failed: failed, Rules: rules, Expected: expected}
		if failed {
			o.Symptom = CauseSymptom(r.Signature)
		}
		obs = append(obs, o)
	}
	return obs, tallies, nil
}

// opVariant is a variant named on failures of an op.
type opVariant struct {
	op      string
	variant engine.Variant
}

// CauseSymptom returns the symptom by which the causes of failures are
// grouped (see package cause) for a failure with signature sig: the
// signature's symptom and detail ("values", "shape/rank",
// "output-for-error/invalid_spec"), except that an error the
// implementation answers in place of an output or of another error is
// "error/KIND" whatever the reference answers ("error/invalid_spec" for
// both "error-for-output/invalid_spec" and
// "error-kind/invalid_spec-for-out_of_range"): a library that refuses a
// feature refuses it the same way whether the case expected an output or
// an error raised later.
func CauseSymptom(sig signature.Signature) string {
	switch sig.Symptom {
	case signature.ErrorForOutput:
		return "error/" + sig.Detail
	case signature.ErrorKind:
		got, _, _ := strings.Cut(sig.Detail, "-for-")
		return "error/" + got
	}
	if sig.Detail == "" {
		return string(sig.Symptom)
	}
	return string(sig.Symptom) + "/" + sig.Detail
}

// exercised returns the case of entry e, the rules the engine's
// evaluation of it exercises (its trace and the rule of its error; trace
// is reset and reused) and the kind of the error it answers ("" for an
// output). It returns false for a case that cannot be read (not a JSON
// object, an input that cannot be read): a fault of the corpus, not of
// an implementation.
func exercised(fsys fs.FS, e corpus.Entry, trace *engine.Trace) (*casefile.Case, []engine.RuleID, engine.ErrorKind, bool) {
	c, err := LoadCase(fsys, e)
	if err != nil {
		return nil, nil, "", false
	}
	trace.Reset()
	_, err, ok := c.EvalSafely(engine.Rules{Trace: trace})
	rules := trace.Rules()
	var kind engine.ErrorKind
	if id := engine.RuleOf(err); ok && id != "" {
		rules = append(rules, id)
		if r, found := engine.RuleByID(id); found {
			kind = r.Kind
		}
	}
	return c, rules, kind, true
}

// FindCauses finds the causes of the failures of s, a run of the corpus
// under fsys (see Observe and package cause), into s.Causes, and names
// each failure's cause in its result (Result.Cause). It evaluates nothing
// when no case failed.
//
// It also takes back a variant a failure's signature names when the run
// contradicts it: when the implementation passes more of the cases of
// the op that the variant changes than it fails with the variant's
// answer, the implementation does not follow the variant (a library that
// refuses negative steps fails the empty results with a negative step as
// empty-range-refused would, and passes every other empty result); the
// failures keep their symptom, without the variant.
func (s *Summary) FindCauses(fsys fs.FS) error {
	obs, tallies, err := observe(fsys, s.Results)
	if err != nil || len(obs) == 0 {
		return err
	}
	for i, r := range s.Results {
		v, ok := engine.VariantByName(r.Signature.Variant)
		if r.Status != Fail || !ok {
			continue
		}
		if t := tallies[opVariant{r.Signature.Op, v}]; t != nil && t.passed > t.named {
			s.Results[i].Signature.Variant = ""
		}
	}
	s.Causes = cause.Find(obs)
	index := map[string]int{}
	for i, r := range s.Results {
		index[r.ID] = i
	}
	for ci, c := range s.Causes {
		for _, id := range c.Cases {
			s.Results[index[id]].Cause = &s.Causes[ci]
		}
	}
	return nil
}
