// Package cause names the causes of a run's failures: the rule of the
// reference semantics that explains a group of failing cases, found by
// spectrum-based fault localisation over the rules the cases exercise.
//
// The input is one Observation per case run: its op, the rules its
// reference evaluation exercised (the engine's trace, and the rule of
// the error when the expected answer is one), whether it failed and its
// symptom. Find returns the causes: each a rule, an op and a symptom with
// the failing cases it explains and its spectrum ("194 of 218 cases
// exercising it fail, 4 of 2,100 without"); the failures no rule explains
// stay grouped by op and symptom, in a Cause without a rule.
//
// # The measure: Ochiai
//
// A rule's spectrum, over the cases of one op, counts the failing cases
// that exercise it (ef) and those that do not (nf), and the passing cases
// that exercise it (ep) and those that do not (np). Its suspiciousness is
// the Ochiai coefficient
//
//	ef / sqrt((ef+nf) * (ef+ep))
//
// which is the geometric mean of the share of the failures the rule
// covers, ef/(ef+nf), and the share of the rule's cases that fail,
// ef/(ef+ep). Those are the two numbers a maintainer judges a cause by —
// does it account for the failures, and does it fail when exercised —
// and the two the acceptance of a grouping measures, so the measure ranks
// what is wanted directly. Abreu, Zoeteweij and van Gemund ("On the
// Accuracy of Spectrum-based Fault Localization", 2007) found Ochiai
// more accurate than Tarantula and Jaccard, and it stays among the best
// measures with several faults. Tarantula was not chosen: it compares
// the two rates only, (ef/F)/((ef/F)+(ep/P)), so a rule exercised by one
// failing case and no passing one scores as high as a rule that explains
// every failure. DStar (ef^*/(ep+nf), Wong et al. 2014) ranks single
// faults well, but its nf term charges a rule with the failures of the
// other faults of the op, and its scores are unbounded, which leaves no
// natural threshold; Ochiai is in [0, 1] for any population.
//
// # Several causes
//
// Causes are found one at a time, per op and symptom, and a rule counts
// only the cases of its op. Among the failing
// cases of an op and symptom not yet assigned (the failures with another
// symptom, or already assigned, are left out of the spectrum: they are
// evidence neither for nor against), the most suspicious rule becomes a
// cause and takes the failing cases that exercise it; the spectra are
// then computed again over the rest, until no rule is suspicious enough:
// a rule must explain at least two failures, its cases must fail at least
// twice as often as the others, and by more than chance (see
// Suspicious). Ties go to the rule with fewer passing cases (the
// more specific), then to more failing cases, then to the rule ID, so
// the result does not depend on the order of the observations' rules.
// A rule found for several symptoms of one op is one cause with those
// symptoms: a library that refuses a non-empty index array of two
// dimensions and reads an empty one as 1-d has one cause, the rule of
// such arrays, seen as an error and as a wrong rank.
package cause

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/conformsuite/conform/engine"
)

// Observation is one case of a run, as Find reads it.
type Observation struct {
	// ID names the case.
	ID string
	// Op is the case's op ("getitem").
	Op string
	// Rules are the rules the reference evaluation of the case
	// exercised; the order does not matter.
	Rules []engine.RuleID
	// Failed says the implementation's answer differs from the expected
	// one; Symptom says how ("error/invalid_spec", "shape/rank": the
	// caller decides, check.CauseSymptom for conform check); failures are
	// grouped by it. A passing case has no symptom.
	Failed  bool
	Symptom string
	// Expected is the kind of the error the reference answers, "" for
	// an output. A passing case shows nothing about a symptom it could
	// not have had (see coincides).
	Expected engine.ErrorKind
}

// coincides reports whether the passing observation o is no evidence
// about symptom: it could not have failed so. A symptom "error/K" (an
// error of kind K answered where the reference answers otherwise) cannot
// show on a case that expects K (an implementation refusing the case
// with that kind for a reason of its own passes it by coincidence); a
// wrong output ("shape/rank", "values", "dtype") only on a case that
// expects an output. Other symptoms are compared with every case:
// crashes can show on any, and an output where the reference refuses
// ("output-for-error/K") is most often explained by the rule that
// raises the reference's error, which only the cases expecting it
// exercise — leaving the others out would leave too few cases to tell a
// cause from chance.
func coincides(o Observation, symptom string) bool {
	return !o.Failed && hides(o.Expected, symptom)
}

