package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/fuzz"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/neighbour"
	"github.com/conformsuite/conform/internal/oracle"
	"github.com/conformsuite/conform/internal/printable"
	"github.com/conformsuite/conform/internal/protocol"
	"github.com/conformsuite/conform/internal/signature"
)

// fuzzCommand is conform fuzz.
var fuzzCommand = &command{
	name:  "fuzz",
	usage: []string{"fuzz --impl IMPL [--oracle numpy[,tfjs,tflite]] [--duration D] [--seed S] [--out DIR] [flags]"},
	short: "live differential fuzzing; shrinks and saves disagreements",
	long: `Generates cases for every op the implementation lists, runs each on the
implementation and on the oracles (pipelined), and compares the
implementation exactly with the first oracle that runs the case (errors by
kind; by exception class on NumPy-defined ops for an implementation whose
hello says its errors are Python exceptions, as check compares them). Every disagreement has a signature (op/symptom/detail, as check
reports failures) and the rules of the reference its case exercises (read
from the engine). One that a cause already found explains (its case
exercises the cause's rule, with the cause's symptom) is counted under it;
any other is shrunk, one per signature at a time, to a minimal case
(fewest dims, smallest sizes, simplest spec) that still disagrees with the
same signature, and its cause is the rule of the minimal case its
neighbours confirm: the case fails, a neighbour one edit away without the
rule passes. The first minimal case of each cause is saved in DIR as a
normal case file with provenance (its cause and confirming neighbour), so
that "conform check --cases DIR --impl IMPL" replays it; a minimal case no
rule confirms is saved under its signature (one per signature). A crash or
timeout is re-run first, and not saved if it does not happen again. The
run goes on until --duration. Prints progress, the causes (each with its
count, minimal case and confirming neighbour), the cases no rule explains,
the disagreements no cause explains by signature, the throughput in
cases/s, and the summary line; exit status 1 if
anything disagreed, a child broke the protocol, a finding could not be
saved, or no case was compared at all (the implementation or the oracles
skipped every case) unless --allow-empty is given.

--out DIR is checked before fuzzing starts: it must be a directory conform
can write in (created if missing); otherwise the exit status is 2. A
finding that cannot be saved later (a full disk) is printed with NOT SAVED
and the reason, and fails the run; the "replay:" line is printed only if a
finding was saved. Each file is written through a temporary file renamed
into place, and never over a file the run reads (the known-failures file,
a file an --impl or --oracle command line names).

--known-failures FILE takes check's format (one entry per line, optional
"# reason"); its entries that are signatures are known: disagreements with
them are counted as known, not shrunk or saved, and do not fail the run.
An entry "cause:RULE@SYMPTOM" (as check --json names a failure's cause
and symptom: cause:getitem/negative-step@error/invalid_spec) makes known
the disagreements whose case exercises RULE with that symptom; one with the
symptom that does not exercise RULE is still shrunk (it may be a new
cause).
Crashes and timeouts ("take/crash/died", "take/crash/timeout") are known
only with --allow-known-crashes: without it they fail like any other
disagreement; either way "N crashes and M timeouts matched known-failure
entries" is printed. FILE must be a regular file of at most 16 MiB.

--duration bounds the wall time: no case is generated and no shrinking
step starts after it, and what is in flight then gets at most --timeout
more. A disagreement whose shrinking the deadline stops is saved as the
smallest failing case found by then, and said to be not necessarily
minimal.

IMPL and each oracle are "engine", an oracle name (numpy, tfjs, ort, tflite), or a
command line starting a conform/1 child.
` + jobsHelp,
	define: func(fset *flag.FlagSet) func([]string, stdio) int {
		var o fuzzOptions
		fset.StringVar(&o.impl, "impl", "", "the implementation under test (required)")
		fset.StringVar(&o.oracles, "oracle", "numpy", "comma-separated `oracles`; the first that runs a case is its reference")
		fset.DurationVar(&o.duration, "duration", 10*time.Second, "how long to fuzz (wall time, at most --timeout more)")
		fset.IntVar(&o.maxCases, "max-cases", 0, "stop after `N` cases (0: no limit)")
		fset.Uint64Var(&o.seed, "seed", 0, "generator `seed` (0: a random one, printed)")
		fset.StringVar(&o.out, "out", "fuzz-findings", "save minimal cases in `DIR`")
		shard := fset.String("shard", "0/1", "run shard `i/n` of the case space")
		fset.IntVar(&o.workers, "workers", fuzz.DefaultWorkers, "cases in flight")
		fset.DurationVar(&o.shrinkTime, "shrink-time", 5*time.Second, "time limit for shrinking one disagreement")
		fset.IntVar(&o.maxShrinks, "max-findings", 25, "save at most `N` minimal cases no rule explains (one per signature or divergence class; causes are not bounded)")
		fset.StringVar(&o.known, "known-failures", "", "`FILE` of signatures and causes expected to disagree (check's format)")
		fset.BoolVar(&o.allowEmpty, "allow-empty", false, "exit 0 even if no case was compared (every case skipped)")
		fset.BoolVar(&o.allowCrashes, "allow-known-crashes", false, "let --known-failures signatures absorb crashes and timeouts")
		fset.DurationVar(&o.timeout, "timeout", 5*time.Second, "per-case timeout for protocol children")
		jobs := jobsFlag(fset)
		return func(args []string, std stdio) int {
			var shardErr error
			o.shard, o.shards, shardErr = parseShard(*shard)
			if len(args) != 0 || o.impl == "" || o.oracles == "" || shardErr != nil || o.workers < 1 {
				if shardErr != nil {
					fmt.Fprintf(std.errout, "conform fuzz: %v\n", shardErr)
				} else {
					fmt.Fprintln(std.errout, "conform fuzz: need --impl and at least one --oracle")
				}
				fset.Usage()
				return exitUsage
			}
			var ok bool
			if o.jobs, ok = resolveJobs("fuzz", *jobs, std.errout); !ok {
				return exitUsage
			}
			return runFuzz(o, std)
		}
	},
}

