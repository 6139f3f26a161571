package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/conformsuite/conform/cases"
	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/confine"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/printable"
)

// rulesCommand prints the engine's table of rules with the corpus cases
// that exercise each.
var rulesCommand = &command{
	name:  "rules",
	usage: []string{"rules [--cases DIR] [--json]"},
	short: "list the rules of the reference semantics, with the corpus cases that exercise each",
	long: `Prints every rule of the reference semantics the engine follows (its table
of rules, engine.RuleTable; docs/rules.md is generated from it): its ID, the
error kind an error rule raises, and how many cases of the corpus exercise
it, then the coverage gaps: the rules no case exercises.

Every case is evaluated on the engine, with a trace: an error rule counts
the cases whose error it raises (every engine error names its rule), a rule
that decides an output the cases whose trace holds it. A rule the engine
does not trace yet is not counted ("-"), nor is a variant's own error rule,
which is raised only under its variant, never by the reference corpus.
Cases whose error comes from reading the case (a malformed field, before
the engine runs) are counted apart.

Without --cases the corpus embedded in the binary is read. --json prints
the same as one JSON object.
`,
	define: func(fset *flag.FlagSet) func([]string, stdio) int {
		dir := fset.String("cases", "", "count the cases under `DIR` instead of the embedded corpus")
		asJSON := fset.Bool("json", false, "print a JSON object instead of text")
		maxInput := maxInputFlag(fset)
		return func(args []string, std stdio) int {
			if len(args) > 0 {
				fmt.Fprintf(std.errout, "conform rules: unexpected argument %q\n", args[0])
				fset.Usage()
				return exitUsage
			}
			var fsys fs.FS = confine.WithLimit(cases.FS, *maxInput)
			if *dir != "" {
				var err error
				if fsys, err = openCases(*dir, *maxInput); err != nil {
					printable.Fprintf(std.errout, "conform rules: %v\n", err)
					return exitUsage
				}
			}
			cov, err := ruleCoverage(fsys)
			if err != nil {
				printable.Fprintf(std.errout, "conform rules: %v\n", err)
				return exitRejected
			}
			if *asJSON {
				enc := json.NewEncoder(std.out)
				enc.SetIndent("", "  ")
				enc.SetEscapeHTML(false)
				if err := enc.Encode(cov); err != nil {
					printable.Fprintf(std.errout, "conform rules: %v\n", err)
					return exitRejected
				}
				return exitOK
			}
			writeRules(std.out, cov)
			return exitOK
		}
	},
}

// ruleCount is one rule of the table with the corpus cases that exercise
// it.
type ruleCount struct {
	ID        engine.RuleID `json:"id"`
	Ops       []string      `json:"ops"`
	Statement string        `json:"statement"`
	Source    string        `json:"source"`
	Kind      string        `json:"kind,omitempty"`
	RefError  string        `json:"reference_error,omitempty"`
	Variant   string        `json:"variant,omitempty"`
	// Cases is the number of cases that exercise the rule; nil where the
	// rule is not counted (see rulesCommand).
	Cases *int `json:"cases"`
}

// coverage is the table of rules with their corpus coverage: what
// "conform rules" prints.
type coverage struct {
	Rules []ruleCount `json:"rules"`
	// Cases is the number of cases read; Unreadable counts the entries
	// that are not cases at all (not JSON, a duplicate ID, ...), ReadErrors
	// the cases whose answer is an error raised while reading the case,
	// before the engine runs; Errors the cases the engine answers with an
	// error, and Unattributed those whose error names no rule (always 0
	// unless the engine has a defect).
	Cases        int `json:"cases"`
	Unreadable   int `json:"unreadable"`
	ReadErrors   int `json:"read_errors"`
	Errors       int `json:"engine_errors"`
	Unattributed int `json:"unattributed"`
	// Gaps lists the counted rules that no case exercises.
	Gaps []engine.RuleID `json:"gaps"`
}

// counted reports whether the corpus count of r is meaningful: an error
// rule of the reference semantics, or a rule the engine traces.
func counted(r engine.Rule) bool {
	return r.IsError() && r.Variant == 0 || slices.Contains(engine.TracedRules(), r.ID)
}

// ruleCoverage counts, for each rule of engine.RuleTable, the cases of the
// corpus under fsys that exercise it.
func ruleCoverage(fsys fs.FS) (*coverage, error) {
	byRule := map[engine.RuleID]int{}
	cov := &coverage{}
	err := walkCorpus(fsys, func(a caseAnswer) {
		switch {
		case a.unreadable:
			cov.Unreadable++
			return
		case a.readErr != nil:
			cov.Cases++
			cov.ReadErrors++
			return
		}
		cov.Cases++
		for _, id := range a.traced {
			byRule[id]++
		}
		if a.err == nil {
			return
		}
		cov.Errors++
		if id := engine.RuleOf(a.err); id != "" {
			byRule[id]++
		} else {
			cov.Unattributed++
		}
	})
	if err != nil {
		return nil, err
	}
	for _, r := range engine.RuleTable {
		rc := ruleCount{ID: r.ID, Ops: r.Ops, Statement: r.Statement, Source: r.Source, Kind: string(r.Kind), RefError: r.RefError}
		if r.Variant != 0 {
			rc.Variant = r.Variant.String()
		}
		if counted(r) {
			n := byRule[r.ID]
			rc.Cases = &n
			if n == 0 {
				cov.Gaps = append(cov.Gaps, r.ID)
			}
		}
		cov.Rules = append(cov.Rules, rc)
	}
	return cov, nil
}

