package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/confine"
	"github.com/conformsuite/conform/internal/npy"
	"github.com/conformsuite/conform/internal/output"
	"github.com/conformsuite/conform/internal/printable"
)

// evalCommand evaluates one case on the reference engine.
var evalCommand = &command{
	name:  "eval",
	usage: []string{"eval CASE.json -o OUT.npy [--max-output BYTES] [--max-input BYTES]"},
	short: "evaluate one case on the reference engine",
	long: `Evaluates one case on the reference engine and writes the result as a
C-order .npy file (the dtype of the op's data input; NumPy's scalars in
native byte order). -o - writes it to stdout. The ops, their inputs and
fields are listed at the end; docs/case-format.md has the details.

On success the exit status is 0. OUT is written through a temporary file
".conform-*" (with OUT's extension) beside it and renamed into place (a
symbolic link there is replaced, not followed), so it never holds a
partial result; a replaced OUT keeps its permission bits, a new one gets
0644 less the umask. An interrupted run (SIGINT, SIGTERM, SIGHUP) deletes
its temporary file and exits with 128 plus the signal number (130, 143,
129).

If the case is rejected the exit status is 1 and one line on stderr names
the error kind (invalid_spec, out_of_range or bad_input) and the reason.
OUT is not touched: conform creates no output file, and an OUT that
existed before is left as it was.

If the result cannot be written (no space left, permission denied, ...)
the exit status is 1 and the one line on stderr reads
"conform eval: cannot write output: OUT: REASON", with no error kind: the
error kinds describe the case, and this is not a property of the case.
OUT is left as it was and the temporary file is deleted.

The case's inputs must be regular files inside the case file's directory:
no absolute paths, no "..", no symbolic link leading out of it. No file
larger than --max-input is read, and a .npy header must describe exactly
the bytes its file holds before the payload is read.

Usage errors exit with 2. They include an OUT that conform will not
replace, refused before the case is evaluated: an existing directory, a
device, FIFO, socket or anything else that is not a regular file, and the
case's own files (CASE.json itself and every input file it names, under
any spelling, hard link or symbolic link).
` + opsHelp(),
	define: func(fset *flag.FlagSet) func([]string, stdio) int {
		out := fset.String("o", "", "write the result to `FILE` (required; - for stdout)")
		maxOutput := fset.Int64("max-output", engine.DefaultOutputLimit, "refuse results larger than `BYTES` with invalid_spec (0: the default)")
		maxInput := maxInputFlag(fset)
		return func(args []string, std stdio) int {
			if len(args) != 1 || *out == "" {
				fmt.Fprintln(std.errout, "conform eval: need exactly one CASE.json and -o OUT.npy")
				fset.Usage()
				return exitUsage
			}
			return runEval(args[0], *out, engine.Rules{OutputLimit: *maxOutput}, *maxInput, std)
		}
	},
}

// runEval evaluates the case at casePath under rules, reading files of at
// most inputLimit bytes, and writes the result to out.
func runEval(casePath, out string, rules engine.Rules, inputLimit int64, std stdio) int {
	if out != "-" {
		if err := evalInputs(casePath, inputLimit).Check("-o", out); err != nil {
			printable.Fprintf(std.errout, "conform eval: %v\n", err)
			return exitUsage
		}
	}
	result, err := evalCase(casePath, rules, inputLimit)
	var ie *internalError
	if errors.As(err, &ie) {
		return internalFailure(std.errout, "conform eval", ie)
	}
	if err != nil {
		if engine.KindOf(err) == "" {
			err = engine.Errorf(engine.BadInput, "%v", err)
		}
		printable.Fprintf(std.errout, "conform eval: %v\n", err)
		return exitRejected
	}
	if out == "-" {
		err = npy.Write(std.out, result)
		if err != nil {
			err = fmt.Errorf("stdout: %v", err)
		}
	} else {
		err = output.WriteExitingOnSignal(out, func(w io.Writer) error { return npy.Write(w, result) })
	}
	if err != nil {
		printable.Fprintf(std.errout, "conform eval: cannot write output: %v\n", err)
		return exitRejected
	}
	return exitOK
}

// evalInputs returns the files an eval run reads, which -o may not
// replace: the case file itself and every input file it names.
func evalInputs(casePath string, inputLimit int64) *output.Inputs {
	in := &output.Inputs{}
	in.AddFile(casePath, "the case file")
	for _, ci := range caseInputs(casePath, inputLimit) {
		in.AddFile(ci.path, fmt.Sprintf("the case's input %q", ci.name))
	}
	return in
}

// caseInput is an input file a case names.
type caseInput struct{ name, path string }

// caseInputs returns the input files the case at casePath names, resolved
// as casefile.FileInputs resolves them. It returns nil if the case cannot
// be read or is not a JSON object with an "inputs" object.
func caseInputs(casePath string, inputLimit int64) []caseInput {
	// Read as the loader reads it: a regular file within the case size.
	data, err := confine.ReadPathWithin(casePath, casefile.MaxCaseBytes, inputLimit)
	if err != nil {
		return nil
	}
	var c struct {
		Inputs map[string]json.RawMessage `json:"inputs"`
	}
	if json.Unmarshal(data, &c) != nil {
		return nil
	}
	var ins []caseInput
	for name, raw := range c.Inputs {
		var p string
		if json.Unmarshal(raw, &p) != nil || p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(casePath), p)
		}
		ins = append(ins, caseInput{name, p})
	}
	sort.Slice(ins, func(i, j int) bool { return ins[i].name < ins[j].name })
	return ins
}

// evaluate evaluates a loaded case; tests replace it to make the engine
// panic.
var evaluate = (*casefile.Case).EvalUnder

// evalCase loads the case at path, reading files of at most inputLimit
// bytes, and evaluates it under rules. A panic (a bug in conform, not a
// property of the case) is returned as an *internalError.
func evalCase(path string, rules engine.Rules, inputLimit int64) (result *engine.Tensor, err error) {
	defer func() {
		if p := recover(); p != nil {
			result, err = nil, &internalError{fmt.Sprint(p), debug.Stack()}
		}
	}()
	c, err := casefile.Load(path, inputLimit)
	if err != nil {
		return nil, err
	}
	return evaluate(c, rules)
}

// opsHelp lists the ops a case can name, for eval's usage: each op's
// inputs and fields, and what it is.
func opsHelp() string {
	var b strings.Builder
	b.WriteString("\nOps (inputs; fields):\n")
	for _, d := range casefile.Defs() {
		inputs := strings.Join(d.Inputs, ", ")
		if d.Name == casefile.OpGetItem {
			inputs += ", and one per name its index uses"
		}
		fmt.Fprintf(&b, "  %s (%s; %s)\n      %s\n", d.Name, inputs, strings.Join(d.Fields, ", "), d.Summary)
	}
	return b.String()
}