// fuzzOptions are the flags of conform fuzz.
type fuzzOptions struct {
	impl, oracles, out, known     string
	duration, shrinkTime, timeout time.Duration
	maxCases, workers, maxShrinks int
	jobs                          int
	seed                          uint64
	shard, shards                 int
	allowEmpty, allowCrashes      bool
}

// runFuzz runs conform fuzz.
func runFuzz(o fuzzOptions, std stdio) int {
	var known map[string]string
	if o.known != "" {
		var err error
		if known, err = check.ReadKnownFailuresFile(o.known, 0); err != nil {
			printable.Fprintf(std.errout, "conform fuzz: --known-failures: %v\n", err)
			return exitUsage
		}
		for entry := range known { // cause entries were checked as the list was read
			if _, err := signature.Parse(entry); err != nil && !check.IsCauseEntry(entry) {
				printable.Fprintf(std.errout, "conform fuzz: --known-failures: ignoring %s: fuzz knows failures by signature or cause only\n", entry)
			}
		}
	}
	createdOut := false
	if o.out != "" {
		var err error
		if createdOut, err = fuzz.PrepareOut(o.out); err != nil {
			printable.Fprintf(std.errout, "conform fuzz: --out: %v\n", err)
			return exitUsage
		}
	}
	if o.seed == 0 {
		o.seed = uint64(time.Now().UnixNano())&(1<<53-1) | 1
	}
	all, err := openAll(append([]string{o.impl}, strings.Split(o.oracles, ",")...), o.timeout, o.jobs)
	defer closeQuietly(all)
	if err != nil {
		printable.Fprintf(std.errout, "conform fuzz: %v\n", err)
		return exitUsage
	}
	im, refs := all[0], all[1:]
	names := []string{}
	for _, r := range refs {
		names = append(names, r.Name()+" "+r.Version())
	}
	printable.Fprintf(std.errout, "fuzz: %s %s against %s, seed %d, shard %d/%d, %v\n",
		im.Name(), im.Version(), strings.Join(names, ", "), o.seed, o.shard, o.shards, o.duration)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s, err := fuzz.Run(ctx, fuzz.Options{
		Impl: im, Oracles: refs, Duration: o.duration, CaseTimeout: o.timeout, MaxCases: o.maxCases, Seed: o.seed,
		Shard: o.shard, Shards: o.shards, Out: o.out, Workers: o.workers,
		ShrinkTime: o.shrinkTime, ShrinkJobs: o.jobs, MaxShrinks: o.maxShrinks, KnownFailures: known, Log: std.errout,
		AllowKnownCrashes: o.allowCrashes, Inputs: runInputs("", o.known, append([]string{o.impl}, strings.Split(o.oracles, ",")...)...),
	})
	if err != nil {
		printable.Fprintf(std.errout, "conform fuzz: %v\n", err)
		return exitUsage
	}
	faulted := closeAll(all, std.errout)
	saved := writeFindings(std.out, s, im.Name(), o.allowCrashes)
	if saved > 0 {
		printable.Fprintf(std.out, "replay: conform check --cases %s --impl %s\n", o.out, quoteArg(o.impl))
	} else if createdOut {
		os.Remove(o.out) // created for findings, and none was saved
	}
	fmt.Fprintf(std.out, "%d cases in %.1f s: %.0f cases/s\n", s.Cases, s.Elapsed.Seconds(), s.Rate())
	fmt.Fprintln(std.out, s.Line())
	status := exitOK
	if s.Disagreed > 0 || faulted {
		status = exitRejected
	}
	if s.Unsaved > 0 {
		printable.Fprintf(std.out, "%d of %d findings could not be saved in %s (see NOT SAVED above)\n", s.Unsaved, len(s.Findings), o.out)
		status = exitRejected
	}
	if s.Compared() == 0 {
		why := "no case was generated"
		if s.Skipped > 0 {
			why = fmt.Sprintf("all %d cases were skipped", s.Skipped)
		}
		if !testedNothing(std.out, "no case compared", "the run", why, o.allowEmpty) {
			status = exitRejected
		}
	}
	return status
}

