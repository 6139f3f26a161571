package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"

	"github.com/conformsuite/conform/internal/oracle"
	"github.com/conformsuite/conform/internal/printable"
)

// setupCommand is conform setup.
var setupCommand = &command{
	name:  "setup",
	usage: []string{"setup [--oracles numpy,tfjs,ort,tflite]"},
	short: "install what the oracles need (NumPy, npm packages)",
	long: `Installs what the oracles need, idempotently, and prints what it did and
the versions it finds:

  numpy               NumPy for /usr/bin/python3: apt-get install python3-numpy
                      (through sudo when not root), unless it already imports
                      NumPy; without apt-get, says what to install.
  tfjs, ort, tflite   node and npm: apt-get install nodejs npm unless both are
                      on PATH (without apt-get, says what to install); then the
                      npm packages pinned by the oracles' package-lock.json,
                      installed with npm ci unless already there.

The oracles run the programs embedded in this binary, unpacked into
($XDG_CACHE_HOME or ~/.cache)/conform/node-<lock hash>/oracle-<hash> and
checked byte for byte at every start, or those in $CONFORM_ORACLE_DIR if
set; never a conform source tree found from the working directory. The
npm packages go into node_modules next to the programs' directory
(node-<lock hash>/node_modules, shared by every version of the programs
with the same lock file; $CONFORM_ORACLE_DIR/node_modules for that
directory): npm ci runs in a fresh temporary directory, under a lock
that makes a second setup wait, and the result is renamed into place, so
an oracle running meanwhile keeps working. Finally each oracle is
started once and its name and version are printed.

Exit status: 0 when every oracle asked for is ready, 1 otherwise, 2 on a
usage error.
`,
	define: func(fset *flag.FlagSet) func([]string, stdio) int {
		list := fset.String("oracles", strings.Join(oracle.Names, ","), "comma-separated `oracles` to set up")
		return func(args []string, std stdio) int {
			if len(args) != 0 {
				fmt.Fprintf(std.errout, "conform setup: unexpected argument %q\n", args[0])
				fset.Usage()
				return exitUsage
			}
			var names []string
			for _, n := range strings.Split(*list, ",") {
				n = strings.TrimSpace(n)
				if n == "" {
					continue
				}
				if !slices.Contains(oracle.Names, n) {
					fmt.Fprintf(std.errout, "conform setup: unknown oracle %q (the oracles: %s)\n", n, strings.Join(oracle.Names, ", "))
					return exitUsage
				}
				names = append(names, n)
			}
			if len(names) == 0 {
				fmt.Fprintln(std.errout, "conform setup: --oracles names no oracle")
				return exitUsage
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			if err := oracle.Setup(ctx, oracle.SetupOptions{Oracles: names, Out: std.out}); err != nil {
				printable.Fprintf(std.errout, "conform setup: %v\n", err)
				return exitRejected
			}
			return exitOK
		}
	},
}
