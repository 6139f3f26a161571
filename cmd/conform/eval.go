package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/engine/npy"
	"github.com/conformsuite/conform/internal/casefile"
)

const evalUsage = `Usage: conform eval CASE.json -o OUT.npy

Evaluates one case on the reference engine and writes the result as a
C-order .npy file (same dtype as the input x or params).

On success the exit status is 0. If the case is rejected the exit status is
1, no output file exists afterwards, and one line on stderr names the error
kind (invalid_spec, out_of_range or bad_input) and the reason. Usage errors
exit with 2.

Options:
`

func runEval(args []string, stdout, stderr io.Writer) int {
	fset := newFlags("eval", evalUsage, stderr)
	out := fset.String("o", "", "write the result to `FILE` (required)")
	maxOutput := fset.Int64("max-output", engine.DefaultOutputLimit, "refuse results larger than `BYTES` with invalid_spec")
	positional, code, done := parseArgs(fset, args)
	if done {
		return code
	}
	if len(positional) != 1 || *out == "" {
		fmt.Fprintln(stderr, "conform eval: need exactly one CASE.json and -o OUT.npy")
		fset.Usage()
		return exitUsage
	}
	engine.SetOutputLimit(*maxOutput)
	result, err := evalCase(positional[0])
	if err == nil {
		err = writeAtomic(*out, result)
	}
	if err != nil {
		// The contract: no output file when the case is rejected.
		if *out != "-" {
			os.Remove(*out)
		}
		if engine.KindOf(err) == "" {
			err = engine.Errorf(engine.BadInput, "%v", err)
		}
		fmt.Fprintf(stderr, "conform eval: %v\n", err)
		if _, internal := err.(internalError); internal {
			return exitInternal
		}
		return exitRejected
	}
	return exitOK
}

// internalError is a panic caught at the command boundary: a bug in
// conform, reported as such instead of crashing.
type internalError struct{ msg string }

func (e internalError) Error() string { return "internal error (please report): " + e.msg }

func evalCase(path string) (result *engine.Tensor, err error) {
	defer func() {
		if p := recover(); p != nil {
			result, err = nil, internalError{fmt.Sprint(p)}
		}
	}()
	c, err := casefile.Load(path)
	if err != nil {
		return nil, err
	}
	return c.Eval()
}

// writeAtomic writes t as .npy to path through a temporary file in the same
// directory, so that path never holds a partial result.
func writeAtomic(path string, t *engine.Tensor) error {
	if path == "-" {
		return npy.Write(os.Stdout, t)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".conform-*.npy")
	if err != nil {
		return fmt.Errorf("cannot write output: %v", err)
	}
	tmp := f.Name()
	err = npy.Write(f, t)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("cannot write output: %v", err)
	}
	return nil
}

// newFlags returns the flag set of a subcommand; -h and a bad flag print
// usage and the flags' defaults to stderr.
func newFlags(name, usage string, stderr io.Writer) *flag.FlagSet {
	fset := flag.NewFlagSet(name, flag.ContinueOnError)
	fset.SetOutput(stderr)
	fset.Usage = func() {
		fmt.Fprint(stderr, usage)
		fset.PrintDefaults()
	}
	return fset
}

// parseArgs parses a subcommand's arguments and returns the positional
// ones. done is true when the command ends here, with exit status code:
// exitOK after -h, exitUsage after a bad flag (fset has said why).
func parseArgs(fset *flag.FlagSet, args []string) (positional []string, code int, done bool) {
	positional, err := parseInterspersed(fset, args)
	switch {
	case err == flag.ErrHelp:
		return nil, exitOK, true
	case err != nil:
		return nil, exitUsage, true
	}
	return positional, 0, false
}

// parseInterspersed parses flags that may come before or after positional
// arguments, and returns the positional ones.
func parseInterspersed(fset *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fset.Parse(args); err != nil {
			return nil, err
		}
		args = fset.Args()
		if len(args) == 0 {
			return positional, nil
		}
		if args[0] == "--" {
			return append(positional, args[1:]...), nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}
