package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/conformsuite/conform/internal/printable"
	"github.com/conformsuite/conform/internal/pyadapter"
)

// adapterCommand writes the Python adapter helper.
var adapterCommand = &command{
	name:  "adapter",
	usage: []string{"adapter python [-o FILE]"},
	short: "write the Python adapter helper (conform_adapter.py)",
	long: `Writes conform_adapter.py, one Python file (NumPy and the standard library
only, nothing to install) that runs the conform/1 protocol for a NumPy-like
library: an adapter imports it and calls serve with one function per op, e.g.

    from conform_adapter import serve
    serve({"getitem": lambda x, key: x[key],
           "take": lambda a, indices, axis=None, mode="raise":
               np.take(a, indices, axis=axis, mode=mode)}, name="numpy")

Each function gets the case's inputs as NumPy arrays, for getitem a ready
Python key (made from the request's structured key), for the other ops the
op's fields as keyword arguments; results are sent as .npy and exceptions
mapped to conform's error kinds (see docs/protocol.md). The file is written
to stdout, or with -o to FILE (replacing it).
`,
	define: func(fset *flag.FlagSet) func([]string, stdio) int {
		out := fset.String("o", "", "write the file to `FILE` instead of stdout")
		return func(args []string, std stdio) int {
			if len(args) != 1 || args[0] != "python" {
				fmt.Fprintln(std.errout, `conform adapter: want the language: "conform adapter python [-o FILE]"`)
				fset.Usage()
				return exitUsage
			}
			src := pyadapter.Source()
			if *out == "" {
				std.out.Write(src)
				return exitOK
			}
			if err := os.WriteFile(*out, src, 0o644); err != nil {
				printable.Fprintf(std.errout, "conform adapter: %v\n", err)
				return exitRejected
			}
			return exitOK
		}
	},
}
