package conformtest

import (
	"encoding/json"
	"io"
	"os"
	"sort"

	"github.com/conformsuite/conform/casefile"
	"github.com/conformsuite/conform/engine"
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
// implementation must be safe for concurrent use. Options other than Ops
// do not apply.
func Serve(implementation any, opts ...Option) error {
	return serveIO(os.Stdin, os.Stdout, implementation, opts)
}

// serveIO is Serve on any streams.
func serveIO(r io.Reader, w io.Writer, implementation any, opts []Option) error {
	_, a, err := setup(implementation, opts)
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
	return protocol.ServeFunc(r, w, hello, func(line []byte) map[string]any {
		var head struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(line, &head) != nil || len(head.ID) == 0 {
			return nil
		}
		resp := map[string]any{"id": head.ID}
		c, err := casefile.Parse(line, casefile.Base64Inputs)
		if err != nil {
			resp["error"] = errorObject(err)
			return resp
		}
		if reason := a.skipReason(c.Op); reason != "" {
			resp["skip"] = reason
			return resp
		}
		res := a.runCase(c)
		switch {
		case res.Crash != "":
			resp["crash"], resp["code"] = res.Crash, res.CrashCode
		case res.Skip != "":
			resp["skip"] = res.Skip
		case res.Kind != "":
			resp["error"] = map[string]string{"kind": string(res.Kind), "message": res.Message}
		default:
			resp["output"] = protocol.Output{T: res.Output}
		}
		return resp
	})
}

// errorObject is the protocol's error object for err.
func errorObject(err error) map[string]string {
	kind, msg := engine.KindOf(err), err.Error()
	if e, ok := err.(*engine.Error); ok {
		msg = e.Message
	}
	if kind == "" {
		kind = engine.BadInput
	}
	return map[string]string{"kind": string(kind), "message": msg}
}