// openAll opens the implementations specs, each child up to jobs times.
// On an error it returns those it opened so far with the error.
func openAll(specs []string, timeout time.Duration, jobs int) ([]impl.Impl, error) {
	var all []impl.Impl
	for _, spec := range specs {
		im, err := oracle.OpenJobs(strings.TrimSpace(spec), timeout, 0, jobs)
		if err != nil {
			return all, err
		}
		all = append(all, im)
	}
	return all, nil
}

// closeQuietly closes the implementations all, ignoring errors (a no-op
// for those closeAll closed).
func closeQuietly(all []impl.Impl) {
	for _, im := range all {
		im.Close()
	}
}

// closeAll closes the implementations all, printing their errors to
// stderr, and reports whether one broke the protocol in a way no case's
// result could show (see protocol.FaultError).
func closeAll(all []impl.Impl, stderr io.Writer) (faulted bool) {
	for _, x := range all {
		err := x.Close()
		if err == nil {
			continue
		}
		var fe *protocol.FaultError
		if errors.As(err, &fe) {
			faulted = true
		}
		printable.Fprintf(stderr, "conform fuzz: %s: %v\n", x.Name(), err)
	}
	return faulted
}

// writeFindings writes the disagreements of a fuzz run (the
// implementation is named implName): the causes first, each with its
// count, its saved minimal case and the neighbour that confirmed it, the
// known causes; then the minimal cases no rule explains and the
// disagreements no cause explained, by signature, and the known ones. It
// returns the number of findings saved.
func writeFindings(w io.Writer, s *fuzz.Summary, implName string, allowCrashes bool) (saved int) {
	if len(s.Causes) > 0 {
		fmt.Fprintf(w, "disagreements by cause (%d):\n", len(s.Causes))
	}
	for _, c := range s.Causes {
		if c.Known {
			printable.Fprintf(w, "  %s — %s: %d, known: %s\n", c.Rule, c.Group(), c.Count, c.Reason)
			continue
		}
		printable.Fprintf(w, "  %s — %s: %d\n", c.Rule, c.Group(), c.Count)
		if f := c.Finding; f != nil {
			saved += writeFinding(w, *f, implName)
			printable.Fprintf(w, "    confirmed: %s passes (%s)\n", f.Neighbour, f.Edit)
		}
	}
	unexplained := 0
	for _, f := range s.Findings {
		if f.Cause == "" {
			unexplained++
		}
	}
	if unexplained > 0 {
		fmt.Fprintf(w, "minimal cases no rule explains (%d):\n", unexplained)
	}
	for _, f := range s.Findings {
		if f.Cause == "" {
			printable.Fprintf(w, "  %s\n", f.Signature)
			saved += writeFinding(w, f, implName)
		}
	}
	if len(s.Groups) > 0 {
		fmt.Fprintf(w, "disagreements no cause explained, by signature (%d):\n", len(s.Groups))
	}
	for _, g := range s.Groups {
		var where string
		switch {
		case g.Known:
			where = "known: " + g.Reason
		case g.Finding != nil && g.Finding.Path != "":
			where = g.Finding.Path
		case g.Finding != nil:
			where = g.Finding.ID
		default:
			where = "no minimal case of its own (see the causes, --max-findings, the --duration deadline)"
		}
		printable.Fprintf(w, "  %-40s %8d  %s\n", g.Signature, g.Count, where)
	}
	if s.Flaky > 0 {
		fmt.Fprintf(w, "%d crashes or timeouts did not happen again when re-run: not saved\n", s.Flaky)
	}
	if s.Known > 0 {
		fmt.Fprintf(w, "%d known failures (--known-failures)\n", s.Known)
	}
	if line := check.KnownCrashesLine(s.KnownCrashes, s.KnownTimeouts, allowCrashes); line != "" {
		fmt.Fprintln(w, line)
	}
	return saved
}

