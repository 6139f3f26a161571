package main

import (
	"flag"
	"fmt"
	"io"
	"runtime"
)

// jobsHelp is the paragraph of the help of the commands with --jobs.
const jobsHelp = `
--jobs N runs up to N children of each protocol implementation or oracle
at once (0, the default: the number of cores; the engine runs in process), each
with its own restarts: a case that crashes or hangs a child is charged
within that child. Each case goes to the child with the fewest cases in
flight, and every result and report, in its order, is that of a run with
one child (fuzz counts its cases in their order; see docs/fuzzing.md for
what its findings depend on). A further child starts only while every child is busy
and the run has lasted as long as starting the first took, so a short run
uses one. Memory: each child holds its own (N times one child's resident
set); the request bytes in flight (256 MiB) are bounded across all the
children together.
`

// jobsFlag registers --jobs, the number of children of each protocol
// implementation (see package pool).
func jobsFlag(fset *flag.FlagSet) *int {
	return fset.Int("jobs", 0, "run up to `N` children of each protocol implementation or oracle at once (0: the number of cores)")
}

// resolveJobs returns the number of children --jobs asks for: jobs, or
// the number of cores for 0. A negative number is printed as an error
// of command on stderr and gives ok false.
func resolveJobs(command string, jobs int, stderr io.Writer) (n int, ok bool) {
	switch {
	case jobs < 0:
		fmt.Fprintf(stderr, "conform %s: --jobs %d: want 0 (the number of cores) or more\n", command, jobs)
		return 0, false
	case jobs == 0:
		return runtime.NumCPU(), true
	}
	return jobs, true
}
