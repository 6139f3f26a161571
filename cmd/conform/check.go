package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"sort"
	"time"

	"github.com/conformsuite/conform/cases"
	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/confine"
	"github.com/conformsuite/conform/internal/output"
	"github.com/conformsuite/conform/internal/printable"
	"github.com/conformsuite/conform/internal/protocol"
	"github.com/conformsuite/conform/oracle"
)

const checkUsage = `Usage: conform check [--cases DIR] [--impl IMPL] [--known-failures FILE]
                     [--junit FILE] [--json FILE] [--allow-empty]
                     [--allow-known-crashes] [-v]

Runs every case (each *.json case file and each line of each *.jsonl case
list, with an "expect" object) against an implementation and compares
exactly: dtype, shape and the raw bytes of every element, or the error kind.
Without --cases it runs the corpus embedded in the binary. A corpus that
carries a MANIFEST is verified first: a changed, missing or extra file is
reported by name.

IMPL is "engine" (the reference engine, in process; the default), an oracle
name ("numpy", "tfjs", "ort", "tflite"), or a command line starting a conform/1 child, e.g.
--impl 'python3 my_adapter.py'. Ops the child does not list in its hello
are skipped and counted; a case on which it crashes, hangs or answers
garbage fails, and the child is restarted.

--known-failures FILE lists case IDs expected to fail, one per line, with
an optional "# reason": they count as passed, and a listed case that passes
fails the run as an unexpected pass. An entry may be a failure signature
("take/values"): every failure with it is known. A signature entry does not
absorb crashes and timeouts ("take/crash/died", "take/crash"): they still
fail, counted in "N crashes and M timeouts matched known-failure entries",
unless --allow-known-crashes is given. FILE is read like a corpus file: a
regular file (a FIFO or device is refused before it is opened) of at most
16 MiB.

Cases and corpora are not trusted: every path a case names must stay inside
its directory (no absolute paths, no "..", no symbolic link leading out), only
regular files are read, and no file larger than --max-input is read at all. A
blob pack's members must be stored uncompressed. A corpus entry that breaks
these rules, or is not valid JSON, fails on its own; the rest still runs.

Each failure names the case, the source of the expected value and the first
differing element; the last line is "N passed, N failed, N skipped". Exit
status 1 if any case failed, the manifest does not match (a directory with a
blobs.npz pack must carry its MANIFEST), or no case ran at all (an empty
corpus, or every case skipped) unless --allow-empty is given. The --junit
and --json reports are written in every case.

--junit and --json are written through a temporary file renamed into
place (a symbolic link there is replaced, not followed). Refused before the
run, with exit status 2: a directory or other file that is not regular, a
file the run reads (any file under --cases DIR, the known-failures file,
a file the --impl command line names, under any spelling, hard link or
symbolic link), and --junit and --json naming one file.

Options:
`

