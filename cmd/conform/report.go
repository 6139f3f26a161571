package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"time"

	"github.com/conformsuite/conform/cases"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/confine"
	"github.com/conformsuite/conform/internal/gen"
	"github.com/conformsuite/conform/internal/golden"
	"github.com/conformsuite/conform/internal/impl"
	"github.com/conformsuite/conform/internal/oracle"
	"github.com/conformsuite/conform/internal/output"
	"github.com/conformsuite/conform/internal/printable"
	"github.com/conformsuite/conform/internal/report"
)

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// reportCommand is conform report.
var reportCommand = &command{
	name:  "report",
	usage: []string{"report --impl A [--impl B ...] [--cases DIR | --fuzz D] [--format md,html,json] --out FILE [--ecosystem BASE [--ecosystem-impl C ...]]"},
	short: "spec compliance matrix: rules x implementations",
	long: `Runs every case on every implementation and writes a compliance matrix:
one row per rule of the reference semantics (each case counts in the rules
the engine's evaluation of it exercises, by their IDs in docs/rules.md:
getitem/negative-step, strided_slice/shrink, gather_nd/index-out-of-range,
...), per op, shape, spec form, error kind and dtype; one column per
implementation, each cell "passed/run" with the smallest failing case as a
NumPy/TF snippet. Then each implementation's failures by cause, as conform
check finds them: the rule that explains them (its statement and source),
op and symptom, count, smallest case and the neighbour that confirms it;
failures no rule explains grouped by op and symptom.

The corpus is the embedded one, --cases DIR, or --fuzz D: cases generated
for D whose expectations NumPy computes. --format md (fits a pull request
comment), html (one self-contained page: colour matrix, filters) or json;
with several formats, --out is a base name and each file gets its
extension. IMPL is engine, numpy, tfjs, ort, tflite, or a conform/1 command line.

--ecosystem BASE writes, from the same run, the ecosystem view to
BASE.md and BASE.html (then --out may be left out): one row per rule of
the reference semantics, one column per implementation but the engine
(the reference), each cell agrees, differs (with the causes of its
failures) or ran none; per rule, how many implementations agree, and
"only X differs" where X alone does and at least two others agree. An
--ecosystem-impl is run too, for the view only: the report of --out
has the --impl columns, as a run of them alone gives it. The view states the day it was
generated, --date DAY (YYYY-MM-DD, default today in UTC): given the day
of a page, the same results give the same bytes.

Each file is written through a temporary file renamed into place (a
symbolic link there is replaced, not followed). Refused before the run,
with exit status 2: a directory or other file that is not regular, a file
the run reads (any file under --cases DIR, a file an --impl command line
names, under any spelling, hard link or symbolic link), and two formats
naming one file.
` + jobsHelp,
	define: func(fset *flag.FlagSet) func([]string, stdio) int {
		var impls listFlag
		fset.Var(&impls, "impl", "an implementation to report on (repeatable)")
		dir := fset.String("cases", "", "use the corpus under `DIR`")
		fuzzFor := fset.Duration("fuzz", 0, "report on cases generated for `D` (NumPy computes the expectations)")
		format := fset.String("format", "md", "output `formats`: md, html, json (comma-separated)")
		out := fset.String("out", "", "write the report to `FILE` (required unless --ecosystem)")
		ecosystem := fset.String("ecosystem", "", "also write the ecosystem view of the same run to `BASE`.md and BASE.html")
		var ecoImpls listFlag
		fset.Var(&ecoImpls, "ecosystem-impl", "an implementation run for the ecosystem view only, not a column of --out (repeatable)")
		date := fset.String("date", "", "the `day` (YYYY-MM-DD) the ecosystem view says it was generated (default: today, UTC)")
		timeout := fset.Duration("timeout", 10*time.Second, "per-case timeout for protocol implementations")
		maxInput := maxInputFlag(fset)
		jobs := jobsFlag(fset)
		return func(args []string, std stdio) int {
			formats := strings.Split(*format, ",")
			for _, f := range formats {
				if f != "md" && f != "html" && f != "json" {
					fmt.Fprintf(std.errout, "conform report: unknown format %q\n", f)
					return exitUsage
				}
			}
			if len(args) != 0 || len(impls) == 0 || (*out == "" && *ecosystem == "") || (*dir != "" && *fuzzFor > 0) || (len(ecoImpls) > 0 && *ecosystem == "") {
				fmt.Fprintln(std.errout, "conform report: need at least one --impl, --out or --ecosystem (which --ecosystem-impl needs), and at most one of --cases and --fuzz")
				fset.Usage()
				return exitUsage
			}
			jobs, ok := resolveJobs("report", *jobs, std.errout)
			if !ok {
				return exitUsage
			}
			day, err := reportDate(*date)
			if err != nil {
				printable.Fprintf(std.errout, "conform report: %v\n", err)
				return exitUsage
			}
			specs := append(append([]string{}, impls...), ecoImpls...)
			files, err := reportFiles(runInputs(*dir, "", specs...), *out, formats, *ecosystem)
			if err != nil {
				printable.Fprintf(std.errout, "conform report: %v\n", err)
				return exitUsage
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()

			fsys := confine.WithLimit(cases.FS, *maxInput)
			name := "the embedded corpus"
			switch {
			case *dir != "":
				var err error
				if fsys, err = openCases(*dir, *maxInput); err != nil {
					printable.Fprintf(std.errout, "conform report: %v\n", err)
					return exitUsage
				}
				name = *dir
			case *fuzzFor > 0:
				tmp, err := os.MkdirTemp("", "conform-report-")
				if err != nil {
					printable.Fprintf(std.errout, "conform report: %v\n", err)
					return exitRejected
				}
				defer os.RemoveAll(tmp)
				if err := generateCorpus(ctx, filepath.Join(tmp, "fuzz"), *fuzzFor, jobs, std.errout); err != nil {
					printable.Fprintf(std.errout, "conform report: %v\n", err)
					return exitRejected
				}
				fsys, name = confine.WithLimit(os.DirFS(tmp), *maxInput), fmt.Sprintf("cases generated for %v", *fuzzFor)
			}
			var running []impl.Impl
			for _, spec := range specs {
				im, err := oracle.OpenJobs(spec, *timeout, 0, jobs)
				if err != nil {
					printable.Fprintf(std.errout, "conform report: %v\n", err)
					return exitUsage
				}
				defer im.Close()
				running = append(running, im)
			}
			rep, err := report.Build(ctx, fsys, name, running)
			if err != nil {
				printable.Fprintf(std.errout, "conform report: %v\n", err)
				return exitRejected
			}
			eco := rep.Ecosystem(day)
			rep = rep.Columns(len(impls))
			writers := map[string]func(io.Writer) error{"md": rep.WriteMarkdown, "html": rep.WriteHTML, "json": rep.WriteJSON,
				"ecosystem md": eco.WriteMarkdown, "ecosystem html": eco.WriteHTML}
			for _, f := range files {
				if err := writeReport(f.path, writers[f.format]); err != nil {
					printable.Fprintf(std.errout, "conform report: %v\n", err)
					return exitRejected
				}
				fmt.Fprintf(std.out, "wrote %s\n", f.path)
			}
			failing := 0
			for _, row := range rep.Rows {
				if row.Failing() {
					failing++
				}
			}
			fmt.Fprintf(std.out, "%d cases, %d rules, %d with failures\n", rep.Cases, len(rep.Rows), failing)
			if *ecosystem != "" {
				fmt.Fprintf(std.out, "ecosystem: of %d rules, %s\n", len(eco.Rows), eco.Tally())
			}
			return exitOK
		}
	},
}

// reportFile is one file conform report writes: its path and what it
// holds, a format of the report ("md", "html", "json") or of its
// ecosystem view ("ecosystem md", "ecosystem html").
type reportFile struct{ path, format string }

// reportFiles returns the files of conform report: the report in each
// format to out (with several formats, out is a base name and each file
// gets its extension), and, if ecosystem is set, the ecosystem view to
// ecosystem's base name with .md and .html. Each must be a destination
// inputs accepts, and no two may be one file.
func reportFiles(inputs *output.Inputs, out string, formats []string, ecosystem string) ([]reportFile, error) {
	var files []reportFile
	if out != "" {
		for _, f := range formats {
			path := out
			if len(formats) > 1 {
				path = strings.TrimSuffix(path, filepath.Ext(path)) + "." + f
			}
			files = append(files, reportFile{path, f})
		}
	}
	if ecosystem != "" {
		base := strings.TrimSuffix(ecosystem, filepath.Ext(ecosystem))
		files = append(files, reportFile{base + ".md", "ecosystem md"}, reportFile{base + ".html", "ecosystem html"})
	}
	for _, f := range files {
		flag := "--out"
		if strings.HasPrefix(f.format, "ecosystem") {
			flag = "--ecosystem"
		}
		if err := inputs.Check(flag, f.path); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// reportDate returns the day the ecosystem view states: day if set
// (YYYY-MM-DD), today in UTC otherwise.
func reportDate(day string) (string, error) {
	if day == "" {
		return time.Now().UTC().Format(time.DateOnly), nil
	}
	if _, err := time.Parse(time.DateOnly, day); err != nil {
		return "", fmt.Errorf("--date %q is not a day written YYYY-MM-DD", day)
	}
	return day, nil
}

// generateCorpus writes a corpus of generated cases, with NumPy's results
// as expectations (up to jobs NumPy children), generating for at most d.
func generateCorpus(ctx context.Context, dest string, d time.Duration, jobs int, log io.Writer) error {
	oracles, err := golden.StartOracles([]string{golden.Reference}, jobs)
	if err != nil {
		return err
	}
	defer golden.CloseOracles(oracles)
	seed := uint64(time.Now().UnixNano())
	var cases []*casefile.Case
	deadline := time.Now().Add(d / 2)
	ops := casefile.OpNames()
	for i := 0; time.Now().Before(deadline) && len(cases) < 100000; i++ {
		op := ops[i%len(ops)]
		cases = append(cases, gen.CaseOf(op).Example(gen.CaseSeed(seed, op, i)))
	}
	_, err = golden.Build(ctx, golden.Options{Dest: dest, Seed: seed, Oracles: []string{golden.Reference}, Workers: 64, Log: log}, cases, oracles)
	return err
}
