package main

import (
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/conformsuite/conform/cases"
	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/check"
)

const checkUsage = `Usage: conform check [--cases DIR] [--junit FILE] [--json FILE] [-v]

Runs every case (*.json with an "expect" object) against the reference
engine and compares exactly: dtype, shape and the raw bytes of every
element, or the error kind. Without --cases it runs the corpus embedded in
the binary. A corpus that carries a MANIFEST is verified first: a changed,
missing or extra file is reported by name. Each failure names the case, the
source of the expected value and the first differing element; the last line
is "N passed, N failed, N skipped". Exit status 1 if any case failed or the
manifest does not match.

Options:
`

func runCheck(args []string, stdout, stderr io.Writer) int {
	fset := flag.NewFlagSet("check", flag.ContinueOnError)
	fset.SetOutput(stderr)
	dir := fset.String("cases", "", "run the cases under `DIR` instead of the embedded corpus")
	verbose := fset.Bool("v", false, "print every case, not only failures")
	junit := fset.String("junit", "", "also write a JUnit XML report to `FILE`")
	jsonOut := fset.String("json", "", "also write a JSON report to `FILE`")
	fset.Usage = func() {
		fmt.Fprint(stderr, checkUsage)
		fset.PrintDefaults()
	}
	positional, err := parseInterspersed(fset, args)
	if err == flag.ErrHelp {
		return exitOK
	}
	if err != nil {
		return exitUsage
	}
	if len(positional) != 0 {
		fmt.Fprintf(stderr, "conform check: unexpected argument %q\n", positional[0])
		return exitUsage
	}
	var fsys fs.FS = cases.FS
	if *dir != "" {
		if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
			fmt.Fprintf(stderr, "conform check: --cases %s is not a directory\n", *dir)
			return exitUsage
		}
		fsys = os.DirFS(*dir)
	}
	summary, err := check.Run(fsys, safeEval)
	if err != nil {
		fmt.Fprintf(stderr, "conform check: %v\n", err)
		return exitRejected
	}
	for _, p := range summary.Integrity {
		fmt.Fprintf(stdout, "integrity: %s (does not match the MANIFEST)\n", p)
	}
	for _, r := range summary.Results {
		if r.Status == check.Pass && !*verbose {
			continue
		}
		fmt.Fprintf(stdout, "%s %s", r.Status, r.ID)
		if r.Source != "" {
			fmt.Fprintf(stdout, " (expected: %s)", r.Source)
		}
		if r.Detail != "" {
			fmt.Fprintf(stdout, ": %s", r.Detail)
		}
		fmt.Fprintln(stdout)
	}
	for _, report := range []struct {
		path  string
		write func(io.Writer) error
	}{{*junit, summary.WriteJUnit}, {*jsonOut, summary.WriteJSON}} {
		if report.path == "" {
			continue
		}
		if err := writeReport(report.path, report.write); err != nil {
			fmt.Fprintf(stderr, "conform check: %v\n", err)
			return exitRejected
		}
	}
	fmt.Fprintln(stdout, summary.Line())
	if !summary.OK() {
		return exitRejected
	}
	return exitOK
}

// safeEval evaluates a case on the engine, turning a panic (a bug) into a
// failure of that case.
func safeEval(c *casefile.Case) (t *engine.Tensor, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, internalError{fmt.Sprint(p)}
		}
	}()
	return c.Eval()
}

// writeReport writes a report file through write.
func writeReport(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