func runCheck(args []string, stdout, stderr io.Writer) int {
	fset := newFlags("check", checkUsage, stderr)
	dir := fset.String("cases", "", "run the cases under `DIR` instead of the embedded corpus")
	implSpec := fset.String("impl", "engine", "the implementation under test: engine, numpy, tfjs, ort, tflite, or a `command`")
	knownPath := fset.String("known-failures", "", "`FILE` of case IDs expected to fail")
	timeout := fset.Duration("timeout", 10*time.Second, "per-case timeout for a protocol implementation")
	verbose := fset.Bool("v", false, "print every case, not only failures and skips")
	junit := fset.String("junit", "", "also write a JUnit XML report to `FILE`")
	jsonOut := fset.String("json", "", "also write a JSON report to `FILE`")
	maxOutput := fset.Int64("max-output", engine.DefaultOutputLimit, "the engine refuses results larger than `BYTES`")
	maxInput := maxInputFlag(fset)
	allowEmpty := fset.Bool("allow-empty", false, "exit 0 even if no case ran (an empty corpus, or every case skipped)")
	allowCrashes := fset.Bool("allow-known-crashes", false, "let signature entries of --known-failures absorb crashes and timeouts")
	positional, code, done := parseArgs(fset, args)
	if done {
		return code
	}
	if len(positional) != 0 {
		fmt.Fprintf(stderr, "conform check: unexpected argument %q\n", positional[0])
		return exitUsage
	}
	engine.SetOutputLimit(*maxOutput)
	confine.SetLimit(*maxInput)
	var fsys fs.FS = cases.FS
	if *dir != "" {
		var err error
		if fsys, err = openCases(*dir); err != nil {
			printable.Fprintf(stderr, "conform check: %v\n", err)
			return exitUsage
		}
	}
	inputs := runInputs(*dir, *knownPath, *implSpec)
	for _, o := range []struct{ flag, path string }{{"--junit", *junit}, {"--json", *jsonOut}} {
		if o.path == "" {
			continue
		}
		if err := inputs.Check(o.flag, o.path); err != nil {
			printable.Fprintf(stderr, "conform check: %v\n", err)
			return exitUsage
		}
	}
	opts := check.Options{Workers: 1}
	opts.AllowKnownCrashes = *allowCrashes
	if *knownPath != "" {
		var err error
		if opts.KnownFailures, err = check.ReadKnownFailuresFile(*knownPath); err != nil {
			printable.Fprintf(stderr, "conform check: --known-failures: %v\n", err)
			return exitUsage
		}
	}
	im, err := oracle.Open(*implSpec, *timeout)
	if err != nil {
		printable.Fprintf(stderr, "conform check: %v\n", err)
		return exitUsage
	}
	if *implSpec != "engine" {
		opts.Workers = check.PipelinedCases // pipelined over the child
		printable.Fprintf(stderr, "implementation %s %s\n", im.Name(), im.Version())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	summary, err := check.Run(ctx, fsys, im, opts)
	if err != nil {
		summary = check.CorpusFailure(err)
	}
	// Closing the implementation reports the protocol errors it made
	// after their case's answer had been returned (a second answer).
	if err := im.Close(); err != nil {
		var faults *protocol.FaultError
		if errors.As(err, &faults) {
			summary.Protocol = append(summary.Protocol, faults.Error())
		} else {
			printable.Fprintf(stderr, "conform check: warning: closing %s: %v\n", im.Name(), err)
		}
	}
	for _, p := range summary.Protocol {
		printable.Fprintf(stdout, "protocol: %s\n", p)
	}
	for _, p := range summary.Integrity {
		printable.Fprintf(stdout, "integrity: %s (does not match the MANIFEST)\n", p)
	}
	if _, line := summary.MoreIntegrity(); line != "" {
		fmt.Fprintf(stdout, "integrity: %s\n", line)
	}
	skips := map[string]int{}
	for _, r := range summary.Results {
		if r.Status == check.Skip && !*verbose {
			skips[r.Detail]++
			continue
		}
		if (r.Status == check.Pass || r.Status == check.XFail) && !*verbose {
			continue
		}
		printable.Fprintf(stdout, "%s %s", r.Status, r.ID)
		if r.Source != "" {
			printable.Fprintf(stdout, " (expected: %s)", r.Source)
		}
		if r.Detail != "" {
			printable.Fprintf(stdout, ": %s", r.Detail)
		}
		fmt.Fprintln(stdout)
		if r.Status != check.Fail && r.Status != check.XFail {
			continue
		}
		if r.Case != "" {
			printable.Fprintf(stdout, "    case: %s\n", r.Case)
		}
		if !r.Signature.IsZero() {
			printable.Fprintf(stdout, "    signature: %s\n", r.Signature)
		}
	}
	printSignatures(stdout, summary.Results)
	reasons := make([]string, 0, len(skips))
	for reason := range skips {
		reasons = append(reasons, reason)
	}
	sort.Strings(reasons)
	for _, reason := range reasons {
		printable.Fprintf(stdout, "skipped %d cases: %s\n", skips[reason], reason)
	}
	for _, id := range summary.UnknownIDs {
		printable.Fprintf(stdout, "warning: known failure %s is neither a case of this corpus nor the signature of a failure\n", id)
	}
	if summary.KnownFailures+summary.UnexpectedPasses > 0 {
		fmt.Fprintf(stdout, "%d known failures, %d unexpected passes\n", summary.KnownFailures, summary.UnexpectedPasses)
	}
	printKnownCrashes(stdout, summary.KnownCrashes, summary.KnownTimeouts, *allowCrashes)
	status := exitOK
	for _, report := range []struct {
		path  string
		write func(io.Writer) error
	}{{*junit, summary.WriteJUnit}, {*jsonOut, summary.WriteJSON}} {
		if report.path == "" {
			continue
		}
		if err := writeReport(report.path, report.write); err != nil {
			printable.Fprintf(stderr, "conform check: %v\n", err)
			status = exitRejected
		}
	}
	fmt.Fprintln(stdout, summary.Line())
	if !summary.OK() {
		status = exitRejected
	}
	if ran := summary.Passed + summary.Failed; ran == 0 && len(summary.Integrity) == 0 {
		why := "the corpus holds no cases"
		if summary.Skipped > 0 {
			why = fmt.Sprintf("all %d cases were skipped", summary.Skipped)
		}
		if *allowEmpty {
			fmt.Fprintf(stdout, "no case ran: %s (allowed by --allow-empty)\n", why)
		} else {
			fmt.Fprintf(stdout, "no case ran: %s; the gate fails, as it tested nothing (--allow-empty accepts this)\n", why)
			status = exitRejected
		}
	}
	return status
}

// writeReport writes a report file through write, atomically (see
// output.WriteExitingOnSignal); the path was checked before the run.
func writeReport(path string, write func(io.Writer) error) error {
	return output.WriteExitingOnSignal(path, write)
}

// printKnownCrashes prints how many crashes and timeouts signature
// entries of the known-failures list matched, and what became of them.
func printKnownCrashes(w io.Writer, crashes, timeouts int, allowed bool) {
	if crashes+timeouts == 0 {
		return
	}
	how := "they fail the run (--allow-known-crashes counts them as known)"
	if allowed {
		how = "counted as known (--allow-known-crashes)"
	}
	fmt.Fprintf(w, "%d crashes and %d timeouts matched known-failure entries: %s\n", crashes, timeouts, how)
}

// printSignatures prints the failures grouped by signature: each
// signature with its number of failures and its first case, most frequent
// first.
func printSignatures(w io.Writer, results []check.Result) {
	type group struct {
		sig   string
		n     int
		first string
	}
	index := map[string]*group{}
	var groups []*group
	for _, r := range results {
		if r.Status != check.Fail || r.Signature.IsZero() {
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
