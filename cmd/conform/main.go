// Command conform is a differential conformance suite for tensor slicing
// and gathering: NumPy basic indexing, TF strided_slice (TF bitmasks and
// OpenVINO list masks), tf.slice and tf.gather_nd.
//
// Usage:
//
//	conform eval CASE.json -o OUT.npy   evaluate one case on the reference engine
//	conform check [--cases DIR]         run a corpus of cases against the engine
//
// Run "conform help" for details.
package main

import (
	"fmt"
	"io"
	"os"
)

// Exit statuses shared by the subcommands.
const (
	exitOK       = 0 // success
	exitRejected = 1 // the case was rejected, or a check failed
	exitUsage    = 2 // bad command line
	exitInternal = 3 // a bug in conform
)

const usage = `conform: a differential conformance suite for tensor slicing and gathering.

Usage:
  conform eval CASE.json -o OUT.npy   evaluate one case on the reference engine
  conform check [--cases DIR] [--junit F] [--json F]
                                      run a case corpus against the engine
  conform golden [--verify] ...       build or verify the golden corpus with the oracles
  conform fuzz --impl X [--oracle numpy[,tfjs,tflite]] [--duration D] [--out DIR]
                                      live differential fuzzing; shrinks and saves disagreements
  conform report --impl A --impl B --format md,html,json --out FILE
                                      spec compliance matrix: rules x implementations
  conform serve                       run the engine as a conform/1 protocol child
  conform setup [--oracles numpy,tfjs,ort,tflite]
                                      install what the oracles need (NumPy, npm packages)
  conform help                        show this help

Run "conform COMMAND -h" for the options of a command.
Exit status: 0 success, 1 case rejected or check failed, 2 usage error.
`

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	switch args[0] {
	case "eval":
		return runEval(args[1:], stdout, stderr)
	case "check":
		return runCheck(args[1:], stdout, stderr)
	case "golden":
		return runGolden(args[1:], stdout, stderr)
	case "fuzz":
		return runFuzz(args[1:], stdout, stderr)
	case "report":
		return runReport(args[1:], stdout, stderr)
	case "serve":
		return runServe(args[1:], os.Stdin, stdout, stderr)
	case "setup":
		return runSetup(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "conform: unknown command %q\n\n%s", args[0], usage)
	return exitUsage
}