// hides reports whether a case expecting an error of kind expected (""
// for an output) cannot fail with symptom (see coincides).
func hides(expected engine.ErrorKind, symptom string) bool {
	kind, isError := strings.CutPrefix(symptom, "error/")
	if isError {
		return expected == engine.ErrorKind(kind)
	}
	switch first, _, _ := strings.Cut(symptom, "/"); first {
	case "shape", "values", "dtype":
		return expected != ""
	}
	return false
}

// Spectrum counts the cases of a cause's op by whether they exercise its
// rule and whether they fail with its symptom.
type Spectrum struct {
	// With counts the cases that exercise the rule, FailWith those of
	// them that fail with the symptom.
	With, FailWith int
	// Without counts the cases that do not exercise the rule,
	// FailWithout those of them that fail with the symptom.
	Without, FailWithout int
}

// Cause is a group of failing cases of one op and the rule that explains
// them, or the failing cases of one op and symptom that no rule explains.
type Cause struct {
	// Rule is the rule that explains the failures, or "" for the
	// failures of Op and Symptom that no rule explains.
	Rule engine.RuleID
	Op   string
	// Symptom is the commonest symptom of the cause's failures;
	// Symptoms lists each symptom they have, the commonest first (only
	// Symptom when no rule explains them).
	Symptom  string
	Symptoms []string
	// Cases are the IDs of the failing cases, in the order of the
	// observations.
	Cases []string
	// Spectrum counts all the cases of Op (zero when Rule is ""):
	// whether they exercise Rule, whether they fail with one of
	// Symptoms.
	Spectrum Spectrum
	// Score is the rule's suspiciousness (Ochiai) when it was chosen,
	// over the failures not assigned before it; 0 when Rule is "".
	Score float64
}

// Explained reports whether a rule explains the cause's failures.
func (c Cause) Explained() bool { return c.Rule != "" }

// Group names the group of failures: the op and the (commonest)
// symptom, "getitem/error/invalid_spec".
func (c Cause) Group() string { return c.Op + "/" + c.Symptom }

// Key names the cause among a run's causes: its rule, or for failures no
// rule explains, "none " and their group.
func (c Cause) Key() string {
	if c.Explained() {
		return string(c.Rule)
	}
	return "none " + c.Group()
}

// String describes the cause in one line: "getitem/negative-step —
// getitem/error/invalid_spec: 194 failing cases; 194 of 218
// cases exercising the rule fail so, 4 of 2,100 without", or for
// failures no rule explains "take/values: 3 failing cases that no rule
// explains".
func (c Cause) String() string {
	if !c.Explained() {
		return fmt.Sprintf("%s: %s that no rule explains", c.Group(), plural(len(c.Cases), "failing case"))
	}
	s := c.Spectrum
	group := c.Group()
	if len(c.Symptoms) > 1 {
		group = c.Op + "/{" + strings.Join(c.Symptoms, ", ") + "}"
	}
	return fmt.Sprintf("%s — %s: %s; %s of %s exercising the rule fail so, %s of %s without",
		c.Rule, group, plural(len(c.Cases), "failing case"),
		count(s.FailWith), plural(s.With, "case"), count(s.FailWithout), count(s.Without))
}

// plural writes n with noun, plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return count(n) + " " + noun + "s"
}

