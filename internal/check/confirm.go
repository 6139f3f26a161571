package check

import (
	"context"
	"io/fs"
	"sync"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/neighbour"
	"github.com/conformsuite/conform/internal/signature"
)

// Confirmation is what the confirmation of one cause by neighbours found
// (see ConfirmCauses): confirmed, the failing case and its passing
// neighbour; or not, and how many neighbours were tried.
type Confirmation struct {
	// Confirmed says the cause's smallest case fails with the cause's
	// symptom and a neighbour of it without the cause's rule passes.
	Confirmed bool
	// Failing describes the cause's smallest case, "" if it could not
	// be read; Passing the neighbour that passes and Edit what changed
	// from one to the other (both "" unless Confirmed).
	Failing, Passing, Edit string
	// Symptom is the failing case's symptom in the run (CauseSymptom:
	// one of the cause's symptoms).
	Symptom string
	// Reproduced says the smallest case failed with Symptom when run
	// again (against the engine); Tried counts the neighbours judged
	// after it.
	Reproduced bool
	Tried      int
}

// maxConfirming bounds the causes confirmed at the same time.
const maxConfirming = 8

// ConfirmCauses confirms each cause of s that a rule explains (see
// FindCauses) by neighbours: its smallest failing case (fewest input
// elements, then the shortest description), which must fail again with
// its symptom in the run (one of the cause's), and at most
// neighbour.MaxTries of its neighbours without the cause's rule are run
// on im and on the engine, the reference for neighbours (it is exact), a
// difference classified as conform check classifies failures
// (signature.Classify, CauseSymptom); see neighbour.Confirm. It fills
// s.Confirmations, one per cause (nil for a cause without a rule),
// confirming the causes concurrently, and takes back the variant a
// cause's failures name where its passing neighbour contradicts it (see
// takeBackVariants). fsys is the corpus the run read.
func (s *Summary) ConfirmCauses(ctx context.Context, fsys fs.FS, im impl.Impl) error {
	s.Confirmations = nil
	if len(s.Causes) == 0 {
		return nil
	}
	entries, err := corpus.Entries(fsys)
	if err != nil {
		return err
	}
	byID := make(map[string]corpus.Entry, len(entries))
	for _, e := range entries {
		byID[e.ID] = e
	}
	fsys = corpus.Open(fsys)
	symptoms := map[string]string{}
	for _, r := range s.Results {
		if r.Status == Fail && !r.Signature.IsZero() {
			symptoms[r.ID] = CauseSymptom(r.Signature)
		}
	}
	judge := Judge(im)
	s.Confirmations = make([]*Confirmation, len(s.Causes))
	var wg sync.WaitGroup
	sem := make(chan struct{}, maxConfirming)
	for i, c := range s.Causes {
		if !c.Explained() {
			continue
		}
		smallest, id := smallestCase(fsys, byID, c.Cases)
		conf := &Confirmation{}
		s.Confirmations[i] = conf
		if smallest == nil {
			continue
		}
		conf.Failing, conf.Symptom = neighbour.Describe(smallest), symptoms[id]
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			found, ok := neighbour.Confirm(ctx, judge, smallest, c.Rule, conf.Symptom)
			conf.Confirmed, conf.Reproduced, conf.Tried = ok, found.Reproduced, found.Tried
			if ok {
				conf.Passing, conf.Edit = neighbour.Describe(found.Passing.Case), found.Passing.Edit
			}
		}()
	}
	wg.Wait()
	for i, c := range s.Causes {
		if conf := s.Confirmations[i]; conf != nil && conf.Confirmed {
			s.takeBackVariants(ctx, fsys, byID, judge, c.Rule, c.Cases)
		}
	}
	return ctx.Err()
}

// maxVariantChecks bounds the failures of one cause and variant whose
// neighbours are run to test the variant (see takeBackVariants).
const maxVariantChecks = 4

