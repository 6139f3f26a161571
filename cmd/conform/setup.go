package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/conformsuite/conform/internal/printable"
	"github.com/conformsuite/conform/oracle"
)

const setupUsage = `Usage: conform setup [--oracles numpy,tfjs,ort,tflite]

Installs what the oracles need, idempotently, and prints what it did and
the versions it finds:

  numpy               NumPy for /usr/bin/python3: apt-get install python3-numpy
                      (through sudo when not root), unless it already imports
                      NumPy; without apt-get, says what to install.
  tfjs, ort, tflite   node and npm must be on PATH (says what to install
                      otherwise); the npm packages pinned by the oracles'
                      package-lock.json are installed with npm ci into the
                      oracle directory, unless already there.

The oracle directory is $CONFORM_ORACLE_DIR if set, else oracle/ of the
conform source tree when run inside it, else the oracle programs embedded
in this binary, unpacked into the user's cache directory
($XDG_CACHE_HOME or ~/.cache)/conform/oracle-<hash>. Finally each oracle
is started once and its name and version are printed.

Exit status: 0 when every oracle asked for is ready, 1 otherwise, 2 on a
usage error.

Options:
`

func runSetup(args []string, stdout, stderr io.Writer) int {
	fset := newFlags("setup", setupUsage, stderr)
	list := fset.String("oracles", strings.Join(oracle.Names, ","), "comma-separated `oracles` to set up")
	positional, code, done := parseArgs(fset, args)
	if done {
		return code
	}
	if len(positional) != 0 {
		fmt.Fprintf(stderr, "conform setup: unexpected argument %q\n", positional[0])
		fset.Usage()
		return exitUsage
	}
	var names []string
	for _, n := range strings.Split(*list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		known := false
		for _, k := range oracle.Names {
			known = known || n == k
		}
		if !known {
			fmt.Fprintf(stderr, "conform setup: unknown oracle %q (the oracles: %s)\n", n, strings.Join(oracle.Names, ", "))
			return exitUsage
		}
		names = append(names, n)
	}
	if len(names) == 0 {
		fmt.Fprintln(stderr, "conform setup: --oracles names no oracle")
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := oracle.Setup(ctx, oracle.SetupOptions{Oracles: names, Out: stdout}); err != nil {
		printable.Fprintf(stderr, "conform setup: %v\n", err)
		return exitRejected
	}
	return exitOK
}