// count writes n with thousands separated by commas: 2,100.
func count(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// MinCases is the fewest failing cases a rule must explain to be a cause:
// a group of one groups nothing.
const MinCases = 2

// MinRateRatio is how many times more often the cases exercising a rule
// must fail than those not exercising it, for the rule to be a cause.
const MinRateRatio = 2

// MaxChance bounds the chance that the failures would exercise a rule as
// often as they do if they fell on the op's cases at random (see
// Suspicious): 1 in 100. A small corpus with a clear cause reaches it
// (of ten cases, the four with a negative step fail and the six others
// pass: 1 in 210); two unrelated failures among a rule's eighty passing
// cases in a thousand do not (1 in 60). Some dozens of rules are tried
// for each group of failures, so a coincidence can pass it now and then:
// MinCases and MinRateRatio stand against that too.
const MaxChance = 1e-2

// Suspicious reports whether a rule with the spectrum ef, ep, nf, np
// (failing and passing cases that exercise it, failing and passing ones
// that do not) may be a cause:
//
//   - it explains at least MinCases failures (ef);
//   - some case does not exercise it: a rule every case exercises
//     cannot tell failing cases from passing ones, so explains nothing;
//   - the cases exercising it fail at least MinRateRatio times as often
//     as those not exercising it, so the failures follow the rule rather
//     than the op; and
//   - that is no coincidence: if the ef+nf failures fell on the cases at
//     random, the chance that ef or more of them would exercise the rule
//     (the tail of the hypergeometric distribution, Fisher's exact test)
//     is at most MaxChance. A few unrelated failures among a rule's many
//     passing cases are noise, however rare failures are elsewhere; a
//     rule whose cases fail only in part (a bug in one mode, on negative
//     indices only) is still a cause when no failure falls outside it.
func Suspicious(ef, ep, nf, np int) bool {
	if ef < MinCases || nf+np == 0 {
		return false
	}
	with := float64(ef) / float64(ef+ep)
	without := float64(nf) / float64(nf+np)
	return with >= MinRateRatio*without && Chance(ef, ep, nf, np) <= MaxChance
}

// Chance returns the chance that, of ef+ep cases drawn at random from the
// ef+ep+nf+np cases of which ef+nf fail, ef or more fail: the one-sided
// p-value of Fisher's exact test that the cases exercising a rule fail
// more often than the others.
func Chance(ef, ep, nf, np int) float64 {
	n, k, drawn := ef+ep+nf+np, ef+nf, ef+ep
	// log of the binomial coefficient C(a, b).
	logC := func(a, b int) float64 {
		x, _ := math.Lgamma(float64(a + 1))
		y, _ := math.Lgamma(float64(b + 1))
		z, _ := math.Lgamma(float64(a - b + 1))
		return x - y - z
	}
	total := logC(n, drawn)
	p := 0.0
	for i := ef; i <= min(drawn, k); i++ {
		term := math.Exp(logC(k, i) + logC(n-k, drawn-i) - total)
		p += term
		if term < p*1e-12 {
			break // the terms past the mode only shrink
		}
	}
	return min(p, 1)
}

// Ochiai returns the Ochiai coefficient of a rule exercised by ef
// failing and ep passing cases, with nf failing cases not exercising it:
// ef / sqrt((ef+nf)(ef+ep)), 0 when ef is 0.
func Ochiai(ef, ep, nf int) float64 {
	if ef == 0 {
		return 0
	}
	return float64(ef) / math.Sqrt(float64(ef+nf)*float64(ef+ep))
}

// Find returns the causes of the failures among obs (see the package
// doc): the causes with a rule first, most failing cases first, then the
// groups of failures no rule explains, most failing cases first; ties in
// the order of op, symptom and rule. Every failing observation is in
// exactly one cause.
func Find(obs []Observation) []Cause {
	obs = slices.Clone(obs)
	for i := range obs {
		obs[i].Rules = unique(obs[i].Rules)
	}
	type key struct{ op, symptom string }
	var keys []key
	failing := map[key][]int{}
	passing := map[string][]int{}
	for i, o := range obs {
		if !o.Failed {
			passing[o.Op] = append(passing[o.Op], i)
			continue
		}
		k := key{o.Op, o.Symptom}
		if failing[k] == nil {
			keys = append(keys, k)
		}
		failing[k] = append(failing[k], i)
	}
	size := ruleSizes(obs)
	candidates := map[string][]engine.RuleID{}
	var explained, unexplained []Cause
	for _, k := range keys {
		var pass []int
		for _, i := range passing[k.op] {
			if !coincides(obs[i], k.symptom) {
				pass = append(pass, i)
			}
		}
		candidates[k.op] = append(candidates[k.op], suspicious(obs, failing[k], pass)...)
		rest := failing[k]
		for {
			c, ok := best(obs, rest, pass, size)
			if !ok {
				break
			}
			var left []int
			for _, i := range rest {
				if slices.Contains(obs[i].Rules, c.Rule) {
					c.Cases = append(c.Cases, obs[i].ID)
				} else {
					left = append(left, i)
				}
			}
			c.Op, c.Symptom, c.Symptoms = k.op, k.symptom, []string{k.symptom}
			explained = append(explained, c)
			rest = left
		}
		if len(rest) > 0 {
			c := Cause{Op: k.op, Symptom: k.symptom, Symptoms: []string{k.symptom}}
			for _, i := range rest {
				c.Cases = append(c.Cases, obs[i].ID)
			}
			unexplained = append(unexplained, c)
		}
	}
	for _, c := range explained {
		candidates[c.Op] = append(candidates[c.Op], c.Rule)
	}
	for op := range candidates {
		slices.Sort(candidates[op])
		candidates[op] = slices.Compact(candidates[op])
	}
	explained, unexplained = reassign(obs, explained, unexplained, candidates, size)
	explained = mergeSymptoms(obs, explained)
	order := func(a, b Cause) int {
		return cmp.Or(cmp.Compare(len(b.Cases), len(a.Cases)), cmp.Compare(a.Op, b.Op),
			cmp.Compare(a.Symptom, b.Symptom), cmp.Compare(a.Rule, b.Rule))
	}
	slices.SortStableFunc(explained, order)
	slices.SortStableFunc(unexplained, order)
	return append(explained, unexplained...)
}

// mergeSymptoms merges the causes of one op and rule found for several
// symptoms into one, its symptoms the commonest first and its cases in
// the order of the observations, and counts each cause's spectrum.
func mergeSymptoms(obs []Observation, causes []Cause) []Cause {
	type key struct {
		op   string
		rule engine.RuleID
	}
	var merged []Cause
	at := map[key]int{}
	for _, c := range causes {
		k := key{c.Op, c.Rule}
		i, ok := at[k]
		if !ok {
			at[k] = len(merged)
			merged = append(merged, c)
			continue
		}
		m := &merged[i]
		m.Symptoms = append(m.Symptoms, c.Symptom)
		m.Cases = append(m.Cases, c.Cases...)
		m.Score = max(m.Score, c.Score)
	}
	order := map[string]int{}
	for i, o := range obs {
		order[o.ID] = i
	}
	for i := range merged {
		m := &merged[i]
		if len(m.Symptoms) > 1 {
			count := map[string]int{}
			for _, id := range m.Cases {
				count[obs[order[id]].Symptom]++
			}
			slices.SortStableFunc(m.Symptoms, func(a, b string) int { return cmp.Compare(count[b], count[a]) })
			slices.SortFunc(m.Cases, func(a, b string) int { return cmp.Compare(order[a], order[b]) })
		}
		m.Symptom = m.Symptoms[0]
		m.Spectrum = spectrum(obs, m.Op, m.Symptoms, m.Rule)
	}
	return merged
}

// opRule is a rule of one op.
type opRule struct {
	op   string
	rule engine.RuleID
}

// ruleSizes counts, for each op and rule, the cases of the op that
// exercise the rule.
func ruleSizes(obs []Observation) map[opRule]int {
	size := map[opRule]int{}
	for _, o := range obs {
		for _, r := range o.Rules {
			size[opRule{o.Op, r}]++
		}
	}
	return size
}

// suspicious returns the rules that are Suspicious over the failing
// observations fail and the passing ones pass, before any is assigned.
func suspicious(obs []Observation, fail, pass []int) []engine.RuleID {
	ef, ep := ruleSpectra(obs, fail, pass)
	var out []engine.RuleID
	for r, f := range ef {
		if Suspicious(f, ep[r], len(fail)-f, len(pass)-ep[r]) {
			out = append(out, r)
		}
	}
	slices.Sort(out)
	return out
}

// ruleSpectra counts, for each rule some failing observation exercises, the
// failing (ef) and passing (ep) observations that exercise it.
func ruleSpectra(obs []Observation, fail, pass []int) (ef, ep map[engine.RuleID]int) {
	ef = map[engine.RuleID]int{}
	for _, i := range fail {
		for _, r := range obs[i].Rules {
			ef[r]++
		}
	}
	ep = map[engine.RuleID]int{}
	for _, i := range pass {
		for _, r := range obs[i].Rules {
			if ef[r] > 0 {
				ep[r]++
			}
		}
	}
	return ef, ep
}

// MinCauseRate is the lowest failure rate of a rule that takes the
// failures of a part of it (see reassign).
const MinCauseRate = 0.5

// MinRateGain is how much more reliably a rule's cases must fail than
// those of a failure's cause for the failure to move to that rule (see
// reassign): its failure rate at least this much higher, and its rate of
// passing cases at most half.
const MinRateGain = 0.1

// reassign moves each failure to the most reliable explanation it
// exercises. The greedy search gives a failure to the first rule chosen
// that it exercises, and the rule with the most failures is not always
// the one that fails most reliably: a library that refuses two index
// arrays in one subscript, and masks of two dimensions beside other
// items, fails on many masks but passes others; "a boolean mask" then
// explains more failures than "two index arrays", and took those with a
// mask. Here a failure moves from its cause to a candidate rule (one
// Suspicious over a group of its op's failures before any was assigned,
// or found a cause) it exercises whose cases
// fail markedly more often (see MinRateGain), unless the cause's rule
// fails about as often without the candidate; and a failure moves from a
// rule that is a part of a candidate (index arrays that broadcast are
// several index arrays) to the candidate when the candidate's other
// cases fail with the failure's symptom about as often, and at least
// half of them do (MinCauseRate) — the candidate with the
// highest failure rate, then the fewest cases (the more specific), then
// the most failures, then the lowest ID.
// Failures no rule explained move likewise. Causes left with no failure
// are dropped; new ones take their op and symptom from the failures.
func reassign(obs []Observation, explained, unexplained []Cause, candidates map[string][]engine.RuleID, size map[opRule]int) ([]Cause, []Cause) {
	m := newMover(obs, candidates, size)
	for i := range explained {
		m.move(&explained[i])
	}
	for i := range unexplained {
		m.move(&unexplained[i])
	}
	var out, left []Cause
	for _, c := range explained {
		if len(c.Cases) > 0 {
			out = append(out, c)
		}
	}
	out = append(out, m.movedCauses()...)
	for _, c := range unexplained {
		if len(c.Cases) > 0 {
			left = append(left, c)
		}
	}
	return out, left
}

// tally counts the cases of an op that exercise a rule: all, failing,
// and passing by the error kind they expect ("" an output).
type tally struct {
	fail, all int
	passing   map[engine.ErrorKind]int
}

// apartKey names the failure rate of the cases of op that exercise rule
// and not other, for a failure with symptom; same counts only the
// failures with symptom.
type apartKey struct {
	op          string
	rule, other engine.RuleID
	symptom     string
	same        bool
}

// mover moves failures between causes for reassign.
type mover struct {
	obs        []Observation
	candidates map[string][]engine.RuleID
	size       map[opRule]int
	rates      map[opRule]*tally
	apart      map[apartKey]float64
	parts      map[apartKey]bool
	index      map[string]int    // observation by ID
	moved      map[opRule]*Cause // the causes failures moved to
	order      []opRule          // in the order first moved to
}

func newMover(obs []Observation, candidates map[string][]engine.RuleID, size map[opRule]int) *mover {
	m := &mover{obs: obs, candidates: candidates, size: size, rates: map[opRule]*tally{},
		apart: map[apartKey]float64{}, parts: map[apartKey]bool{}, index: map[string]int{}, moved: map[opRule]*Cause{}}
	for i, o := range obs {
		m.index[o.ID] = i
		for _, r := range o.Rules {
			k := opRule{o.Op, r}
			if m.rates[k] == nil {
				m.rates[k] = &tally{passing: map[engine.ErrorKind]int{}}
			}
			m.rates[k].all++
			if o.Failed {
				m.rates[k].fail++
			} else {
				m.rates[k].passing[o.Expected]++
			}
		}
	}
	return m
}

// rate returns the failure rate of the cases of op exercising rule, for
// a failure with symptom: the passing cases that could not show the
// symptom left out (see coincides).
func (m *mover) rate(op string, rule engine.RuleID, symptom string) float64 {
	t := m.rates[opRule{op, rule}]
	if rule == "" || t == nil {
		return 0
	}
	all := t.all
	for kind, n := range t.passing {
		if hides(kind, symptom) {
			all -= n
		}
	}
	if all <= 0 {
		return 0
	}
	return float64(t.fail) / float64(all)
}

// rateApart returns the failure rate of the cases k names (see
// apartKey), the passing cases that could not show the symptom left out.
func (m *mover) rateApart(k apartKey) float64 {
	if v, ok := m.apart[k]; ok {
		return v
	}
	fail, all := 0, 0
	for _, o := range m.obs {
		if o.Op != k.op || !slices.Contains(o.Rules, k.rule) || slices.Contains(o.Rules, k.other) || coincides(o, k.symptom) {
			continue
		}
		all++
		if o.Failed && (!k.same || o.Symptom == k.symptom) {
			fail++
		}
	}
	v := 0.0
	if all > 0 {
		v = float64(fail) / float64(all)
	}
	m.apart[k] = v
	return v
}

// partOf reports whether every case of op exercising rule exercises
// whole too.
func (m *mover) partOf(op string, rule, whole engine.RuleID) bool {
	k := apartKey{op: op, rule: rule, other: whole}
	if v, ok := m.parts[k]; ok {
		return v
	}
	v := true
	for _, o := range m.obs {
		if o.Op == op && slices.Contains(o.Rules, rule) && !slices.Contains(o.Rules, whole) {
			v = false
			break
		}
	}
	m.parts[k] = v
	return v
}

// isWholeOf reports whether candidate r, with failure rate rr for
// failure o, is the cause of which rule is a part: every case of rule
// exercises r, and r's other cases fail with o's symptom about as
// often, and at least MinCauseRate of them.
func (m *mover) isWholeOf(op string, rule, r engine.RuleID, rr float64, o Observation) bool {
	return rule != "" && m.partOf(op, rule, r) &&
		m.rateApart(apartKey{op, r, rule, o.Symptom, true}) >= max(rr-MinRateGain, MinCauseRate)
}

// whole returns the candidate rule of op that rule, which failure o
// moves to, is a part of (see isWholeOf), the one failing most often;
// rule itself if there is none.
func (m *mover) whole(op string, rule engine.RuleID, o Observation) engine.RuleID {
	best, bestRate := rule, 0.0
	for _, r := range m.candidates[op] {
		if r == rule || !slices.Contains(o.Rules, r) {
			continue
		}
		if rr := m.rate(op, r, o.Symptom); rr > bestRate && m.isWholeOf(op, rule, r, rr, o) {
			best, bestRate = r, rr
		}
	}
	return best
}

// target returns the rule failure o of cause c moves to, "" if it stays
// (see reassign).
func (m *mover) target(c *Cause, o Observation) engine.RuleID {
	from := m.rate(c.Op, c.Rule, o.Symptom)
	var to engine.RuleID
	toRate := from
	for _, r := range m.candidates[c.Op] {
		if r == c.Rule || !slices.Contains(o.Rules, r) {
			continue
		}
		rr := m.rate(c.Op, r, o.Symptom)
		// The cause's rule is a part of r: r is the cause, its part
		// only the place the search first found it.
		if m.isWholeOf(c.Op, c.Rule, r, rr, o) {
			if to == "" || toRate < from || rr > toRate {
				to, toRate = r, rr
			}
			continue
		}
		if rr < from+MinRateGain || 1-rr > (1-from)/2 {
			continue
		}
		// A rule whose cases without r fail about as often as all its
		// cases explains its failures by itself: r is then a part of
		// it (index arrays that broadcast are several index arrays),
		// not another cause.
		if c.Rule != "" && m.rateApart(apartKey{c.Op, c.Rule, r, o.Symptom, false}) >= from-MinRateGain {
			continue
		}
		if to == "" || cmp.Or(cmp.Compare(rr, toRate), cmp.Compare(m.size[opRule{c.Op, to}], m.size[opRule{c.Op, r}]),
			cmp.Compare(m.rates[opRule{c.Op, r}].fail, m.rates[opRule{c.Op, to}].fail), cmp.Compare(to, r)) > 0 {
			to, toRate = r, rr
		}
	}
	if to != "" {
		to = m.whole(c.Op, to, o)
	}
	if to == c.Rule {
		return ""
	}
	return to
}

// move moves the failures of c that have a target to the cause of their
// target, keeping the others in c.
func (m *mover) move(c *Cause) {
	var keep []string
	for _, id := range c.Cases {
		o := m.obs[m.index[id]]
		to := m.target(c, o)
		if to == "" {
			keep = append(keep, id)
			continue
		}
		k := opRule{c.Op, to}
		if m.moved[k] == nil {
			m.moved[k] = &Cause{Rule: to, Op: c.Op}
			m.order = append(m.order, k)
		}
		m.moved[k].Cases = append(m.moved[k].Cases, id)
	}
	c.Cases = keep
}

// movedCauses returns the causes failures moved to, one per rule and
// symptom as the greedy search makes them (mergeSymptoms joins them with
// the causes of the same rule), in the order first moved to, their
// cases in the order of the observations.
func (m *mover) movedCauses() []Cause {
	var out []Cause
	for _, k := range m.order {
		c := m.moved[k]
		byID := map[string]bool{}
		for _, id := range c.Cases {
			byID[id] = true
		}
		bySymptom := map[string]*Cause{}
		var symptoms []string
		for _, o := range m.obs {
			if !byID[o.ID] {
				continue
			}
			if bySymptom[o.Symptom] == nil {
				bySymptom[o.Symptom] = &Cause{Rule: c.Rule, Op: c.Op, Symptom: o.Symptom, Symptoms: []string{o.Symptom}}
				symptoms = append(symptoms, o.Symptom)
			}
			bySymptom[o.Symptom].Cases = append(bySymptom[o.Symptom].Cases, o.ID)
		}
		for _, sym := range symptoms {
			out = append(out, *bySymptom[sym])
		}
	}
	return out
}

// best returns the most suspicious rule over the failing observations
// fail (indices into obs) and the passing ones pass, as a Cause with its
// Rule and Score set; false if no rule is Suspicious. The observations'
// rules are distinct. Ties go to the rule fewer cases of the op exercise
// (size), the more specific.
func best(obs []Observation, fail, pass []int, size map[opRule]int) (Cause, bool) {
	ef, ep := ruleSpectra(obs, fail, pass)
	var top Cause
	topEP, topEF := 0, 0
	found := false
	op := ""
	if len(fail) > 0 {
		op = obs[fail[0]].Op
	}
	for r, f := range ef {
		p := ep[r]
		nf, np := len(fail)-f, len(pass)-p
		if !Suspicious(f, p, nf, np) {
			continue
		}
		score := Ochiai(f, p, nf)
		better := !found || cmp.Or(cmp.Compare(score, top.Score), cmp.Compare(topEP, p), cmp.Compare(f, topEF),
			cmp.Compare(size[opRule{op, top.Rule}], size[opRule{op, r}]), cmp.Compare(top.Rule, r)) > 0
		if better {
			top, topEP, topEF, found = Cause{Rule: r, Score: score}, p, f, true
		}
	}
	return top, found
}

// spectrum counts every case of op by whether it exercises rule and
// whether it fails with one of symptoms.
func spectrum(obs []Observation, op string, symptoms []string, rule engine.RuleID) Spectrum {
	var s Spectrum
	for _, o := range obs {
		if o.Op != op {
			continue
		}
		fails := o.Failed && slices.Contains(symptoms, o.Symptom)
		if slices.Contains(o.Rules, rule) {
			s.With++
			if fails {
				s.FailWith++
			}
		} else {
			s.Without++
			if fails {
				s.FailWithout++
			}
		}
	}
	return s
}

// unique returns rules without repeats, sorted (the rules of an
// observation need not be distinct).
func unique(rules []engine.RuleID) []engine.RuleID {
	out := slices.Clone(rules)
	slices.Sort(out)
	return slices.Compact(out)
}
