package check

import (
	"bufio"
	"fmt"
	"io"
	"sort"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/cause"
	"github.com/conformsuite/conform/internal/printable"
)

// TextOptions configures WriteText.
type TextOptions struct {
	// Verbose prints every case, not only failures and skips; skips are
	// then printed one by one instead of counted by reason.
	Verbose bool
	// AllowKnownCrashes says whether the run counted the crashes and
	// timeouts that signature entries matched as known (see
	// Options.AllowKnownCrashes).
	AllowKnownCrashes bool
}

// WriteText writes the summary as conform check prints it, ending in
// the summary line (see Line): the protocol errors and integrity
// problems; the causes of the failures, if they were found (see
// FindCauses), one line each; each failure (or, with Verbose, each case)
// with its case and signature — where causes were found, only the
// failures that belong to none unless Verbose; the failures grouped by
// signature; the skips counted by reason; the known-failure entries that
// matched nothing; and the counts of known failures, unexpected passes
// and known crashes. Text read from the corpus or the implementation is
// printed escaped (see package printable).
func (s *Summary) WriteText(w io.Writer, o TextOptions) error {
	b := bufio.NewWriter(w)
	for _, p := range s.Protocol {
		printable.Fprintf(b, "protocol: %s\n", p)
	}
	for _, p := range s.Integrity {
		printable.Fprintf(b, "integrity: %s (does not match the MANIFEST)\n", p)
	}
	if _, line := s.MoreIntegrity(); line != "" {
		fmt.Fprintf(b, "integrity: %s\n", line)
	}
	writeCauses(b, s.Causes, s.Confirmations, o.Verbose)
	skips := map[string]int{}
	for _, r := range s.Results {
		switch {
		case o.Verbose:
		case r.Status == Skip:
			skips[r.Detail]++
			continue
		case r.Status == Pass || r.Status == XFail || r.Cause != nil:
			continue
		}
		writeResult(b, r)
	}
	writeSignatures(b, s.Results)
	reasons := make([]string, 0, len(skips))
	for reason := range skips {
		reasons = append(reasons, reason)
	}
	sort.Strings(reasons)
	for _, reason := range reasons {
		printable.Fprintf(b, "skipped %d cases: %s\n", skips[reason], reason)
	}
	for _, id := range s.UnknownIDs {
		printable.Fprintf(b, "warning: known failure %s is neither a case of this corpus nor the signature of a failure\n", id)
	}
	for _, entry := range s.StaleCauses {
		printable.Fprintf(b, "stale known failure %s: no failure of this run has that cause (remove it from the list)\n", entry)
	}
	if s.KnownFailures+s.UnexpectedPasses > 0 {
		fmt.Fprintf(b, "%d known failures, %d unexpected passes\n", s.KnownFailures, s.UnexpectedPasses)
	}
	if line := KnownCrashesLine(s.KnownCrashes, s.KnownTimeouts, o.AllowKnownCrashes); line != "" {
		fmt.Fprintln(b, line)
	}
	fmt.Fprintln(b, s.Line())
	return b.Flush()
}

// writeResult writes one case's result on one line: its status, ID,
// source and detail, and for a failure its case, signature and cause,
// each after " — ". Text from the corpus or the implementation (a
// subscript of several lines among it) is escaped onto that line.
func writeResult(w io.Writer, r Result) {
	printable.Fprintf(w, "%s %s", r.Status, r.ID)
	if r.Source != "" {
		printable.Fprintf(w, " (expected: %s)", casefile.ExpectedFrom(r.Op, r.Source))
	}
	if r.Detail != "" {
		printable.Fprintf(w, ": %s", r.Detail)
	}
	if r.Status == Fail || r.Status == XFail {
		if r.Case != "" {
			printable.Fprintf(w, " — case %s", r.Case)
		}
		if !r.Signature.IsZero() {
			printable.Fprintf(w, " — signature %s", r.Signature)
		}
		if r.Cause != nil {
			printable.Fprintf(w, " — cause %s", causeName(r.Cause))
		}
	}
	fmt.Fprintln(w)
}

