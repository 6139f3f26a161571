package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"time"

	"github.com/conformsuite/conform/cases"
	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/confine"
	"github.com/conformsuite/conform/internal/oracle"
	"github.com/conformsuite/conform/internal/output"
	"github.com/conformsuite/conform/internal/printable"
	"github.com/conformsuite/conform/internal/protocol"
)

// checkCommand runs a corpus against an implementation: the gate.
var checkCommand = &command{
	name:  "check",
	usage: []string{"check [--cases DIR] [--impl IMPL] [--known-failures FILE] [--junit FILE] [--json FILE] [flags]"},
	short: "run a case corpus against the engine or another implementation (the CI gate)",
	long: `Runs every case (each *.json case file and each line of each *.jsonl case
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
unless --allow-known-crashes is given. An entry may also name a cause,
"cause:RULE@SYMPTOM" (e.g. "cause:getitem/negative-step@error/invalid_spec",
the rule and the symptom as --json gives a failure's cause and symptom):
every failure whose cause conform found is that rule, with that symptom, is
known; a listed cause that no failure of the run has is stale and fails the
run, as an unexpected pass does. FILE is read like a corpus file: a
regular file (a FIFO or device is refused before it is opened) of at most
16 MiB.

Cases and corpora are not trusted: every path a case names must stay inside
its directory (no absolute paths, no "..", no symbolic link leading out), only
regular files are read, and no file larger than --max-input is read at all. A
blob pack's members must be stored uncompressed. A corpus entry that breaks
these rules, or is not valid JSON, fails on its own; the rest still runs.

When cases fail, the causes come first, one line each: the rule of the
reference semantics that explains a group of failures of one op with one
symptom, with its counts ("cause getitem/negative-step —
getitem/error/invalid_spec: 169 failing cases; 169 of 174 cases exercising
the rule fail so, 2 of 792 without"), then the failures no rule explains,
grouped by symptom ("symptom take/values: ..."). A cause is
found by fault localisation over the rules each case exercises on the
engine (see docs/commands.md); for an implementation other than the engine,
each cause is then confirmed by neighbours, a line under it saying so
("confirmed: 'getitem x[::-1]; x: <i8 (1,)' fails (error/invalid_spec),
'getitem x[::1]; x: <i8 (1,)' passes (step -1 → 1)", with backquotes): its smallest failing
case fails again and a case one edit away that leaves the rule out passes,
or "not confirmed by neighbours (K tried)". Each failure is then listed only with -v
(the failures that are not an answer of the implementation, such as an
unreadable case, always are), one line each: it names the case, the source of the expected
value, the first differing element, its signature and its cause; the last
line is "N passed, N failed, N skipped". Exit
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
` + jobsHelp,
	define: func(fset *flag.FlagSet) func([]string, stdio) int {
		var o checkOptions
		fset.StringVar(&o.dir, "cases", "", "run the cases under `DIR` instead of the embedded corpus")
		fset.StringVar(&o.impl, "impl", "engine", "the implementation under test: engine, numpy, tfjs, ort, tflite, or a `command`")
		fset.StringVar(&o.known, "known-failures", "", "`FILE` of case IDs expected to fail")
		fset.DurationVar(&o.timeout, "timeout", 10*time.Second, "per-case timeout for a protocol implementation")
		fset.BoolVar(&o.text.Verbose, "v", false, "print every case, not only the causes of the failures and the skips")
		fset.StringVar(&o.junit, "junit", "", "also write a JUnit XML report to `FILE`")
		fset.StringVar(&o.json, "json", "", "also write a JSON report to `FILE`")
		fset.Int64Var(&o.maxOutput, "max-output", engine.DefaultOutputLimit, "the engine refuses results larger than `BYTES` (0: the default)")
		maxInput := maxInputFlag(fset)
		jobs := jobsFlag(fset)
		fset.BoolVar(&o.allowEmpty, "allow-empty", false, "exit 0 even if no case ran (an empty corpus, or every case skipped)")
		fset.BoolVar(&o.text.AllowKnownCrashes, "allow-known-crashes", false, "let signature entries of --known-failures absorb crashes and timeouts")
		return func(args []string, std stdio) int {
			if len(args) != 0 {
				fmt.Fprintf(std.errout, "conform check: unexpected argument %q\n", args[0])
				return exitUsage
			}
			var ok bool
			if o.jobs, ok = resolveJobs("check", *jobs, std.errout); !ok {
				return exitUsage
			}
			o.maxInput = *maxInput
			return runCheck(o, std)
		}
	},
}

// checkOptions are the flags of conform check.
type checkOptions struct {
	dir, impl, known, junit, json string
	timeout                       time.Duration
	maxOutput, maxInput           int64
	jobs                          int
	allowEmpty                    bool
	text                          check.TextOptions
}