// caseAnswer is the engine's answer to one corpus case: unreadable for an
// entry that is not a case, readErr for a case that cannot be read
// (a malformed field, an unreadable input), else the engine's error, nil
// for an output.
type caseAnswer struct {
	id         string
	op         string
	unreadable bool
	readErr    error
	err        error
	traced     []engine.RuleID // the rules the evaluation's trace holds
}

// walkCorpus evaluates every case of the corpus under fsys (see
// corpus.Entries) on the engine, with a trace, in order, and calls visit
// with each answer. Loading a case is the one place that knows how the corpus is
// read (check.LoadCase).
func walkCorpus(fsys fs.FS, visit func(caseAnswer)) error {
	entries, err := corpus.Entries(fsys)
	if err != nil {
		return err
	}
	fsys = corpus.Open(fsys)
	for _, e := range entries {
		a := caseAnswer{id: e.ID, op: e.Op()}
		if e.Err != nil {
			a.unreadable = true
			visit(a)
			continue
		}
		c, err := check.LoadCase(fsys, e)
		switch {
		case err != nil:
			a.readErr = err
		case c.Err != nil && engine.RuleOf(c.Err) == "":
			// Not a case of the op (a malformed field): conform's case
			// format refused it, no rule of the reference.
			a.readErr = c.Err
		default:
			// A case refused while its fields were read by a rule of
			// the reference (a mask list entry that is not 0 or 1)
			// answers with that rule's error: EvalUnder returns it.
			trace := &engine.Trace{}
			_, a.err = c.EvalUnder(engine.Rules{Trace: trace})
			a.traced = trace.Rules()
		}
		visit(a)
	}
	return nil
}

// writeRules writes the coverage as text: one line per rule (ID, kind,
// cases, statement), then the totals and the gaps.
func writeRules(w io.Writer, cov *coverage) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tERROR\tCASES\tSTATEMENT")
	for _, r := range cov.Rules {
		kind := r.Kind
		if kind == "" {
			kind = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, kind, casesCell(r), r.Statement)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d rules (%d error rules); %d cases: %d answered by an engine error, %d by an error reading the case",
		len(cov.Rules), errorRules(cov), cov.Cases, cov.Errors, cov.ReadErrors)
	if cov.Unreadable > 0 {
		fmt.Fprintf(w, "; %d entries are not cases", cov.Unreadable)
	}
	fmt.Fprintln(w)
	if cov.Unattributed > 0 {
		fmt.Fprintf(w, "%d engine errors name no rule (a defect of the engine)\n", cov.Unattributed)
	}
	if len(cov.Gaps) == 0 {
		fmt.Fprintln(w, "coverage gaps: none: every counted rule is exercised by some case")
		return
	}
	fmt.Fprintf(w, "coverage gaps: %d rules no case exercises:\n", len(cov.Gaps))
	for _, id := range cov.Gaps {
		fmt.Fprintf(w, "  %s\n", id)
	}
}

// casesCell is the cases column of r: its count, or "-" where the rule is
// not counted.
func casesCell(r ruleCount) string {
	if r.Cases == nil {
		return "-"
	}
	return fmt.Sprint(*r.Cases)
}

// errorRules counts the error rules of cov.
func errorRules(cov *coverage) int {
	n := 0
	for _, r := range cov.Rules {
		if r.Kind != "" {
			n++
		}
	}
	return n
}

// rulesDocTable is the generated table of docs/rules.md: every rule with
// its kind, reference error, corpus cases, statement and source.
func rulesDocTable(cov *coverage) string {
	var b strings.Builder
	b.WriteString("| Rule | Error | Reference's error | Cases | Statement | Source |\n")
	b.WriteString("|---|---|---|---:|---|---|\n")
	for _, r := range cov.Rules {
		kind := r.Kind
		if r.Variant != "" {
			kind += " (variant " + r.Variant + ")"
		}
		cell := casesCell(r)
		if r.Cases != nil && *r.Cases == 0 {
			cell = "**0 (gap)**"
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n",
			r.ID, mdCell(kind), mdCell(r.RefError), cell, mdCell(r.Statement), mdCell(r.Source))
	}
	return b.String()
}

// mdCell escapes s for a Markdown table cell.
func mdCell(s string) string {
	return strings.ReplaceAll(s, "|", `\|`)
}

// rulesPerOp counts the rules of each op (a rule of several ops counts for
// each), in the order of casefile.OpNames.
func rulesPerOp() map[string]int {
	n := map[string]int{}
	for _, r := range engine.RuleTable {
		for _, op := range r.Ops {
			n[op]++
		}
	}
	return n
}

// rulesPerOpTable is the generated table of docs/rules.md that counts the
// rules of each op.
func rulesPerOpTable() string {
	var b strings.Builder
	b.WriteString("| Op | Rules | Error rules |\n|---|---:|---:|\n")
	errs := map[string]int{}
	for _, r := range engine.RuleTable {
		for _, op := range r.Ops {
			if r.IsError() {
				errs[op]++
			}
		}
	}
	all := rulesPerOp()
	for _, op := range casefile.OpNames() {
		fmt.Fprintf(&b, "| %s | %d | %d |\n", op, all[op], errs[op])
	}
	return b.String()
}
