package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/fuzz"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/printable"
	"github.com/conformsuite/conform/internal/protocol"
	"github.com/conformsuite/conform/internal/signature"
	"github.com/conformsuite/conform/oracle"
)

const fuzzUsage = `Usage: conform fuzz --impl IMPL [--oracle numpy[,tfjs,tflite]] [--duration D] [--seed S]
                    [--out DIR] [--shard i/n] [--max-cases N] [--max-findings N]
                    [--known-failures FILE] [--allow-known-crashes] [--allow-empty]

Generates cases for every op the implementation lists, runs each on the
implementation and on the oracles (pipelined), and compares the
implementation exactly with the first oracle that runs the case (errors by
kind). Every disagreement has a signature (op/symptom/detail, as check
reports failures). The first disagreement of each signature is shrunk to a
minimal case (fewest dims, smallest sizes, simplest spec) that still
disagrees with the same signature, and saved in DIR as a normal case file
with provenance, so that "conform check --cases DIR --impl IMPL" replays
it; later disagreements of a signature already seen are counted. The run goes on
until --duration. Prints progress, each signature with its count and saved
case, the throughput in cases/s, and the summary line; exit status 1 if
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

Options:
`

func runFuzz(args []string, stdout, stderr io.Writer) int {
	fset := newFlags("fuzz", fuzzUsage, stderr)
	implSpec := fset.String("impl", "", "the implementation under test (required)")
	oracles := fset.String("oracle", "numpy", "comma-separated `oracles`; the first that runs a case is its reference")
	duration := fset.Duration("duration", 10*time.Second, "how long to fuzz (wall time, at most --timeout more)")
	maxCases := fset.Int("max-cases", 0, "stop after `N` cases (0: no limit)")
	seed := fset.Uint64("seed", 0, "generator `seed` (0: a random one, printed)")
	out := fset.String("out", "fuzz-findings", "save minimal cases in `DIR`")
	shard := fset.String("shard", "0/1", "run shard `i/n` of the case space")
	workers := fset.Int("workers", 64, "cases in flight")
	shrinkTime := fset.Duration("shrink-time", 5*time.Second, "time limit for shrinking one disagreement")
	maxShrinks := fset.Int("max-findings", 25, "shrink and save at most `N` distinct signatures (or divergence classes)")
	knownPath := fset.String("known-failures", "", "`FILE` of signatures expected to disagree (check's format)")
	allowEmpty := fset.Bool("allow-empty", false, "exit 0 even if no case was compared (every case skipped)")
	allowCrashes := fset.Bool("allow-known-crashes", false, "let --known-failures signatures absorb crashes and timeouts")
	timeout := fset.Duration("timeout", 5*time.Second, "per-case timeout for protocol children")
	positional, code, done := parseArgs(fset, args)
	if done {
		return code
	}
	shardI, shardN, shardErr := parseShard(*shard)
	if len(positional) != 0 || *implSpec == "" || *oracles == "" || shardErr != nil || *workers < 1 {
		if shardErr != nil {
			fmt.Fprintf(stderr, "conform fuzz: %v\n", shardErr)
		} else {
			fmt.Fprintln(stderr, "conform fuzz: need --impl and at least one --oracle")
		}
		fset.Usage()
		return exitUsage
	}
	var known map[string]string
	if *knownPath != "" {
		var err error
		if known, err = check.ReadKnownFailuresFile(*knownPath); err != nil {
			printable.Fprintf(stderr, "conform fuzz: --known-failures: %v\n", err)
			return exitUsage
		}
		for entry := range known {
			if _, err := signature.Parse(entry); err != nil {
				printable.Fprintf(stderr, "conform fuzz: --known-failures: ignoring %s: fuzz knows failures by signature only\n", entry)
			}
		}
	}
	createdOut := false
	if *out != "" {
		var err error
		if createdOut, err = fuzz.PrepareOut(*out); err != nil {
			printable.Fprintf(stderr, "conform fuzz: --out: %v\n", err)
			return exitUsage
		}
	}
	if *seed == 0 {
		*seed = uint64(time.Now().UnixNano())&(1<<53-1) | 1
	}
	im, err := oracle.Open(*implSpec, *timeout)
	if err != nil {
		printable.Fprintf(stderr, "conform fuzz: %v\n", err)
		return exitUsage
	}
	defer im.Close() // a no-op after closeAll
	var refs []impl.Impl
	for _, name := range strings.Split(*oracles, ",") {
		o, err := oracle.Open(strings.TrimSpace(name), *timeout)
		if err != nil {
			printable.Fprintf(stderr, "conform fuzz: %v\n", err)
			return exitUsage
		}
		defer o.Close()
		refs = append(refs, o)
	}
	// closeAll closes every implementation and reports whether one broke
	// the protocol in a way no case's result could show (see
	// protocol.FaultError).
	closeAll := func() (faulted bool) {
		for _, x := range append([]impl.Impl{im}, refs...) {
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
	names := []string{}
	for _, o := range refs {
		names = append(names, o.Name()+" "+o.Version())
	}
	printable.Fprintf(stderr, "fuzz: %s %s against %s, seed %d, shard %d/%d, %v\n",
		im.Name(), im.Version(), strings.Join(names, ", "), *seed, shardI, shardN, *duration)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	s, err := fuzz.Run(ctx, fuzz.Options{
		Impl: im, Oracles: refs, Duration: *duration, CaseTimeout: *timeout, MaxCases: *maxCases, Seed: *seed,
		Shard: shardI, Shards: shardN, Out: *out, Workers: *workers,
		ShrinkTime: *shrinkTime, MaxShrinks: *maxShrinks, KnownFailures: known, Log: stderr,
		AllowKnownCrashes: *allowCrashes, Inputs: runInputs("", *knownPath, append([]string{*implSpec}, strings.Split(*oracles, ",")...)...),
	})
	if err != nil {
		printable.Fprintf(stderr, "conform fuzz: %v\n", err)
		return exitUsage
	}
	faulted := closeAll()
	for _, f := range s.Findings {
		printable.Fprintf(stdout, "disagreement %s (%s): %s gives %v; %s gives %v (%d input elements, shrunk from %d)\n",
			f.ID, f.Signature, im.Name(), f.Got, f.Oracle, f.Want, elementsOf(f), f.Original)
		if f.Partial {
			fmt.Fprintf(stdout, "  shrinking stopped at the --duration deadline: not necessarily minimal\n")
		}
		if f.Path != "" {
			printable.Fprintf(stdout, "  saved %s\n", f.Path)
		}
		if f.SaveErr != nil {
			printable.Fprintf(stdout, "  NOT SAVED: %v\n", f.SaveErr)
		}
	}
	if len(s.Groups) > 0 {
		fmt.Fprintf(stdout, "disagreements by signature (%d):\n", len(s.Groups))
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
			where = "not shrunk (--max-findings or the --duration deadline)"
		}
		printable.Fprintf(stdout, "  %-40s %8d  %s\n", g.Signature, g.Count, where)
	}
	if s.Known > 0 {
		fmt.Fprintf(stdout, "%d known failures (--known-failures)\n", s.Known)
	}
	printKnownCrashes(stdout, s.KnownCrashes, s.KnownTimeouts, *allowCrashes)
	saved := 0
	for _, f := range s.Findings {
		if f.Path != "" {
			saved++
		}
	}
	if saved > 0 {
		printable.Fprintf(stdout, "replay: conform check --cases %s --impl %s\n", *out, quoteArg(*implSpec))
	} else if createdOut {
		os.Remove(*out) // created for findings, and none was saved
	}
	fmt.Fprintf(stdout, "%d cases in %.1f s: %.0f cases/s\n", s.Cases, s.Elapsed.Seconds(), s.Rate())
	fmt.Fprintln(stdout, s.Line())
	status := exitOK
	if s.Disagreed > 0 || faulted {
		status = exitRejected
	}
	if s.Unsaved > 0 {
		printable.Fprintf(stdout, "%d of %d findings could not be saved in %s (see NOT SAVED above)\n", s.Unsaved, len(s.Findings), *out)
		status = exitRejected
	}
	if s.Compared() == 0 {
		why := "no case was generated"
		if s.Skipped > 0 {
			why = fmt.Sprintf("all %d cases were skipped", s.Skipped)
		}
		if *allowEmpty {
			fmt.Fprintf(stdout, "no case compared: %s (allowed by --allow-empty)\n", why)
		} else {
			fmt.Fprintf(stdout, "no case compared: %s; the run fails, as it tested nothing (--allow-empty accepts this)\n", why)
			status = exitRejected
		}
	}
	return status
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