// runCheck runs conform check.
func runCheck(o checkOptions, std stdio) int {
	fsys, opts, code := prepareCheck(o, std.errout)
	if code != exitOK {
		return code
	}
	im, err := oracle.OpenJobs(o.impl, o.timeout, o.maxOutput, o.jobs)
	if err != nil {
		printable.Fprintf(std.errout, "conform check: %v\n", err)
		return exitUsage
	}
	if o.impl != "engine" {
		opts.Workers = check.PipelinedCases // pipelined over the child
		printable.Fprintf(std.errout, "implementation %s %s\n", im.Name(), im.Version())
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	summary, err := check.Run(ctx, fsys, im, opts)
	if err != nil {
		summary = check.CorpusFailure(err)
	} else if err := summary.FindCauses(fsys); err != nil {
		printable.Fprintf(std.errout, "conform check: warning: the causes of the failures cannot be found: %v\n", err)
	} else if o.impl != "engine" {
		// The engine fails nothing: only a child's causes are confirmed.
		if err := summary.ConfirmCauses(ctx, fsys, im); err != nil {
			printable.Fprintf(std.errout, "conform check: warning: the causes cannot be confirmed by neighbours: %v\n", err)
		}
	}
	summary.ApplyKnownCauses(opts.KnownFailures, opts.AllowKnownCrashes)
	summary.CasesDir = o.dir
	// Closing the implementation reports the protocol errors it made
	// after their case's answer had been returned (a second answer).
	if err := im.Close(); err != nil {
		var faults *protocol.FaultError
		if errors.As(err, &faults) {
			summary.Protocol = append(summary.Protocol, faults.Error())
		} else {
			printable.Fprintf(std.errout, "conform check: warning: closing %s: %v\n", im.Name(), err)
		}
	}
	status := exitOK
	for _, report := range []struct {
		path  string
		write func(io.Writer) error
	}{{o.junit, summary.WriteJUnit}, {o.json, summary.WriteJSON}} {
		if report.path == "" {
			continue
		}
		if err := writeReport(report.path, report.write); err != nil {
			printable.Fprintf(std.errout, "conform check: %v\n", err)
			status = exitRejected
		}
	}
	summary.WriteText(std.out, o.text)
	if !summary.OK() {
		status = exitRejected
	}
	if ran := summary.Passed + summary.Failed; ran == 0 && len(summary.Integrity) == 0 {
		why := "the corpus holds no cases"
		if summary.Skipped > 0 {
			why = fmt.Sprintf("all %d cases were skipped", summary.Skipped)
		}
		if !testedNothing(std.out, "no case ran", "the gate", why, o.allowEmpty) {
			status = exitRejected
		}
	}
	return status
}

// testedNothing prints that a run tested nothing (what happened and why)
// and reports whether that is allowed (--allow-empty); subject names what
// fails otherwise.
func testedNothing(w io.Writer, what, subject, why string, allow bool) bool {
	if allow {
		fmt.Fprintf(w, "%s: %s (allowed by --allow-empty)\n", what, why)
		return true
	}
	fmt.Fprintf(w, "%s: %s; %s fails, as it tested nothing (--allow-empty accepts this)\n", what, why, subject)
	return false
}

// prepareCheck checks what conform check was asked before anything runs:
// it opens the corpus and reads the known-failures file, and refuses
// report destinations that would replace a file the run reads. A code
// other than exitOK ends the command (stderr says why).
func prepareCheck(o checkOptions, stderr io.Writer) (fs.FS, check.Options, int) {
	opts := check.Options{Workers: 1, AllowKnownCrashes: o.text.AllowKnownCrashes}
	fsys := confine.WithLimit(cases.FS, o.maxInput)
	if o.dir != "" {
		var err error
		if fsys, err = openCases(o.dir, o.maxInput); err != nil {
			printable.Fprintf(stderr, "conform check: %v\n", err)
			return nil, opts, exitUsage
		}
	}
	inputs := runInputs(o.dir, o.known, o.impl)
	for _, r := range []struct{ flag, path string }{{"--junit", o.junit}, {"--json", o.json}} {
		if r.path == "" {
			continue
		}
		if err := inputs.Check(r.flag, r.path); err != nil {
			printable.Fprintf(stderr, "conform check: %v\n", err)
			return nil, opts, exitUsage
		}
	}
	if o.known != "" {
		var err error
		if opts.KnownFailures, err = check.ReadKnownFailuresFile(o.known, o.maxInput); err != nil {
			printable.Fprintf(stderr, "conform check: --known-failures: %v\n", err)
			return nil, opts, exitUsage
		}
	}
	return fsys, opts, exitOK
}

// writeReport writes a report file through write, atomically (see
// output.WriteExitingOnSignal); the path was checked before the run.
func writeReport(path string, write func(io.Writer) error) error {
	return output.WriteExitingOnSignal(path, write)
}
