package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/conformsuite/conform/internal/printable"
)

// Exit statuses shared by the subcommands.
const (
	exitOK       = 0 // success
	exitRejected = 1 // the case was rejected, or a check failed
	exitUsage    = 2 // bad command line
	exitInternal = 3 // a bug in conform
)

// A command is a subcommand of conform. The table of commands is the one
// source of "conform help", each command's -h, the package doc and the
// synopsis in docs/commands.md.
type command struct {
	// name is the word that selects the command: "conform NAME ...".
	name string
	// usage lists the forms of the command line, each without the
	// leading "conform ", e.g. "eval CASE.json -o OUT.npy".
	usage []string
	// short says in one line what the command does.
	short string
	// long is the text of -h after the usage lines; the command's flags
	// follow it.
	long string
	// define registers the command's flags on fset and returns the
	// function that runs the command once they are parsed, with the
	// positional arguments.
	define func(fset *flag.FlagSet) func(args []string, std stdio) int
}

// stdio is the standard input and outputs of a run.
type stdio struct {
	in          io.Reader
	out, errout io.Writer
}

// commands is the table of commands, in the order help lists them.
var commands = []*command{
	evalCommand,
	checkCommand,
	showCommand,
	goldenCommand,
	fuzzCommand,
	reportCommand,
	rulesCommand,
	serveCommand,
	adapterCommand,
	setupCommand,
	helpCommand,
}

// helpCommand prints the list of commands, or one command's usage.
var helpCommand = &command{
	name:  "help",
	usage: []string{"help [COMMAND]"},
	short: "show this help, or the usage of COMMAND",
	long: `Prints the list of commands, or with COMMAND its usage, options and
details (as "conform COMMAND -h" does).
`,
	// define is set by init: it reads the table that holds helpCommand.
}

func init() { helpCommand.define = defineHelp }

// defineHelp is the define function of helpCommand.
func defineHelp(fset *flag.FlagSet) func([]string, stdio) int {
	return func(args []string, std stdio) int {
		switch len(args) {
		case 0:
			fmt.Fprint(std.out, helpText())
			return exitOK
		case 1:
			if cmd := lookup(args[0]); cmd != nil {
				fset, _ := cmd.flagSet(std.out)
				fset.Usage()
				return exitOK
			}
			fmt.Fprintf(std.errout, "conform help: unknown command %q (see \"conform help\")\n", args[0])
			return exitUsage
		}
		fmt.Fprintln(std.errout, "conform help: at most one COMMAND")
		return exitUsage
	}
}

// lookup returns the command called name, or nil.
func lookup(name string) *command {
	for _, cmd := range commands {
		if cmd.name == name {
			return cmd
		}
	}
	return nil
}

// intro is the first sentence of the help and of the package doc.
const intro = "conform is a differential conformance suite for tensor slicing and gathering: " +
	"NumPy basic and advanced indexing, take and take_along_axis, TF strided_slice (TF bitmasks and " +
	"OpenVINO list masks), tf.slice, tf.gather and tf.gather_nd, and ONNX Slice, Gather, " +
	"GatherElements and GatherND."

// exitStatuses says what each exit status means, for the help and the
// package doc.
const exitStatuses = "Exit status: 0 success, 1 case rejected or check failed, 2 usage error, " +
	"3 internal error (a bug in conform: one line on stderr, the stack too with CONFORM_DEBUG=1)."

// synopsis lists every command's usage lines, each followed by its
// summary indented below it: the block of help, the package doc and
// docs/commands.md.
func synopsis() string {
	var b strings.Builder
	for _, cmd := range commands {
		for _, u := range cmd.usage {
			fmt.Fprintf(&b, "conform %s\n", u)
		}
		fmt.Fprintf(&b, "    %s\n", cmd.short)
	}
	return b.String()
}