// causeName names the cause of a failure: its rule, or that no rule
// explains it.
func causeName(c *cause.Cause) string {
	if c.Explained() {
		return string(c.Rule)
	}
	return "none: no rule explains " + c.Group() + " here"
}

// writeCauses writes the causes of the failures, one line each with its
// first case: those a rule explains ("cause RULE — GROUP: ...", then an
// indented line with the rule's statement and source), then
// the failures no rule explains, by symptom ("symptom GROUP: ...");
// nothing if there are none. A cause confirmed by neighbours (confs,
// parallel to causes, see ConfirmCauses) is followed by an indented line
// saying how.
func writeCauses(w io.Writer, causes []cause.Cause, confs []*Confirmation, verbose bool) {
	if len(causes) == 0 {
		return
	}
	explained := 0
	for _, c := range causes {
		if c.Explained() {
			explained++
		}
	}
	fmt.Fprintf(w, "failures by cause (%d causes, %d groups that no rule explains", explained, len(causes)-explained)
	if !verbose {
		fmt.Fprint(w, "; -v lists every failing case")
	}
	fmt.Fprintln(w, "):")
	for i, c := range causes {
		what := "cause"
		if !c.Explained() {
			what = "symptom"
		}
		printable.Fprintf(w, "  %s %s (first: %s)\n", what, c, c.Cases[0])
		if rule, ok := engine.RuleByID(c.Rule); ok {
			printable.Fprintf(w, "    rule: %s (%s)\n", rule.Statement, rule.Source)
		}
		if i < len(confs) && confs[i] != nil {
			printable.Fprintf(w, "    %s\n", confs[i].Line())
		}
	}
}

// Line says in one line what the confirmation found: "confirmed:
// `FAILING` fails (SYMPTOM), `PASSING` passes (EDIT)", or "not confirmed
// by neighbours (K tried)" and why.
func (c *Confirmation) Line() string {
	symptom := c.Symptom
	switch {
	case c.Confirmed:
		return fmt.Sprintf("confirmed: `%s` fails (%s), `%s` passes (%s)", c.Failing, symptom, c.Passing, c.Edit)
	case c.Failing == "":
		return "not confirmed by neighbours: no failing case of the cause can be read"
	case !c.Reproduced:
		return fmt.Sprintf("not confirmed by neighbours: `%s` does not fail with %s against the engine (0 tried)", c.Failing, symptom)
	}
	return fmt.Sprintf("not confirmed by neighbours (%d tried)", c.Tried)
}

// KnownCrashesLine says how many crashes and timeouts signature entries
// of the known-failures list matched, and what became of them (allowed:
// counted as known); "" if none did. check and fuzz print it.
func KnownCrashesLine(crashes, timeouts int, allowed bool) string {
	if crashes+timeouts == 0 {
		return ""
	}
	how := "they fail the run (--allow-known-crashes counts them as known)"
	if allowed {
		how = "counted as known (--allow-known-crashes)"
	}
	return fmt.Sprintf("%d crashes and %d timeouts matched known-failure entries: %s", crashes, timeouts, how)
}

// writeSignatures writes the failures grouped by signature: each
// signature with its number of failures and its first case, most frequent
// first.
func writeSignatures(w io.Writer, results []Result) {
	type group struct {
		sig   string
		n     int
		first string
	}
	index := map[string]*group{}
	var groups []*group
	for _, r := range results {
		if r.Status != Fail || r.Signature.IsZero() {
			continue
		}
		sig := r.Signature.String()
		g := index[sig]
		if g == nil {
			g = &group{sig: sig, first: r.ID}
			index[sig] = g
			groups = append(groups, g)
		}
		g.n++
	}
	if len(groups) == 0 {
		return
	}
	sort.SliceStable(groups, func(i, j int) bool { return groups[i].n > groups[j].n })
	fmt.Fprintf(w, "failures by signature (%d):\n", len(groups))
	for _, g := range groups {
		printable.Fprintf(w, "  %s: %d (first: %s)\n", g.sig, g.n, g.first)
	}
}
