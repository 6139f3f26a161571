package conformtest

import (
	"io"
	"os"
	"sort"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/protocol"
)

// Serve runs implementation as a conform/1 protocol child on the
// process's stdin and stdout, until stdin ends: the same adapter that
// Run puts under `go test` then runs under `conform check --impl`,
// `conform fuzz --impl` and `conform report --impl`. A main package of a
// few lines is enough:
//
//	func main() {
//		if err := conformtest.Serve(myAdapter{}); err != nil {
//			log.Fatal(err)
//		}
//	}
//
// The hello lists the ops whose interface implementation satisfies (and
// that Ops selects); errors are answered with their kind, a skip
// (errors.ErrUnsupported) as a skip, and a panic or an invalid result as
// a crash of that case only, with its code (CrashPanic, ...). Cases may be answered concurrently, so the
// implementation must be safe for concurrent use. The hello names the
// implementation as Named gives it, by its Go type otherwise. Options
// other than Ops and Named do not apply.
func Serve(implementation any, opts ...Option) error {
	return serveIO(os.Stdin, os.Stdout, implementation, opts)
}

// serveIO is Serve on any streams.
func serveIO(r io.Reader, w io.Writer, implementation any, opts []Option) error {
	c, a, err := setup(implementation, opts)
	if err != nil {
		return err
	}
	var ops []string
	for _, op := range casefile.OpNames() {
		if a.Supports(op) {
			ops = append(ops, op)
		}
	}
	sort.Strings(ops)
	hello := protocol.Hello{Name: a.Name(), Version: "conformtest", Ops: ops}
	if c.name != "" {
		hello.Version = c.version
	}
	return protocol.ServeAnswers(r, w, hello, func(line []byte) protocol.Answer {
		m, err := casefile.Parse(line, casefile.Base64Inputs)
		if err != nil {
			return wireError(err)
		}
		if reason := a.skipReason(m.Op); reason != "" {
			return protocol.Skip(reason, "")
		}
		return a.runCase(m)
	})
}

// wireError is the answer to a request conform cannot read: an error of
// err's kind, bad_input if it has none.
func wireError(err error) protocol.Answer {
	if a := protocol.ErrorAnswer(err); a.IsError() {
		return a
	}
	return protocol.Error(engine.BadInput, err.Error())
}
