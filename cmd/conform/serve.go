package main

import (
	"fmt"
	"io"

	"github.com/conformsuite/conform/casefile"
	"github.com/conformsuite/conform/internal/printable"
	"github.com/conformsuite/conform/internal/protocol"
)

// engineVersion is the version the engine reports in its protocol hello.
const engineVersion = "0.1.0"

const serveUsage = `Usage: conform serve

Runs the reference engine as a conform/1 protocol child: it writes a hello
line, then answers each newline-delimited JSON request read from stdin with
one response line on stdout (see docs/protocol.md).
`

func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		if args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
			fmt.Fprint(stdout, serveUsage)
			return exitOK
		}
		fmt.Fprint(stderr, serveUsage)
		return exitUsage
	}
	hello := protocol.Hello{Name: "engine", Version: engineVersion, Ops: casefile.OpNames()}
	if err := protocol.Serve(stdin, stdout, hello); err != nil {
		printable.Fprintf(stderr, "conform serve: %v\n", err)
		return exitRejected
	}
	return exitOK
}