// writeFinding writes a minimal case, indented under its cause or
// signature, and where it was saved; it returns 1 if it was saved.
func writeFinding(w io.Writer, f fuzz.Finding, implName string) (saved int) {
	reference := casefile.ComputedBy(f.Case.Op, f.Oracle)
	if reference != f.Oracle {
		reference += "," // "tf.gather (TF semantics), computed with numpy, gives"
	}
	printable.Fprintf(w, "    minimal case %s: %s: %s gives %v; %s gives %v (%d input elements, shrunk from %d)\n",
		f.ID, neighbour.Describe(f.Case), implName, f.Got, reference, f.Want, elementsOf(f), f.Original)
	if f.Detail != "" && fmt.Sprint(f.Got) == fmt.Sprint(f.Want) {
		// Two outputs of one dtype and shape: their summaries read the
		// same, so say where the elements differ.
		printable.Fprintf(w, "    they differ: %s\n", f.Detail)
	}
	if f.Partial {
		fmt.Fprintf(w, "    shrinking stopped at the --duration deadline: not necessarily minimal\n")
	}
	if f.Path != "" {
		printable.Fprintf(w, "    saved %s\n", f.Path)
		saved++
	}
	if f.SaveErr != nil {
		printable.Fprintf(w, "    NOT SAVED: %v\n", f.SaveErr)
	}
	return saved
}

func elementsOf(f fuzz.Finding) int {
	n := 0
	for _, t := range f.Case.Inputs {
		n += t.Len()
	}
	return n
}

// parseShard parses "i/n" with 0 <= i < n.
func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, fmt.Errorf("--shard %q: want i/n with 0 <= i < n", s)
	}
	return i, n, nil
}

// quoteArg quotes a command-line argument for a POSIX shell if needed.
func quoteArg(s string) string {
	if strings.ContainsAny(s, " \t'\"$\\") {
		return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
	}
	return s
}
