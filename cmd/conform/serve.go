package main

import (
	"flag"
	"fmt"

	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/printable"
	"github.com/conformsuite/conform/internal/protocol"
)

// engineVersion is the version the engine reports in its protocol hello.
const engineVersion = "0.1.0"

// serveCommand runs the engine as a conform/1 protocol child.
var serveCommand = &command{
	name:  "serve",
	usage: []string{"serve"},
	short: "run the engine as a conform/1 protocol child",
	long: `Runs the reference engine as a conform/1 protocol child: it writes a hello
line, then answers each newline-delimited JSON request read from stdin with
one response line on stdout (see docs/protocol.md).
`,
	define: func(fset *flag.FlagSet) func([]string, stdio) int {
		return func(args []string, std stdio) int {
			if len(args) > 0 {
				fmt.Fprintf(std.errout, "conform serve: unexpected argument %q\n", args[0])
				fset.Usage()
				return exitUsage
			}
			hello := protocol.Hello{Name: "engine", Version: engineVersion, Ops: casefile.OpNames()}
			if err := protocol.Serve(std.in, std.out, hello); err != nil {
				printable.Fprintf(std.errout, "conform serve: %v\n", err)
				return exitRejected
			}
			return exitOK
		}
	},
}
