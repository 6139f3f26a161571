package protocol

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// The test binary re-runs itself as a conform/1 child (as protocol
// buffers' conformance runner does): TestMain calls runChild when
// CONFORM_TEST_CHILD names a behaviour.
//
// Every behaviour answers a request by its fields:
//
//	"value": "abc"        -> output base64("abc")
//	"kind": "out_of_range" -> error of that kind, with "message" if given
//	"skip": "why"         -> skip
//	"report": "why"       -> answer {"id": id, "crash": "why"}
//	"crash": true         -> write to stderr and exit with status 3
//	"hang": true          -> never answer
//	"garbage": "text"     -> write the line "text" first, then answer
//	"badfield": true      -> answer {"id": id, "output": 5}
//	"twice": true         -> answer twice, the same answer
//	"twice": "other"      -> answer, then answer again with output base64("other")
//	"longline": n         -> write n bytes of "x" and no newline, then never answer
//	"rawout": "{...}"     -> answer {"id":id,"output":{...}} (a raw array)
//
// The behaviours differ in how they start and in what order they answer.
const childEnv = "CONFORM_TEST_CHILD"

// childState names a file a "flaky" child counts its starts in.
const childStateEnv = "CONFORM_TEST_CHILD_STATE"

// countStart counts one more start of the child in the file
// childStateEnv names and returns how many there were before.
func countStart() int {
	path := os.Getenv(childStateEnv)
	data, _ := os.ReadFile(path)
	n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	os.WriteFile(path, []byte(strconv.Itoa(n+1)), 0o644)
	return n
}

func runChild(mode string) {
	out := bufio.NewWriter(os.Stdout)
	hello := func() {
		fmt.Fprintln(out, `{"hello": {"name": "testchild", "version": "1.0", "ops": ["getitem", "slice"]}}`)
		out.Flush()
	}
	switch mode {
	case "badhello":
		fmt.Fprintln(out, `{"greeting": "hi"}`)
		out.Flush()
		time.Sleep(time.Hour)
	case "nohello":
		fmt.Fprintln(os.Stderr, "cannot start: missing library")
		os.Exit(7)
	case "slowhello":
		time.Sleep(time.Hour)
	case "flaky":
		// The first start succeeds; every later one dies at hello.
		if countStart() > 0 {
			fmt.Fprintln(os.Stderr, "flaky: refusing to start again")
			os.Exit(5)
		}
		hello()
	case "rawonce":
		// The first start takes raw arrays; every later one says a
		// plain hello.
		if countStart() > 0 {
			hello()
			break
		}
		fmt.Fprintln(out, `{"hello": {"name": "testchild", "version": "1.0", "ops": ["getitem", "slice"], "arrays": "raw"}}`)
		out.Flush()
	case "exitclean":
		hello()
	case "exit0":
		fmt.Fprintln(os.Stderr, "nothing to do here")
		os.Exit(0)
	case "bigname":
		// A hello whose name and version are 200 KiB each.
		long := strings.Repeat("n", 200<<10)
		fmt.Fprintf(out, `{"hello": {"name": %q, "version": %q, "ops": ["getitem", %q]}}`+"\n", long, long, long)
		out.Flush()
	case "raw":
		// Takes raw arrays; answers as the default child does.
		fmt.Fprintln(out, `{"hello": {"name": "testchild", "version": "1.0", "ops": ["getitem", "slice"], "arrays": "raw"}}`)
		out.Flush()
	case "hangall":
		// Says hello, then never answers anything.
		hello()
		time.Sleep(time.Hour)
	default:
		hello()
	}

	lines := make(chan []byte, 1024)
	go func() {
		sc := bufio.NewScanner(os.Stdin)
		sc.Buffer(make([]byte, 1<<20), 1<<30)
		for sc.Scan() {
			lines <- append([]byte(nil), sc.Bytes()...)
		}
		close(lines)
	}()
	for {
		line, ok := <-lines
		if !ok {
			out.Flush()
			if mode == "exitdirty" {
				os.Exit(9)
			}
			return
		}
		batch := [][]byte{line}
		if mode == "reverse" {
			// Take whatever else is already there and answer the batch
			// backwards.
			time.Sleep(time.Millisecond)
		drain:
			for {
				select {
				case l, ok := <-lines:
					if !ok {
						break drain
					}
					batch = append(batch, l)
				default:
					break drain
				}
			}
			for i, j := 0, len(batch)-1; i < j; i, j = i+1, j-1 {
				batch[i], batch[j] = batch[j], batch[i]
			}
		}
		for _, l := range batch {
			answer(out, l)
		}
		out.Flush()
	}
}

func answer(out *bufio.Writer, line []byte) {
	var req map[string]any
	if err := json.Unmarshal(line, &req); err != nil {
		fmt.Fprintf(os.Stderr, "child: bad request %q\n", line)
		return
	}
	id, _ := json.Marshal(req["id"])
	if req["crash"] == true {
		out.Flush()
		for i := 0; i < 200; i++ {
			fmt.Fprintf(os.Stderr, "noise line %d\n", i)
		}
		fmt.Fprintf(os.Stderr, "fatal: crashing on request %s\n", id)
		os.Exit(3)
	}
	if req["hang"] == true {
		out.Flush()
		time.Sleep(time.Hour)
	}
	if n, ok := req["longline"].(float64); ok {
		out.Flush()
		chunk := []byte(strings.Repeat("x", 1<<16))
		for left := int(n); left > 0; left -= len(chunk) {
			if left < len(chunk) {
				chunk = chunk[:left]
			}
			if _, err := os.Stdout.Write(chunk); err != nil {
				os.Exit(4) // the client stopped reading
			}
		}
		time.Sleep(time.Hour)
	}
	if g, ok := req["garbage"].(string); ok {
		fmt.Fprintln(out, g)
	}
	if o, ok := req["rawout"].(string); ok {
		fmt.Fprintf(out, "{\"id\":%s,\"output\":%s}\n", id, o)
		return
	}
	if req["badfield"] == true {
		fmt.Fprintf(out, "{\"id\": %s, \"output\": 5}\n", id)
		return
	}
	var resp string
	switch {
	case req["kind"] != nil:
		msg, ok := req["message"].(string)
		if !ok {
			msg = "rejected"
		}
		resp = fmt.Sprintf(`{"id": %s, "error": {"kind": %q, "message": %q}}`, id, req["kind"], msg)
	case req["skip"] != nil:
		resp = fmt.Sprintf(`{"id": %s, "skip": %q}`, id, req["skip"])
	case req["report"] != nil:
		resp = fmt.Sprintf(`{"id": %s, "crash": %q}`, id, req["report"])
	default:
		v, _ := req["value"].(string)
		resp = fmt.Sprintf(`{"id": %s, "output": %q}`, id, base64.StdEncoding.EncodeToString([]byte(v)))
	}
	fmt.Fprintln(out, resp)
	switch again := req["twice"].(type) {
	case bool:
		if again {
			fmt.Fprintln(out, resp)
		}
	case string:
		fmt.Fprintf(out, "{\"id\": %s, \"output\": %q}\n", id, base64.StdEncoding.EncodeToString([]byte(again)))
	}
}
