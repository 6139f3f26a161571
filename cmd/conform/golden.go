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
	"sort"
	"strings"

	"github.com/conformsuite/conform/cases"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
	"github.com/conformsuite/conform/internal/corpus"
	"github.com/conformsuite/conform/internal/gen"
	"github.com/conformsuite/conform/internal/golden"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/printable"
)

// goldenCommand is conform golden.
var goldenCommand = &command{
	name:  "golden",
	usage: []string{"golden [--out DIR] [--seed S] [--per-op N] [--oracles numpy,tfjs,ort,tflite]", "golden --verify [--cases DIR] [--sample N] [--oracles numpy,tfjs,ort,tflite]"},
	short: "build the golden corpus through the oracles, or verify it against fresh oracle runs",
	long: `The first form builds the golden corpus: it generates --per-op cases per op
from --seed, runs each through the oracles (NumPy is the reference; TF.js
runs the ops it has), and writes DIR atomically: case lists, inputs and
every oracle's output or error as .npy files, provenance, a MANIFEST of
checksums and DISAGREEMENTS.md. Where the oracles disagree both results are
kept and the case is marked. The same seed and oracle versions reproduce
the same bytes. Finally the engine is checked against the new corpus.

--out replaces DIR, deleting what it held, so DIR may only be a path that
does not exist yet, an empty directory, or a conform corpus: a directory
holding a MANIFEST in the format conform writes that lists every file under
the directory (the checksums need not match, so a damaged corpus can be
rebuilt). Anything else (a directory holding other files, a regular file,
a symbolic link) is refused before the oracles start: exit status 1, one
line on stderr, nothing touched. Hidden ".NAME-new-*" siblings of DIR that
killed runs left are deleted only when they are recognisably unfinished
conform corpora.

--verify re-runs the oracles on the corpus (or a deterministic sample of N
cases) and reports every stored result a fresh run does not reproduce.

The oracles must be installed first: conform setup.
` + jobsHelp,
	define: func(fset *flag.FlagSet) func([]string, stdio) int {
		out := fset.String("out", "cases/golden", "write the corpus to `DIR`")
		seed := fset.Uint64("seed", 1, "generator `seed`")
		perOp := fset.Int("per-op", golden.DefaultPerOp, "cases per op")
		oracles := fset.String("oracles", "numpy,tfjs,ort,tflite", "comma-separated oracle `names`; the first must be numpy")
		workers := fset.Int("workers", 64, "cases in flight")
		verify := fset.Bool("verify", false, "verify the corpus against fresh oracle runs instead of building it")
		casesDir := fset.String("cases", "", "with --verify: the corpus `DIR` (default: the golden corpus embedded in the binary)")
		sample := fset.Int("sample", 0, "with --verify: check a deterministic sample of `N` cases (0: all)")
		jobs := jobsFlag(fset)
		return func(args []string, std stdio) int {
			if len(args) != 0 || *perOp < 1 || *workers < 1 || *sample < 0 {
				fmt.Fprintln(std.errout, "conform golden: bad arguments")
				fset.Usage()
				return exitUsage
			}
			jobs, ok := resolveJobs("golden", *jobs, std.errout)
			if !ok {
				return exitUsage
			}
			names := strings.Split(*oracles, ",")
			if names[0] != golden.Reference {
				fmt.Fprintf(std.errout, "conform golden: the first oracle must be %s\n", golden.Reference)
				return exitUsage
			}
			if !*verify {
				// Refuse before the oracles run; corpus.NewWriter checks again.
				if err := corpus.CheckDest(*out); err != nil {
					printable.Fprintf(std.errout, "conform golden: %v\n", destHint(err))
					return exitRejected
				}
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			started, err := golden.StartOracles(names, jobs)
			if err != nil {
				printable.Fprintf(std.errout, "conform golden: %v\n", err)
				return exitRejected
			}
			defer golden.CloseOracles(started)
			for _, o := range started {
				printable.Fprintf(std.errout, "oracle %s %s: %s\n", o.Name, o.Hello.Version, strings.Join(o.Hello.Ops, ", "))
			}
			if *verify {
				return verifyGolden(ctx, *casesDir, started, *sample, *workers, std.out, std.errout)
			}

			counts := map[string]int{}
			for _, op := range casefile.OpNames() {
				counts[op] = *perOp
			}
			cases := gen.Corpus(*seed, counts)
			summary, err := golden.Build(ctx, golden.Options{Dest: *out, Seed: *seed, PerOp: counts, Oracles: names, Workers: *workers, Log: std.errout}, cases, started)
			if err != nil {
				printable.Fprintf(std.errout, "conform golden: %v (the previous corpus is unchanged)\n", destHint(err))
				return exitRejected
			}
			var ops []string
			for op, n := range summary.PerOp {
				ops = append(ops, fmt.Sprintf("%s %d", op, n))
			}
			sort.Strings(ops)
			fmt.Fprintf(std.out, "wrote %s: %d cases (%s): %d outputs, %d errors, %d without a reference result\n",
				*out, summary.Cases, strings.Join(ops, ", "), summary.Outputs, summary.Errors, summary.NoReference)
			disagreements, crashes := 0, 0
			for _, o := range started[1:] {
				c := summary.Agreement[o.Name]
				disagreements += c["disagree"]
				crashes += c["crash"]
				fmt.Fprintf(std.out, "%s/%s: %d agree, %d disagree, %d skipped, %d crashed\n", golden.Reference, o.Name, c["agree"], c["disagree"], c["skip"], c["crash"])
				byClass := summary.Disagreements[o.Name]
				classes := make([]string, 0, len(byClass))
				for class := range byClass {
					classes = append(classes, class)
				}
				sort.Strings(classes)
				for _, class := range classes {
					fmt.Fprintf(std.out, "  %s: %d cases\n", class, len(byClass[class]))
				}
			}
			fmt.Fprintln(std.out, "agreement per oracle pair, over the cases both ran:")
			for i, a := range started {
				for _, b := range started[i+1:] {
					c := summary.Pairs[a.Name+"/"+b.Name]
					if c["agree"]+c["disagree"] == 0 {
						fmt.Fprintf(std.out, "  %s/%s: no case both ran\n", a.Name, b.Name)
						continue
					}
					fmt.Fprintf(std.out, "  %s/%s: %d agree, %d disagree\n", a.Name, b.Name, c["agree"], c["disagree"])
				}
			}
			fmt.Fprintf(std.out, "disagreements: %d, crashes: %d (listed in %s/DISAGREEMENTS.md)\n", disagreements, crashes, *out)
			fmt.Fprintln(std.out, "checking the engine against the new corpus:")
			result, err := check.Run(ctx, os.DirFS(*out), impl.Engine{}, check.Options{})
			if err != nil {
				printable.Fprintf(std.errout, "conform golden: %v\n", err)
				return exitRejected
			}
			for _, r := range result.Results {
				if r.Status == check.Fail {
					printable.Fprintf(std.out, "fail %s: %s\n", r.ID, r.Detail)
				}
			}
			fmt.Fprintln(std.out, result.Line())
			if !result.OK() {
				return exitRejected
			}
			return exitOK
		}
	},
}

// destHint adds to a *corpus.DestError what --out may name.
func destHint(err error) error {
	var de *corpus.DestError
	if errors.As(err, &de) {
		return fmt.Errorf("%w (--out must name a new or empty directory, or a conform corpus)", err)
	}
	return err
}

func verifyGolden(ctx context.Context, dir string, oracles []*golden.Oracle, sample, workers int, stdout, stderr io.Writer) int {
	fsys, err := fs.Sub(cases.FS, "golden")
	if dir != "" {
		fsys, err = openCases(dir, 0)
	}
	if err != nil {
		printable.Fprintf(stderr, "conform golden: %v\n", err)
		return exitUsage
	}
	s, err := golden.Verify(ctx, fsys, oracles, sample, 1, workers, stderr)
	if err != nil {
		printable.Fprintf(stderr, "conform golden --verify: %v\n", err)
		return exitRejected
	}
	for _, v := range s.Versions {
		printable.Fprintf(stdout, "version change: %s\n", v)
	}
	for _, d := range s.Drifts {
		printable.Fprintf(stdout, "drift %s (%s): %s\n", d.ID, d.Oracle, d.Detail)
	}
	fmt.Fprintf(stdout, "verified %d cases against fresh oracle runs: %d drifted\n", s.Checked, s.Drifted)
	fmt.Fprintf(stdout, "%d passed, %d failed, %d skipped\n", s.Passed, s.Drifted, s.Skipped)
	if s.Drifted > 0 {
		return exitRejected
	}
	return exitOK
}