// takeBackVariants takes back the variant that failures of a confirmed
// cause (its rule and the IDs of its failures) name where a neighbour
// contradicts it. For each variant the failures name, up to
// maxVariantChecks of them are tried: the first of a failure's
// neighbours without the cause's rule (neighbour.Without) whose answer
// the variant changes — an implementation following the variant would
// fail it — is run; if it passes, the implementation does not follow
// the variant there, and no failure of the cause names it. A library
// that refuses slice size -1 fails the empty results of size -1 as
// empty-range-refused would, but passes the same slice of size 0, which
// the variant refuses too.
func (s *Summary) takeBackVariants(ctx context.Context, fsys fs.FS, byID map[string]corpus.Entry, judge neighbour.Judge, rule engine.RuleID, ids []string) {
	index := make(map[string]int, len(s.Results))
	for i, r := range s.Results {
		index[r.ID] = i
	}
	named := map[engine.Variant][]int{} // results naming each variant
	var order []engine.Variant
	for _, id := range ids {
		i, ok := index[id]
		if !ok {
			continue
		}
		if v, ok := engine.VariantByName(s.Results[i].Signature.Variant); ok {
			if named[v] == nil {
				order = append(order, v)
			}
			named[v] = append(named[v], i)
		}
	}
	for _, v := range order {
		if contradicted(ctx, fsys, byID, judge, rule, v, s.Results, named[v]) {
			for _, i := range named[v] {
				s.Results[i].Signature.Variant = ""
			}
		}
	}
}

// contradicted reports whether a neighbour without rule of one of the
// failures results[at] (the first maxVariantChecks) that variant v
// changes passes (see takeBackVariants).
func contradicted(ctx context.Context, fsys fs.FS, byID map[string]corpus.Entry, judge neighbour.Judge, rule engine.RuleID, v engine.Variant, results []Result, at []int) bool {
	for _, i := range at[:min(len(at), maxVariantChecks)] {
		e, ok := byID[results[i].ID]
		if !ok || e.Err != nil {
			continue
		}
		c, err := LoadCase(fsys, e)
		if err != nil || c.Err != nil {
			continue
		}
		for _, n := range neighbour.Without(c, rule) {
			if !n.Case.VariantChanges(v) {
				continue
			}
			_, failed, ok := judge(ctx, n.Case)
			if ok && !failed {
				return true
			}
			break
		}
	}
	return false
}

// smallestCase returns the case of ids with the fewest input elements
// (of those, the one with the shortest description, then the first in
// the order of ids), loaded from fsys; nil if none can be read as a
// valid case; with its ID.
func smallestCase(fsys fs.FS, byID map[string]corpus.Entry, ids []string) (*casefile.Case, string) {
	var best *casefile.Case
	bestID, bestSize := "", 0
	for _, id := range ids {
		e, ok := byID[id]
		if !ok || e.Err != nil {
			continue
		}
		c, err := LoadCase(fsys, e)
		if err != nil || c.Err != nil {
			continue
		}
		size := 0
		for _, t := range c.Inputs {
			size += t.Len()
		}
		if best == nil || size < bestSize || size == bestSize && len(c.Describe()) < len(best.Describe()) {
			best, bestID, bestSize = c, id, size
		}
	}
	return best, bestID
}

// Judge returns the neighbour.Judge that runs a case on im and on the
// engine and classifies a difference as conform check does (the
// symptom: CauseSymptom of signature.Classify; a crash is "crash"). A
// case im skips, or the engine does not answer, is not judged.
func Judge(im impl.Impl) neighbour.Judge {
	return func(ctx context.Context, c *casefile.Case) (string, bool, bool) {
		want := impl.Engine{}.Run(ctx, c)
		if want.IsSkip() || want.IsCrash() {
			return "", false, false
		}
		got := im.Run(ctx, c)
		if got.IsSkip() || ctx.Err() != nil {
			return "", false, false
		}
		sig := signature.Classify(c, want, got)
		if got.IsCrash() && sig.IsZero() {
			sig = signature.Signature{Op: c.Op, Symptom: signature.Crash}
		}
		if sig.IsZero() {
			return "", false, true
		}
		return CauseSymptom(sig), true, true
	}
}