// helpText is what "conform help" prints.
func helpText() string {
	var b strings.Builder
	b.WriteString(wrap(intro, 76))
	b.WriteString("\nUsage:\n\n")
	for _, line := range strings.SplitAfter(strings.TrimSuffix(synopsis(), "\n"), "\n") {
		b.WriteString("  " + line)
	}
	b.WriteString("\n\nRun \"conform help COMMAND\" or \"conform COMMAND -h\" for the options of a command.\n")
	b.WriteString(wrap(exitStatuses, 76))
	return b.String()
}

// help returns the text of "conform NAME -h" before the flags: the
// usage lines and the long description.
func (cmd *command) help() string {
	var b strings.Builder
	if len(cmd.usage) == 1 {
		fmt.Fprintf(&b, "Usage: conform %s\n", cmd.usage[0])
	} else {
		b.WriteString("Usage:\n")
		for _, u := range cmd.usage {
			fmt.Fprintf(&b, "  conform %s\n", u)
		}
	}
	b.WriteString("\n" + cmd.long)
	return b.String()
}

// wrap breaks text into lines of at most width bytes at spaces; each line
// ends in a newline.
func wrap(text string, width int) string {
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(text) {
		if i > 0 && line+1+len(word) > width {
			b.WriteString("\n")
			line = 0
		} else if i > 0 {
			b.WriteString(" ")
			line++
		}
		b.WriteString(word)
		line += len(word)
	}
	b.WriteString("\n")
	return b.String()
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs the command line args and returns the exit status. A panic
// (a bug in conform) is reported in one line with exit status 3; the
// stack is printed only with CONFORM_DEBUG=1.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if p := recover(); p != nil {
			code = internalFailure(stderr, "conform", &internalError{fmt.Sprint(p), debug.Stack()})
		}
	}()
	return dispatch(args, stdio{os.Stdin, stdout, stderr})
}

// internalFailure reports err, a bug in conform, in one line after
// prefix (its stack too when CONFORM_DEBUG=1), and returns exitInternal.
func internalFailure(stderr io.Writer, prefix string, err *internalError) int {
	printable.Fprintf(stderr, "%s: %v\n", prefix, err)
	if os.Getenv("CONFORM_DEBUG") == "1" {
		stderr.Write(err.stack)
	}
	return exitInternal
}

// dispatch runs the command args[0] with the arguments after it.
func dispatch(args []string, std stdio) int {
	if len(args) == 0 {
		fmt.Fprint(std.errout, helpText())
		return exitUsage
	}
	switch args[0] {
	case "-h", "-help", "--help":
		args = []string{"help"}
	}
	cmd := lookup(args[0])
	if cmd == nil {
		fmt.Fprintf(std.errout, "conform: unknown command %q\n\n%s", args[0], helpText())
		return exitUsage
	}
	fset, runCmd := cmd.flagSet(std.errout)
	positional, err := parseInterspersed(fset, args[1:])
	switch {
	case err == flag.ErrHelp:
		return exitOK
	case err != nil:
		return exitUsage
	}
	return runCmd(positional, std)
}

// flagSet returns the flag set of cmd, whose usage (-h, a bad flag) is
// written to w, and the function that runs cmd once it is parsed.
func (cmd *command) flagSet(w io.Writer) (*flag.FlagSet, func([]string, stdio) int) {
	fset := flag.NewFlagSet(cmd.name, flag.ContinueOnError)
	fset.SetOutput(w)
	fset.Usage = func() {
		fmt.Fprint(w, cmd.help())
		if hasFlags(fset) {
			fmt.Fprint(w, "\nOptions:\n")
			fset.PrintDefaults()
		}
	}
	return fset, cmd.define(fset)
}

// hasFlags reports whether fset defines any flag.
func hasFlags(fset *flag.FlagSet) bool {
	has := false
	fset.VisitAll(func(*flag.Flag) { has = true })
	return has
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

// internalError is a panic caught at the command boundary: a bug in
// conform, reported as such instead of crashing.
type internalError struct {
	msg   string // what the panic said
	stack []byte // where it happened
}

func (e *internalError) Error() string { return "internal error (please report): " + e.msg }
